// affix show [--json] [--tree] [PID...] | affix show --pinned [--json] |
// affix show --shield [--json] | affix show --cpu LIST [--json]
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "command_line.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "cpu_view.hpp"
#include "id_args.hpp"
#include "irq.hpp"
#include "near.hpp"
#include "machine_tree.hpp"
#include "os.hpp"
#include "picture_output.hpp"
#include "picture_overlays.hpp"
#include "svg_painter.hpp"
#include "process_view.hpp"
#include "show_output.hpp"
#include "text.hpp"
#include "topology.hpp"

namespace affix {

namespace {

struct ShowOptions {
  bool json = false;
  bool tree = false;
  bool pinned = false;
  bool irq = false;
  bool shield = false;
  std::optional<std::string> cpu;  // --cpu LIST
  std::optional<std::string> svg;  // --svg[=FILE]
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
  if (cl.cpu && (cl.tree || cl.pinned || cl.irq || cl.shield || !cl.rest.empty()))
    throw Error(ErrorKind::Usage,
                "--cpu shows what may run on CPUs; it takes no PID and does not go with --tree, --pinned, --irq or --shield",
                fmt::format("'affix show --cpu {}' lists the threads and IRQs of those CPUs; 'affix show PID' one process",
                            printable(*cl.cpu)));
  // Without a PID show is affix itself, which has no children: a tree of
  // one. What a user means is not that, and every process of the machine
  // is too much to print unasked.
  if (cl.tree && cl.rest.empty()) {
    throw Error(ErrorKind::Usage, "--tree needs a PID: the process whose tree to show",
                "'affix show --tree 1' shows every process under PID 1");
  }
  check_picture_options(cl);
  if (cl.svg && cl.cpu)
    throw Error(ErrorKind::Usage, "--svg does not go with --cpu",
                "'affix show --svg=machine.svg PID' marks where a process may run and ran");
  return ShowOptions{cl.json,   cl.tree, cl.pinned,           cl.irq, cl.shield,
                     cl.cpu,    cl.svg,  cl.root.value_or("/"), std::move(cl.rest)};
}

// show --cpu LIST: LIST is a WHERE (a CPU list, socket:1, node:0, ...) of
// the root's online CPUs, as shield takes it; what may run there and what
// ran there is read, nothing is changed.
int show_cpus(const ShowOptions& o) {
  SysRoot root(o.root);
  Topology topo = read_topology(root);
  PlacementRequest request;
  request.where = *o.cpu;
  Placement p = resolve_on_machine(root, request, topo, process_env());
  for (const auto& w : p.warnings) print_warning(w);
  LinuxIrqOs irqs(root);
  CpuView view = read_cpu_view(root, irqs, p.cpus, topo.online);
  std::string out = o.json ? format_cpu_json(view) : format_cpu_text(view);
  std::fputs(out.c_str(), stdout);
  return k_exit_ok;
}

}  // namespace

int command_show(const Args& args) {
  auto parsed = parse_show(args);
  if (!parsed) return k_exit_ok;
  const ShowOptions& o = *parsed;
  if (o.irq) return command_show_irq(o.json, o.root, o.pids, o.svg);  // interrupts (cmd_irq.cpp)
  if (o.shield) return command_show_shield(o.json, o.root, o.svg);     // shields (cmd_shield.cpp)
  if (o.cpu) return show_cpus(o);                                // one set of CPUs (cpu_view.hpp)
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
  if (o.svg) {  // the processes on the machine (affix(1), PICTURES)
    Picture pic = machine_picture(read_drawn_machine(root), show_overlay(views));
    write_picture(*o.svg, picture_svg(pic, "affix show"));
    if (o.svg->empty() || *o.svg == "-") return status;
  }
  std::string out;
  if (o.json) out = format_show_json(views, o.tree);
  else if (o.pinned) out = format_pinned_text(views);
  else out = format_show_text(views);
  std::fputs(out.c_str(), stdout);
  return status;
}

}  // namespace affix
