#pragma once
// A recording fake of the whole Os interface (ninja's FakeCommandRunner
// style): every call is appended to plain public vectors, the state it acts
// on (per-thread affinity, thread lists, start times) is public, and any call
// can be told to fail with an errno. Hooks let a test change the world between
// calls (threads appearing between scans, a PID reused mid-move).

#include <cerrno>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "os.hpp"

namespace affix::test {

class FakeOs : public Os {
public:
  struct AffinityCall {
    pid_t tid;
    CpuSet cpus;
  };
  struct MempolicyCall {
    MemPolicy policy;
    CpuSet nodes;
  };
  struct MigrateCall {
    pid_t pid;
    CpuSet from;
    CpuSet to;
  };

  // --- What happened, in order. `calls` names every call ("set_affinity",
  // "get_affinity", "set_mempolicy", "migrate_pages", "list_threads", "thread_count",
  // "pidfd_open", "pidfd_alive", "close_fd", "start_time", "sleep_ms",
  // "exec", "set_env"); the typed vectors hold the arguments.
  std::vector<std::string> calls;
  std::vector<AffinityCall> set_affinity_calls;
  std::vector<pid_t> get_affinity_calls;
  std::vector<MempolicyCall> set_mempolicy_calls;
  std::vector<MigrateCall> migrate_calls;
  std::vector<pid_t> list_threads_calls;
  std::vector<pid_t> pidfd_open_calls;
  std::vector<int> closed_fds;
  std::vector<unsigned> sleeps;
  std::vector<std::vector<std::string>> exec_calls;
  std::vector<std::pair<std::string, std::string>> env_calls;

  // --- The world the calls act on.
  // Current CPU list per thread (tid 0 = the caller). set_affinity writes it,
  // get_affinity reads it (a tid not here: ESRCH, unless default_affinity).
  std::map<pid_t, CpuSet> affinity;
  std::optional<CpuSet> default_affinity;
  // Threads per process (list_threads; a pid not here: ESRCH).
  std::map<pid_t, std::vector<pid_t>> threads;
  // Start time per process (start_time; a pid not here: nullopt).
  std::map<pid_t, unsigned long long> start_times;
  // Processes whose pidfd reports them gone (pidfd_alive false).
  std::set<pid_t> exited;
  // The environment as set_env leaves it.
  std::map<std::string, std::string> env;

  // --- Failures: errno values to return (0 = succeed).
  std::map<pid_t, int> set_affinity_errors;  // per tid
  std::map<pid_t, int> get_affinity_errors;  // per tid
  int set_mempolicy_error = 0;
  int migrate_error = 0;
  long migrate_not_moved = 0;
  std::map<pid_t, int> list_threads_errors;  // per pid
  std::map<pid_t, int> thread_count_errors;  // per pid
  int pidfd_error = 0;       // e.g. ENOSYS: pidfd_open returns -pidfd_error
  bool cap_sys_nice = false; // has_cap_sys_nice
  int exec_error = 0;        // 0: the "exec" succeeded and returns 0
  int find_error = 0;        // find_command's answer (not recorded in calls)

  // --- Hooks, run before the call does its work (may change the world).
  // `n` counts that call's invocations from 0. on_list_threads runs before
  // every look at a process's threads: list_threads and thread_count (one
  // count for both).
  std::function<void(FakeOs&, pid_t pid, unsigned n)> on_list_threads;
  std::function<void(FakeOs&, pid_t tid, const CpuSet& cpus, unsigned n)> on_set_affinity;
  std::function<void(FakeOs&, unsigned ms)> on_sleep;

  // Index of the first call named `name` in `calls`, or -1.
  int call_index(const std::string& name) const {
    for (size_t i = 0; i < calls.size(); ++i)
      if (calls[i] == name) return static_cast<int>(i);
    return -1;
  }
  // Every call named `name`, counted.
  size_t call_count(const std::string& name) const {
    size_t n = 0;
    for (auto& c : calls) n += c == name;
    return n;
  }

