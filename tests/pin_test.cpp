#include <catch2/catch.hpp>

#include "error.hpp"
#include "fake_os.hpp"
#include "fake_root.hpp"
#include "pin.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::FakeRoot;

namespace {

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }

PinTarget whole(pid_t pid, const char* list) {
  PinTarget t;
  t.id = pid;
  t.cpus = cpus(list);
  return t;
}

// The error pin_threads throws, with its hint after " | ".
std::string failure(FakeOs& os, const SysRoot& root, const std::vector<PinTarget>& targets,
                    const PinOptions& options = {}) {
  try {
    pin_threads(os, root, targets, options);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
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

const SysRoot k_no_proc("/nonexistent-affix-root");

// The world of the fake: a process, its threads (each with its own /proc
// entry and so a start time), and their CPU lists.
void add_process(FakeOs& os, pid_t pid, std::vector<pid_t> tids, const CpuSet& list,
                 unsigned long long start = 100) {
  os.threads[pid] = tids;
  for (pid_t tid : tids) {
    os.affinity[tid] = list;
    os.start_times[tid] = start;
  }
  os.start_times[pid] = start;
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
  os.exited.insert(pid);
}

}  // namespace

TEST_CASE("pin moves every thread, then confirms after a sleep") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  auto report = pin_threads(os, k_no_proc, {whole(10, "2")});
  CHECK(lists(os, {10, 11, 12}) == "2 2 2");
  CHECK(os.set_affinity_calls.size() == 3);
  CHECK(report.passes == 3);  // move, quiet, (sleep) quiet again
  CHECK(os.sleeps == std::vector<unsigned>{PinOptions{}.settle_ms});
  // Listed once (and the listing checked against the count); the two check
  // passes prove the list unchanged by the count alone.
  CHECK(os.list_threads_calls == std::vector<pid_t>{10});
  CHECK(os.thread_count_calls == std::vector<pid_t>{10, 10, 10});
  CHECK(os.call_count("get_affinity") == 9);
  REQUIRE(report.targets.size() == 1);
  const auto& t = report.targets[0];
  CHECK_FALSE(t.exited);
  REQUIRE(t.threads.size() == 3);
  CHECK(format_cpulist(t.threads[1].before) == "0-3");
  CHECK(format_cpulist(t.threads[1].after) == "2");
  CHECK(t.threads[1].changed);
  CHECK(os.pidfd_open_calls == std::vector<pid_t>{10});
  CHECK(os.closed_fds == std::vector<int>{100});
}

TEST_CASE("pin with nothing to change makes no call and still confirms") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("1"));
  auto report = pin_threads(os, k_no_proc, {whole(10, "1")});
  CHECK(os.set_affinity_calls.empty());
  CHECK(report.passes == 2);
  CHECK_FALSE(report.targets[0].threads[0].changed);
}

TEST_CASE("threads created between scans are moved too") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  // Looks at the thread list: pass 1 lists (0), counts (1: 12 appears, the
  // count differs), lists again (2) and counts (3); pass 2 counts (4);
  // sleep; pass 3 counts (5: 13 appears, differs), lists (6), counts (7);
  // pass 4 counts (8); sleep; pass 5 counts (9).
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    if (n == 1) add_thread(o, 10, 12, cpus("0-3"));  // cloned before its parent moved
    if (n == 5) add_thread(o, 10, 13, cpus("0-3"));  // shows up only at the confirmation
  };
  auto report = pin_threads(os, k_no_proc, {whole(10, "1")});
  CHECK(lists(os, {10, 11, 12, 13}) == "1 1 1 1");
  CHECK(report.targets[0].threads.size() == 4);
  // 1 moves 10,11,12; 2 quiet; sleep; 3 moves 13; 4 quiet; sleep; 5 quiet
  CHECK(report.passes == 5);
  // 12 was there by the end of the first pass; 13 came during the move: the
  // longer sleep, from then on.
  CHECK(os.sleeps == std::vector<unsigned>{PinOptions{}.settle_ms, PinOptions{}.busy_settle_ms});
  CHECK(os.list_threads_calls.size() == 3);
  CHECK(os.thread_count_calls.size() == 7);
}

