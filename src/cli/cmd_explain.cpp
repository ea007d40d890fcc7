// `affix explain [OPTIONS] WHERE [--json | --as FORMAT] [--root DIR]`:
// resolve and print, change nothing.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "os.hpp"
#include "explain_gpu.hpp"
#include "explain_output.hpp"
#include "launch.hpp"
#include "launch_output.hpp"
#include "command_line.hpp"
#include "launch_env.hpp"
#include "near.hpp"
#include "ascii_painter.hpp"
#include "machine_tree.hpp"
#include "picture_output.hpp"
#include "picture_overlays.hpp"
#include "svg_painter.hpp"
#include "resolver.hpp"
#include "shield_systemd.hpp"
#include "sched_refusal.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

namespace {

// --ranks stands for the launcher's ranks, and prints a table of them.
void check_ranks_options(const CommandLine& cl) {
  if (!cl.ranks) return;
  if (!cl.request.gpu && !(cl.request.slice && cl.request.slice->from_rank))
    throw Error(ErrorKind::Usage, "--ranks needs --slice rank or --gpu: it maps the ranks a launcher would start",
                "'affix explain all --slice rank --gpu closest --ranks 4' prints each rank's GPU, CPUs and nodes");
  if (cl.request.slice && !cl.request.slice->from_rank)
    throw Error(ErrorKind::Usage, "--ranks takes the place of the launcher's ranks: give --slice rank, not --slice K/N");
  if (cl.as || cl.spread)
    throw Error(ErrorKind::Usage, "--ranks prints a table of the ranks: it does not go with --as or --spread");
}

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
  if (cl.shield && cl.as != AsFormat::Systemd)
    throw Error(ErrorKind::Usage, "--shield goes with --as systemd",
                "'affix explain --shield WHERE --as systemd' prints the AllowedCPUs= lines that keep systemd's "
                "slices off WHERE; 'affix shield WHERE --dry-run' what affix shield would change");
  if (cl.spread && (cl.json || (cl.as && *cl.as != AsFormat::Nginx)))
    throw Error(ErrorKind::Usage, "--spread is shown in explain's text and by --as nginx, not with --json "
                                  "or another --as");
  check_ranks_options(cl);
  check_picture_options(cl);
  if ((cl.svg || cl.ascii) && (cl.as || cl.ranks || cl.shield))
    throw Error(ErrorKind::Usage, "--svg and --ascii draw one placement: they do not go with --as, --ranks or --shield",
                "'affix explain node:0 --svg=placement.svg' writes the picture and prints the placement");
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
  // A shield is made from the root cgroup: WHERE is of every online CPU.
  Allowed allowed = cl.shield ? Allowed{topo.online, topo.node_set(), std::nullopt, "all-online", "all-nodes"}
                              : read_allowed(root, topo, linux_os());
  EnvLookup env = process_env();
  if (location_error) throw *location_error;
  read_location_devices(root, *locations, topo);
  read_request_gpus(root, cl.request, topo);
  if (cl.ranks) {  // the map of every local rank
    std::vector<Placement> ranks;
    for (unsigned r = 0; r < *cl.ranks; ++r) {
      PlacementRequest request = cl.request;
      request.rank = LocalRank{r, *cl.ranks, "--ranks"};
      try {
        ranks.push_back(resolve(request, *locations, topo, allowed, env));
      } catch (const Error& e) {
        throw Error(e.kind(), fmt::format("local rank {} of {}: {}", r, *cl.ranks, e.what()), e.hint());
      }
    }
    std::string text = cl.json ? explain_ranks_json(ranks, allowed) : explain_ranks_text(ranks, allowed);
    std::fputs(text.c_str(), stdout);
    return k_exit_ok;
  }
  Placement placement = resolve(cl.request, *locations, topo, allowed, env);
  // What `run` would really apply: preferring several nodes needs a kernel
  // with MPOL_PREFERRED_MANY (only this machine's kernel can be asked).
  if (!cl.root && placement.mem_policy == MemPolicy::Preferred && placement.mem_nodes.count() > 1 &&
      !linux_os().has_preferred_many())
    placement.warnings.push_back("this kernel has no MPOL_PREFERRED_MANY (Linux 5.15 and later have it): "
                                 "'run' would refuse to prefer several nodes");
  if (!cl.root && placement.mem_policy == MemPolicy::Weighted && !linux_os().has_weighted_interleave())
    placement.warnings.push_back("this kernel has no MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later have it): "
                                 "'run' would refuse --mem weighted");
  // The same of the scheduling options: what this kernel lacks, and a
  // deadline policy on fewer CPUs than their root domain.
  if (!cl.root && cl.sched.any()) sched_warnings(cl.sched, placement);
  if (cl.shield) {
    CpuSet rest = topo.online - placement.cpus;
    if (rest.empty())
      throw Error(ErrorKind::Resolution,
                  fmt::format("shielding CPUs {} leaves no online CPU to the rest of the machine",
                              format_cpulist(placement.cpus)),
                  "leave at least one online CPU outside every shield: PID 1 and the kernel's own threads need one");
    for (auto& w : placement.warnings) print_warning(w);
    std::string lines = systemd_shield_lines(placement.cpus, rest, placement.mem_policy ? &placement.mem_nodes : nullptr);
    std::fputs(lines.c_str(), stdout);
    return k_exit_ok;
  }
  if (cl.as) {
    // Nothing but the launcher's lines on stdout; the warnings on stderr.
    unsigned per_cpu = std::max(1u, cl.spread);
    std::string lines = explain_as(placement, *cl.as, per_cpu, cl.sched);
    for (auto& w : placement.warnings) print_warning(w);
    for (auto& w : explain_as_warnings(placement, *cl.as, per_cpu, cl.sched)) print_warning(w);
    std::fputs(lines.c_str(), stdout);
    return k_exit_ok;
  }
  if (cl.svg || cl.ascii) {  // the machine with the placement on it (affix(1), PICTURES)
    Topology drawn = topo;
    read_drawn_devices(root, drawn);
    Overlay overlay = explain_overlay(placement, cl.request.where);
    if (cl.svg) {
      Picture pic = machine_picture(drawn, overlay);
      write_picture(*cl.svg, picture_svg(pic, "affix explain " + cl.request.where));
    }
    if (cl.ascii) {
      for (auto& w : placement.warnings) print_warning(w);
      Picture pic = machine_picture(drawn, overlay);
      std::string text = picture_ascii(pic, locale_is_utf8() ? Charset::Utf8 : Charset::Ascii);
      std::fputs(text.c_str(), stdout);
      return k_exit_ok;
    }
    if (svg_to_stdout(cl)) {
      for (auto& w : placement.warnings) print_warning(w);
      return k_exit_ok;
    }
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
