// `affix [run] [OPTIONS] WHERE [--] COMMAND [ARG...]`: parse, read the
// machine, resolve, then launch (launch.cpp) on the kernel itself (linux_os()).
#include <cstdio>
#include <optional>

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
#include "near.hpp"

namespace affix {

int command_run(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Run, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Run).c_str(), stdout);
    return k_exit_ok;
  }
  SysRoot root;
  // WHERE and --exclude, parsed once: what is read of the machine and the
  // resolver take the trees. Where one does not parse, the whole machine is
  // read and the parser's error is thrown where the resolver throws it,
  // after the machine is read (one that cannot be read is told first).
  std::optional<RequestLocations> locations;
  std::optional<Error> location_error;
  try {
    locations = parse_locations(cl.request);
  } catch (const Error& e) {
    location_error = e;
  }
  // A plain launch reads only what its placement depends on (scope_for:
  // a bare CPU list, which CPUs are online); -v, --dry-run and --env report
  // more than the CPUs. The CPU kinds only where a kind: step names them.
  bool plain = !cl.verbose && !cl.dry_run && !cl.env;
  ReadScope scope = plain && locations ? scope_for(cl.request, *locations) : ReadScope{};
  scope.kinds = !locations || names_kind(*locations);
  Topology topo = read_topology(root, scope);
  Allowed allowed = read_allowed(root, topo, linux_os());
  EnvLookup env = process_env();
  if (location_error) throw *location_error;
  read_location_devices(root, *locations, topo);
  read_request_gpus(root, cl.request, topo);
  Placement placement = resolve(cl.request, *locations, topo, allowed, env);

  LaunchRequest request;
  request.argv = cl.rest;
  request.verbose = cl.verbose;
  request.dry_run = cl.dry_run;
  request.spread = cl.spread;
  request.sched = cl.sched;
  request.option_hint = [](const std::string& word) { return option_hint(word, CommandKind::Run); };
  if (placement.gpu) {  // the GPU's variables, with or without --env
    request.env = placement.gpu->env;
    request.replaced = placement.gpu->replaced;
  }
  if (cl.env) {
    PlacementEnv vars = launch_env(placement, env);
    request.env.insert(request.env.end(), vars.exported.begin(), vars.exported.end());
    request.kept = std::move(vars.kept);
  }
  StdioOutput out(stdout), err(stderr);
  return launch(linux_os(), placement, request, out, err);
}

}  // namespace affix