TEST_CASE("a listing that disagrees with the thread count is taken again") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  // Thread 12 (on the old list) exists, but the first three listings miss
  // it, as a walk of /proc/PID/task cut short by an exiting thread does;
  // every count says 3. Pass 1 lists three times and gives up (its last
  // listing stands); pass 2's count differs, its listing finds 12. Listings
  // taken at their word would end the move with 12 left behind.
  add_thread(os, 10, 12, cpus("0-3"));
  unsigned listings = 0;
  os.on_list_threads = [&listings](FakeOs& o, pid_t, unsigned) {
    o.threads[10] = {10, 11, 12};
    if (o.list_threads_calls.size() > listings) {  // this look is a listing
      listings = static_cast<unsigned>(o.list_threads_calls.size());
      if (listings < 4) o.threads[10] = {10, 11};
    }
  };
  auto report = pin_threads(os, k_no_proc, {whole(10, "1")});
  CHECK(lists(os, {10, 11, 12}) == "1 1 1");
  CHECK(report.targets[0].threads.size() == 3);
  CHECK(os.list_threads_calls.size() == 4);
}

TEST_CASE("a thread that exits while another is created, same count, is still found") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  // Before the count of pass 2: 11 exits and 13 appears with the old list.
  // The count is still 3, but 11 no longer answers: pass 2 is not quiet,
  // and pass 3 (count 3, two known alive) lists again and finds 13.
  // (Looks: pass 1 lists (0) and counts (1); pass 2 counts (2).)
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    if (n == 2) {
      remove_thread(o, 10, 11);
      add_thread(o, 10, 13, cpus("0-3"));
    }
  };
  auto report = pin_threads(os, k_no_proc, {whole(10, "2")});
  CHECK(lists(os, {10, 12, 13}) == "2 2 2");
  CHECK(report.targets[0].threads.size() == 4);
  CHECK(report.targets[0].threads[1].vanished);
  CHECK(os.list_threads_calls.size() == 2);
  // 1 moves; 2 (count) 11 vanished; 3 (list) moves 13; 4 quiet; sleep; 5 quiet
  CHECK(report.passes == 5);
}

TEST_CASE("a thread count that cannot be read falls back to listing") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.thread_count_errors[10] = EACCES;
  auto report = pin_threads(os, k_no_proc, {whole(10, "1")});
  CHECK(lists(os, {10, 11}) == "1 1");
  CHECK(report.passes == 3);
  CHECK(os.list_threads_calls.size() == 3);
}

TEST_CASE("a thread that vanishes makes the pass not quiet; its successor is moved") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  // When 10 is moved, 11 creates 14 with the old list and exits: chains.
  os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
    if (tid == 10 && o.affinity.count(11)) {
      remove_thread(o, 10, 11);
      add_thread(o, 10, 14, cpus("0-3"));
    }
  };
  auto report = pin_threads(os, k_no_proc, {whole(10, "3")});
  CHECK(lists(os, {10, 12, 14}) == "3 3 3");
  const auto& threads = report.targets[0].threads;
  REQUIRE(threads.size() == 4);
  CHECK(threads[1].tid == 11);
  CHECK(threads[1].vanished);
  CHECK(os.sleeps == std::vector<unsigned>{PinOptions{}.busy_settle_ms});
  CHECK_FALSE(report.targets[0].exited);
}

