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

}  // namespace

Removal remove_shield(ShieldOs& os, const ShieldRecord& record) {
  Removal out;
  std::vector<std::string> bad;
  std::vector<ShieldRecord> others;
  for (auto& r : read_records(os.files, bad))
    if (r.name != record.name) others.push_back(std::move(r));
  std::vector<std::string> made;
  for (const auto& op : record.ops)
    if (op.kind == OpKind::Mkdir) made.push_back(op.path);
  std::vector<Op> kept;
  std::vector<std::pair<ShieldRecord*, Op>> handed;
  bool dir_stays = false;  // a directory this shield made could not be removed
  for (auto it = record.ops.rbegin(); it != record.ops.rend(); ++it) {
    const Op& op = *it;
    if (op.kind == OpKind::Write && inside(made, op.path)) continue;  // goes with its directory
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
  std::vector<const ShieldRecord*> heirs;
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

}  // namespace affix
