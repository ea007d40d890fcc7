#pragma once
// A shield on a machine systemd runs (affix(1), SHIELD, "Under systemd").
// systemd owns the root cgroup and may take the cpuset controller away
// from cgroups it does not know; so the shield is a slice of its own that
// systemd knows (a runtime unit, /run/systemd/system/affix-NAME.slice, with
// AllowedCPUs=: systemd keeps cpuset on along its path), made a cgroup v2
// partition below systemd's cgroups with cpuset.cpus.exclusive (a remote
// partition: Linux 6.7 and later). A reboot keeps none of it.
//
// And the lines that keep systemd's own slices off CPUs (explain --shield
// --as systemd), for a fence that lasts: AllowedCPUs= drop-ins.

#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"
#include "shield_record.hpp"

namespace affix {

// `text` escaped as systemd-escape(1) escapes it (no --path): '/' as '-',
// every byte but ASCII letters, digits, ':', '_' and a '.' that does not
// lead as \xHH ('-' is "\x2d").
std::string systemd_escape(std::string_view text);
// Whether `name` is one affix gives a shield itself (affix-shield-N).
bool default_shield_name(std::string_view name);
// The slice unit of shield `name`: "affix-shield-1" -> "affix-shield-1.slice"
// (every default shield below affix-shield.slice); any other name escaped,
// one level below affix.slice: "db" -> "affix-db.slice", "db-2" ->
// "affix-db\x2d2.slice", "shield-1" -> "affix-shield\x2d1.slice".
std::string shield_slice_unit(const std::string& name);
// Its cgroup as systemd makes it (systemd.slice(5): each '-' a level):
// ("/sys/fs/cgroup", "affix-db.slice") -> "/sys/fs/cgroup/affix.slice/affix-db.slice".
std::string slice_cgroup(const std::string& cgroup_root, const std::string& unit);
// The cgroups from the first below the root down to the slice's own, in
// that order.
std::vector<std::string> slice_cgroups(const std::string& cgroup_root, const std::string& unit);
// Where its unit file goes, and what it says.
std::string slice_unit_path(const std::string& unit);
std::string slice_unit_text(const ShieldRecord& r);

// systemctl's words for the steps: daemon-reload, start UNIT, stop UNIT.
std::vector<std::string> systemctl(const std::string& verb, const std::string& unit = {});
// The command line that starts COMMAND in the slice (a transient scope).
std::vector<std::string> in_slice(const std::string& unit, const std::vector<std::string>& command);

// explain --shield --as systemd: AllowedCPUs= drop-ins that keep
// system.slice, user.slice and init.scope on `rest`; the shield's own
// slice (k_recipe_slice, on `cpus`, and with `mems` its nodes); the
// [Service] lines that put the shielded program's unit into it (Slice=);
// and how to check that it runs there.
constexpr const char* k_recipe_slice = "shielded.slice";
std::string systemd_shield_lines(const CpuSet& cpus, const CpuSet& rest, const CpuSet* mems);

}  // namespace affix
