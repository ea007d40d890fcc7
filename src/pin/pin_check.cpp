#include "pin_check.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "json.hpp"
#include "text.hpp"

namespace affix {

namespace {

// The mode word of a numa_maps policy: what comes before '=' (flags) or
// ':' (nodes): "bind", "prefer", "prefer (many)", "interleave", "weighted
// interleave", "default".
std::string_view policy_mode(std::string_view policy) {
  return policy.substr(0, policy.find_first_of("=:"));
}

std::string comm_of(const SysRoot& root, pid_t pid, pid_t tid) {
  try {
    if (auto st = read_stat(root, task_dir(pid, tid))) return st->comm;
  } catch (const Error&) {
  }
  return {};
}

MemoryCheck check_memory(const SysRoot& root, pid_t pid, const MemExpect& mem) {
  MemoryCheck m;
  m.pid = pid;
  auto usage = read_numa_usage(root, pid);
  if (!usage) {
    m.policy_ok = m.pages_ok = false;
    return m;
  }
  m.readable = true;
  m.policy = usage->policy.empty() ? "default" : usage->policy;
  if (mem.policy_asked) m.policy_ok = policy_matches(m.policy, mem.policy, mem.nodes);
  m.anon = usage->anon;
  for (const auto& [node, count] : m.anon) {
    m.anon_total += count;
    if (!mem.nodes.test(node)) m.outside += count;
  }
  if (mem.pages_asked) m.pages_ok = m.outside == 0;
  return m;
}

std::string nodes_word(const CpuSet& nodes) {
  return fmt::format("node{} {}", nodes.count() == 1 ? "" : "s", format_cpulist(nodes));
}

// Nodes (of `anon`) that hold pages outside `nodes`.
CpuSet nodes_outside(const NodePages& anon, const CpuSet& nodes) {
  CpuSet out;
  for (const auto& [node, count] : anon)
    if (count > 0 && !nodes.test(node)) out.set(node);
  return out;
}

// Which part of the memory fails, for the target's line: the policy, the
// pages, or what could not be read.
std::string memory_verdict(const TargetCheck& c) {
  if (!c.mem) return {};
  bool unknown = false, policy = false, pages = false;
  for (const auto& m : c.memory) {
    unknown = unknown || !m.readable;
    policy = policy || (m.readable && !m.policy_ok);
    pages = pages || (m.readable && !m.pages_ok);
  }
  std::string out;
  if (policy) out += ", memory policy not " + numa_maps_policy(c.mem->policy, c.mem->nodes);
  if (pages) out += ", anonymous pages outside " + nodes_word(c.mem->nodes);
  if (unknown) out += ", memory unknown";
  return out;
}

std::string target_line(const TargetCheck& c, const SchedRequest& sched) {
  const auto& t = c.target;
  if (t.exited) return fmt::format("{}: exited during the check\n", t.request.id);
  std::string what = plural(c.threads, "thread", "threads");
  if (t.request.scope == PinScope::Tree) what = plural(c.processes, "process", "processes") + ", " + what;
  std::string where = t.place.spread.empty()
                          ? fmt::format("CPUs {}", format_cpulist(t.place.cpus))
                          : fmt::format("the CPU --spread{} gives each, of CPUs {}",
                                        t.place.per_cpu > 1 ? fmt::format("={}", t.place.per_cpu) : "",
                                        format_cpulist(t.place.cpus));
  std::string policy;
  if (sched.any())
    policy = c.off_policy.empty() ? ", with " + sched_request_text(sched)
                                  : fmt::format(", {} not with {}", c.off_policy.size(), sched_request_text(sched));
  policy += memory_verdict(c);
  if (t.place.keep_cpus) return fmt::format("{}: {}{}\n", t.request.id, what, policy);  // no WHERE: no CPUs asked
  if (c.outside.empty()) return fmt::format("{}: {} within {}{}\n", t.request.id, what, where, policy);
  return fmt::format("{}: {}, {} not within {}{}\n", t.request.id, what, c.outside.size(), where, policy);
}

// "policy other, nice 0 (asked: policy batch, nice 5)"
std::string policy_off_text(const SchedAttr& have, const SchedRequest& sched) {
  return fmt::format("{} (asked: {})", sched_have_text(have, sched), sched_request_text(sched));
}

std::string memory_lines(const TargetCheck& c) {
  std::string out;
  if (!c.mem) return out;
  for (const auto& m : c.memory) {
    if (!m.readable) {
      out += fmt::format("  {}: memory unknown (its numa_maps cannot be read)\n", m.pid);
      continue;
    }
    if (c.mem->policy_asked) {
      std::string want = numa_maps_policy(c.mem->policy, c.mem->nodes);
      out += m.policy_ok ? fmt::format("  {}: memory policy {}, as asked ({})\n", m.pid, printable(m.policy), want)
                         : fmt::format("  {}: memory policy {}, not {}\n", m.pid, printable(m.policy), want);
    }
    if (c.mem->pages_asked) {
      if (m.outside == 0) {
        out += fmt::format("  {}: {} anonymous {}, all on {}\n", m.pid, grouped(m.anon_total),
                           m.anon_total == 1 ? "page" : "pages", nodes_word(c.mem->nodes));
      } else {
        out += fmt::format("  {}: {} of {} anonymous pages on {}, outside {}\n", m.pid, grouped(m.outside),
                           grouped(m.anon_total), nodes_word(nodes_outside(m.anon, c.mem->nodes)),
                           format_cpulist(c.mem->nodes));
      }
    }
  }
  return out;
}

// "env": null without --gpu, else one object per process.
void env_json(JsonWriter& j, const TargetCheck& c) {
  j.key("env");
  if (!c.env) {
    j.null();
    return;
  }
  j.begin_array();
  for (const auto& e : c.envs) {
    j.begin_object();
    j.field("pid", static_cast<long long>(e.pid));
    j.field("gpu", c.env->gpu);
    j.field("readable", e.readable);
    j.field("ok", e.ok);
    j.key("wrong");
    j.begin_array();
    for (const auto& w : e.wrong) {
      j.begin_object();
      j.field("name", w.name);
      j.field("value", w.value);
      j.field("want", w.want);
      j.key("names");  // what the GPU's variable names instead; null where the texts were compared
      if (w.named.empty()) j.null();
      else j.value(w.named);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

}  // namespace

std::optional<MemExpect> mem_expect(MemPolicy policy, const CpuSet& nodes, bool mem_given, bool gpu_given,
                                    bool migrate) {
  if (!mem_given && !gpu_given && !migrate) return std::nullopt;
  return MemExpect{policy, nodes, gpu_given || (mem_given && !migrate), migrate};
}

bool policy_matches(std::string_view policy, MemPolicy want, const CpuSet& nodes) {
  std::string_view mode = policy_mode(policy);
  auto have = policy_nodes(policy);
  if (!have) return false;
  switch (want) {
    case MemPolicy::Local: return mode == "local" || mode == "default";
    case MemPolicy::Bind: return mode == "bind" && !have->empty() && have->is_subset_of(nodes);
    case MemPolicy::Preferred:
      return (mode == "prefer" || mode == "prefer (many)") && !have->empty() && have->is_subset_of(nodes);
    case MemPolicy::Interleave: return mode == "interleave" && *have == nodes;
    case MemPolicy::Weighted: return mode == "weighted interleave" && *have == nodes;
  }
  return false;
}

std::string numa_maps_policy(MemPolicy policy, const CpuSet& nodes) {
  switch (policy) {
    case MemPolicy::Local: return "local";
    case MemPolicy::Bind: return "bind:" + format_cpulist(nodes);
    case MemPolicy::Preferred: return (nodes.count() > 1 ? "prefer (many):" : "prefer:") + format_cpulist(nodes);
    case MemPolicy::Interleave: return "interleave:" + format_cpulist(nodes);
    case MemPolicy::Weighted: return "weighted interleave:" + format_cpulist(nodes);
  }
  return {};
}

CheckReport check_pin(const SysRoot& root, const PinReport& report,
                      const std::function<std::optional<MemExpect>(const TargetReport&)>& mem_of,
                      const std::function<std::optional<EnvExpect>(const TargetReport&)>& env_of) {
  CheckReport out;
  out.sched = report.sched;
  for (const auto& t : report.targets) {
    TargetCheck c;
    c.target = t;
    c.ok = !t.exited;
    if (!t.exited) c.mem = mem_of(t);
    if (!t.exited && env_of) c.env = env_of(t);
    for (const auto& p : t.processes) {
      if (p.exited) continue;
      ++c.processes;
      for (const auto& th : p.threads) {
        if (th.gone || !th.seen) continue;
        ++c.threads;
        pid_t pid = t.request.scope == PinScope::Thread ? th.tid : p.pid;
        if (report.sched.any() && !sched_satisfies(th.sched_before, report.sched))
          c.off_policy.push_back({p.pid, th.tid, thread_name(root, pid, th.tid), comm_of(root, pid, th.tid),
                                  th.sched_before});
        if (th.before.is_subset_of(th.want)) continue;
        c.outside.push_back({p.pid, th.tid, thread_name(root, pid, th.tid), comm_of(root, pid, th.tid),
                             th.before, th.want});
      }
      if (c.mem) c.memory.push_back(check_memory(root, p.pid, *c.mem));
      if (c.env) c.envs.push_back(check_env(root, p.pid, *c.env));
    }
    c.ok = c.ok && c.outside.empty() && c.off_policy.empty();
    for (const auto& m : c.memory) c.ok = c.ok && m.policy_ok && m.pages_ok;
    for (const auto& e : c.envs) c.ok = c.ok && e.ok;
    out.ok = out.ok && c.ok;
    out.targets.push_back(std::move(c));
  }
  return out;
}

std::string format_check(const SysRoot& root, const CheckReport& report, bool verbose) {
  std::string out;
  for (const auto& c : report.targets) {
    out += target_line(c, report.sched);
    if (c.target.exited) continue;
    if (verbose) {
      const bool tree = c.target.request.scope == PinScope::Tree;
      for (const auto& p : c.target.processes) {
        if (p.exited) continue;
        if (tree) out += fmt::format("  process {}\n", thread_name(root, p.pid, p.pid));
        for (const auto& th : p.threads) {
          if (th.gone || !th.seen) continue;
          pid_t pid = c.target.request.scope == PinScope::Thread ? th.tid : p.pid;
          bool within = th.before.is_subset_of(th.want);
          std::string policy;
          if (report.sched.any())
            policy = sched_satisfies(th.sched_before, report.sched)
                         ? ", " + sched_have_text(th.sched_before, report.sched) + " as asked"
                         : ", " + policy_off_text(th.sched_before, report.sched);
          out += fmt::format("{}  {}: cpus {}, {} {}{}\n", tree ? "  " : "", thread_name(root, pid, th.tid),
                             format_cpulist(th.before), within ? "within" : "not within", format_cpulist(th.want),
                             policy);
        }
      }
    } else {
      for (const auto& o : c.outside)
        out += fmt::format("  {}: cpus {}, not within {}\n", o.name, format_cpulist(o.cpus), format_cpulist(o.want));
      for (const auto& o : c.off_policy)
        out += fmt::format("  {}: {}\n", o.name, policy_off_text(o.have, report.sched));
    }
    out += memory_lines(c);
    for (const auto& e : c.envs) out += env_check_lines(e, *c.env);
  }
  if (report.weights) out += report.weights->text + "\n";
  for (const auto& sh : report.shields) {
    std::string label = fmt::format("shield {} (CPUs {})", printable(sh.name), format_cpulist(sh.cpus));
    if (sh.problems.empty()) out += label + ": held, no other task on its CPUs\n";
    for (const auto& p : sh.problems) out += fmt::format("{}: {}\n", label, p);
  }
  return out;
}

std::string check_json(const CheckReport& report) {
  JsonWriter j;
  j.begin_object();
  j.field("ok", report.ok);
  j.key("targets");
  j.begin_array();
  for (const auto& c : report.targets) {
    const auto& t = c.target;
    j.begin_object();
    j.field("id", static_cast<long long>(t.request.id));
    j.field("scope", t.request.scope == PinScope::Thread ? "thread" : t.request.scope == PinScope::Tree ? "tree" : "process");
    j.key("cpus");  // null without WHERE (the CPUs kept)
    if (t.place.keep_cpus) j.null(); else j.value(format_cpulist(t.place.cpus));
    j.key("spread");
    if (t.place.spread.empty()) j.null(); else j.value(std::max(1u, t.place.per_cpu));
    j.field("exited", t.exited);
    j.field("ok", c.ok);
    j.field("processes", static_cast<unsigned long long>(c.processes));
    j.field("threads", static_cast<unsigned long long>(c.threads));
    j.key("outside");
    j.begin_array();
    for (const auto& o : c.outside) {
      j.begin_object();
      j.field("pid", static_cast<long long>(o.pid));
      j.field("tid", static_cast<long long>(o.tid));
      j.field("comm", o.comm);
      j.field("cpus", format_cpulist(o.cpus));
      j.field("want", format_cpulist(o.want));
      j.end_object();
    }
    j.end_array();
    // Only with a scheduling request: what was asked, and every thread without it.
    if (report.sched.any()) {
      j.field("policy", sched_request_text(report.sched));
      j.key("policy_off");
      j.begin_array();
      for (const auto& o : c.off_policy) {
        j.begin_object();
        j.field("pid", static_cast<long long>(o.pid));
        j.field("tid", static_cast<long long>(o.tid));
        j.field("comm", o.comm);
        j.field("have", sched_have_text(o.have, report.sched));
        j.end_object();
      }
      j.end_array();
    }
    j.key("memory");
    if (!c.mem) {
      j.null();
    } else {
      j.begin_array();
      for (const auto& m : c.memory) {
        j.begin_object();
        j.field("pid", static_cast<long long>(m.pid));
        j.key("policy");
        if (m.readable) j.value(m.policy); else j.null();
        j.key("want_policy");
        if (c.mem->policy_asked) j.value(numa_maps_policy(c.mem->policy, c.mem->nodes)); else j.null();
        j.field("policy_ok", m.policy_ok);
        j.field("nodes", format_cpulist(c.mem->nodes));
        node_counts_field(j, "anon_pages", m.readable ? std::optional<NodePages>(m.anon) : std::nullopt);
        j.key("anon_outside");
        if (m.readable) j.value(m.outside); else j.null();
        j.field("pages_ok", m.pages_ok);
        j.end_object();
      }
      j.end_array();
    }
    env_json(j, c);
    j.end_object();
  }
  j.end_array();
  j.key("weights");
  if (!report.weights) {
    j.null();
  } else {
    j.begin_object();
    j.field("ok", report.weights->ok);
    j.key("nodes");
    j.begin_array();
    for (const auto& n : report.weights->nodes) {
      j.begin_object();
      j.field("node", static_cast<unsigned long long>(n.node));
      j.key("now");
      if (n.now) j.value(static_cast<unsigned long long>(*n.now)); else j.null();
      j.key("want");
      if (n.want) j.value(static_cast<unsigned long long>(*n.want)); else j.null();
      j.end_object();
    }
    j.end_array();
    j.key("auto_mode");
    if (report.weights->auto_mode) j.value(*report.weights->auto_mode); else j.null();
    j.end_object();
  }
  j.key("shields");
  j.begin_array();
  for (const auto& sh : report.shields) {
    j.begin_object();
    j.field("name", sh.name);
    j.field("cpus", format_cpulist(sh.cpus));
    j.field("ok", sh.problems.empty());
    j.key("problems");
    j.begin_array();
    for (const auto& p : sh.problems) j.value(p);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

}  // namespace affix
