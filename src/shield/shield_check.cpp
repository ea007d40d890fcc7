#include "shield_check.hpp"

#include "files_os.hpp"
#include "irq.hpp"
#include "shield_machine.hpp"
#include "shield_status.hpp"

namespace affix {

std::vector<ShieldCheck> check_shields(const SysRoot& root, const CpuSet& selected) {
  LinuxFilesOs files(root);
  std::vector<std::string> bad;
  std::vector<ShieldRecord> records;
  for (auto& r : read_records(files, bad))
    if (r.cpus.intersects(selected)) records.push_back(std::move(r));
  std::vector<ShieldCheck> out;
  if (records.empty()) return out;
  LinuxIrqOs irqs(root);
  for (const auto& s : read_shield_status(root, files, irqs, records))
    out.push_back(ShieldCheck{s.record.name, s.record.cpus, shield_problems(s)});
  return out;
}

}  // namespace affix
