#include "shield_apply.hpp"

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "error.hpp"
#include "partition_verdict.hpp"
#include "shield_irqs.hpp"
#include "shield_machine.hpp"
#include "shield_ops.hpp"
#include "text.hpp"

namespace affix {

namespace {

// A change written to the record before it is made; a directory (or the v1
// system cpuset) right after: a failed mkdir made nothing, and a directory
// of that name that affix did not make is never removed.
bool recorded_after(OpKind kind) { return kind == OpKind::Mkdir || kind == OpKind::SystemSet; }

void record_op(ShieldOs& os, ShieldRecord& rec, const Op& op) {
  if (int err = os.files.append(record_path(rec.name), op_line(op)); err != 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot write the shield's record {}: {}", printable(record_path(rec.name)),
                                                errno_text(err)),
                "affix keeps what it changed under /run/affix/shields, to put it back; it needs root");
  rec.ops.push_back(op);
}

void check_verdict(ShieldOs& os, const ShieldRecord& rec, const std::string& path) {
  auto text = os.files.read(path);
  PartitionState state = parse_partition(text.value_or(""));
  if (state.valid) return;
  Removal removal = remove_shield(os, rec);
  throw partition_error(rec.name, format_cpulist(rec.cpus), state, removal_phrase(removal));
}

}  // namespace

MadeShield make_shield(ShieldOs& os, const ShieldPlan& plan, const CpuSet& online) {
  MadeShield made;
  ShieldRecord& rec = made.record;
  rec = plan.record;
  rec.ops.clear();
  if (int err = os.files.make_dirs(k_record_dir); err != 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot make {}: {}; nothing was changed", k_record_dir, errno_text(err)),
                "affix shield needs root (affix(1), PERMISSIONS)");
  if (int err = os.files.create(record_path(rec.name), record_header(rec)); err != 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot make the shield's record {}: {}; nothing was changed",
                                                printable(record_path(rec.name)), errno_text(err)),
                err == EEXIST ? "a shield of that name is being made or removed right now; 'affix show --shield' lists them"
                              : "affix shield needs root (affix(1), PERMISSIONS)");
  std::vector<std::string> bad;
  std::vector<ShieldRecord> others;
  for (auto& r : read_records(os.files, bad))
    if (r.name != rec.name) others.push_back(std::move(r));
  for (const ShieldStep& step : plan.steps) {
    try {
      if (step.kind == ShieldStepKind::Verdict) {
        check_verdict(os, rec, step.op.path);
        continue;
      }
      if (step.kind == ShieldStepKind::Irqs) {
        CpuSet rest = online;
        for (const auto& r : others) rest -= r.cpus;
        rest -= rec.cpus;
        move_irqs_off(os, rec, rest, made, [&](const Op& op) { record_op(os, rec, op); });
        // An IRQ the kernel would not move stays as it was: nothing to undo.
        auto stayed = [&](const Op& op) {
          if (op.kind != OpKind::Irq) return false;
          for (const auto& m : made.irqs)
            if (m.refused && std::to_string(m.target.irq) == op.path) return true;
          return false;
        };
        rec.ops.erase(std::remove_if(rec.ops.begin(), rec.ops.end(), stayed), rec.ops.end());
        os.files.replace(record_path(rec.name), record_text(rec));
        continue;
      }
      Op op = step.op;
      if (op.kind == OpKind::SystemSet && os.files.exists(op.path)) continue;  // another shield's
      if (op.kind == OpKind::Controller && lists_word(os.files.read(op.path).value_or(""), op.value)) continue;
      // A unit that is there already is not affix's: never recorded, never removed.
      if (op.kind == OpKind::Unit && os.files.exists(op.path))
        throw Error(ErrorKind::Runtime, fmt::format("cannot write {}: a unit of that name is there already", printable(op.path)),
                    "affix shield did not make it (no record of it): give another --name, or remove it");
      read_before(os.files, op);
      if (!recorded_after(op.kind)) record_op(os, rec, op);
      make_op(os, op, others);
      if (recorded_after(op.kind)) record_op(os, rec, op);
    } catch (const Error& e) {
      if (step.kind == ShieldStepKind::Verdict) throw;  // the verdict undid everything itself
      Removal removal = remove_shield(os, rec);
      throw Error(e.kind(), std::string(e.what()) + removal_phrase(removal), e.hint());
    }
  }
  // Read back before "made": a partition that went invalid after its
  // verdict (a change made meanwhile) is no shield.
  for (const ShieldStep& step : plan.steps)
    if (step.kind == ShieldStepKind::Verdict) check_verdict(os, rec, step.op.path);
  return made;
}

void record_launcher(ShieldOs& os, const ShieldRecord& record, pid_t launcher, unsigned long long start, pid_t command) {
  os.files.append(record_path(record.name), launcher_line(launcher, start, command));
}

std::string removal_phrase(const Removal& r) {
  if (r.left.empty()) return "; the shield was removed, every change put back";
  std::string out = "; not everything was put back: ";
  for (size_t i = 0; i < r.left.size(); ++i) out += (i ? "; " : "") + r.left[i];
  return out;
}

}  // namespace affix
