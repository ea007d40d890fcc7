#include <catch2/catch.hpp>

#include "error.hpp"
#include "fake_os.hpp"
#include "temp_root.hpp"
#include "pin.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::TempRoot;

namespace {

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }

PinRequest process(pid_t id) { return {id, PinScope::Process}; }
PinRequest thread(pid_t id) { return {id, PinScope::Thread}; }
PinRequest tree(pid_t id) { return {id, PinScope::Tree}; }

// Every request goes to `list` (with `spread`, one CPU each from it).
PinResolver to(const char* list, std::vector<unsigned> spread = {}) {
  PinPlace place{cpus(list), spread};
  return [place](const PinRequest&) { return place; };
}

const SysRoot k_no_proc("/nonexistent-affix-root");

PinReport pin(FakeOs& os, const std::vector<PinRequest>& requests, const PinResolver& resolve,
              const PinOptions& options = {}, const SysRoot& root = k_no_proc) {
  return pin_threads(os, root, requests, resolve, options);
}

// The error pin_threads throws, with its hint after " | ".
std::string failure(FakeOs& os, const std::vector<PinRequest>& requests, const PinResolver& resolve,
                    const PinOptions& options = {}, const SysRoot& root = k_no_proc,
                    ErrorKind kind = ErrorKind::Runtime) {
  try {
    pin_threads(os, root, requests, resolve, options);
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.hint().empty() ? e.what() : std::string(e.what()) + " | " + e.hint();
  }
  FAIL("pin_threads did not fail");
  return {};
}

std::string lists(FakeOs& os, const std::vector<pid_t>& tids) {
  std::string out;
  for (pid_t tid : tids) out += (out.empty() ? "" : " ") + format_cpulist(os.affinity.at(tid));
  return out;
}

// The world of the fake: a process, its threads (each with its own /proc
// entry and so a start time), and their CPU lists.
void add_process(FakeOs& os, pid_t pid, std::vector<pid_t> tids, const CpuSet& list,
                 unsigned long long start = 100, pid_t parent = 1) {
  os.threads[pid] = tids;
  for (pid_t tid : tids) {
    os.affinity[tid] = list;
    os.start_times[tid] = start;
  }
  os.start_times[pid] = start;
  os.parents[pid] = parent;
  os.exited.erase(pid);
}
void add_thread(FakeOs& os, pid_t pid, pid_t tid, const CpuSet& list) {
  os.threads[pid].push_back(tid);
  os.affinity[tid] = list;
  os.start_times[tid] = os.start_times[pid];
}
void remove_thread(FakeOs& os, pid_t pid, pid_t tid) {
  std::erase(os.threads[pid], tid);
  os.affinity.erase(tid);
  os.start_times.erase(tid);
}
void remove_process(FakeOs& os, pid_t pid) {
  for (pid_t tid : os.threads[pid]) {
    os.affinity.erase(tid);
    os.start_times.erase(tid);
  }
  os.threads.erase(pid);
  os.start_times.erase(pid);
  os.parents.erase(pid);
}

size_t sets_of(const FakeOs& os, pid_t tid) {
  return static_cast<size_t>(std::count_if(os.set_affinity_calls.begin(), os.set_affinity_calls.end(),
                                           [&](const auto& c) { return c.tid == tid; }));
}

}  // namespace

TEST_CASE("pin moves every thread, sleeps, then proves them all moved") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  auto report = pin(os, {process(10)}, to("2"));
  CHECK(lists(os, {10, 11, 12}) == "2 2 2");
  CHECK(os.set_affinity_calls.size() == 3);
  // Pass 1 lists, counts, sets each and reads back what the kernel kept;
  // the sleep; pass 2 counts (3 known, 3 on their lists: proven).
  CHECK(report.passes == 2);
  CHECK(os.sleeps == std::vector<unsigned>{PinOptions{}.settle_ms});
  CHECK(os.list_threads_calls == std::vector<pid_t>{10});
  CHECK(os.thread_count_calls == std::vector<pid_t>{10, 10});
  CHECK(os.call_count("get_affinity") == 9);
  REQUIRE(report.targets.size() == 1);
  const auto& t = report.targets[0];
  CHECK_FALSE(t.exited);
  REQUIRE(t.processes.size() == 1);
  REQUIRE(t.processes[0].threads.size() == 3);
  const auto& m = t.processes[0].threads[1];
  CHECK(format_cpulist(m.before) == "0-3");
  CHECK(format_cpulist(m.after) == "2");
  CHECK(m.changed);
  CHECK(os.pidfd_open_calls == std::vector<pid_t>{10});
  CHECK(os.closed_fds.empty());  // held by the report, for what comes after the move
  report = {};
  CHECK(os.closed_fds == std::vector<int>{100});
}

