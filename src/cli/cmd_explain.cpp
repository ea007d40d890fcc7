// `affix explain [OPTIONS] WHERE [--json | --as FORMAT] [--root DIR]`:
// resolve and print, change nothing.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "os.hpp"
#include "explain_output.hpp"
#include "launch.hpp"
#include "launch_output.hpp"
#include "command_line.hpp"
#include "launch_env.hpp"
#include "near.hpp"
#include "resolver.hpp"
#include "sched_refusal.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

namespace {

// Where `run` would refuse the scheduling options on this machine, a
// warning that says so (explain changes nothing, and exits 0).
void sched_warnings(const SchedRequest& sched, Placement& placement) {
  LinuxOs& os = linux_os();
  try {
    check_sched_support(sched, os.sched_support());
  } catch (const Error& e) {
    placement.warnings.push_back(std::string(e.what()) + ": 'run' would refuse it");
  }
  if (sched.policy && sched.policy->policy == SchedPolicy::Deadline)
    if (auto r = predict_deadline_refusal(placement.cpus, os.sched_facts(placement.cpus)))
      placement.warnings.push_back(r->reason + ": 'run' would refuse " + sched_request_text(sched) + " (" +
                                   r->hint + ")");
}

}  // namespace

int command_explain(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Explain, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Explain).c_str(), stdout);
    return k_exit_ok;
  }
  if (cl.spread && (cl.json || (cl.as && *cl.as != AsFormat::Nginx)))
    throw Error(ErrorKind::Usage, "--spread is shown in explain's text and by --as nginx, not with --json "
                                  "or another --as");
  SysRoot root(cl.root.value_or("/"));
  // As run does: a machine that cannot be read is told before a spec that
  // does not parse; the devices near: names are read once it parses.
  std::optional<RequestLocations> locations;
  std::optional<Error> location_error;
  try {
    locations = parse_locations(cl.request);
  } catch (const Error& e) {
    location_error = e;
  }
  Topology topo = read_topology(root);
  Allowed allowed = read_allowed(root, topo, linux_os());
  EnvLookup env = process_env();
  if (location_error) throw *location_error;
  read_location_devices(root, *locations, topo);
  Placement placement = resolve(cl.request, *locations, topo, allowed, env);
  // What `run` would really apply: preferring several nodes needs a kernel
  // with MPOL_PREFERRED_MANY (only this machine's kernel can be asked).
  if (!cl.root && placement.mem_policy == MemPolicy::Preferred && placement.mem_nodes.count() > 1 &&
      !linux_os().has_preferred_many())
    placement.warnings.push_back("this kernel has no MPOL_PREFERRED_MANY (Linux 5.15 and later have it): "
                                 "'run' would refuse to prefer several nodes");
  // The same of the scheduling options: what this kernel lacks, and a
  // deadline policy on fewer CPUs than their root domain.
  if (!cl.root && cl.sched.any()) sched_warnings(cl.sched, placement);
  if (cl.as) {
    // Nothing but the launcher's lines on stdout; the warnings on stderr.
    unsigned per_cpu = std::max(1u, cl.spread);
    std::string lines = explain_as(placement, *cl.as, per_cpu, cl.sched);
    for (auto& w : placement.warnings) print_warning(w);
    for (auto& w : explain_as_warnings(placement, *cl.as, per_cpu, cl.sched)) print_warning(w);
    std::fputs(lines.c_str(), stdout);
    return k_exit_ok;
  }
  PlacementEnv vars = launch_env(placement, env);
  std::string text = cl.json ? explain_json(placement, allowed, vars, cl.sched)
                             : explain_text(placement, allowed, vars, cl.sched);
  if (cl.spread)  // what `run --spread` would give the threads the command creates
    text += "spread    " + spread_order_text(placement.sequence, cl.spread) + "\n";
  std::fputs(text.c_str(), stdout);
  return k_exit_ok;
}

}  // namespace affix
