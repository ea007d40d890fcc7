// affix topo [--json] [--root DIR]: the machine, for people or as JSON.
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_errors.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "os.hpp"
#include "topo_output.hpp"
#include "topology.hpp"

namespace affix {

int command_topo(const Args& args) {
  CLI::App app{"Show the machine: sockets, nodes, caches, cores, threads, memory, distances", "affix topo"};
  bool json = false;
  std::string root = "/";
  app.set_help_flag("-h,--help", "this text");
  app.add_flag("--json", json, "print one JSON document")->disable_flag_override();
  app.add_option("--root", root, "read DIR/sys and DIR/proc instead of /sys and /proc")->type_name("DIR");
  if (!parse_cli11(app, args, "topo")) return k_exit_ok;
  SysRoot sysroot(root);
  Topology topo = read_topology(sysroot);
  for (const auto& warning : topo.warnings) print_warning(warning);
  Allowed allowed = read_allowed(sysroot, topo, linux_os());
  std::string out = json ? topo_json(topo, allowed) : topo_text(topo, allowed);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return k_exit_ok;
}

}  // namespace affix