  int set_affinity(pid_t tid, const CpuSet& cpus) override {
    calls.emplace_back("set_affinity");
    set_affinity_calls.push_back({tid, cpus});
    if (on_set_affinity) on_set_affinity(*this, tid, cpus, m_set_affinity_n++);
    if (auto it = set_affinity_errors.find(tid); it != set_affinity_errors.end() && it->second)
      return it->second;
    affinity[tid] = cpus;
    return 0;
  }

  int get_affinity(pid_t tid, CpuSet& out) override {
    calls.emplace_back("get_affinity");
    get_affinity_calls.push_back(tid);
    if (auto it = get_affinity_errors.find(tid); it != get_affinity_errors.end() && it->second)
      return it->second;
    if (auto it = affinity.find(tid); it != affinity.end()) {
      out = it->second;
      return 0;
    }
    if (default_affinity) {
      out = *default_affinity;
      return 0;
    }
    return ESRCH;
  }

  int set_mempolicy(MemPolicy policy, const CpuSet& nodes) override {
    calls.emplace_back("set_mempolicy");
    set_mempolicy_calls.push_back({policy, nodes});
    return set_mempolicy_error;
  }

  int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) override {
    calls.emplace_back("migrate_pages");
    migrate_calls.push_back({pid, from, to});
    if (migrate_error) return migrate_error;
    not_moved = migrate_not_moved;
    return 0;
  }

  int list_threads(pid_t pid, std::vector<pid_t>& out) override {
    calls.emplace_back("list_threads");
    list_threads_calls.push_back(pid);
    if (on_list_threads) on_list_threads(*this, pid, m_list_threads_n++);
    if (auto it = list_threads_errors.find(pid); it != list_threads_errors.end() && it->second)
      return it->second;
    auto it = threads.find(pid);
    if (it == threads.end()) return ESRCH;
    out = it->second;
    return 0;
  }

  std::vector<pid_t> thread_count_calls;
  int thread_count(pid_t pid, unsigned& out) override {
    calls.emplace_back("thread_count");
    thread_count_calls.push_back(pid);
    if (on_list_threads) on_list_threads(*this, pid, m_list_threads_n++);
    if (auto it = thread_count_errors.find(pid); it != thread_count_errors.end() && it->second)
      return it->second;
    auto it = threads.find(pid);
    if (it == threads.end()) return ESRCH;
    out = static_cast<unsigned>(it->second.size());
    return 0;
  }

  int pidfd_open(pid_t pid) override {
    calls.emplace_back("pidfd_open");
    pidfd_open_calls.push_back(pid);
    if (pidfd_error) return -pidfd_error;
    if (!threads.count(pid)) return -ESRCH;
    int fd = m_next_fd++;
    m_fd_pids[fd] = pid;
    return fd;
  }

  bool pidfd_alive(int fd) override {
    calls.emplace_back("pidfd_alive");
    auto it = m_fd_pids.find(fd);
    if (it == m_fd_pids.end()) return false;
    return !exited.count(it->second);
  }

  void close_fd(int fd) override {
    calls.emplace_back("close_fd");
    closed_fds.push_back(fd);
  }

  std::optional<unsigned long long> start_time(pid_t pid) override {
    calls.emplace_back("start_time");
    auto it = start_times.find(pid);
    if (it == start_times.end()) return std::nullopt;
    return it->second;
  }

  void sleep_ms(unsigned ms) override {
    calls.emplace_back("sleep_ms");
    sleeps.push_back(ms);
    if (on_sleep) on_sleep(*this, ms);
  }

  int exec(const std::vector<std::string>& argv) override {
    calls.emplace_back("exec");
    exec_calls.push_back(argv);
    return exec_error;
  }

  int find_command(const std::string&) override { return find_error; }

  bool has_cap_sys_nice() override {
    calls.emplace_back("has_cap_sys_nice");
    return cap_sys_nice;
  }

  void set_env(const std::string& name, const std::string& value) override {
    calls.emplace_back("set_env");
    env_calls.emplace_back(name, value);
    env[name] = value;
  }

private:
  unsigned m_set_affinity_n = 0;
  unsigned m_list_threads_n = 0;
  int m_next_fd = 100;
  std::map<int, pid_t> m_fd_pids;
};

}  // namespace affix::test
