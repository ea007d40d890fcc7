// tree_churn_helper INTERVAL_MS LIFE_MS [MIB]: a root that forks a short
// child every INTERVAL_MS milliseconds, for `pin --tree` under fork churn
// (tests/cli/pin_tree_churn.sh). Each child sleeps LIFE_MS milliseconds and
// exits. The root first touches MIB MiB of its own memory in small pages,
// so that every fork copies MIB * 256 page table entries and takes longer
// (128 MiB: about 7 ms here): a fork in flight while pin moves the root is
// then likely. Prints "ready"; runs
// until killed (each child dies with it).
//
// tree_churn_helper check ROOT LIST: reads every thread of every live
// process of ROOT's tree (ROOT, its children, theirs, from the threads'
// children files), over and over until a read that began after ROOT (one
// thread) was seen outside fork (its /proc/ROOT/syscall names another
// call: the fork it was in when pin exited, if any, has made its child),
// and prints "PID/TID CPUS" for each thread whose Cpus_allowed_list is not
// LIST, then "N scans, T threads seen, W on another list". A
// thread with another list that has not run yet (its schedstat reads 0 0)
// is read again, every 10 ms up to 2 s, until it has run or is gone: in a
// cpuset other than the root one the kernel gives a new process its
// parent's current list after it is visible, before it runs (cpuset_fork).
// One that has run and is still on another list is printed.
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

namespace {

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, nullptr);
}

std::vector<long> numbers_in(const std::string& dir) {
  std::vector<long> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') out.push_back(std::strtol(e->d_name, nullptr, 10));
    closedir(d);
  }
  return out;
}

// Cpus_allowed_list of a thread; empty where it is gone.
std::string cpus_of(long pid, long tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Cpus_allowed_list:", 0) == 0) {
      std::string v = line.substr(std::strlen("Cpus_allowed_list:"));
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return {};
}

// Whether a thread has run (schedstat's run time or time slices not 0);
// true where it is gone (nothing left to wait for).
bool has_run(long pid, long tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/schedstat");
  unsigned long long run = 0, wait = 0, slices = 0;
  if (!(in >> run >> wait >> slices)) return true;
  return run != 0 || slices != 0;
}

// Whether ROOT is in a call other than fork (or none) now; "running" and
// fork's own numbers are not.
bool outside_fork(long root) {
  std::ifstream in("/proc/" + std::to_string(root) + "/syscall");
  std::string first;
  if (!(in >> first)) return true;  // gone, or unreadable: nothing to wait for
  if (first == "running") return false;
  long nr = std::strtol(first.c_str(), nullptr, 10);
  return nr != SYS_clone && nr != SYS_fork && nr != SYS_vfork
#ifdef SYS_clone3
         && nr != SYS_clone3
#endif
      ;
}

int check(long root, const std::string& want) {
  struct Thread {
    long pid, tid;
  };
  std::set<long> seen, reported;
  std::vector<Thread> pending;
  int wrong = 0, scans = 0;
  // One pass over the tree; threads with another list are printed (those
  // that have run) or kept to read again.
  auto scan = [&] {
    std::vector<long> queue{root};
    for (size_t q = 0; q < queue.size(); ++q) {
      long pid = queue[q];
      std::string task = "/proc/" + std::to_string(pid) + "/task";
      for (long tid : numbers_in(task)) {
        // schedstat before status: one that had not run when schedstat was
        // read may still be given its final list.
        bool ran = has_run(pid, tid);
        std::string cpus = cpus_of(pid, tid);
        if (cpus.empty()) continue;  // gone
        seen.insert(tid);
        if (cpus != want && !reported.count(tid)) {
          if (ran) {
            std::printf("%ld/%ld %s\n", pid, tid, cpus.c_str());
            reported.insert(tid);
            ++wrong;
          } else {
            pending.push_back({pid, tid});
          }
        }
        std::ifstream children(task + "/" + std::to_string(tid) + "/children");
        long child;
        while (children >> child) queue.push_back(child);
      }
    }
    ++scans;
  };
  // The tree again and again until a scan that began after ROOT was seen
  // outside fork: a fork it was in when pin exited has then made its child
  // (which may live only briefly), and every scan after pin may find it.
  for (int i = 0; i < 5000; ++i) {
    bool out = outside_fork(root);
    scan();
    if (out) break;
    usleep(1000);
  }
  for (int round = 0; round < 200 && !pending.empty(); ++round) {
    sleep_ms(10);
    std::vector<Thread> still;
    for (const auto& t : pending) {
      if (reported.count(t.tid)) continue;
      bool ran = has_run(t.pid, t.tid);
      std::string cpus = cpus_of(t.pid, t.tid);
      if (cpus.empty() || cpus == want) continue;
      if (!ran) {
        still.push_back(t);
        continue;
      }
      std::printf("%ld/%ld %s\n", t.pid, t.tid, cpus.c_str());
      reported.insert(t.tid);
      ++wrong;
    }
    pending.swap(still);
  }
  for (const auto& t : pending)
    if (!reported.count(t.tid)) std::printf("%ld/%ld %s (not run after 2 s)\n", t.pid, t.tid, cpus_of(t.pid, t.tid).c_str());
  std::printf("%d scans, %zu threads seen, %d on another list\n", scans, seen.size(), wrong);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "check") == 0) return check(std::strtol(argv[2], nullptr, 10), argv[3]);
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: tree_churn_helper INTERVAL_MS LIFE_MS [MIB] | check ROOT LIST\n");
    return 2;
  }
  long interval = std::strtol(argv[1], nullptr, 10);
  long life = std::strtol(argv[2], nullptr, 10);
  size_t bytes = argc == 4 ? static_cast<size_t>(std::strtol(argv[3], nullptr, 10)) << 20 : 0;
  if (bytes > 0) {
    void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      std::perror("mmap");
      return 1;
    }
    madvise(mem, bytes, MADV_NOHUGEPAGE);  // a page table entry per 4 KiB for fork to copy
    std::memset(mem, 1, bytes);
  }
  signal(SIGCHLD, SIG_IGN);  // children are reaped by the kernel
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) {
    if (fork() == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      sleep_ms(life);
      _exit(0);
    }
    sleep_ms(interval);
  }
}