TEST_CASE("the identity is checked before every pass, after the listing") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  pin(os, {process(10)}, to("1"));
  // open: pidfd, start time, (resolve), identity; pass 1: list, count,
  // identity, then the threads; pass 2: count, identity, the threads.
  std::vector<std::string> looks;
  for (auto& c : os.calls)
    if (c == "pidfd_open" || c == "pidfd_alive" || c == "list_threads" || c == "thread_count" || c == "set_affinity")
      looks.push_back(c);
  CHECK(looks == std::vector<std::string>{"pidfd_open", "pidfd_alive", "list_threads", "thread_count",
                                          "pidfd_alive", "set_affinity", "set_affinity", "thread_count",
                                          "pidfd_alive"});
}

TEST_CASE("pin with nothing to change makes no call and ends at the first pass") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("1"));
  auto report = pin(os, {process(10)}, to("1"));
  CHECK(os.set_affinity_calls.empty());
  CHECK(os.sleeps.empty());
  CHECK(report.passes == 1);
  CHECK_FALSE(report.targets[0].processes[0].threads[0].changed);
}

TEST_CASE("threads created between passes are moved too") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  // Looks at the thread list (list_threads and thread_count): pass 1 lists
  // (0) and counts (1: 12 appears, 3 against 2 listed), lists again (2) and
  // counts (3); sleep; pass 2 counts (4: 13 appears with the old list,
  // cloned before its creator moved: 4 against 3 known); pass 3 lists (5)
  // and counts (6), moves 13; sleep; pass 4 counts (7): proven.
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    if (n == 1) add_thread(o, 10, 12, cpus("0-3"));
    if (n == 4) add_thread(o, 10, 13, cpus("0-3"));
  };
  auto report = pin(os, {process(10)}, to("1"));
  CHECK(lists(os, {10, 11, 12, 13}) == "1 1 1 1");
  CHECK(report.targets[0].processes[0].threads.size() == 4);
  CHECK(report.passes == 4);
  // 13 came during the move: the longer sleep from then on.
  CHECK(os.sleeps == std::vector<unsigned>{PinOptions{}.settle_ms, PinOptions{}.busy_settle_ms});
  CHECK(os.list_threads_calls.size() == 3);
  CHECK(os.thread_count_calls.size() == 5);
}

TEST_CASE("a listing that disagrees with the thread count is taken again") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  // Thread 12 (on the old list) exists, but the first three listings miss
  // it, as a walk of /proc/PID/task cut short by an exiting thread does;
  // every count says 3. Pass 1 lists three times (its last listing stands,
  // and proves nothing); pass 2's count differs, its listing finds 12.
  // Listings taken at their word would end the move with 12 left behind.
  add_thread(os, 10, 12, cpus("0-3"));
  unsigned listings = 0;
  os.on_list_threads = [&listings](FakeOs& o, pid_t, unsigned) {
    o.threads[10] = {10, 11, 12};
    if (o.list_threads_calls.size() > listings) {  // this look is a listing
      listings = static_cast<unsigned>(o.list_threads_calls.size());
      if (listings < 4) o.threads[10] = {10, 11};
      o.listing_complete = listings >= 4;  // the kernel's walk was cut short
    }
  };
  auto report = pin(os, {process(10)}, to("1"));
  CHECK(lists(os, {10, 11, 12}) == "1 1 1");
  CHECK(report.targets[0].processes[0].threads.size() == 3);
  CHECK(os.list_threads_calls.size() == 4);
}

TEST_CASE("a thread that exits while another is created, same count, is still found") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  // Before the count of pass 2: 11 exits and 13 appears with the old list.
  // The count is still 3, but 11 no longer answers (2 good of 3): pass 3
  // lists again and finds 13. (Looks: pass 1 lists (0) and counts (1);
  // pass 2 counts (2).)
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    if (n == 2) {
      remove_thread(o, 10, 11);
      add_thread(o, 10, 13, cpus("0-3"));
    }
  };
  auto report = pin(os, {process(10)}, to("2"));
  CHECK(lists(os, {10, 12, 13}) == "2 2 2");
  const auto& threads = report.targets[0].processes[0].threads;
  REQUIRE(threads.size() == 4);
  CHECK(threads[1].gone);
  CHECK(os.list_threads_calls.size() == 2);
  // 1 moves; 2 (count) 11 gone: proves nothing; 3 (list) moves 13; 4 proven
  CHECK(report.passes == 4);
}

