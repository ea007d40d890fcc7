#pragma once
// A process in FakeOs's world and a fixed placement, for the pin tests that
// move and roll back whole processes (pin_sched_test, rollback_test).

#include <sys/types.h>

#include <vector>

#include "fake_os.hpp"
#include "fixtures.hpp"
#include "pin.hpp"
#include "sysroot.hpp"

namespace affix::test {

// No /proc under it: pin reads what FakeOs says.
inline const SysRoot k_no_proc("/nonexistent-affix-root");

// Process PID with threads TIDS, each allowed LIST, all started at tick 100
// and children of PID 1.
inline void add_process(FakeOs& os, pid_t pid, std::vector<pid_t> tids, const char* list) {
  os.threads[pid] = tids;
  for (pid_t tid : tids) {
    os.affinity[tid] = set_of(list);
    os.start_times[tid] = 100;
  }
  os.start_times[pid] = 100;
  os.parents[pid] = 1;
}

// Every request placed on LIST.
inline PinResolver to(const char* list) {
  PinPlace place{set_of(list), {}};
  return [place](const PinRequest&) { return place; };
}

}  // namespace affix::test
