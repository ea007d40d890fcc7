// affix apply [--dry-run] [--json] FILE | affix apply --check [--json] FILE
// (affix(1), APPLY). The file is read, parsed and every word of it checked
// on this machine before anything is done (load_apply_engine: an error
// refuses it whole); then the engine applies every rule to what runs now,
// or checks it.
#include <cstdio>

#include <fmt/format.h>

#include "apply_engine.hpp"
#include "apply_words.hpp"
#include "follow_engine.hpp"
#include "metrics.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "irq.hpp"
#include "text.hpp"

namespace affix {

namespace {

const std::string& file_argument(const CommandLine& cl) {
  if (cl.rest.empty())
    throw Error(ErrorKind::Usage, "apply needs a rules FILE", "usage: affix apply [--dry-run] [--json] FILE");
  if (cl.rest.size() > 1)
    throw Error(ErrorKind::Usage, fmt::format("unexpected argument '{}' for 'apply'", printable(cl.rest[1])),
                "apply takes one rules FILE");
  return cl.rest.front();
}

}  // namespace

int command_apply(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Apply, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Apply).c_str(), stdout);
    return k_exit_ok;
  }
  if (cl.check && cl.dry_run)
    throw Error(ErrorKind::Usage, "--check and --dry-run cannot be used together",
                "--check verifies the placement, --dry-run shows what a pin would change; neither changes anything");
  if (cl.follow && (cl.check || cl.dry_run || cl.json))
    throw Error(ErrorKind::Usage,
                fmt::format("--follow cannot be used with {}", cl.check ? "--check" : cl.dry_run ? "--dry-run" : "--json"),
                "usage: affix apply --follow [--metrics ADDR:PORT] FILE");
  if (cl.metrics && !cl.follow && !cl.check)
    throw Error(ErrorKind::Usage, "--metrics needs --follow (ADDR:PORT) or --check (FILE)",
                "usage: affix apply --follow --metrics ADDR:PORT FILE | affix apply --check --metrics FILE FILE");
  const std::string& file = file_argument(cl);
  if (cl.follow) return command_apply_follow(cl, file);
  std::unique_ptr<LoadedApply> loaded = load_apply_engine(file);
  ApplyEngine& engine = *loaded->engine;
  if (cl.check) {
    ApplyCheckReport report = engine.check_all();
    if (cl.metrics) write_metrics_file(*cl.metrics, apply_check_metrics(engine.rules(), report, unix_now()));
    std::string out = cl.json ? apply_check_json(engine.rules(), report) : format_apply_check(engine.rules(), report);
    std::fputs(out.c_str(), stdout);
    return report.ok() ? k_exit_ok : k_exit_failed;
  }
  ApplyReport report = engine.apply_all(cl.dry_run);
  for (const auto& p : report.processes)
    for (const auto& w : p.warnings) print_warning(w);
  for (const auto& q : report.irqs)
    for (const auto& w : q.result.warnings) print_warning(w);
  if (!cl.dry_run && !report.irqs.empty() && irqbalance_running(loaded->root))
    print_warning("irqbalance is running: it will move these IRQs again unless told not to "
                  "(IRQBALANCE_BANNED_CPULIST in its environment, or --banirq=N for each IRQ)");
  std::string out = cl.json ? apply_json(engine.rules(), report) : format_apply(engine.rules(), report);
  std::fputs(out.c_str(), stdout);
  return report.failed() ? k_exit_failed : k_exit_ok;
}

}  // namespace affix
