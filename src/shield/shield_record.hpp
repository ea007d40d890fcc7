#pragma once
// A shield's record: what affix shield changed, in the order it changed it,
// kept in a file under /run/affix/shields/ so that a later
// `affix shield --off NAME` (another process, after the launcher was
// killed) puts back exactly that (affix(1), SHIELD). The record is written
// ahead: each change is appended before it is made, and every undo is
// harmless where the change was never made, so a record is also the account
// of a shield whose making was cut short.
//
// The file is text, one `key<TAB>value...` line each, values escaped
// (backslash, tab, new line and every byte that is not printable ASCII as
// \\, \t, \n, \xHH): a path or a file's content is data.

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"

namespace affix {

// Where the records are, and the record of a shield named `name`.
constexpr const char* k_record_dir = "/run/affix/shields";
std::string record_path(const std::string& name);

enum class ShieldLayout {
  Cgroup2,  // a cgroup v2 cpuset partition below the root cgroup
  Systemd,  // the same below a slice of its own, on a machine systemd runs
  Cgroup1,  // cgroup v1: exclusive cpusets, the rest of the machine in a system cpuset (as cset shield)
};
const char* layout_name(ShieldLayout layout);  // "cgroup2", "systemd", "cgroup1"
std::optional<ShieldLayout> parse_layout(std::string_view text);

// One change, and how it is undone. Shared changes serve every shield; the
// last shield to go undoes them (an earlier one hands them over).
enum class OpKind {
  Mkdir,       // path: a directory made; undo: its tasks to its parent (or to value, the v1
               // system cpuset, where it is there), then rmdir
  Write,       // path: a file; value: what was written; before: its content before; undo: before,
               // unless the file is inside a directory this shield made
  Controller,  // path: a cgroup.subtree_control "+cpuset" was written to (shared); undo: "-cpuset"
  Shared,      // a Write that serves every shield (default_smp_affinity, a v1 root's
               // sched_load_balance); undo: before, by the last shield
  Irq,         // path: the IRQ's number; before/value: smp_affinity_list before/written;
               // undo: before, where it still reads value
  Exclusive,   // path: a cpuset.cpus.exclusive; value: the CPUs added; undo: those removed
  SystemSet,   // v1: path: the system cpuset, made with every movable task of its parent
               // moved in (shared); undo: every task back to the parent, rmdir
  SystemTake,  // v1: path: the system cpuset; value: the CPUs taken from it, before: its
               // list before; undo: the CPUs given back
  SystemMems,  // v1: the same for memory nodes (--mem)
  Unit,        // path: a systemd unit file written; undo: removed, systemctl daemon-reload
  Start,       // path: a systemd unit started; undo: systemctl stop
};
const char* op_kind_name(OpKind kind);
bool op_shared(OpKind kind);

struct Op {
  OpKind kind = OpKind::Write;
  std::string path;
  std::string value;
  std::string before;
};

struct ShieldRecord {
  std::string name;
  ShieldLayout layout = ShieldLayout::Cgroup2;
  std::string cgroup;  // the shield's cgroup (cpuset) directory, a machine path
  std::string unit;    // systemd: the shield's slice unit ("affix-shield-1.slice")
  CpuSet cpus;         // as asked
  CpuSet mems;         // with --mem; empty without
  bool isolated = false;
  bool irqs = false;
  // Its place in the order shields were made (1 + the largest of those
  // there were): a shared change handed over is undone where it would have
  // been had the shields been removed last made, first removed.
  unsigned long long made = 0;
  // The launcher of a shield that runs a command: its PID and start time
  // (field 22 of its stat: a PID reused by another process is told apart).
  pid_t launcher = 0;
  unsigned long long launcher_start = 0;
  pid_t command = 0;
  std::vector<Op> ops;
};

// The record's first lines (everything but the ops and the launcher).
std::string record_header(const ShieldRecord& r);
// One op's line, and the launcher's.
std::string op_line(const Op& op);
std::string launcher_line(pid_t launcher, unsigned long long start, pid_t command);
// The whole record (header, launcher, ops).
std::string record_text(const ShieldRecord& r);

// Parses a record; nullopt with `why` ("line 3: unknown key 'x'") where
// the text is not one.
std::optional<ShieldRecord> parse_record(std::string_view text, std::string& why);

// The escaping of the file (exposed for the tests).
std::string record_escape(std::string_view s);
std::optional<std::string> record_unescape(std::string_view s);

}  // namespace affix
