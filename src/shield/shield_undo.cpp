// Removing a shield (affix shield --off, and a failure while one is made):
// its changes undone in reverse order, from its record.
#include <algorithm>

#include <fmt/format.h>

#include "shield_apply.hpp"
#include "shield_machine.hpp"
#include "shield_ops.hpp"
#include "text.hpp"

namespace affix {

namespace {

bool inside(const std::vector<std::string>& dirs, const std::string& path) {
  return std::any_of(dirs.begin(), dirs.end(),
                     [&](const std::string& d) { return path.size() > d.size() && path.compare(0, d.size() + 1, d + "/") == 0; });
}

// The shield that takes over a shared change another one made: one that
// still needs it (the first by name), or none where this is the last.
ShieldRecord* heir_for(const Op& op, std::vector<ShieldRecord>& others) {
  for (auto& r : others) {
    switch (op.kind) {
      case OpKind::Controller:
        if (r.layout != ShieldLayout::Cgroup1) return &r;
        break;
      case OpKind::SystemSet:
        if (r.layout == ShieldLayout::Cgroup1) return &r;
        break;
      case OpKind::Shared:
        // default_smp_affinity serves the shields that moved IRQs; a v1
        // root's sched_load_balance the isolated v1 shields.
        if (op.path == "/proc/irq/default_smp_affinity" ? r.irqs : (r.layout == ShieldLayout::Cgroup1 && r.isolated))
          return &r;
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

// The op of the shield that moved this IRQ next after this one did (the
// first made after it, of those standing): it found the IRQ as this one
// left it.
std::pair<ShieldRecord*, Op*> irq_successor(const ShieldRecord& record, const Op& op, std::vector<ShieldRecord>& others) {
  std::pair<ShieldRecord*, Op*> out{nullptr, nullptr};
  for (auto& r : others) {
    if (r.made <= record.made || (out.first && out.first->made <= r.made)) continue;
    for (auto& o : r.ops)
      if (o.kind == OpKind::Irq && o.path == op.path) out = {&r, &o};
  }
  return out;
}

// Removing a shield whose IRQ a later shield moved again: the IRQ goes
// back to what this shield found, less the CPUs of the shields that still
// keep IRQs off theirs, and the later shield now remembers what this one
// found (so that whichever goes last puts the IRQ back as it was).
void hand_irq_over(ShieldOs& os, const Op& op, Op& theirs, const std::vector<ShieldRecord>& others,
                   std::vector<std::string>& notes) {
  auto irq = parse_decimal(op.path, k_max_id);
  auto was = parse_cpulist(op.before, true), set = parse_cpulist(theirs.value, true);
  theirs.before = op.before;
  if (!irq || !was || !set) return;
  CpuSet held;
  for (const auto& r : others)
    if (r.irqs) held |= r.cpus;
  CpuSet target = *was.value - held;
  auto now = os.irqs.affinity(static_cast<unsigned>(*irq));
  if (!now || !(*now == *set.value)) {
    if (now)
      notes.push_back(fmt::format("IRQ {} was moved by someone else since (now CPUs {}): left as it is", *irq,
                                  format_cpulist(*now)));
    return;
  }
  if (target.empty() || target == *now) return;
  if (os.irqs.set_affinity(static_cast<unsigned>(*irq), target) == 0) theirs.value = format_cpulist(target);
}

// What a removal weighs: the other shields standing (their records) and
// the directories this one made.
struct RemovalContext {
  std::vector<ShieldRecord> others;
  std::vector<std::string> made;
};
RemovalContext removal_context(ShieldOs& os, const ShieldRecord& record) {
  RemovalContext c;
  std::vector<std::string> bad;
  for (auto& r : read_records(os.files, bad))
    if (r.name != record.name) c.others.push_back(std::move(r));
  for (const auto& op : record.ops)
    if (op.kind == OpKind::Mkdir) c.made.push_back(op.path);
  return c;
}

}  // namespace

Removal remove_shield(ShieldOs& os, const ShieldRecord& record) {
  Removal out;
  auto [others, made] = removal_context(os, record);
  std::vector<Op> kept;
  std::vector<std::pair<ShieldRecord*, Op>> handed;
  std::vector<const ShieldRecord*> irq_heirs;  // whose IRQ changes now start from this shield's
  bool dir_stays = false;  // a directory this shield made could not be removed
  for (auto it = record.ops.rbegin(); it != record.ops.rend(); ++it) {
    const Op& op = *it;
    if (op.kind == OpKind::Write && inside(made, op.path)) continue;  // goes with its directory
    if (op.kind == OpKind::Irq)
      if (auto [next, theirs] = irq_successor(record, op, others); next) {
        hand_irq_over(os, op, *theirs, others, out.notes);
        if (std::find(irq_heirs.begin(), irq_heirs.end(), next) == irq_heirs.end()) irq_heirs.push_back(next);
        continue;
      }
    if (op_shared(op.kind))
      if (ShieldRecord* heir = heir_for(op, others)) {
        handed.emplace_back(heir, op);
        continue;
      }
    if (op.kind == OpKind::Controller && dir_stays) {  // the cgroup that stays still needs cpuset
      kept.insert(kept.begin(), op);
      continue;
    }
    std::string left = undo_op(os, op, true, out.notes);
    if (!left.empty() && (op.kind == OpKind::Mkdir || op.kind == OpKind::SystemSet)) dir_stays = true;
    if (!left.empty()) {
      out.left.push_back(left);
      kept.insert(kept.begin(), op);
    }
  }
  // An heir undoes what it takes over where it would have, had the shields
  // gone last made, first removed: after its own changes where this shield
  // was made before it, before them where after.
  std::reverse(handed.begin(), handed.end());  // in the order they were made
  std::vector<std::pair<ShieldRecord*, size_t>> at;  // where each heir's prepended ones end
  for (auto& [heir, op] : handed) {
    if (record.made >= heir->made) {
      heir->ops.push_back(op);
      continue;
    }
    ShieldRecord* const who = heir;  // a structured binding cannot be captured before C++20 (clang)
    auto it = std::find_if(at.begin(), at.end(), [who](const auto& a) { return a.first == who; });
    if (it == at.end()) it = at.insert(at.end(), {heir, 0});
    heir->ops.insert(heir->ops.begin() + static_cast<std::ptrdiff_t>(it->second++), op);
  }
  std::vector<const ShieldRecord*> heirs = irq_heirs;
  for (auto& h : handed)
    if (std::find(heirs.begin(), heirs.end(), h.first) == heirs.end()) heirs.push_back(h.first);
  for (const ShieldRecord* heir : heirs)
    if (int err = os.files.replace(record_path(heir->name), record_text(*heir)); err != 0)
      out.left.push_back(fmt::format("the changes shield {} shares could not be handed to shield {} ({})",
                                     printable(record.name), printable(heir->name), errno_text(err)));
  if (kept.empty()) {
    os.files.remove_file(record_path(record.name));
  } else {
    ShieldRecord rest = record;
    rest.ops = kept;
    rest.launcher = 0;
    os.files.replace(record_path(record.name), record_text(rest));
  }
  return out;
}

std::vector<std::string> removal_plan(ShieldOs& os, const ShieldRecord& record) {
  std::vector<std::string> out;
  auto [others, made] = removal_context(os, record);
  for (auto it = record.ops.rbegin(); it != record.ops.rend(); ++it) {
    const Op& op = *it;
    const std::string what = describe_step(ShieldStep{ShieldStepKind::Change, op});
    if (op.kind == OpKind::Write && inside(made, op.path)) continue;  // goes with its directory
    if (op.kind == OpKind::Irq) {
      auto irq = parse_decimal(op.path, k_max_id);
      auto set = parse_cpulist(op.value, true);
      auto now = irq ? os.irqs.affinity(static_cast<unsigned>(*irq)) : std::nullopt;
      if (auto [next, theirs] = irq_successor(record, op, others); next) {
        out.push_back(fmt::format("hand over to shield {}: IRQ {} back to CPUs {}, less the CPUs of the shields that "
                                  "stay", printable(next->name), op.path, op.before));
        continue;
      }
      if (!now || !set || !(*now == *set.value)) {
        if (now) out.push_back(fmt::format("leave IRQ {} on CPUs {}: moved by someone else since", op.path, format_cpulist(*now)));
        continue;
      }
      out.push_back(fmt::format("undo: write {} to /proc/irq/{}/smp_affinity_list", op.before, op.path));
      continue;
    }
    if (op_shared(op.kind))
      if (ShieldRecord* heir = heir_for(op, others)) {
        out.push_back(fmt::format("hand over to shield {} (it still needs it): {}", printable(heir->name), what));
        continue;
      }
    if (op.kind == OpKind::Controller) {
      if (std::string user = controller_user(os.files, op.path, op.value, made); !user.empty()) {
        out.push_back(fmt::format("leave {} on in {}: {}", op.value, printable(op.path), user));
        continue;
      }
      out.push_back(fmt::format("undo: write -{} to {}", op.value, printable(op.path)));
      continue;
    }
    switch (op.kind) {
      case OpKind::Mkdir:
        out.push_back(fmt::format("undo: move the tasks still in {} out, rmdir it", printable(op.path)));
        break;
      case OpKind::SystemSet:
        out.push_back(fmt::format("undo: move every task of {} back to its parent, rmdir it", printable(op.path)));
        break;
      case OpKind::Write:
      case OpKind::Shared:
        out.push_back(fmt::format("undo: write '{}' to {}", printable(trim_space(op.before)), printable(op.path)));
        break;
      case OpKind::Exclusive: out.push_back(fmt::format("undo: take CPUs {} out of {}", op.value, printable(op.path))); break;
      case OpKind::SystemTake: out.push_back(fmt::format("undo: give CPUs {} back to {}", op.value, printable(op.path))); break;
      case OpKind::SystemMems:
        out.push_back(fmt::format("undo: give memory nodes {} back to {}", op.value, printable(op.path)));
        break;
      case OpKind::Unit: out.push_back(fmt::format("undo: remove {}, systemctl daemon-reload", printable(op.path))); break;
      case OpKind::Start: out.push_back(fmt::format("undo: systemctl stop {}", printable(op.path))); break;
      default: break;
    }
  }
  return out;
}

}  // namespace affix
