// affix show [--json] [--tree] [PID...] | affix show --pinned [--json] |
// affix show --shield [--json]
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "command_line.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "id_args.hpp"
#include "os.hpp"
#include "process_view.hpp"
#include "show_output.hpp"
#include "topology.hpp"

namespace affix {

namespace {

struct ShowOptions {
  bool json = false;
  bool tree = false;
  bool pinned = false;
  bool irq = false;
  bool shield = false;
  std::string root = "/";
  std::vector<std::string> pids;
};

// Parsing only: no side effects. nullopt where --help was printed.
std::optional<ShowOptions> parse_show(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Show, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Show).c_str(), stdout);
    return std::nullopt;
  }
  if (cl.pinned && cl.tree) {
    throw Error(ErrorKind::Usage, "--tree and --pinned cannot be used together",
                "--pinned lists every pinned process on the machine, children and all; "
                "'affix show --tree PID' shows one process's tree");
  }
  if (cl.pinned && !cl.rest.empty()) {
    throw Error(ErrorKind::Usage, "--pinned scans every process; it takes no PID");
  }
  if (cl.pinned && cl.irq) throw Error(ErrorKind::Usage, "--pinned and --irq cannot be used together");
  if (cl.tree && cl.irq) throw Error(ErrorKind::Usage, "--tree and --irq cannot be used together");
  if (cl.shield && (cl.tree || cl.pinned || cl.irq || !cl.rest.empty()))
    throw Error(ErrorKind::Usage, "--shield lists the shields; it takes no PID and does not go with --tree, --pinned or --irq",
                "'affix show --shield' shows every shield and what still runs on its CPUs");
  // Without a PID show is affix itself, which has no children: a tree of
  // one. What a user means is not that, and every process of the machine
  // is too much to print unasked.
  if (cl.tree && cl.rest.empty()) {
    throw Error(ErrorKind::Usage, "--tree needs a PID: the process whose tree to show",
                "'affix show --tree 1' shows every process under PID 1");
  }
  return ShowOptions{cl.json, cl.tree, cl.pinned, cl.irq, cl.shield, cl.root.value_or("/"), std::move(cl.rest)};
}

}  // namespace

int command_show(const Args& args) {
  auto parsed = parse_show(args);
  if (!parsed) return k_exit_ok;
  const ShowOptions& o = *parsed;
  if (o.irq) return command_show_irq(o.json, o.root, o.pids);  // interrupts (cmd_irq.cpp)
  if (o.shield) return command_show_shield(o.json, o.root);     // shields (cmd_shield.cpp)
  std::vector<pid_t> pids = parse_pid_arguments(o.pids);
  SysRoot root(o.root);
  refuse_thread_ids(root, pids);
  std::vector<ProcessView> views;
  int status = k_exit_ok;
  // Each thread's policy from the kernel itself where these are its
  // threads, else from the root's /proc files.
  SchedLookup sched = sched_lookup(root, root.is_default() ? &linux_os() : nullptr);
  if (o.pinned) {
    // What a process may run on is its own cgroup cpuset (else the list
    // of its main thread), as pin and run see it.
    Topology topo = read_topology(root);
    views = find_pinned(
        root, topo.nodes,
        [&](pid_t pid) -> std::optional<CpuSet> {
          try {
            return read_allowed(root, topo, linux_os(), std::to_string(pid)).cpus;
          } catch (const Error&) {
            return std::nullopt;  // gone while scanned
          }
        },
        sched);
  } else {
    std::vector<NodeInfo> nodes = read_node_cpus(root);
    if (pids.empty()) {
      auto self = read_stat(root, "proc/self");
      if (!self) throw Error(ErrorKind::Runtime, fmt::format("{}: cannot read", root.path("proc/self/stat")));
      pids.push_back(self->id);
    }
    for (pid_t pid : pids) {
      try {
        if (o.tree) {
          auto tree = read_process_tree(root, nodes, pid, sched);
          views.insert(views.end(), std::make_move_iterator(tree.begin()), std::make_move_iterator(tree.end()));
        } else {
          views.push_back(read_process(root, nodes, pid, sched));
        }
      } catch (const Error& e) {
        print_error(e);
        status = k_exit_failed;
      }
    }
  }
  std::string out;
  if (o.json) out = format_show_json(views, o.tree);
  else if (o.pinned) out = format_pinned_text(views);
  else out = format_show_text(views);
  std::fputs(out.c_str(), stdout);
  return status;
}

}  // namespace affix
