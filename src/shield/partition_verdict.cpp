#include "partition_verdict.hpp"

#include <fmt/format.h>

#include "sysroot.hpp"
#include "text.hpp"

namespace affix {

PartitionState parse_partition(std::string_view text) {
  PartitionState s;
  text = trim_space(text);
  auto space = text.find(' ');
  s.type = std::string(text.substr(0, space));
  std::string_view rest = space == std::string_view::npos ? std::string_view() : trim_space(text.substr(space + 1));
  if (rest.substr(0, 7) == "invalid") {
    s.invalid = true;
    rest = trim_space(rest.substr(7));
    if (rest.size() >= 2 && rest.front() == '(' && rest.back() == ')') s.reason = std::string(rest.substr(1, rest.size() - 2));
  }
  s.valid = !s.invalid && (s.type == "root" || s.type == "isolated");
  return s;
}

// One error per reason the kernel gives (kernel/cgroup/cpuset.c,
// perr_strings, Linux 6.1 to 6.13), each with what to do about it.
Error partition_error(const std::string& name, const std::string& cpus, const PartitionState& state,
                      const std::string& undone) {
  const std::string n = printable(name);
  const std::string& r = state.reason;
  if (r == "Cpu list in cpuset.cpus not exclusive")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): its CPUs are not exclusive: another "
                             "partition or exclusive cpuset holds some of them{}", n, cpus, undone),
                 "'affix show --shield' lists the shields and their CPUs; give CPUs no other shield holds, or "
                 "remove that one first ('affix shield --off NAME')");
  if (r == "Invalid cpu list in cpuset.cpus.exclusive" || r == "Invalid cpu list in cpuset.cpus")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): a partition below another cgroup needs its "
                             "CPUs in cpuset.cpus.exclusive of every cgroup above it{}", n, cpus, undone),
                 "the parent cgroup (and each above it, up to the root) must list the CPUs in its "
                 "cpuset.cpus.exclusive, and no sibling's cpuset.cpus.exclusive may hold them (Linux 6.7 and later)");
  if (r == "Parent is not a partition root")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): its parent cgroup is not a partition, and "
                             "this kernel has no cpuset.cpus.exclusive{}", n, cpus, undone),
                 "before Linux 6.7 a partition may only be made below the root cgroup or below another partition");
  if (r == "Parent is an invalid partition root")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): its parent is a partition the kernel "
                             "made invalid{}", n, cpus, undone),
                 "'cat cpuset.cpus.partition' in the parent cgroup says why");
  if (r == "Parent unable to distribute cpu downstream")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): its parent would be left without a CPU "
                             "for the tasks it holds{}", n, cpus, undone),
                 "leave at least one online CPU to the rest of the machine");
  if (r == "No cpu available due to hotplug")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): none of its CPUs is online{}", n, cpus, undone),
                 "bring the CPUs online (/sys/devices/system/cpu/cpuN/online) first");
  if (r == "cpuset.cpus and cpuset.cpus.exclusive are empty" || r == "cpuset.cpus is empty")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): its cpuset.cpus is empty{}", n, cpus, undone),
                 "another program changed the shield's cgroup while it was made; run it again");
  if (r == "partition config conflicts with housekeeping setup")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): its CPUs conflict with the CPUs the "
                             "kernel was booted to keep for housekeeping (isolcpus= or nohz_full=){}", n, cpus, undone),
                 "give all of the CPUs isolcpus= names or none of them; 'cat /sys/devices/system/cpu/isolated' "
                 "shows them");
  if (r == "Enable partition not permitted")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): partitions may not be made here{}", n, cpus,
                             undone),
                 "an isolated partition below a partition of type root, or one in a cgroup namespace, is refused; "
                 "make the shield from the host's root cgroup namespace");
  if (r == "Have remote partition underneath")
    return Error(ErrorKind::Runtime,
                 fmt::format("the kernel refused shield {} (CPUs {}): a partition below it already holds "
                             "CPUs{}", n, cpus, undone),
                 "remove the partitions below the shield's cgroup first");
  return Error(ErrorKind::Runtime,
               fmt::format("the kernel refused shield {} (CPUs {}): cpuset.cpus.partition reads '{}'{}", n, cpus,
                           printable(state.reason.empty() ? state.type + (state.invalid ? " invalid" : "")
                                                          : state.type + " invalid (" + state.reason + ")"),
                           undone),
               "Documentation/admin-guide/cgroup-v2.rst (cpuset.cpus.partition) lists what the kernel asks of "
               "a partition");
}

}  // namespace affix
