#pragma once
// The scheduling side of the recording fake (fake_os.hpp's FakeOs derives
// from it): every sched_setattr and sched_getattr recorded, the threads'
// attributes as state, failures by errno, and the kernel's rules that
// decide affix's order of calls (kernel/sched/syscalls.c, core.c):
//   - with a root domain set, a thread becomes SCHED_DEADLINE only where
//     its CPU list holds the whole root domain (else EPERM), and a deadline
//     thread's list cannot be narrowed below it (EBUSY, checked by FakeOs's
//     set_affinity through deadline_narrowing);
//   - with a deadline capacity, admission control: at most that many
//     deadline threads (EBUSY beyond).

#include <cerrno>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sched.hpp"

namespace affix::test {

class FakeSched : public SchedOs {
public:
  struct SetSchedCall {
    pid_t tid;
    SchedAttr attr;
  };
  std::vector<SetSchedCall> set_sched_calls;
  std::vector<pid_t> get_sched_calls;

  // Attributes per thread (tid 0 = the caller); a thread that exists
  // (thread_exists) and is not here has the defaults (other, nice 0).
  std::map<pid_t, SchedAttr> sched;
  std::map<pid_t, int> set_sched_errors;  // per tid
  std::map<pid_t, int> get_sched_errors;  // per tid
  SchedSupport support{true, true, "6.12.48+deb12-amd64"};
  SchedFacts facts;  // what sched_facts answers (its `cpus` from the call)
  std::optional<CpuSet> root_domain;
  std::optional<unsigned> deadline_capacity;
  // Before set_sched does its work; `n` counts its calls from 0.
  std::function<void(FakeSched&, pid_t tid, const SchedAttr& attr, unsigned n)> on_set_sched;

  SchedAttr sched_of(pid_t tid) const {
    auto it = sched.find(tid);
    return it == sched.end() ? SchedAttr{} : it->second;
  }

  int get_sched(pid_t tid, SchedAttr& out) override {
    log("get_sched");
    get_sched_calls.push_back(tid);
    if (auto it = get_sched_errors.find(tid); it != get_sched_errors.end() && it->second) return it->second;
    if (!thread_exists(tid)) return ESRCH;
    out = sched_of(tid);
    return 0;
  }

  int set_sched(pid_t tid, const SchedAttr& attr) override {
    log("set_sched");
    set_sched_calls.push_back({tid, attr});
    if (on_set_sched) on_set_sched(*this, tid, attr, m_set_sched_n++);
    if (auto it = set_sched_errors.find(tid); it != set_sched_errors.end() && it->second) return it->second;
    if (!thread_exists(tid)) return ESRCH;
    if (attr.util_min && !support.uclamp) return EOPNOTSUPP;
    SchedAttr was = sched_of(tid);
    if (attr.policy == SchedPolicy::Deadline) {
      const CpuSet* cpus = cpus_of(tid);
      if (root_domain && (!cpus || !root_domain->is_subset_of(*cpus))) return EPERM;
      if (deadline_capacity && was.policy != SchedPolicy::Deadline && deadlines() >= *deadline_capacity) return EBUSY;
    }
    SchedAttr kept = attr;
    if (!attr.util_min) kept.util_min = was.util_min;  // untouched where not set
    if (!attr.util_max) kept.util_max = was.util_max;
    if (!support.slice) kept.slice_ns = 0;  // a kernel before 6.12 keeps none
    sched[tid] = kept;
    return 0;
  }

  SchedSupport sched_support() override {
    log("sched_support");
    return support;
  }

  SchedFacts sched_facts(const CpuSet& cpus) override {
    log("sched_facts");
    SchedFacts f = facts;
    f.cpus = cpus;
    if (root_domain && !f.root_domain) f.root_domain = root_domain;
    return f;
  }

  // For set_affinity: EBUSY where `tid` is SCHED_DEADLINE and `cpus` leave
  // out part of the root domain; else 0.
  int deadline_narrowing(pid_t tid, const CpuSet& cpus) const {
    if (!root_domain || sched_of(tid).policy != SchedPolicy::Deadline) return 0;
    return root_domain->is_subset_of(cpus) ? 0 : EBUSY;
  }

protected:
  virtual void log(const char* call) = 0;           // FakeOs::calls
  virtual bool thread_exists(pid_t tid) const = 0;  // FakeOs: it has a CPU list
  virtual const CpuSet* cpus_of(pid_t tid) const = 0;

private:
  unsigned deadlines() const {
    unsigned n = 0;
    for (const auto& [tid, a] : sched) n += a.policy == SchedPolicy::Deadline;
    return n;
  }
  unsigned m_set_sched_n = 0;
};

}  // namespace affix::test