TEST_CASE("threads that only exit do not keep the move from ending") {
  // A process that ends a thread before every look at its threads. Each
  // pass sees a thread gone; what the count proves (the threads at that
  // moment are exactly the known ones that answer) ends the move anyway.
  // (The engine before took any thread gone as a reason for another pass,
  // and failed after its 1000 passes.)
  FakeOs os;
  std::vector<pid_t> tids;
  for (pid_t t = 10; t < 60; ++t) tids.push_back(t);
  add_process(os, 10, tids, cpus("0-3"));
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned) {
    auto& mine = o.threads[10];
    if (mine.size() > 2) remove_thread(o, 10, mine.back());
  };
  auto report = pin(os, {process(10)}, to("1"));
  for (pid_t t : os.threads[10]) CHECK(format_cpulist(os.affinity.at(t)) == "1");
  CHECK(report.passes <= 3);
}

TEST_CASE("threads that keep exiting after the count: a complete listing proves the move") {
  // 50 threads; every 10th read of a list, another thread exits (an exit
  // between the count and that thread's read: the count then never equals
  // the threads found on their lists). A listing the kernel walked to the
  // end, in which every thread answered or had been read before, proves
  // every thread moved anyway. (The engine before failed at its bound.)
  FakeOs os;
  std::vector<pid_t> tids;
  for (pid_t t = 10; t < 60; ++t) tids.push_back(t);
  add_process(os, 10, tids, cpus("0-3"));
  os.on_get_affinity = [](FakeOs& o, pid_t tid, unsigned n) {
    auto& mine = o.threads[10];
    if (n % 10 != 9 || mine.size() <= 5) return;
    pid_t victim = mine.back() == tid ? mine[mine.size() - 2] : mine.back();
    remove_thread(o, 10, victim);
  };
  auto report = pin(os, {process(10)}, to("1"));
  for (pid_t t : os.threads[10]) CHECK(format_cpulist(os.affinity.at(t)) == "1");
  // 1 moves them; 2 lists and reads each after it has run (verified), but
  // some exit before that; 3 lists, every listed thread verified: proven.
  CHECK(report.passes == 3);
  SECTION("a listed thread that has not run proves nothing: the move goes on until the exits stop") {
    // Its creation may not be complete (the kernel can still give it its
    // creator's list), so the listing does not prove it on its list; the
    // count does, once the exits stop.
    add_process(os, 10, tids, cpus("0-3"));
    os.not_run = {12};
    auto r = pin(os, {process(10)}, to("2"));
    for (pid_t t : os.threads[10]) CHECK(format_cpulist(os.affinity.at(t)) == "2");
    CHECK(r.passes > 3);
  }
  SECTION("a listing cut short proves nothing: the move goes on until the exits stop") {
    os.listing_complete = false;
    add_process(os, 10, tids, cpus("0-3"));
    auto r = pin(os, {process(10)}, to("2"));
    for (pid_t t : os.threads[10]) CHECK(format_cpulist(os.affinity.at(t)) == "2");
    CHECK(r.passes > 3);
  }
}

TEST_CASE("a process that never settles fails when the time is up, not after a count of passes") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0-3"));
  // A new thread with the old list before every look: nothing is ever proven.
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    add_thread(o, 10, static_cast<pid_t>(100 + n), cpus("0-3"));
  };
  PinOptions options;
  options.limit_ms = 500;
  CHECK(failure(os, {process(10)}, to("1"), options) ==
        "the threads of process 10 kept changing for 0.5 s; nothing was changed");
  CHECK(lists(os, {10, 101, 110}) == "0-3 0-3 0-3");
  CHECK(os.clock_ms > 500);
  CHECK(os.clock_ms < 1000);
}

TEST_CASE("a thread count that cannot be read falls back to listing") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.thread_count_errors[10] = EACCES;
  auto report = pin(os, {process(10)}, to("1"));
  CHECK(lists(os, {10, 11}) == "1 1");
  CHECK(report.passes == 2);
  CHECK(os.list_threads_calls.size() == 2);
}

TEST_CASE("a thread that vanishes, leaving a successor on the old list: the successor is moved") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  // When 10 is moved, 11 creates 14 with the old list and exits: chains.
  os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
    if (tid == 10 && o.affinity.count(11)) {
      remove_thread(o, 10, 11);
      add_thread(o, 10, 14, cpus("0-3"));
    }
  };
  auto report = pin(os, {process(10)}, to("3"));
  CHECK(lists(os, {10, 12, 14}) == "3 3 3");
  const auto& threads = report.targets[0].processes[0].threads;
  REQUIRE(threads.size() == 4);
  CHECK(threads[1].tid == 11);
  CHECK(threads[1].gone);
  CHECK_FALSE(report.targets[0].exited);
}

