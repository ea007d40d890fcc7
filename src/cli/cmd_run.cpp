// `affix [run] [OPTIONS] WHERE [--] COMMAND [ARG...]`: parse, read the
// machine, resolve, then launch (launch.cpp) on the kernel itself (linux_os()).
#include <cstdio>

#include "commands.hpp"
#include "error.hpp"
#include "launch.hpp"
#include "command_line.hpp"
#include "launch_env.hpp"
#include "os.hpp"
#include "resolver.hpp"
#include "sysroot.hpp"
#include "topology.hpp"
#include "launch_scope.hpp"

namespace affix {

namespace {

// Whether WHERE or --exclude names a CPU kind: only then are the per-CPU
// files that rank kinds read (cpu_kinds.hpp).
bool mentions_kind(const PlacementRequest& request) {
  auto has = [](const std::string& spec) { return spec.find("kind") != std::string::npos; };
  return has(request.where) || (request.exclude && has(*request.exclude));
}

}  // namespace

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
  ReadScope scope = plain ? scope_for(cl.request) : ReadScope{};
  scope.kinds = mentions_kind(cl.request);
  Topology topo = read_topology(root, scope);
  Allowed allowed = read_allowed(root, topo, linux_os());
  EnvLookup env = process_env();
  Placement placement = resolve(cl.request, topo, allowed, env);

  LaunchRequest request;
  request.argv = cl.rest;
  request.verbose = cl.verbose;
  request.dry_run = cl.dry_run;
  request.spread = cl.spread;
  request.option_hint = [](const std::string& word) { return option_hint(word, CommandKind::Run); };
  if (cl.env) {
    PlacementEnv vars = launch_env(placement, env);
    request.env = std::move(vars.exported);
    request.kept = std::move(vars.kept);
  }
  StdioOutput out(stdout), err(stderr);
  return launch(linux_os(), placement, request, out, err);
}

}  // namespace affix
