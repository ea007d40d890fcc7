// affix show --irq [DEVICE...] | affix pin --irq WHERE IRQ|DEVICE...
// (affix(1), INTERRUPTS). WHERE is resolved against every online CPU of the
// machine: an interrupt is in no cgroup. pin --irq writes through
// LinuxIrqOs, all or nothing (pin_irq.cpp); --check and --dry-run read only.
#include <cstdio>

#include <fmt/format.h>

#include "command_line.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "irq.hpp"
#include "irq_args.hpp"
#include "irq_view.hpp"
#include "machine_tree.hpp"
#include "near.hpp"
#include "picture_output.hpp"
#include "picture_overlays.hpp"
#include "svg_painter.hpp"
#include "pin_irq.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

namespace {

void check_irq_options(const CommandLine& cl) {
  auto refuse = [](const char* option) {
    throw Error(ErrorKind::Usage, fmt::format("--irq moves interrupts; it does not go with {}", option),
                "'affix pin --irq WHERE IRQ|DEVICE...' moves interrupts, 'affix pin WHERE PID...' processes");
  };
  if (cl.tid) refuse("--tid");
  if (cl.tree) refuse("--tree");
  if (cl.migrate) refuse("--migrate");
  if (cl.request.mem) refuse("--mem");
  if (cl.sched.policy) refuse("--policy");
  if (cl.sched.nice) refuse("--nice");
  if (cl.sched.slice_ns) refuse("--sched-slice");
  if (cl.sched.util_min) refuse("--uclamp");
  if (cl.check && cl.dry_run)
    throw Error(ErrorKind::Usage, "--check and --dry-run cannot be used together",
                "--check verifies the placement, --dry-run shows what a pin would change; neither changes anything");
  if (cl.json && !cl.check)
    throw Error(ErrorKind::Usage, "--json goes with --check",
                "'affix pin --check --json WHERE PID...' prints the check as a document");
}

}  // namespace

int command_show_irq(bool json, const std::string& root_dir, const std::vector<std::string>& words,
                     const std::optional<std::string>& svg) {
  SysRoot root(root_dir);
  InterruptTable table = read_interrupts(root);
  LinuxIrqOs os(root);
  std::optional<std::vector<unsigned>> only;
  if (!words.empty()) only = irqs_of_words(root, table, words);
  if (svg) {
    Overlay overlay;
    add_irq_counts(overlay, table, only);
    Picture pic = machine_picture(read_drawn_machine(root), overlay);
    write_picture(*svg, picture_svg(pic, "affix show --irq"));
    if (svg->empty() || *svg == "-") return k_exit_ok;
  }
  std::vector<IrqView> views = read_irq_views(root, os, table, only);
  std::string out = json ? format_irq_json(views) : format_irq_text(views);
  std::fputs(out.c_str(), stdout);
  return k_exit_ok;
}

int command_pin_irq(const CommandLine& cl) {
  check_irq_options(cl);
  SysRoot root;
  Topology topo = read_topology(root);
  // Every online CPU (an interrupt is in no cgroup); near:DEV reads DEV.
  Placement p = resolve_on_machine(root, cl.request, topo, process_env());
  for (const auto& w : p.warnings) print_warning(w);
  InterruptTable table = read_interrupts(root);
  std::vector<IrqTarget> targets;
  for (unsigned irq : irqs_of_words(root, table, cl.rest)) targets.push_back({irq, irq_actions(table, irq)});
  const bool spread = cl.spread > 0;
  std::vector<CpuSet> wants = irq_wants(targets.size(), p.cpus, spread ? p.sequence : std::vector<unsigned>{}, cl.spread);
  LinuxIrqOs os(root);
  if (cl.check) {
    IrqCheckReport report = check_irqs(os, targets, wants);
    std::string out = cl.json ? irq_check_json(report) : format_irq_check(report, p.cpus, spread, cl.verbose);
    std::fputs(out.c_str(), stdout);
    return report.ok ? k_exit_ok : k_exit_failed;
  }
  IrqPinResult result = pin_irqs(os, targets, wants, cl.dry_run);
  for (const auto& w : result.warnings) print_warning(w);
  if (!cl.dry_run && irqbalance_running(root))
    print_warning(fmt::format("irqbalance is running: it will move these IRQs again unless told not to "
                              "(IRQBALANCE_BANNED_CPULIST={} in its environment, or --banirq=N for each IRQ)",
                              format_cpulist(p.cpus)));
  std::string out = format_irq_pin(result, p.cpus, spread, cl.verbose, cl.dry_run);
  std::fputs(out.c_str(), stdout);
  return k_exit_ok;
}

}  // namespace affix