TEST_CASE("a thread in a narrower cpuset: the list the kernel accepted is its target") {
  // The kernel keeps the part of a list inside the thread's cpuset (cgroup
  // v1 moves single threads). Compared with the list asked for, thread 11
  // would look changed back on every pass, and the move failed.
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  os.cpusets[11] = cpus("1");
  os.affinity[11] = cpus("1");
  auto report = pin(os, {process(10)}, to("0-1"));
  CHECK(lists(os, {10, 11, 12}) == "0-1 1 0-1");
  const auto& m = report.targets[0].processes[0].threads[1];
  CHECK(format_cpulist(m.after) == "1");
  CHECK_FALSE(m.changed);  // it kept the list it had
  CHECK(report.passes == 2);
  SECTION("moved within it") {
    os.cpusets[11] = cpus("1-2");
    os.affinity[11] = cpus("2");
    auto r = pin(os, {process(10)}, to("0-1"));
    CHECK(lists(os, {11}) == "1");
    CHECK(r.targets[0].processes[0].threads[1].changed);
  }
}

TEST_CASE("EPERM on one thread rolls every moved thread back and names the thread") {
  TempRoot root;
  root.write("proc/10/task/12/stat",
             "12 (worker one) S 1 10 10 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 3 0 777 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n");
  FakeOs os;
  add_process(os, 10, {10, 11, 12, 13}, cpus("0-3"));
  os.affinity[11] = cpus("0-1");
  os.set_affinity_errors[12] = EPERM;
  CHECK(failure(os, {process(10)}, to("2"), {}, SysRoot(root.path())) ==
        "cannot move thread 12 (worker one) of process 10: permission denied; nothing was changed"
        " | moving another user's process needs CAP_SYS_NICE");
  CHECK(lists(os, {10, 11, 12, 13}) == "0-3 0-1 0-3 0-3");
  REQUIRE(os.set_affinity_calls.size() == 5);  // 10, 11 moved; 12 refused; 10, 11 put back
  CHECK(os.set_affinity_calls[3].tid == 10);
  CHECK(format_cpulist(os.set_affinity_calls[3].cpus) == "0-3");
  CHECK(os.set_affinity_calls[4].tid == 11);
  CHECK(format_cpulist(os.set_affinity_calls[4].cpus) == "0-1");
  CHECK(os.closed_fds == std::vector<int>{100});
}

TEST_CASE("a name that is not printable is escaped in the error") {
  TempRoot root;
  root.write("proc/10/task/12/stat",
             "12 (\x1b]0;pwn\x07) S 1 10 10 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 3 0 777 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n");
  FakeOs os;
  add_process(os, 10, {10, 12}, cpus("0-3"));
  os.set_affinity_errors[12] = EPERM;
  CHECK(failure(os, {process(10)}, to("2"), {}, SysRoot(root.path())) ==
        "cannot move thread 12 (\\e]0;pwn\\x07) of process 10: permission denied; nothing was changed"
        " | moving another user's process needs CAP_SYS_NICE");
}

TEST_CASE("EPERM while affix holds CAP_SYS_NICE is put on a security policy") {
  FakeOs os;
  os.cap_sys_nice = true;  // root, say: ownership is no obstacle
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.set_affinity_errors[11] = EPERM;
  CHECK(failure(os, {process(10)}, to("2")) ==
        "cannot move thread 11 of process 10: permission denied; nothing was changed"
        " | affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a security module "
        "(as in a container)");
  CHECK(lists(os, {10, 11}) == "0-3 0-3");
}

TEST_CASE("a kernel thread that cannot be moved is explained") {
  TempRoot root;
  root.write("proc/7/task/7/stat",
             "7 (kworker/0:1) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n");
  FakeOs os;
  add_process(os, 7, {7}, cpus("0"));
  os.set_affinity_errors[7] = EINVAL;
  CHECK(failure(os, {process(7)}, to("1"), {}, SysRoot(root.path())) ==
        "cannot move thread 7 (kworker/0:1) of process 7: it is a kernel thread that cannot be "
        "moved (PF_NO_SETAFFINITY); nothing was changed");
}

