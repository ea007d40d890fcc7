#pragma once
// A recording fake of the OS boundary (ninja's FakeCommandRunner style):
// every call is recorded in plain public vectors, processes and threads are
// plain maps, and a test can fail a thread with any errno, make threads
// appear or vanish between scans (on_list), or reuse a PID (start_times).

#include <algorithm>
#include <cerrno>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "os.hpp"

namespace affix::test {

class FakeOs final : public Os {
public:
  // The machine: PID -> its thread IDs; TID -> its CPU list.
  std::map<pid_t, std::vector<pid_t>> processes;
  std::map<pid_t, CpuSet> affinity;
  std::map<pid_t, unsigned long long> start_times;  // PID -> start time (missing: gone)
  bool has_pidfd = true;                           // false: pidfd_open gives ENOSYS
  std::map<pid_t, int> fail_set;                   // TID -> errno for set_affinity
  std::map<pid_t, int> fail_get;                   // TID -> errno for get_affinity
  std::map<pid_t, int> fail_list;                  // PID -> errno for list_threads
  int fail_migrate = 0;
  long migrate_not_moved = 0;
  int fail_mempolicy = 0;
  int fail_exec = ENOENT;

  // Called at the start of every list_threads (count = calls so far, from 1)
  // and after every successful set_affinity: tests change the machine here.
  std::function<void(FakeOs&, pid_t pid, unsigned count)> on_list;
  std::function<void(FakeOs&, pid_t tid, const CpuSet& cpus)> on_set;
  std::function<void(FakeOs&)> on_migrate;

  // What was called.
  struct SetCall {
    pid_t tid;
    CpuSet cpus;
  };
  struct MigrateCall {
    pid_t pid;
    CpuSet from, to;
  };
  struct PolicyCall {
    MemPolicy policy;
    CpuSet nodes;
  };
  std::vector<SetCall> set_calls;
  std::vector<pid_t> get_calls;
  std::vector<pid_t> list_calls;
  std::vector<MigrateCall> migrate_calls;
  std::vector<PolicyCall> policy_calls;
  std::vector<std::vector<std::string>> exec_calls;
  std::vector<std::pair<std::string, std::string>> env_calls;
  std::vector<unsigned> sleeps;
  std::vector<int> opened_fds, closed_fds;

  // Helpers for tests.
  void add_process(pid_t pid, std::vector<pid_t> tids, const CpuSet& cpus,
                   unsigned long long start = 100) {
    processes[pid] = tids;
    for (pid_t tid : tids) affinity[tid] = cpus;
    start_times[pid] = start;
  }
  void add_thread(pid_t pid, pid_t tid, const CpuSet& cpus) {
    processes[pid].push_back(tid);
    affinity[tid] = cpus;
  }
  void remove_thread(pid_t pid, pid_t tid) {
    auto& tids = processes[pid];
    std::erase(tids, tid);
    affinity.erase(tid);
  }
  void remove_process(pid_t pid) {
    for (pid_t tid : processes[pid]) affinity.erase(tid);
    processes.erase(pid);
    start_times.erase(pid);
  }

  int set_affinity(pid_t tid, const CpuSet& cpus) override {
    if (auto f = fail_set.find(tid); f != fail_set.end()) return f->second;
    auto a = affinity.find(tid);
    if (a == affinity.end()) return ESRCH;
    if (cpus.empty()) return EINVAL;
    a->second = cpus;
    set_calls.push_back({tid, cpus});
    if (on_set) on_set(*this, tid, cpus);
    return 0;
  }
  int get_affinity(pid_t tid, CpuSet& out) override {
    get_calls.push_back(tid);
    if (auto f = fail_get.find(tid); f != fail_get.end()) return f->second;
    auto a = affinity.find(tid);
    if (a == affinity.end()) return ESRCH;
    out = a->second;
    return 0;
  }
  int set_mempolicy(MemPolicy policy, const CpuSet& nodes) override {
    if (fail_mempolicy) return fail_mempolicy;
    policy_calls.push_back({policy, nodes});
    return 0;
  }
  int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) override {
    if (fail_migrate) return fail_migrate;
    migrate_calls.push_back({pid, from, to});
    not_moved = migrate_not_moved;
    if (on_migrate) on_migrate(*this);
    return 0;
  }
  int list_threads(pid_t pid, std::vector<pid_t>& out) override {
    list_calls.push_back(pid);
    if (on_list) on_list(*this, pid, static_cast<unsigned>(list_calls.size()));
    if (auto f = fail_list.find(pid); f != fail_list.end()) return f->second;
    auto p = processes.find(pid);
    if (p == processes.end()) return ESRCH;
    out = p->second;
    std::sort(out.begin(), out.end());
    return 0;
  }
  int pidfd_open(pid_t pid) override {
    if (!has_pidfd) return -ENOSYS;
    if (!processes.count(pid)) return start_time(pid) ? -EINVAL : -ESRCH;  // EINVAL: a TID, not a leader
    if (!start_times.count(pid)) return -ESRCH;
    int fd = 100 + static_cast<int>(opened_fds.size());
    opened_fds.push_back(fd);
    m_fd_pid[fd] = pid;
    m_fd_start[fd] = start_times[pid];
    return fd;
  }
  // Alive while the process it was opened on still exists (same start time).
  bool pidfd_alive(int fd) override {
    pid_t pid = m_fd_pid[fd];
    auto s = start_times.find(pid);
    return s != start_times.end() && s->second == m_fd_start[fd];
  }
  void close_fd(int fd) override { closed_fds.push_back(fd); }
  std::optional<unsigned long long> start_time(pid_t pid) override {
    if (auto s = start_times.find(pid); s != start_times.end()) return s->second;
    // A thread ID answers with its process's start time.
    for (const auto& [p, tids] : processes) {
      for (pid_t t : tids)
        if (t == pid && start_times.count(p)) return start_times[p];
    }
    return std::nullopt;
  }
  void sleep_ms(unsigned ms) override { sleeps.push_back(ms); }
  int exec(const std::vector<std::string>& argv) override {
    exec_calls.push_back(argv);
    return fail_exec;
  }
  void set_env(const std::string& name, const std::string& value) override {
    env_calls.emplace_back(name, value);
  }

private:
  std::map<int, pid_t> m_fd_pid;
  std::map<int, unsigned long long> m_fd_start;
};

}  // namespace affix::test
