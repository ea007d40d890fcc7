#pragma once
// Making and undoing one change of a shield (shield_record.hpp, OpKind):
// the writes themselves, moving a cgroup's tasks, and systemctl. Used by
// shield_apply.cpp (making) and shield_undo.cpp (--off, and a failure).

#include <string>
#include <vector>

#include "cpuset.hpp"
#include "shield_apply.hpp"

namespace affix {

// Reads what `op` will change into op.before (a file's content; a CPU
// list's, trimmed), before the op is recorded.
void read_before(FilesOs& files, Op& op);
// Makes `op` (for the v1 system cpuset, the CPUs other shields hold come
// from `others`). Throws Error(Runtime) naming the file and the kernel's
// answer.
void make_op(ShieldOs& os, const Op& op, const std::vector<ShieldRecord>& others);

// Undoes `op`; "" where it was put back (or there was nothing to undo),
// else what stays and why. A shared change is undone only by the
// `last_shield` (the caller hands it over otherwise). Notes (tasks moved
// out, an IRQ changed since) go to `notes`.
std::string undo_op(ShieldOs& os, const Op& op, bool last_shield, std::vector<std::string>& notes);

// Moves every task of cgroup `from` into `to` (their cgroup.procs), pass
// after pass until one moves none; the PIDs the kernel would not move
// (kernel threads bound to CPUs: EINVAL) go to `stayed`. The number moved.
size_t move_tasks(FilesOs& files, const std::string& from, const std::string& to, std::vector<pid_t>& stayed);

// Who still uses `controller` that a cgroup.subtree_control gives to its
// cgroup's children: "" where no child does, else "DIR has its own
// cpuset.cpus (0-1)" (a child that set a file of it, made a partition of
// itself, or gives it on to its own children); the cgroups in `going`
// (those the removal takes away first) do not count.
std::string controller_user(FilesOs& files, const std::string& subtree_control, const std::string& controller,
                            const std::vector<std::string>& going = {});

// Whether `word` is one of the blank-separated words of `text` (a
// cgroup.controllers or cgroup.subtree_control).
bool lists_word(std::string_view text, std::string_view word);

// The numbers of a cgroup.procs (or tasks) file.
std::vector<pid_t> parse_pids(std::string_view text);

}  // namespace affix