TEST_CASE("other refusals of the kernel are explained") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  SECTION("EINVAL outside the cpuset") {
    os.cpusets[10] = os.cpusets[11] = cpus("0-3");
    CHECK(failure(os, {process(10)}, to("5")) ==
          "cannot move thread 10 of process 10: the kernel refused CPUs 5: Invalid argument; nothing "
          "was changed | the CPUs must be in the target's own cpuset");
  }
  SECTION("reading a CPU list fails") {
    os.get_affinity_errors[11] = EIO;
    CHECK(failure(os, {process(10)}, to("1")) ==
          "cannot move thread 11 of process 10: cannot read its CPU list: Input/output error; nothing was changed");
  }
  SECTION("listing the threads fails") {
    os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
      if (n == 2) {  // a new thread: the count differs and pass 3 lists
        add_thread(o, 10, 12, cpus("0-3"));
        o.list_threads_errors[10] = EACCES;
      }
    };
    CHECK(failure(os, {process(10)}, to("1")) ==
          "cannot list the threads of process 10: Permission denied; nothing was changed");
    CHECK(lists(os, {10, 11, 12}) == "0-3 0-3 0-3");
  }
}

TEST_CASE("a restore that fails is reported, every thread that stays named") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12, 13}, cpus("0-3"));
  // 10, 11, 12 move, 13 refuses; then 10 and 12 refuse their rollback.
  os.on_set_affinity = [](FakeOs& o, pid_t, const CpuSet&, unsigned n) {
    if (n == 0) o.set_affinity_errors[13] = EPERM;
    if (n == 3) o.set_affinity_errors[10] = o.set_affinity_errors[12] = EIO;
  };
  CHECK(failure(os, {process(10)}, to("1")) ==
        "cannot move thread 13 of process 10: permission denied; not every thread was put back | moving "
        "another user's process needs CAP_SYS_NICE; threads 10,12 stay on CPUs 1 (could not be put back: "
        "Input/output error)");
  CHECK(lists(os, {10, 11, 12, 13}) == "1 0-3 1 0-3");
}

TEST_CASE("the rollback leaves a thread someone else changed during the move, and says so") {
  // A taskset run on thread 10 while affix moves the process: the rollback
  // does not undo it (it put back only lists that are still affix's), and
  // the message does not claim that nothing was changed.
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  os.set_affinity_errors[12] = EPERM;
  os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
    if (tid == 12) o.affinity[10] = cpus("3");  // the taskset, before the rollback
  };
  CHECK(failure(os, {process(10)}, to("1")) ==
        "cannot move thread 12 of process 10: permission denied; not every thread was put back | moving "
        "another user's process needs CAP_SYS_NICE; thread 10 stays on CPUs 3 (changed by someone else "
        "during the move)");
  CHECK(lists(os, {10, 11, 12}) == "3 0-3 0-3");
  CHECK(sets_of(os, 10) == 1);  // moved once, never put back over the taskset
}

TEST_CASE("a thread created during the move with affix's list is put back with the others") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  // Pass 2 (after the sleep) finds 12, created by a moved thread (on 1);
  // then 11 refuses the reset that pass 2 needs... and everything goes back.
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    if (n == 2) {
      add_thread(o, 10, 12, cpus("1"));
      add_thread(o, 10, 13, cpus("0-3"));
      o.set_affinity_errors[13] = EPERM;
    }
  };
  CHECK(failure(os, {process(10)}, to("1")) ==
        "cannot move thread 13 of process 10: permission denied; nothing was changed | moving another "
        "user's process needs CAP_SYS_NICE");
  CHECK(lists(os, {10, 11, 12, 13}) == "0-3 0-3 0-3 0-3");
}

TEST_CASE("a process that does not exist is an error before anything is done") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0"));
  CHECK(failure(os, {process(10), process(99)}, to("1")) == "no such process: 99");
  CHECK(os.set_affinity_calls.empty());
  CHECK(os.closed_fds == std::vector<int>{100});
  CHECK(failure(os, {thread(98)}, to("1")) == "no such thread: 98");
}

TEST_CASE("a PID that names a thread other than the main one is an error") {
  TempRoot root;
  root.write("proc/4250/status", "Name:\tworker\nTgid:\t4242\nPid:\t4250\nCpus_allowed_list:\t0-3\n");
  FakeOs os;
  add_process(os, 4242, {4242, 4250}, cpus("0-3"));
  if (GENERATE(true, false)) os.pidfd_error = ENOSYS;  // then the Tgid of its status says it
  CHECK(failure(os, {process(4250)}, to("1"), {}, SysRoot(root.path()), ErrorKind::Usage) ==
        "4250 is a thread of process 4242 | '--tid 4250' moves only that thread; '4242' moves the whole process");
  CHECK(os.set_affinity_calls.empty());
  CHECK(lists(os, {4242, 4250}) == "0-3 0-3");
}

