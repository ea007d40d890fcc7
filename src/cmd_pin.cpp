// affix pin [OPTIONS] WHERE PID... | affix pin --tid [OPTIONS] WHERE TID...
//
// Parse (placement_cli), resolve WHERE for each process against its own
// allowed set (its cgroup cpuset, not affix's), then move every thread (pin
// engine), then, with --migrate, its pages. A failure of --migrate puts the
// threads back too: nothing is half-applied.
#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "error.hpp"
#include "migrate.hpp"
#include "pin.hpp"
#include "placement_cli.hpp"
#include "proc.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

namespace {

struct Resolved {
  pid_t id = 0;
  Placement placement;
};

void check_options(const CommandLine& cl) {
  if (cl.request.mem && !cl.migrate) {
    throw Error(ErrorKind::Usage,
                "Linux cannot change another process's memory policy: a thread sets its own, for "
                "itself only",
                "--migrate moves the pages it has to the nodes of --mem (pinning the CPUs already "
                "makes its new local allocations land there)");
  }
  if (cl.migrate && cl.tid) {
    throw Error(ErrorKind::Usage, "--migrate moves a process's pages, which its threads share; it does not go with --tid");
  }
}

std::vector<pid_t> parse_ids(const CommandLine& cl) {
  std::vector<pid_t> ids;
  for (const auto& word : cl.rest) {
    auto id = parse_pid(word);
    if (!id) {
      throw Error(ErrorKind::Usage, fmt::format("invalid {} '{}': expected a number from 1 to 4194304",
                                                cl.tid ? "thread ID" : "PID", word));
    }
    if (std::find(ids.begin(), ids.end(), *id) == ids.end()) ids.push_back(*id);
  }
  return ids;
}

// The memory nodes --migrate moves pages to: those of --mem, else the
// default nodes of the selected CPUs.
CpuSet migrate_nodes(const Placement& p) { return p.mem_nodes.empty() ? p.nodes : p.mem_nodes; }

std::string format_target(const TargetReport& t, const Resolved& r, bool spread, bool verbose) {
  if (t.exited) return fmt::format("{}: exited during the move\n", t.id);
  unsigned live = 0, moved = 0;
  for (const auto& m : t.threads) {
    live += !m.vanished;
    moved += m.changed && !m.vanished;
  }
  std::string out = fmt::format("{}: {} thread{} {} CPUs {} ({} moved)\n", t.id, live, live == 1 ? "" : "s",
                                spread ? "one CPU each from" : "on", format_cpulist(r.placement.cpus), moved);
  if (!verbose) return out;
  for (const auto& m : t.threads) {
    out += fmt::format("  thread {}: {} -> {}{}\n", m.tid, format_cpulist(m.before), format_cpulist(m.after),
                       m.vanished ? " (exited)" : "");
  }
  return out;
}

}  // namespace

int command_pin(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Pin, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Pin).c_str(), stdout);
    return k_exit_ok;
  }
  check_options(cl);
  std::vector<pid_t> ids = parse_ids(cl);
  SysRoot root;
  PlacementRequest request = cl.request;
  if (cl.migrate && !request.mem) request.mem = MemRequest{MemPolicy::Bind, std::nullopt};
  Topology topo = read_topology(root);
  auto env = process_env();

  // Resolve every ID before anything is moved.
  std::vector<Resolved> resolved;
  std::vector<PinTarget> targets;
  for (pid_t id : ids) {
    if (!root.exists(proc_dir(id) + "/stat")) {
      throw Error(ErrorKind::Runtime, fmt::format("no such {}: {}", cl.tid ? "thread" : "process", id));
    }
    Allowed allowed = read_allowed(root, topo, std::to_string(id));
    Resolved r{id, resolve(request, topo, allowed, env)};
    PinTarget t;
    t.id = id;
    t.single_thread = cl.tid;
    t.cpus = r.placement.cpus;
    if (cl.spread) t.spread = r.placement.sequence;
    targets.push_back(std::move(t));
    resolved.push_back(std::move(r));
  }

  Os& os = linux_os();
  PinReport report = pin_threads(os, root, targets);

  std::string out;
  for (size_t i = 0; i < report.targets.size(); ++i)
    out += format_target(report.targets[i], resolved[i], cl.spread, cl.verbose);
  if (cl.migrate) {
    try {
      for (size_t i = 0; i < report.targets.size(); ++i) {
        if (report.targets[i].exited) continue;
        auto m = migrate_process(os, root, report.targets[i].id, topo.node_set(),
                                 migrate_nodes(resolved[i].placement));
        out += format_migrate(m);
      }
    } catch (const Error& e) {
      auto stuck = roll_back(os, report);
      std::string what = std::string(e.what()) +
                         (stuck.empty() ? "; every thread was put back on its old CPU list"
                                        : fmt::format("; {} thread(s) could not be put back: {}",
                                                      stuck.size(), stuck.front()));
      throw Error(e.kind(), what, e.hint());
    }
  }
  std::fputs(out.c_str(), stdout);
  return k_exit_ok;
}

}  // namespace affix
