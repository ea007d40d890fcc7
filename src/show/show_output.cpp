#include "show_output.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "json.hpp"
#include "show_table.hpp"
#include "text.hpp"

namespace affix {

namespace {

// The TIDS column stops at about this many characters ("+N more" after);
// --json has every TID.
constexpr size_t k_tids_width = 30;

// "fifo:50", "other nice 5 slice 3ms" (sched_attr_text); "-" where unknown.
std::string policy_text(const ThreadView& t) { return t.sched ? sched_attr_text(*t.sched) : "-"; }

// Threads that share a CPU list and a policy, in the order of their first TID.
struct Group {
  std::string policy;
  CpuSet cpus;
  std::vector<pid_t> tids;
  CpuSet last_cpus;
  CpuSet last_nodes;
  std::set<std::string> comms;
};

std::vector<Group> group_threads(const ProcessView& view, const CpuSet* narrower_than = nullptr) {
  std::vector<Group> groups;
  std::map<std::pair<std::vector<uint64_t>, std::string>, size_t> index;
  for (const auto& t : view.threads) {
    if (narrower_than && (*narrower_than - t.cpus).empty()) continue;
    // --pinned groups by CPU list alone (its text shows no policy).
    std::string policy = narrower_than ? std::string() : policy_text(t);
    auto [it, added] = index.emplace(std::make_pair(t.cpus.words(), policy), groups.size());
    if (added) groups.push_back(Group{policy, t.cpus, {}, {}, {}, {}});
    Group& g = groups[it->second];
    g.tids.push_back(t.tid);
    if (t.last_cpu >= 0) g.last_cpus.set(static_cast<unsigned>(t.last_cpu));
    if (t.last_node >= 0) g.last_nodes.set(static_cast<unsigned>(t.last_node));
    g.comms.insert(t.comm);
  }
  return groups;
}

std::string list_or_dash(const CpuSet& set) { return set.empty() ? "-" : format_cpulist(set); }

// The CPUs a group's threads last ran on, ascending, as a cpulist whose
// runs outside the group's CPU list end in '*' (not run on since the list
// changed): "0*,1", "2-3*" (CPUs 2 and 3 both outside).
std::string last_cpus_text(const Group& g) {
  if (g.last_cpus.empty()) return "-";
  std::string out;
  long first = -1, last = -1;
  bool stale = false;
  auto flush = [&] {
    if (first < 0) return;
    out += (out.empty() ? "" : ",") + std::to_string(first);
    if (last > first) out += "-" + std::to_string(last);
    if (stale) out += "*";
  };
  g.last_cpus.for_each([&](unsigned cpu) {
    bool outside = !g.cpus.test(cpu);
    if (first >= 0 && static_cast<long>(cpu) == last + 1 && outside == stale) {
      last = cpu;
      return;
    }
    flush();
    first = last = cpu;
    stale = outside;
  });
  flush();
  return out;
}

// Names are data: each one escaped (printable), so it stays one cell of
// one line.
std::string comm_list(const std::set<std::string>& comms) {
  std::string out;
  size_t shown = 0;
  for (const auto& c : comms) {
    if (shown == 4) return out + ",...";
    out += (out.empty() ? "" : ",") + printable(c);
    ++shown;
  }
  return out;
}

// Where the process's threads may run: the union of their lists.
CpuSet threads_cpus(const ProcessView& view) {
  if (view.threads.empty()) return view.cpus;
  CpuSet out;
  for (const auto& t : view.threads) out |= t.cpus;
  return out;
}

bool threads_differ(const ProcessView& view) {
  for (const auto& t : view.threads)
    if (!(t.cpus == view.threads.front().cpus)) return true;
  return false;
}

// "anon 0:216 1:5; file 0:10 1:1072": its own memory, then the page cache
// of the files it maps.
std::string pages_text(const ProcessView& view) {
  if (!view.pages || !view.anon_pages || !view.file_pages) return "pages unknown";
  return fmt::format("anon {}; file {}", format_node_counts(*view.anon_pages), format_node_counts(*view.file_pages));
}

// The command line in text: escaped, and cut after k_cmd_width columns
// ('+', as printable_cell marks a cut; --json has it whole); "[comm]" where
// it is empty (a kernel thread, a zombie: "[comm] <defunct>"), as ps
// shows them; "-" where it cannot be read (--pinned's cell; show's text
// has no cmd line then).
constexpr size_t k_cmd_width = 80;

std::string cmd_text(const ProcessView& v) {
  if (!v.cmdline) return "-";
  if (v.cmdline->empty()) return "[" + printable(v.comm) + "]" + (v.state == 'Z' ? " <defunct>" : "");
  std::string whole = printable(*v.cmdline);
  if (whole.size() <= k_cmd_width) return whole;  // it fits: no character takes less than a byte
  std::string cell = printable_cell(*v.cmdline, k_cmd_width);
  if (cell.compare(0, whole.size(), whole) == 0) return whole;  // it fits, padded: no padding at the end
  cell.erase(cell.find_last_not_of(' ') + 1);  // cut: it ends in '+', and at most a blank after
  return cell;
}

// A thread's "sched" object (affix(1), OUTPUT), or null where unknown.
void write_thread_sched(JsonWriter& j, const std::optional<SchedAttr>& a) {
  if (!a) {
    j.null();
    return;
  }
  const bool deadline = a->policy == SchedPolicy::Deadline && a->deadline_ns != 0;
  auto ns = [&](const char* name, bool known, uint64_t v) {
    j.key(name);
    if (known) j.value(static_cast<unsigned long long>(v));
    else j.null();
  };
  j.begin_object();
  j.field("policy", sched_policy_name(a->policy));
  j.key("priority");
  if (is_realtime(a->policy)) j.value(a->priority); else j.null();
  j.key("nice");
  if (is_fair(a->policy) || a->policy == SchedPolicy::Idle) j.value(a->nice); else j.null();
  ns("slice_ns", is_fair(a->policy) && a->slice_ns != 0, a->slice_ns);
  ns("runtime_ns", deadline, a->runtime_ns);
  ns("deadline_ns", deadline, a->deadline_ns);
  ns("period_ns", deadline, a->period_ns);
  j.key("uclamp");
  if (a->util_min && a->util_max) {
    j.begin_object();
    j.field("min", *a->util_min);
    j.field("max", *a->util_max);
    j.end_object();
  } else {
    j.null();
  }
  j.field("text", sched_attr_text(*a));
  j.end_object();
}

}  // namespace

std::string format_show_text(const std::vector<ProcessView>& views) {
  std::string out;
  for (const auto& v : views) {
    std::string indent(2 * static_cast<size_t>(v.depth), ' ');
    out += fmt::format("{}{} {}  cpus {}{}  cpuset nodes {}  mem policy {}  {}\n", indent, v.pid, printable(v.comm),
                       list_or_dash(threads_cpus(v)), threads_differ(v) ? " (mixed)" : "", list_or_dash(v.mems),
                       v.mem_policy ? printable(*v.mem_policy) : "unknown", pages_text(v));
    // A line of its own: the header is about 80 columns already.
    if (v.cmdline) out += fmt::format("{}  cmd {}\n", indent, cmd_text(v));
    // The POLICY column where the policies are known (always on this machine;
    // in a captured root, where it has the threads' sched files).
    const bool policies = std::any_of(v.threads.begin(), v.threads.end(), [](const ThreadView& t) { return t.sched; });
    std::vector<std::vector<std::string>> rows{{"CPUS", "THREADS", "TIDS", "LAST CPUS", "NODES", "COMM"}};
    if (policies) rows[0].insert(rows[0].end() - 1, "POLICY");
    for (const auto& g : group_threads(v)) {
      rows.push_back({format_cpulist(g.cpus), std::to_string(g.tids.size()), format_id_list(g.tids, k_tids_width),
                      last_cpus_text(g), list_or_dash(g.last_nodes), comm_list(g.comms)});
      if (policies) rows.back().insert(rows.back().end() - 1, g.policy);
    }
    out += table(rows, indent + "  ");
  }
  return out;
}

std::string format_pinned_text(const std::vector<ProcessView>& views) {
  std::vector<std::vector<std::string>> rows{{"PID", "COMM", "ALLOWED", "PINNED THREADS", "CMD"}};
  for (const auto& v : views) {
    CpuSet allowed = v.allowed.value_or(v.cpus);
    std::string pinned;
    for (const auto& g : group_threads(v, &allowed)) {
      pinned += fmt::format("{}{}: {}", pinned.empty() ? "" : "; ", list_or_dash(g.cpus),
                            format_id_list(g.tids, k_tids_width));
    }
    rows.push_back({std::to_string(v.pid), printable(v.comm), list_or_dash(allowed), pinned, cmd_text(v)});
  }
  return table(rows, "");
}

std::string format_show_json(const std::vector<ProcessView>& views, bool tree) {
  JsonWriter j;
  j.begin_array();
  // With `tree`, views are depth first (read_process_tree): each object
  // stays open for its "children" until a view no deeper than it comes.
  std::vector<unsigned> open;  // the depths of the objects still open
  auto close_to = [&](unsigned depth) {
    while (!open.empty() && open.back() >= depth) {
      j.end_array();
      j.end_object();
      open.pop_back();
    }
  };
  for (const auto& v : views) {
    if (tree) close_to(v.depth);
    j.begin_object();
    j.field("pid", static_cast<long long>(v.pid));
    j.field("ppid", static_cast<long long>(v.ppid));
    j.field("comm", v.comm);
    j.key("cmdline");
    if (v.cmdline) j.value(*v.cmdline); else j.null();
    j.field("cpus", format_cpulist(threads_cpus(v)));
    j.field("mems", format_cpulist(v.mems));
    j.key("mem_policy");
    if (v.mem_policy) j.value(*v.mem_policy); else j.null();
    if (v.allowed) j.field("allowed", format_cpulist(*v.allowed));
    j.key("threads");
    j.begin_array();
    for (const auto& t : v.threads) {
      j.begin_object();
      j.field("tid", static_cast<long long>(t.tid));
      j.field("comm", t.comm);
      j.field("cpus", format_cpulist(t.cpus));
      j.key("last_cpu");
      if (t.last_cpu >= 0) j.value(static_cast<long long>(t.last_cpu)); else j.null();
      j.field("last_cpu_stale", t.last_cpu_stale());
      j.key("last_node");
      if (t.last_node >= 0) j.value(static_cast<long long>(t.last_node)); else j.null();
      j.key("sched");
      write_thread_sched(j, t.sched);
      j.end_object();
    }
    j.end_array();
    node_counts_field(j, "memory_pages", v.pages);
    node_counts_field(j, "anon_pages", v.anon_pages);
    node_counts_field(j, "file_pages", v.file_pages);
    if (tree) {
      j.key("children");
      j.begin_array();
      open.push_back(v.depth);
      continue;
    }
    j.end_object();
  }
  close_to(0);
  j.end_array();
  return j.str() + "\n";
}

}  // namespace affix