TEST_CASE("a PID reused between holding and resolving it is detected; nothing is moved") {
  // The process exits and a new one gets its PID while affix reads /proc
  // for it (stopped there, say). affix holds the old one (pidfd, or its
  // start time), so it notices; the new process is not touched.
  FakeOs os;
  if (GENERATE(true, false)) os.pidfd_error = ENOSYS;
  add_process(os, 10, {10, 11}, cpus("0-3"), 500);
  PinResolver resolve = [&os](const PinRequest&) {
    remove_process(os, 10);
    add_process(os, 10, {10}, cpus("0"), 900);
    return PinPlace{cpus("1"), {}};
  };
  CHECK(failure(os, {process(10)}, resolve) ==
        "process 10 exited and its PID was reused during the move; nothing was changed");
  CHECK(os.set_affinity_calls.empty());
  CHECK(lists(os, {10}) == "0");
}

TEST_CASE("a PID reused during the move is detected before the next pass changes anything") {
  FakeOs os;
  bool pidfd = GENERATE(true, false);
  if (!pidfd) os.pidfd_error = ENOSYS;
  add_process(os, 10, {10, 11}, cpus("0-3"), 500);
  os.affinity[11] = cpus("2");
  // After pass 1 the process exits and a new one gets PID 10.
  os.on_sleep = [](FakeOs& o, unsigned) {
    remove_process(o, 10);
    add_process(o, 10, {10}, cpus("0"), 900);
  };
  CHECK(failure(os, {process(10)}, to("1")) ==
        "process 10 exited and its PID was reused during the move; nothing was changed");
  CHECK(lists(os, {10}) == "0");  // the newcomer: never set, never "put back"
  CHECK(os.set_affinity_calls.size() == 2);
  CHECK(os.closed_fds.size() == (pidfd ? 1u : 0u));
}

TEST_CASE("a process that exits during the move is not a failure") {
  FakeOs os;
  if (GENERATE(true, false)) os.pidfd_error = ENOSYS;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  add_process(os, 20, {20}, cpus("0-3"));
  os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
    if (tid == 11) remove_process(o, 10);
  };
  auto report = pin(os, {process(10), process(20)}, to("1"));
  REQUIRE(report.targets.size() == 2);
  CHECK(report.targets[0].exited);
  CHECK(report.targets[0].processes[0].threads[2].gone);
  CHECK_FALSE(report.targets[1].exited);
  CHECK(lists(os, {20}) == "1");
}

TEST_CASE("--tid moves only the named threads") {
  TempRoot root;
  root.write("proc/11/status", "Name:\tw\nTgid:\t10\nPid:\t11\nCpus_allowed_list:\t0-3\n");
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  auto report = pin(os, {thread(11)}, to("3"), {}, SysRoot(root.path()));
  CHECK(lists(os, {10, 11, 12}) == "0-3 3 0-3");
  CHECK(os.list_threads_calls.empty());
  CHECK(os.pidfd_open_calls.empty());  // a thread has no pidfd here: its start time stands in
  CHECK(report.targets[0].processes[0].pid == 10);
  SECTION("a named thread that exits is not a failure") {
    os.on_set_affinity = [](FakeOs& o, pid_t, const CpuSet&, unsigned) { remove_thread(o, 10, 12); };
    auto r = pin(os, {thread(10), thread(12)}, to("1"));
    CHECK(r.targets[1].exited);
    CHECK(lists(os, {10}) == "1");
  }
}

TEST_CASE("--spread gives each thread one CPU, round-robin in TID order, one round over every target") {
  FakeOs os;
  add_process(os, 10, {12, 10, 11, 13, 14}, cpus("0-3"));
  add_process(os, 20, {20, 21}, cpus("0-3"));
  add_process(os, 30, {30}, cpus("0-3"));
  // Named 20 first: its threads are the first of the round.
  pin(os, {process(20), process(10), process(30)}, to("1-3", {3, 1, 2}));
  CHECK(lists(os, {20, 21}) == "3 1");
  CHECK(lists(os, {10, 11, 12, 13, 14}) == "2 3 1 2 3");
  CHECK(lists(os, {30}) == "1");
}

TEST_CASE("--spread=N: N consecutive threads per CPU") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12, 13, 14}, cpus("0-3"));
  PinPlace place{cpus("0-1"), {0, 1}, 2};
  pin(os, {process(10)}, [place](const PinRequest&) { return place; });
  CHECK(lists(os, {10, 11, 12, 13, 14}) == "0 0 1 1 0");
}

TEST_CASE("--tid --spread: the threads in the order given") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  pin(os, {thread(12), thread(10), thread(11)}, to("0-2", {0, 1, 2}));
  CHECK(lists(os, {12, 10, 11}) == "0 1 2");
}

