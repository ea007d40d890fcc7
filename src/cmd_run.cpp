// `affix [run] [OPTIONS] WHERE [--] COMMAND [ARG...]`: parse, read the
// machine, resolve, then launch (launch.cpp) through the real Os.
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "error.hpp"
#include "launch.hpp"
#include "placement_cli.hpp"
#include "placement_env.hpp"
#include "resolver.hpp"
#include "sysroot.hpp"
#include "topology.hpp"
#include "topology_scope.hpp"

namespace affix {

int command_run(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Run, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Run).c_str(), stdout);
    return k_exit_ok;
  }
  SysRoot root;
  // A plain launch reads only what its placement depends on (scope_for:
  // a bare CPU list, which CPUs are online); -v, --dry-run and --env report
  // more than the CPUs.
  bool plain = !cl.verbose && !cl.dry_run && !cl.env;
  Topology topo = read_topology(root, plain ? scope_for(cl.request) : ReadScope{});
  Allowed allowed = read_allowed(root, topo);
  EnvLookup env = process_env();
  Placement placement = resolve(cl.request, topo, allowed, env);

  LaunchRequest request;
  request.argv = cl.rest;
  request.verbose = cl.verbose;
  request.dry_run = cl.dry_run;
  if (cl.env) request.env = placement_env(placement, env);
  return launch(linux_os(), placement, request, std::cout, std::cerr);
}

}  // namespace affix
