// affix show [--json] [PID...] | affix show --pinned [--json]
#include <unistd.h>

#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_errors.hpp"
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
  bool pinned = false;
  std::string root = "/";
  std::vector<std::string> pids;
};

// Parsing only: no side effects. nullopt where --help was printed.
std::optional<ShowOptions> parse_show(const Args& args) {
  ShowOptions o;
  CLI::App app{"Where processes and their threads may run and did run: each thread's CPU list and\n"
               "the CPU (and node) it last ran on, and the pages per NUMA node.",
               "affix show"};
  app.set_help_flag("-h,--help", "this text");
  app.add_flag("--json", o.json, "print one JSON document")->disable_flag_override();
  app.add_flag("--pinned", o.pinned, "every process with a thread narrower than its allowed CPUs")
      ->disable_flag_override();
  app.add_option("--root", o.root, "read DIR/proc and DIR/sys instead of /proc and /sys")->type_name("DIR");
  app.add_option("PID", o.pids, "process IDs (default: affix itself)")->type_name("");
  app.footer("Exit status: 0 success; 1 a process does not exist (the others are shown); 2 usage error.");
  if (!parse_cli11(app, args, "show")) return std::nullopt;
  if (o.pinned && !o.pids.empty()) {
    throw Error(ErrorKind::Usage, "--pinned scans every process; it takes no PID");
  }
  return o;
}

}  // namespace

int command_show(const Args& args) {
  auto parsed = parse_show(args);
  if (!parsed) return k_exit_ok;
  const ShowOptions& o = *parsed;
  std::vector<pid_t> pids = parse_pid_arguments(o.pids);
  SysRoot root(o.root);
  refuse_thread_ids(root, pids);
  std::vector<ProcessView> views;
  int status = k_exit_ok;
  if (o.pinned) {
    // What a process may run on is its own cgroup cpuset (else the list
    // of its main thread), as pin and run see it.
    Topology topo = read_topology(root);
    views = find_pinned(root, topo.nodes, [&](pid_t pid) -> std::optional<CpuSet> {
      try {
        return read_allowed(root, topo, linux_os(), std::to_string(pid)).cpus;
      } catch (const Error&) {
        return std::nullopt;  // gone while scanned
      }
    });
  } else {
    std::vector<NodeInfo> nodes = read_node_cpus(root);
    if (pids.empty()) {
      auto self = read_stat(root, "proc/self");
      if (!self) throw Error(ErrorKind::Runtime, fmt::format("{}: cannot read", root.path("proc/self/stat")));
      pids.push_back(self->id);
    }
    for (pid_t pid : pids) {
      try {
        views.push_back(read_process(root, nodes, pid));
      } catch (const Error& e) {
        print_error(e);
        status = k_exit_failed;
      }
    }
  }
  std::string out;
  if (o.json) out = format_show_json(views);
  else if (o.pinned) out = format_pinned_text(views);
  else out = format_show_text(views);
  std::fputs(out.c_str(), stdout);
  return status;
}

}  // namespace affix