TEST_CASE("a thread that keeps changing back is a failure") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned) { o.affinity[11] = cpus("0"); };
  CHECK(failure(os, {process(10)}, to("1")) ==
        "cannot move thread 11 of process 10: its CPU list keeps changing back to 0; not every thread was "
        "put back | does the program pin its own threads?; thread 11 stays on CPUs 0 (changed by someone "
        "else during the move)");
  CHECK(lists(os, {10}) == "0-3");
}

TEST_CASE("a failure in one process puts the others back too") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  add_process(os, 20, {20, 21}, cpus("0-3"));
  os.set_affinity_errors[21] = EPERM;
  failure(os, {process(10), process(20)}, to("1"));
  CHECK(lists(os, {10, 11, 20, 21}) == "0-3 0-3 0-3 0-3");
}

TEST_CASE("roll_back undoes a finished pin") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.affinity[11] = cpus("2");
  auto report = pin(os, {process(10)}, to("1"));
  CHECK(lists(os, {10, 11}) == "1 1");
  CHECK(roll_back(os, os, os, report).empty());
  CHECK(lists(os, {10, 11}) == "0-3 2");
}

TEST_CASE("--tree --spread: the root keeps the whole selection, descendants spread in the order they started") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"), 100, 1);
  add_process(os, 20, {20, 21}, cpus("0-3"), 300, 10);  // started after 30
  add_process(os, 30, {30}, cpus("0-3"), 200, 10);
  add_process(os, 40, {40}, cpus("0-3"), 400, 30);
  pin(os, {tree(10)}, to("0-3", {0, 1, 2, 3}));
  CHECK(lists(os, {10, 11}) == "0-3 0-3");
  CHECK(lists(os, {30, 20, 21, 40}) == "0 1 2 3");
}

TEST_CASE("--tree moves the process, its children and theirs, and what forks during the move") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  add_process(os, 20, {20}, cpus("0-3"), 100, 10);
  add_process(os, 30, {30, 31}, cpus("0-3"), 100, 20);
  add_process(os, 40, {40}, cpus("0-3"), 100, 1);  // not in the tree
  // By the second scan, 20 has forked 50 (on the old list: the fork began
  // before 20 moved) and 50 has forked 60.
  auto fork_two = [](FakeOs& o) {
    add_process(o, 50, {50}, cpus("0-3"), 100, 20);
    add_process(o, 60, {60}, cpus("0-3"), 100, 50);
  };
  SECTION("the children files") {
    os.on_sleep = [&](FakeOs& o, unsigned) {
      if (!o.threads.count(50)) fork_two(o);
    };
  }
  SECTION("every process's parent, where a children file may have skipped one") {
    os.children_complete = false;
    os.on_list_processes = [&](FakeOs& o, unsigned n) {
      if (n == 1) fork_two(o);
    };
  }
  auto report = pin(os, {tree(10)}, to("2"));
  // The children files cost what the tree holds: 40 is never read.
  if (!os.children_complete) CHECK(os.call_count("list_processes") > 0);
  else CHECK(os.call_count("list_processes") == 0);
  CHECK(lists(os, {10, 11, 20, 30, 31, 50, 60}) == "2 2 2 2 2 2 2");
  CHECK(lists(os, {40}) == "0-3");
  REQUIRE(report.targets.size() == 1);
  std::vector<pid_t> pids;
  for (auto& p : report.targets[0].processes) pids.push_back(p.pid);
  CHECK(pids == std::vector<pid_t>{10, 20, 30, 50, 60});
  CHECK(os.pidfd_open_calls == std::vector<pid_t>{10, 20, 30, 50, 60});
}

TEST_CASE("--tree is all or nothing over the tree") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  add_process(os, 20, {20}, cpus("0-3"), 100, 10);
  os.set_affinity_errors[20] = EPERM;
  CHECK(failure(os, {tree(10)}, to("2")) ==
        "cannot move thread 20 of process 20: permission denied; nothing was changed | moving another "
        "user's process needs CAP_SYS_NICE");
  CHECK(lists(os, {10, 11, 20}) == "0-3 0-3 0-3");
}

TEST_CASE("--tree: a child that exits before affix holds it is left out, not a failure") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0-3"));
  add_process(os, 20, {20}, cpus("0-3"), 100, 10);
  os.on_pidfd_open = [](FakeOs& o, pid_t pid) {
    if (pid == 20) remove_process(o, 20);
  };
  auto report = pin(os, {tree(10)}, to("1"));
  CHECK(report.targets[0].processes.size() == 1);
  CHECK(lists(os, {10}) == "1");
}

