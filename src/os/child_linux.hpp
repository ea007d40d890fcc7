#pragma once
// ChildOs (os.hpp) on the kernel: fork, exec, wait and signals for a
// command that affix outlives (affix shield, affix watch -- COMMAND). KernelOs (os_linux.cpp)
// forwards its ChildOs calls here; nothing else calls these.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace affix {

void child_hold_signals();
pid_t child_start_held(const std::vector<std::string>& argv);
int child_release(pid_t pid);
void child_abandon(pid_t pid);
int child_wait_passing_signals(pid_t pid);
void child_pass_signals(pid_t pid);
void child_stop_passing_signals();
std::optional<int> child_try_wait(pid_t pid);
int child_run_program(const std::vector<std::string>& argv);

}  // namespace affix
