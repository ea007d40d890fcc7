#pragma once
// Recording fakes of the os layer's interfaces (os.hpp), in ninja's
// FakeCommandRunner style.
//
// FakeOs is every interface on one world, for the tests that run launch,
// pin, migrate and roll back against the same threads and pages: every call
// is appended to plain public vectors, the state it acts on (per-thread
// affinity, thread lists, start times) is public, and any call can be told
// to fail with an errno. Hooks let a test change the world between calls
// (threads appearing between scans, a PID reused mid-move).

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fake_sched.hpp"
#include "os.hpp"

namespace affix::test {

class FakeOs : public AffinityOs,
               public MemPolicyOs,
               public WeightsOs,
               public PagesOs,
               public TaskOs,
               public Clock,
               public ExecOs,
               public CapabilityOs,
               public FakeSched {
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
  struct MovePagesCall {
    pid_t pid;
    std::vector<uint64_t> pages;
    std::vector<int> nodes;  // empty: a query
  };

  // --- What happened, in order. `calls` names every call ("set_affinity",
  // "get_affinity", "set_mempolicy", "has_preferred_many",
  // "has_weighted_interleave", "check_weight_file", "write_weight_file",
  // "read_weights", "mems_allowed",
  // "migrate_pages", "move_pages", "list_threads", "thread_count",
  // "list_processes", "pidfd_open", "pidfd_alive", "close_fd", "start_time",
  // "now_ms", "sleep_ms", "follow_threads", "exec", "set_env", and
  // FakeSched's "get_sched", "set_sched", "sched_support", "sched_facts");
  // the typed vectors hold the arguments.
  std::vector<std::string> calls;
  std::vector<AffinityCall> set_affinity_calls;
  std::vector<pid_t> get_affinity_calls;
  std::vector<MempolicyCall> set_mempolicy_calls;
  std::vector<MigrateCall> migrate_calls;
  std::vector<MovePagesCall> move_pages_calls;
  std::vector<pid_t> list_threads_calls;
  std::vector<pid_t> pidfd_open_calls;
  std::vector<int> closed_fds;
  std::vector<unsigned> sleeps;
  std::vector<std::vector<std::string>> exec_calls;
  struct FollowCall {
    std::vector<unsigned> cpus;
    unsigned per_cpu;
  };
  std::vector<FollowCall> follow_calls;
  std::vector<std::pair<std::string, std::string>> env_calls;

  // --- The world the calls act on.
  // Current CPU list per thread (tid 0 = the caller). set_affinity writes it,
  // get_affinity reads it (a tid not here: ESRCH, unless default_affinity).
  std::map<pid_t, CpuSet> affinity;
  std::optional<CpuSet> default_affinity;
  // A thread's cpuset, where narrower than the machine: set_affinity keeps
  // the part of the list inside it (EINVAL where none is), as the kernel does.
  std::map<pid_t, CpuSet> cpusets;
  // Threads per process (list_threads; a pid not here: ESRCH).
  std::map<pid_t, std::vector<pid_t>> threads;
  // Start time per process or thread (start_time; an id not here: nullopt).
  // A pidfd stays alive while its process is in `threads` with the start
  // time it had when the pidfd was opened (so a reused PID is another one).
  std::map<pid_t, unsigned long long> start_times;
  // Processes whose pidfd reports them gone (pidfd_alive false) whatever the above.
  std::set<pid_t> exited;
  // Parent of each process (list_processes; a process not here has parent 1).
  std::map<pid_t, pid_t> parents;
  // Pages per process: address -> node (move_pages).
  std::map<pid_t, std::map<uint64_t, int>> pages;
  // The memory nodes affix may use (mems_allowed; empty: unknown).
  CpuSet own_mems;
  bool preferred_many = true;  // has_preferred_many
  bool weighted_interleave = true;  // has_weighted_interleave
  // The kernel's interleave weights: write_weight_file("nodeN") sets
  // weights.weights[N] (as the kernel does, and turns the auto mode off where
  // there is one); write_weight_file(auto_file) sets auto_mode and, turned
  // on, every weight to `auto_weights`'s. read_weights returns it.
  InterleaveWeights weights;
  std::map<unsigned, unsigned> auto_weights;
  std::vector<std::pair<std::string, std::string>> weight_writes;  // file, text
  // The monotonic clock: every call of now_ms advances it by 1 ms, sleeps by theirs.
  uint64_t clock_ms = 0;
  // The environment as set_env leaves it.
  std::map<std::string, std::string> env;

  // --- Failures: errno values to return (0 = succeed).
  std::map<pid_t, int> set_affinity_errors;  // per tid
  std::map<pid_t, int> get_affinity_errors;  // per tid
  int set_mempolicy_error = 0;
  std::map<std::string, int> check_weight_errors;  // per file
  // The k-th call of write_weight_file (0-based) fails with fail_write_errno.
  int fail_write_at = -1;
  int fail_write_errno = EIO;
  // Weights the kernel keeps instead of what is written (read back), per node.
  std::map<unsigned, unsigned> kept_weights;
  int migrate_error = 0;
  std::map<pid_t, int> migrate_errors;     // per pid (migrate_pages and move_pages)
  long migrate_not_moved = 0;
  std::map<pid_t, int> list_threads_errors;  // per pid
  std::map<pid_t, int> thread_count_errors;  // per pid
  int pidfd_error = 0;       // e.g. ENOSYS: pidfd_open returns -pidfd_error
  bool cap_sys_nice = false; // has_cap_sys_nice
  int follow_error = 0;      // follow_threads' answer (EPERM: ptrace refused)
  std::optional<Tracer> traced_by;  // tracer()'s answer (strace, an outer --spread)
  int exec_error = 0;        // 0: the "exec" succeeded and returns 0
  int find_error = 0;        // find_command's answer (not recorded in calls)
  // traced_exec_loss's answer: the file, what a traced exec of it drops (not recorded in calls)
  std::pair<std::string, std::string> exec_loss;

  // --- Hooks, run before the call does its work (may change the world).
  // `n` counts that call's invocations from 0. on_list_threads runs before
  // every look at a process's threads: list_threads and thread_count (one
  // count for both).
  std::function<void(FakeOs&, pid_t pid, unsigned n)> on_list_threads;
  std::function<void(FakeOs&, pid_t tid, const CpuSet& cpus, unsigned n)> on_set_affinity;
  std::function<void(FakeOs&, unsigned ms)> on_sleep;
  std::function<void(FakeOs&, pid_t pid)> on_pidfd_open;     // before it opens
  std::function<void(FakeOs&, unsigned n)> on_list_processes;
  std::function<void(FakeOs&, pid_t tid, unsigned n)> on_get_affinity;

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
    if (tid != 0 && !affinity.count(tid) && !default_affinity) return ESRCH;
    if (int e = deadline_narrowing(tid, cpus)) return e;
    CpuSet kept = cpus;
    if (auto it = cpusets.find(tid); it != cpusets.end()) kept = cpus & it->second;
    if (kept.empty()) return EINVAL;
    affinity[tid] = kept;
    return 0;
  }