TEST_CASE("--dry-run reads every thread and changes nothing") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  add_process(os, 20, {20}, cpus("0-3"), 100, 10);
  os.affinity[11] = cpus("1");
  PinOptions options;
  options.dry_run = true;
  auto report = pin(os, {tree(10)}, to("1"), options);
  CHECK(os.set_affinity_calls.empty());
  CHECK(os.sleeps.empty());
  CHECK(lists(os, {10, 11, 20}) == "0-3 1 0-3");
  REQUIRE(report.targets[0].processes.size() == 2);
  const auto& threads = report.targets[0].processes[0].threads;
  CHECK(format_cpulist(threads[0].before) == "0-3");
  CHECK(format_cpulist(threads[0].after) == "1");
  CHECK(format_cpulist(threads[1].before) == "1");
  CHECK(format_cpulist(report.targets[0].processes[1].threads[0].after) == "1");
}

TEST_CASE("a roll back puts back the threads created during a --spread move") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  os.set_affinity_errors[12] = EPERM;
  // Refused at 12, after 10 is on CPU 0: 10 creates 13 there.
  os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
    if (tid == 12) add_thread(o, 10, 13, o.affinity.at(10));
  };
  CHECK(failure(os, {process(10)}, to("0-1", {0, 1})) ==
        "cannot move thread 12 of process 10: permission denied; nothing was changed | moving another "
        "user's process needs CAP_SYS_NICE");
  CHECK(lists(os, {10, 11, 12, 13}) == "0-3 0-3 0-3 0-3");
}

TEST_CASE("--tree: a roll back puts back the children forked during the move") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0-3"));
  add_process(os, 20, {20}, cpus("0-3"), 100, 10);
  os.set_affinity_errors[20] = EPERM;
  SECTION("from a thread affix moved: the list that thread had") {
    os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
      if (tid == 20 && !o.threads.count(30)) {
        add_process(o, 30, {30, 31}, o.affinity.at(10), 100, 10);
        add_process(o, 40, {40}, o.affinity.at(10), 100, 30);  // and its own child
      }
    };
    CHECK(failure(os, {tree(10)}, to("2")) ==
          "cannot move thread 20 of process 20: permission denied; nothing was changed | moving another "
          "user's process needs CAP_SYS_NICE");
    CHECK(lists(os, {10, 20, 30, 31, 40}) == "0-3 0-3 0-3 0-3 0-3");
  }
  SECTION("from a thread created during the move, where there is no single old list: named") {
    add_thread(os, 10, 11, cpus("3"));
    os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
      if (tid == 20 && !o.threads.count(30)) {
        add_thread(o, 10, 12, cpus("2"));
        add_process(o, 30, {30}, cpus("2"), 100, 10);
        o.forked_by[30] = 12;
      }
    };
    CHECK(failure(os, {tree(10)}, to("2")) ==
          "cannot move thread 20 of process 20: permission denied; not every thread was put back | moving "
          "another user's process needs CAP_SYS_NICE; thread 12 stays on CPUs 2 (created during the move; no "
          "old list to put back); process 30 stays on CPUs 2 (forked during the move; no old list to put back)");
    CHECK(lists(os, {10, 11, 20}) == "0-3 3 0-3");
  }
}

TEST_CASE("a roll back leaves a process whose PID was reused after the move") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0-3"));
  auto report = pin(os, {process(10)}, to("1"));
  remove_process(os, 10);
  add_process(os, 10, {10}, cpus("1"), 200);  // another process, on the same list
  CHECK(roll_back(os, os, os, report).empty());
  CHECK(lists(os, {10}) == "1");
  report = {};
  CHECK(os.closed_fds.size() == 1);  // the pidfd was held until the report went
}

TEST_CASE("--dry-run: the kernel's part of the list inside the thread's cpuset, and its refusals") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-1"));
  os.affinity[11] = cpus("1");
  PinOptions options;
  options.dry_run = true;
  options.cpuset_of = [](pid_t, pid_t tid) -> std::optional<CpuSet> {
    if (tid == 11) return cpus("1");
    return std::nullopt;
  };
  auto report = pin(os, {process(10)}, to("0-1"), options);
  CHECK(format_cpulist(report.targets[0].processes[0].threads[1].after) == "1");
  CHECK(failure(os, {process(10)}, to("0"), options) ==
        "cannot move thread 11 of process 10: the kernel refused CPUs 0: Invalid argument; nothing was "
        "changed | the CPUs must be in the target's own cpuset");
  CHECK(os.set_affinity_calls.empty());
}