TEST_CASE("EPERM on one thread rolls every moved thread back and names the thread") {
  FakeRoot root;
  root.write("proc/10/task/12/stat",
             "12 (worker one) S 1 10 10 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 3 0 777 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n");
  FakeOs os;
  add_process(os, 10, {10, 11, 12, 13}, cpus("0-3"));
  os.affinity[11] = cpus("0-1");
  os.set_affinity_errors[12] = EPERM;
  CHECK(failure(os, SysRoot(root.path()), {whole(10, "2")}) ==
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

TEST_CASE("EPERM while affix holds CAP_SYS_NICE is put on a security policy") {
  FakeOs os;
  os.cap_sys_nice = true;  // root, say: ownership is no obstacle
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.set_affinity_errors[11] = EPERM;
  CHECK(failure(os, k_no_proc, {whole(10, "2")}) ==
        "cannot move thread 11 of process 10: permission denied; nothing was changed"
        " | affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a security module "
        "(as in a container)");
  CHECK(lists(os, {10, 11}) == "0-3 0-3");
}

TEST_CASE("a kernel thread that cannot be moved is explained") {
  FakeRoot root;
  root.write("proc/7/task/7/stat",
             "7 (kworker/0:1) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n");
  FakeOs os;
  add_process(os, 7, {7}, cpus("0"));
  os.set_affinity_errors[7] = EINVAL;
  CHECK(failure(os, SysRoot(root.path()), {whole(7, "1")}) ==
        "cannot move thread 7 (kworker/0:1) of process 7: it is a kernel thread that cannot be "
        "moved (PF_NO_SETAFFINITY); nothing was changed");
}

TEST_CASE("other refusals of the kernel are explained") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  SECTION("EINVAL outside the cpuset") {
    os.set_affinity_errors[11] = EINVAL;
    CHECK(failure(os, k_no_proc, {whole(10, "5")}) ==
          "cannot move thread 11 of process 10: the kernel refused CPUs 5: Invalid argument; nothing "
          "was changed | the CPUs must be in the target's own cpuset");
  }
  SECTION("reading a CPU list fails") {
    os.get_affinity_errors[11] = EIO;
    CHECK(failure(os, k_no_proc, {whole(10, "1")}) ==
          "cannot move thread 11 of process 10: cannot read its CPU list: Input/output error; nothing was changed");
  }
  SECTION("listing the threads fails") {
    os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
      if (n == 1) {  // a new thread: the count differs and pass 2 lists
        add_thread(o, 10, 12, cpus("0-3"));
        o.list_threads_errors[10] = EACCES;
      }
    };
    CHECK(failure(os, k_no_proc, {whole(10, "1")}) ==
          "cannot list the threads of process 10: Permission denied; nothing was changed");
  }
  SECTION("rollback that fails is reported") {
    // 10 moves, 11 refuses; then 10 refuses its rollback.
    os.on_set_affinity = [](FakeOs& o, pid_t, const CpuSet&, unsigned n) {
      if (n == 0) o.set_affinity_errors[11] = EPERM;
      if (n == 2) o.set_affinity_errors[10] = EIO;  // the rollback of 10
    };
    CHECK(failure(os, k_no_proc, {whole(10, "1")}) ==
          "cannot move thread 11 of process 10: permission denied | moving another user's process "
          "needs CAP_SYS_NICE; 1 thread(s) could not be put back: 10: Input/output error");
  }
}

TEST_CASE("a process that does not exist is an error before anything is done") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0"));
  CHECK(failure(os, k_no_proc, {whole(10, "1"), whole(99, "1")}) == "no such process: 99");
  CHECK(os.set_affinity_calls.empty());
  CHECK(os.closed_fds == std::vector<int>{100});
  PinTarget t = whole(98, "1");
  t.single_thread = true;
  CHECK(failure(os, k_no_proc, {t}) == "no such thread: 98");
}