  int get_affinity(pid_t tid, CpuSet& out) override {
    calls.emplace_back("get_affinity");
    get_affinity_calls.push_back(tid);
    if (on_get_affinity) on_get_affinity(*this, tid, m_get_affinity_n++);
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

  bool has_preferred_many() override {
    calls.emplace_back("has_preferred_many");
    return preferred_many;
  }

  bool has_weighted_interleave() override {
    calls.emplace_back("has_weighted_interleave");
    return weighted_interleave;
  }

  int check_weight_file(const std::string& name) override {
    calls.emplace_back("check_weight_file");
    auto it = check_weight_errors.find(name);
    return it == check_weight_errors.end() ? 0 : it->second;
  }

  int write_weight_file(const std::string& name, const std::string& text) override {
    calls.emplace_back("write_weight_file");
    if (static_cast<int>(m_weight_write_n++) == fail_write_at) return fail_write_errno;
    weight_writes.emplace_back(name, text);
    std::string value = text.substr(0, text.find('\n'));
    if (name == weights.auto_file) {
      weights.auto_mode = value == "true";
      if (value == "true") weights.weights = auto_weights;
      return 0;
    }
    unsigned node = static_cast<unsigned>(std::stoul(name.substr(4)));
    auto kept = kept_weights.find(node);
    weights.weights[node] = kept != kept_weights.end() ? kept->second : static_cast<unsigned>(std::stoul(value));
    if (weights.auto_mode) weights.auto_mode = false;
    return 0;
  }

  InterleaveWeights read_weights() override {
    calls.emplace_back("read_weights");
    return weights;
  }

  int mems_allowed(CpuSet& out) override {
    calls.emplace_back("mems_allowed");
    out = own_mems;
    return 0;
  }

  int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) override {
    calls.emplace_back("migrate_pages");
    migrate_calls.push_back({pid, from, to});
    if (auto it = migrate_errors.find(pid); it != migrate_errors.end() && it->second) return it->second;
    if (migrate_error) return migrate_error;
    not_moved = migrate_not_moved;
    // Pages the fake knows of move to the lowest target node.
    if (!to.empty())
      for (auto& [addr, node] : pages[pid])
        if (node >= 0 && from.test(static_cast<unsigned>(node))) node = static_cast<int>(to.first());
    return 0;
  }

