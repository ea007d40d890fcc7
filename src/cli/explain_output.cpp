#include "explain_output.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "error.hpp"
#include "explain_gpu.hpp"
#include "explain_sched.hpp"
#include "json.hpp"
#include "memory_text.hpp"
#include "text.hpp"
#include "topo_output.hpp"

namespace affix {

namespace {

std::string sequence_text(const std::vector<unsigned>& sequence) {
  std::string out;
  for (unsigned cpu : sequence) {
    if (!out.empty()) out += ',';
    out += std::to_string(cpu);
  }
  return out;
}

bool ascending(const std::vector<unsigned>& sequence) {
  for (size_t i = 1; i < sequence.size(); ++i)
    if (sequence[i] < sequence[i - 1]) return false;
  return true;
}

// nginx's limits: a worker_cpu_affinity mask has at most CPU_SETSIZE (1024)
// digits (ngx_set_cpu_affinity, src/core/nginx.c), and the master runs at
// most NGX_MAX_PROCESSES (1024) children at once (ngx_spawn_process,
// src/os/unix/ngx_process.c); a reload starts the new workers before the old
// ones exit (ngx_master_process_cycle, src/os/unix/ngx_process_cycle.c).
constexpr unsigned k_nginx_cpus = 1024;
constexpr uint64_t k_nginx_processes = 1024;

uint64_t nginx_workers(const Placement& p, unsigned per_cpu) {
  return uint64_t{p.sequence.size()} * std::max(1u, per_cpu);
}

// worker_processes and worker_cpu_affinity: per_cpu workers on each CPU of
// the sequence in turn, nginx's worker k on the k-th mask.
std::string nginx_lines(const Placement& p, unsigned per_cpu) {
  per_cpu = std::max(1u, per_cpu);
  unsigned highest = 0;
  for (unsigned cpu : p.sequence) highest = std::max(highest, cpu);
  if (highest >= k_nginx_cpus)
    throw Error(ErrorKind::Resolution,
                fmt::format("nginx's worker_cpu_affinity takes CPUs 0 to 1023 only: the selection has CPU {}",
                            highest),
                "its masks have at most 1024 digits (CPU_SETSIZE): leave out the CPUs from 1024 on (--exclude)");
  uint64_t workers = nginx_workers(p, per_cpu);
  if (workers > k_nginx_processes)
    throw Error(ErrorKind::Resolution,
                fmt::format("{} workers are more than nginx runs: its master starts at most 1024 processes",
                            workers),
                "take fewer CPUs (-n) or fewer workers per CPU (--spread=N)");
  std::string out = fmt::format("worker_processes {};\nworker_cpu_affinity", workers);
  out.reserve(out.size() + workers * (highest + 2) + 2);
  for (unsigned cpu : p.sequence) {
    std::string mask(highest + 1, '0');
    mask[highest - cpu] = '1';  // CPU 0 is the rightmost digit
    for (unsigned k = 0; k < per_cpu; ++k) out += " " + mask;
  }
  return out + ";\n";
}

// The CPUs `self` names: affix's inherited affinity within what is allowed.
CpuSet self_cpus(const Allowed& allowed) {
  return allowed.inherited ? *allowed.inherited & allowed.cpus : allowed.cpus;
}

// "eth0 (net): PCI 0000:02:00.0, node 0, CPUs 0-7"; "no node (numa_node
// -1)" where the kernel places it on none, as topo says.
std::string near_text(const NearDevice& n) {
  std::string node = n.device.numa_node < 0 ? std::string("no node (numa_node -1)")
                                             : fmt::format("node {}", n.device.numa_node);
  return fmt::format("{} ({}): PCI {}, {}, CPUs {}", printable(n.device.name), n.device.kind,
                     n.device.pci.text(), node, list_or_none(n.place.cpus));
}

// "mem": policy and nodes; "terms" where a selector had a tier: or mem:
// term, "weights" for weighted (affix(1), OUTPUT).
void write_mem_json(JsonWriter& j, const Placement& p) {
  j.begin_object();
  j.field("policy", mem_policy_name(*p.mem_policy));
  j.field("nodes", format_cpulist(p.mem_nodes));
  if (!p.mem_terms.empty()) {
    j.key("terms");
    j.begin_array();
    for (const auto& [text, nodes] : p.mem_terms) {
      j.begin_object();
      j.field("term", text);
      j.field("nodes", format_cpulist(nodes));
      j.end_object();
    }
    j.end_array();
  }
  if (p.weights) {
    const WeightPlan& w = *p.weights;
    j.key("weights");
    j.begin_object();
    constexpr const char* k_sources[] = {"kernel", "given", "kernel-auto", "bandwidth"};  // WeightSource's order
    j.field("source", k_sources[static_cast<int>(w.source)]);
    j.field("kernel_has_weights", w.present);
    j.field("auto_mode", w.auto_now);
    j.field("turn_auto_on", w.turn_auto_on);
    j.key("nodes");
    j.begin_array();
    for (const NodeWeight& n : w.nodes) {
      j.begin_object();
      j.field("node", n.node);
      j.field("now", n.now);
      j.field("weight", n.want ? n.want : n.now);
      j.field("bandwidth_mbs", n.bandwidth);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_object();
}

}  // namespace

std::string explain_text(const Placement& p, const Allowed& allowed, const PlacementEnv& env,
                         const SchedRequest& sched) {
  std::string out;
  unsigned n = p.cpus.count();
  explain_line(out, "cpus", fmt::format("{} ({} CPU{})", format_cpulist(p.cpus), n, n == 1 ? "" : "s"));
  if (!ascending(p.sequence)) explain_line(out, "order", sequence_text(p.sequence));
  explain_line(out, "sockets", format_cpulist(p.sockets));
  explain_line(out, "nodes", format_cpulist(p.nodes));
  for (const NearDevice& device : p.near) explain_line(out, "near", near_text(device));
  if (p.gpu) out += explain_gpu_text(*p.gpu);
  explain_line(out, "allowed", fmt::format("CPUs {}, nodes {} (from {})", format_cpulist(allowed.cpus),
                                   format_cpulist(allowed.mems), printable(allowed.source)));
  CpuSet self = self_cpus(allowed);
  if (!(self == allowed.cpus))
    explain_line(out, "self", fmt::format("CPUs {} (affix was started on these)", self.empty() ? "none" : format_cpulist(self)));
  if (!p.mem_policy)
    explain_line(out, "memory", "policy unchanged (no --mem)");
  else
    explain_line(out, "memory", memory_policy_text(p));
  if (p.weights) explain_line(out, "weights", weights_plan_text(*p.weights));
  if (sched.any()) explain_line(out, "sched", explain_sched_line(sched));
  const char* label = "dropped";
  for (auto& d : p.dropped) {
    explain_line(out, label, fmt::format("{} {}", format_cpulist(d.cpus), d.reason));
    label = "";
  }
  label = "env";
  for (auto& [name, value] : env.exported) {
    explain_line(out, label, fmt::format("{}={}", name, value));
    label = "";
  }
  label = "kept";
  for (auto& [name, value] : env.kept) {
    explain_line(out, label, fmt::format("{}={} (set by the user)", name, printable(value)));
    label = "";
  }
  for (auto& w : p.warnings) explain_line(out, "warning", w);
  return out;
}

std::string explain_json(const Placement& p, const Allowed& allowed, const PlacementEnv& env,
                         const SchedRequest& sched) {
  JsonWriter j;
  j.begin_object();
  j.field("cpus", format_cpulist(p.cpus));
  j.field("count", p.cpus.count());
  j.key("sequence");
  j.begin_array();
  for (unsigned cpu : p.sequence) j.value(cpu);
  j.end_array();
  j.field("sockets", format_cpulist(p.sockets));
  j.field("nodes", format_cpulist(p.nodes));
  // Only where WHERE names a device (affix(1), OUTPUT).
  if (!p.near.empty()) j.key("near");
  if (!p.near.empty()) j.begin_array();
  for (const NearDevice& n : p.near) {
    j.begin_object();
    j.field("device", n.device.name);
    j.field("class", n.device.kind);
    j.field("pci", n.device.pci.text());
    j.key("node");
    if (n.device.numa_node >= 0) j.value(n.device.numa_node);
    else j.null();
    j.field("cpus", format_cpulist(n.place.cpus));
    j.end_object();
  }
  if (!p.near.empty()) j.end_array();
  if (p.gpu) explain_gpu_json(j, *p.gpu);  // only with --gpu (affix(1), OUTPUT)
  write_allowed_json(j, allowed);
  j.field("self", format_cpulist(self_cpus(allowed)));
  j.key("mem");
  if (p.mem_policy) {
    write_mem_json(j, p);
  } else {
    j.null();
  }
  if (sched.any()) {  // only with a scheduling option (affix(1), OUTPUT)
    j.key("sched");
    write_sched_json(j, sched);
  }
  j.key("dropped");
  j.begin_array();
  for (auto& d : p.dropped) {
    j.begin_object();
    j.field("cpus", format_cpulist(d.cpus));
    j.field("reason", d.reason);
    j.end_object();
  }
  j.end_array();
  j.key("env");
  j.begin_object();
  for (auto& [name, value] : env.exported) j.field(name, value);
  j.end_object();
  j.key("env_kept");
  j.begin_object();
  for (auto& [name, value] : env.kept) j.field(name, value);
  j.end_object();
  j.key("warnings");
  j.begin_array();
  for (auto& w : p.warnings) j.value(w);
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

std::string explain_as(const Placement& p, AsFormat format, unsigned per_cpu, const SchedRequest& sched) {
  std::string cpus = format_cpulist(p.cpus);
  std::string mems = p.mem_nodes.empty() ? std::string() : format_cpulist(p.mem_nodes);
  switch (format) {
    case AsFormat::Systemd: {
      std::string out = fmt::format("CPUAffinity={}\n", cpus);
      if (p.mem_policy == MemPolicy::Weighted)
        throw Error(ErrorKind::Resolution, "systemd's NUMAPolicy= has no weighted interleave",
                    "start the service's command under affix: ExecStart=affix --mem weighted:NODES WHERE -- COMMAND");
      if (p.mem_policy) {
        // systemd's "preferred" takes one node; several are "preferred-many"
        // (systemd 256 and later: affix(1), explain --as).
        bool many = *p.mem_policy == MemPolicy::Preferred && p.mem_nodes.count() > 1;
        out += fmt::format("NUMAPolicy={}\n", many ? "preferred-many" : mem_policy_name(*p.mem_policy));
        if (*p.mem_policy != MemPolicy::Local) out += fmt::format("NUMAMask={}\n", mems);
      }
      return out + systemd_sched_lines(sched);
    }
    case AsFormat::Nginx:
      return nginx_lines(p, per_cpu);
    case AsFormat::Docker:
      return fmt::format("--cpuset-cpus={}\n--cpuset-mems={}\n", cpus,
                         p.mem_policy && !mems.empty() ? mems : format_cpulist(p.nodes));
    case AsFormat::Taskset:
      return fmt::format("taskset -c {}\n", cpus);
    case AsFormat::Numactl: {
      std::string out = fmt::format("numactl --physcpubind={}", cpus);
      if (p.mem_policy) {
        switch (*p.mem_policy) {
          case MemPolicy::Bind: out += " --membind=" + mems; break;
          case MemPolicy::Preferred:
            out += (p.mem_nodes.count() == 1 ? " --preferred=" : " --preferred-many=") + mems;
            break;
          case MemPolicy::Interleave: out += " --interleave=" + mems; break;
          case MemPolicy::Weighted: out += " --weighted-interleave=" + mems; break;
          case MemPolicy::Local: out += " --localalloc"; break;
        }
      }
      return out + "\n";
    }
  }
  return {};
}

std::vector<std::string> explain_as_warnings(const Placement& p, AsFormat format, unsigned per_cpu,
                                             const SchedRequest& sched) {
  std::vector<std::string> out = sched_as_warnings(sched, format);
  if (format == AsFormat::Numactl && p.mem_policy == MemPolicy::Weighted)
    out.push_back("numactl --weighted-interleave (numactl 2.0.19 and later) uses the weights the kernel has and "
                  "sets none: " + weights_plan_text(*p.weights));
  if (format != AsFormat::Nginx) return out;
  if (p.mem_policy)
    out.push_back("nginx has no memory policy directive: these lines leave --mem out; the workers inherit "
                  "the master's policy, so start nginx under 'affix --mem ...' or systemd's NUMAPolicy=");
  uint64_t workers = nginx_workers(p, per_cpu);
  if (2 * workers > k_nginx_processes)
    out.push_back(fmt::format("{} workers: nginx runs at most 1024 processes and starts a reload's new "
                              "workers before the old ones exit, so after 'nginx -s reload' only {} would run",
                              workers, k_nginx_processes - workers));
  return out;
}

}  // namespace affix