TEST_CASE("a PID reused during the move is detected and everything is put back") {
  FakeOs os;
  bool pidfd = GENERATE(true, false);
  if (!pidfd) os.pidfd_error = ENOSYS;
  add_process(os, 10, {10, 11}, cpus("0-3"), 500);
  // After the first pass the process exits and a new one gets PID 10.
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    if (n == 1) {
      remove_process(o, 10);
      add_process(o, 10, {10}, cpus("0"), 900);
    }
  };
  CHECK(failure(os, k_no_proc, {whole(10, "1")}) ==
        "process 10 exited and its PID was reused during the move; nothing was changed");
  CHECK(lists(os, {10}) == "0");  // the newcomer was moved in pass 2 and put back
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
  auto report = pin_threads(os, k_no_proc, {whole(10, "1"), whole(20, "1")});
  REQUIRE(report.targets.size() == 2);
  CHECK(report.targets[0].exited);
  CHECK(report.targets[0].threads[2].vanished);
  CHECK_FALSE(report.targets[1].exited);
  CHECK(lists(os, {20}) == "1");
}

TEST_CASE("--tid moves only the named threads") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, cpus("0-3"));
  PinTarget t = whole(11, "3");
  t.single_thread = true;
  auto report = pin_threads(os, k_no_proc, {t});
  CHECK(lists(os, {10, 11, 12}) == "0-3 3 0-3");
  CHECK(os.list_threads_calls.empty());
  CHECK(os.pidfd_open_calls.empty());  // a thread has no pidfd here: its start time stands in
  SECTION("a named thread that exits is not a failure") {
    os.on_set_affinity = [](FakeOs& o, pid_t, const CpuSet&, unsigned) { remove_thread(o, 10, 12); };
    PinTarget u = whole(12, "1");
    u.single_thread = true;
    PinTarget v = whole(10, "1");
    v.single_thread = true;
    auto r = pin_threads(os, k_no_proc, {v, u});
    CHECK(r.targets[1].exited);
    CHECK(lists(os, {10}) == "1");
  }
}

TEST_CASE("--spread gives each thread one CPU, round-robin in TID order") {
  FakeOs os;
  add_process(os, 10, {12, 10, 11, 13, 14}, cpus("0-3"));
  PinTarget t = whole(10, "1-3");
  t.spread = {3, 1, 2};
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) {
    if (n == 1) add_thread(o, 10, 15, cpus("0-3"));
  };
  pin_threads(os, k_no_proc, {t});
  CHECK(lists(os, {10, 11, 12, 13, 14, 15}) == "3 1 2 3 1 2");
}

TEST_CASE("a thread that keeps changing back is a failure") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned) { o.affinity[11] = cpus("0"); };
  CHECK(failure(os, k_no_proc, {whole(10, "1")}) ==
        "cannot move thread 11 of process 10: its CPU list keeps changing back to 0; nothing was "
        "changed | does the program pin its own threads?");
  CHECK(lists(os, {10}) == "0-3");
}

TEST_CASE("threads that never settle are a failure after max_passes") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0-3"));
  os.on_list_threads = [](FakeOs& o, pid_t, unsigned n) { add_thread(o, 10, static_cast<pid_t>(100 + n), cpus("0-3")); };
  PinOptions options;
  options.max_passes = 20;
  CHECK(failure(os, k_no_proc, {whole(10, "1")}, options) ==
        "the threads of process 10 kept changing for 20 passes; nothing was changed");
  CHECK(lists(os, {10, 101, 110}) == "0-3 0-3 0-3");
}

TEST_CASE("a failure in one process puts the others back too") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  add_process(os, 20, {20, 21}, cpus("0-3"));
  os.set_affinity_errors[21] = EPERM;
  failure(os, k_no_proc, {whole(10, "1"), whole(20, "1")});
  CHECK(lists(os, {10, 11, 20, 21}) == "0-3 0-3 0-3 0-3");
}

TEST_CASE("roll_back undoes a finished pin") {
  FakeOs os;
  add_process(os, 10, {10, 11}, cpus("0-3"));
  os.affinity[11] = cpus("2");
  auto report = pin_threads(os, k_no_proc, {whole(10, "1")});
  CHECK(lists(os, {10, 11}) == "1 1");
  CHECK(roll_back(os, report).empty());
  CHECK(lists(os, {10, 11}) == "0-3 2");
}