  int move_pages(pid_t pid, const std::vector<uint64_t>& addrs, const int* nodes,
                 std::vector<int>& status) override {
    calls.emplace_back("move_pages");
    move_pages_calls.push_back({pid, addrs, nodes ? std::vector<int>(nodes, nodes + addrs.size()) : std::vector<int>{}});
    if (auto it = migrate_errors.find(pid); it != migrate_errors.end() && it->second) return it->second;
    if (migrate_error) return migrate_error;
    status.assign(addrs.size(), -ENOENT);
    auto& mine = pages[pid];
    for (size_t i = 0; i < addrs.size(); ++i) {
      auto it = mine.find(addrs[i]);
      if (it == mine.end()) continue;
      if (nodes) it->second = nodes[i];
      status[i] = it->second;
    }
    return 0;
  }

  // What list_threads says of its listings (a test that cuts one short says false).
  bool listing_complete = true;
  int list_threads(pid_t pid, std::vector<pid_t>& out, bool& complete) override {
    calls.emplace_back("list_threads");
    list_threads_calls.push_back(pid);
    if (on_list_threads) on_list_threads(*this, pid, m_list_threads_n++);
    complete = listing_complete;
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

  // Threads that have not run yet (has_run false).
  std::set<pid_t> not_run;
  bool has_run(pid_t, pid_t tid) override {
    calls.emplace_back("has_run");
    return !not_run.count(tid);
  }

  std::vector<ProcessParent> list_processes_result() const {
    std::vector<ProcessParent> out;
    for (const auto& [pid, tids] : threads) {
      auto parent = parents.find(pid);
      auto start = start_times.find(pid);
      out.push_back({pid, parent == parents.end() ? 1 : parent->second,
                     start == start_times.end() ? 0 : start->second});
    }
    return out;
  }

  int list_processes(std::vector<ProcessParent>& out) override {
    calls.emplace_back("list_processes");
    if (on_list_processes) on_list_processes(*this, m_list_processes_n++);
    out = list_processes_result();
    return 0;
  }

  // The thread that forked each process (list_children; a process not
  // here was forked by its parent's main thread), and what list_children
  // says of its listings.
  std::map<pid_t, pid_t> forked_by;
  bool children_complete = true;
  std::vector<std::pair<pid_t, pid_t>> list_children_calls;  // pid, tid
  int list_children(pid_t pid, pid_t tid, std::vector<pid_t>& out, bool& complete) override {
    calls.emplace_back("list_children");
    list_children_calls.emplace_back(pid, tid);
    complete = children_complete;
    out.clear();
    auto it = threads.find(pid);
    if (it == threads.end() || std::find(it->second.begin(), it->second.end(), tid) == it->second.end()) return ESRCH;
    for (const auto& [child, parent] : parents) {
      if (parent != pid || !threads.count(child)) continue;
      auto by = forked_by.find(child);
      if ((by == forked_by.end() ? pid : by->second) == tid) out.push_back(child);
    }
    return 0;
  }

  std::optional<ProcessParent> process_parent(pid_t pid) override {
    calls.emplace_back("process_parent");
    if (!threads.count(pid)) return std::nullopt;
    auto parent = parents.find(pid);
    auto start = start_times.find(pid);
    return ProcessParent{pid, parent == parents.end() ? 1 : parent->second,
                         start == start_times.end() ? 0 : start->second};
  }

  int pidfd_open(pid_t pid) override {
    calls.emplace_back("pidfd_open");
    pidfd_open_calls.push_back(pid);
    if (on_pidfd_open) on_pidfd_open(*this, pid);
    if (pidfd_error) return -pidfd_error;
    if (!threads.count(pid)) {
      for (const auto& [p, tids] : threads)
        if (std::find(tids.begin(), tids.end(), pid) != tids.end()) return -EINVAL;  // not a main thread
      return -ESRCH;
    }
    int fd = m_next_fd++;
    m_fd_pids[fd] = {pid, start_times.count(pid) ? start_times.at(pid) : 0};
    return fd;
  }

  bool pidfd_alive(int fd) override {
    calls.emplace_back("pidfd_alive");
    auto it = m_fd_pids.find(fd);
    if (it == m_fd_pids.end()) return false;
    auto [pid, start] = it->second;
    if (exited.count(pid) || !threads.count(pid)) return false;
    return !start_times.count(pid) || start_times.at(pid) == start;
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

  uint64_t now_ms() override {
    calls.emplace_back("now_ms");
    return ++clock_ms;
  }

  void sleep_ms(unsigned ms) override {
    calls.emplace_back("sleep_ms");
    sleeps.push_back(ms);
    clock_ms += ms;
    if (on_sleep) on_sleep(*this, ms);
  }

  int exec(const std::vector<std::string>& argv) override {
    calls.emplace_back("exec");
    exec_calls.push_back(argv);
    return exec_error;
  }

  int find_command(const std::string&) override { return find_error; }
  std::pair<std::string, std::string> traced_exec_loss(const std::string&) override { return exec_loss; }

  bool has_cap_sys_nice() override {
    calls.emplace_back("has_cap_sys_nice");
    return cap_sys_nice;
  }

  int follow_threads(const std::vector<unsigned>& cpus, unsigned per_cpu,
                     const char*& call) override {
    calls.emplace_back("follow_threads");
    follow_calls.push_back({cpus, per_cpu});
    call = "ptrace";
    return follow_error;
  }

  std::optional<Tracer> tracer() override { return traced_by; }

  void set_env(const std::string& name, const std::string& value) override {
    calls.emplace_back("set_env");
    env_calls.emplace_back(name, value);
    env[name] = value;
  }

protected:
  void log(const char* call) override { calls.emplace_back(call); }
  bool thread_exists(pid_t tid) const override { return tid == 0 || affinity.count(tid) || default_affinity; }
  const CpuSet* cpus_of(pid_t tid) const override {
    auto it = affinity.find(tid);
    return it != affinity.end() ? &it->second : default_affinity ? &*default_affinity : nullptr;
  }

private:
  unsigned m_weight_write_n = 0;
  unsigned m_set_affinity_n = 0;
  unsigned m_get_affinity_n = 0;
  unsigned m_list_threads_n = 0;
  unsigned m_list_processes_n = 0;
  int m_next_fd = 100;
  std::map<int, std::pair<pid_t, unsigned long long>> m_fd_pids;  // fd -> process and its start time
};

// The CPU lists alone, for a caller that takes only an AffinityOs (the
// allowed set, watch, the cpu-migrations probe): set_affinity writes
// `affinity`, get_affinity reads it (a tid not there: ESRCH).
class FakeAffinity : public AffinityOs {
public:
  std::map<pid_t, CpuSet> affinity;  // tid 0 = the caller
  std::vector<pid_t> set_affinity_calls;
  std::vector<pid_t> get_affinity_calls;

  int set_affinity(pid_t tid, const CpuSet& cpus) override {
    set_affinity_calls.push_back(tid);
    affinity[tid] = cpus;
    return 0;
  }
  int get_affinity(pid_t tid, CpuSet& out) override {
    get_affinity_calls.push_back(tid);
    auto it = affinity.find(tid);
    if (it == affinity.end()) return ESRCH;
    out = it->second;
    return 0;
  }
};

}  // namespace affix::test
