#pragma once
// What affix shield and show --shield print (affix(1), SHIELD and OUTPUT):
// the plan of --dry-run and -v, a shield made, and the shields as the
// kernel holds them, text and JSON. Names from the machine are escaped.

#include <string>
#include <vector>

#include "shield_apply.hpp"
#include "shield_plan.hpp"
#include "shield_status.hpp"

namespace affix {

// "affix-shield-1: CPUs 4-7, isolated, a cgroup2 partition at
// /sys/fs/cgroup/affix-shield-1", then a numbered line per step.
std::string format_plan(const ShieldPlan& plan);

// show --shield: a block per shield ("no shields" where there is none).
std::string format_shields_text(const std::vector<ShieldStatus>& shields, const std::vector<std::string>& bad_records);
std::string format_shields_json(const std::vector<ShieldStatus>& shields);

// "affix-shield-1 (CPUs 4-7)", escaped.
std::string shield_label(const ShieldRecord& r);

}  // namespace affix
