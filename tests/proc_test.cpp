#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "error.hpp"
#include "temp_root.hpp"
#include "id_args.hpp"
#include "proc.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {
const char* k_stat =
    "4242 (my (odd) comm) S 1 4242 4242 0 -1 4194560 10 0 0 0 3 4 0 0 20 0 5 0 123456 1000 "
    "50 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";
}

TEST_CASE("parse_stat reads comm, state, flags, start time and the last CPU") {
  auto st = parse_stat(k_stat);
  REQUIRE(st);
  CHECK(st->id == 4242);
  CHECK(st->comm == "my (odd) comm");
  CHECK(st->state == 'S');
  CHECK(st->flags == 4194560);
  CHECK(st->start_time == 123456);
  CHECK(st->last_cpu == 3);
  CHECK(st->cpu_ticks == 3 + 4);  // utime + stime
  // A kernel thread's flags.
  auto k = parse_stat("2 (kthreadd) S 0 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0\n");
  REQUIRE(k);
  CHECK((k->flags & k_pf_kthread) != 0);
  CHECK((k->flags & k_pf_no_setaffinity) != 0);
  CHECK(k->last_cpu == 1);
}

TEST_CASE("parse_stat refuses what is not a stat line") {
  CHECK_FALSE(parse_stat(""));
  CHECK_FALSE(parse_stat("garbage"));
  CHECK_FALSE(parse_stat("12 (x"));
  CHECK_FALSE(parse_stat("x (a) S 1 2 3"));
  CHECK_FALSE(parse_stat("12 (a) S 1 2 3"));                   // too short for the start time
  CHECK_FALSE(parse_stat("12 (a) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"));
  CHECK_FALSE(parse_stat("12 (a) S 1 2 3 4 5 x 7 8 9 10 11 12 13 14 15 16 17 18 19 20"));
  // Without field 39 (very old kernels) the last CPU is unknown.
  auto st = parse_stat("12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20");
  REQUIRE(st);
  CHECK(st->last_cpu == -1);
  CHECK(st->start_time == 19);
}

TEST_CASE("parse_status reads the allowed lists") {
  auto s = parse_status("Name:\tnginx\nTgid:\t4242\nPid:\t4243\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\n"
                        "Mems_allowed:\t1\nMems_allowed_list:\t0\n");
  REQUIRE(s);
  CHECK(s->name == "nginx");
  CHECK(s->tgid == 4242);
  CHECK(format_cpulist(s->cpus) == "0-3");
  CHECK(format_cpulist(s->mems) == "0");
  CHECK_FALSE(parse_status("Name:\tx\n"));
  CHECK_FALSE(parse_status("Cpus_allowed_list:\t3-1\n"));
}

TEST_CASE("parse_status reads TracerPid (0 where untraced)") {
  auto traced = parse_status("Name:\tbench\nTracerPid:\t5151\nCpus_allowed_list:\t0-1\n");
  REQUIRE(traced);
  CHECK(traced->tracer == 5151);
  auto free = parse_status("Name:\tbench\nTracerPid:\t0\nCpus_allowed_list:\t0-1\n");
  REQUIRE(free);
  CHECK(free->tracer == 0);
}

TEST_CASE("parse_numa_maps sums pages per node") {
  auto pages = parse_numa_maps(
      "55d0 default file=/usr/bin/cat mapped=5 N0=3 N1=2 kernelpagesize_kB=4\n"
      "7f00 interleave:0-1 anon=7 dirty=7 N1=7 kernelpagesize_kB=4\n"
      "7f10 default Nx=3 N=4 N2=abc N3=\n"
      "7f20 bind:0 stack anon=1 N0=1");
  CHECK(pages == NodePages{{0, 4}, {1, 9}});
  CHECK(parse_numa_maps("").empty());
}

TEST_CASE("parse_numa_usage: anonymous pages apart from the page cache of mapped files") {
  const char* text =
      "55d0 default file=/usr/bin/cat mapped=5 mapmax=2 N0=3 N1=2 kernelpagesize_kB=4\n"  // text: page cache
      "55e0 default file=/usr/bin/cat anon=1 dirty=1 N1=1 kernelpagesize_kB=4\n"          // relro: written
      "55f0 default file=/usr/bin/cat mapped=2 N1=2 kernelpagesize_kB=4\n"                // .data, not yet written
      "5600 default heap anon=4 dirty=4 N0=4 kernelpagesize_kB=4\n"
      "7f00 default file=/srv/a\\040file=x\\040anon=3 mapped=6 N1=6 kernelpagesize_kB=4\n"  // a path with blanks
      "7f10 default anon=7 dirty=7 N0=6 N1=1 kernelpagesize_kB=4\n"
      "7ff0 default stack anon=2 dirty=2 N0=2 kernelpagesize_kB=4\n";
  auto m = parse_numa_maps_line("7f00 default file=/srv/a\\040file=x\\040anon=3 mapped=6 N1=6");
  REQUIRE(m);
  CHECK(m->file);
  CHECK_FALSE(m->anon);
  CHECK(parse_numa_maps_line("55e0 default file=/usr/bin/cat anon=1 dirty=1 N1=1")->anon);
  // Without maps: a mapping of a file without anonymous pages is page cache.
  auto u = parse_numa_usage(text);
  CHECK(u.pages == NodePages{{0, 15}, {1, 12}});
  CHECK(u.anon == NodePages{{0, 12}, {1, 2}});
  CHECK(u.file == NodePages{{0, 3}, {1, 10}});
  // With maps: a private writable mapping (.data at 55f0) is the process's own.
  auto w = parse_numa_usage(text, {0x55f0, 0x5600, 0x7f10, 0x7ff0});
  CHECK(w.anon == NodePages{{0, 12}, {1, 4}});
  CHECK(w.file == NodePages{{0, 3}, {1, 8}});
  CHECK(w.pages == u.pages);
}

TEST_CASE("the real numa_maps: this process's own memory apart from a file it maps") {
  // 64 pages of anonymous memory written, 32 pages of a file read through
  // a read-only mapping (page cache), 8 of it through a private writable
  // one, 4 of them written.
  TempRoot dir;
  dir.write("data", std::string(64 * 4096, 'x'));
  int fd = ::open((dir.path() + "/data").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  void* file = mmap(nullptr, 32 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  void* priv = mmap(nullptr, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  // The anonymous mapping sits between two PROT_NONE pages, so the kernel
  // cannot merge it with a neighbour (a sanitizer's shadow or heap is
  // anonymous read-write memory too): its numa_maps line is its own.
  void* guarded = mmap(nullptr, 66 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(guarded != MAP_FAILED);
  void* anon = mmap(static_cast<char*>(guarded) + 4096, 64 * 4096, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  ::close(fd);
  REQUIRE(file != MAP_FAILED);
  REQUIRE(priv != MAP_FAILED);
  REQUIRE(anon != MAP_FAILED);
  auto* f = static_cast<volatile char*>(file);
  auto* p = static_cast<volatile char*>(priv);
  auto* a = static_cast<volatile char*>(anon);
  char sum = 0;
  for (int i = 0; i < 32; ++i) sum = static_cast<char>(sum + f[i * 4096]);
  for (int i = 0; i < 8; ++i) sum = static_cast<char>(sum + p[i * 4096]);
  for (int i = 0; i < 4; ++i) p[i * 4096] = sum;
  for (int i = 0; i < 64; ++i) a[i * 4096] = 1;
  SysRoot sys;
  auto mappings = read_numa_mappings(sys, getpid());
  auto ranges = read_maps(sys, getpid());
  REQUIRE(mappings);
  REQUIRE(ranges);
  auto at = [&](void* addr) -> std::pair<NumaMapping, bool> {
    auto start = reinterpret_cast<unsigned long long>(addr);
    NumaMapping m;
    for (const auto& one : *mappings)
      if (one.start == start) m = one;
    bool private_writable = false;
    for (const auto& r : *ranges)
      if (r.start == start) private_writable = r.private_writable;
    return {m, private_writable};
  };
  auto pages = [](const NumaMapping& m) {
    unsigned long long n = 0;
    for (const auto& [node, count] : m.pages) n += count;
    return n;
  };
  auto [fm, fw] = at(file);
  CHECK((fm.file && !fm.anon && !fw && pages(fm) == 32));
  CHECK_FALSE(is_anonymous(fm, fw));
  auto [pm, pw] = at(priv);
  CHECK((pm.file && pm.anon && pw && pages(pm) == 8));
  CHECK(is_anonymous(pm, pw));
  auto [am, aw] = at(anon);
  CHECK((!am.file && am.anon && aw && pages(am) == 64));
  CHECK(is_anonymous(am, aw));
  // The process's totals hold them, split the same way.
  auto usage = read_numa_usage(sys, getpid());
  REQUIRE(usage);
  auto total = [](const NodePages& n) {
    unsigned long long t = 0;
    for (const auto& [node, count] : n) t += count;
    return t;
  };
  CHECK(total(usage->file) >= 32);
  CHECK(total(usage->anon) >= 72);
  CHECK(total(usage->pages) == total(usage->anon) + total(usage->file));
  munmap(file, 32 * 4096);
  munmap(priv, 8 * 4096);
  munmap(guarded, 66 * 4096);
}

TEST_CASE("parse_numa_usage: the memory policy covering the most pages") {
  auto u = parse_numa_usage(
      "55d0 default file=/usr/bin/cat mapped=5 N0=3 N1=2 kernelpagesize_kB=4\n"
      "7f00 interleave:0-1 anon=7 dirty=7 N0=4 N1=3 kernelpagesize_kB=4\n"
      "7f10 bind:2 anon=1 N2=1\n"
      "7f20 interleave:0-1 stack anon=1 N0=1\n");
  CHECK(u.policy == "interleave:0-1");  // 8 pages against default's 5
  CHECK(u.pages == NodePages{{0, 8}, {1, 5}, {2, 1}});
  // Policies with a space or flags, as the kernel writes them; ties go to
  // the first line's.
  CHECK(parse_numa_usage("1000 prefer (many):0-1 anon=2 N0=2\n2000 default N1=1\n").policy ==
        "prefer (many):0-1");
  CHECK(parse_numa_usage("1000 weighted interleave:0-3 N0=1\n").policy == "weighted interleave:0-3");
  CHECK(parse_numa_usage("1000 bind=static:1 N1=2\n2000 prefer:0 N0=2\n").policy == "bind=static:1");
  // Mappings with no pages still show the policy; nothing at all: none.
  CHECK(parse_numa_usage("1000 local\n").policy == "local");
  CHECK(parse_numa_usage("").policy.empty());
  // Read in chunks that split lines and tokens, the answer is the same.
  TempRoot root;
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "7f00 bind:1 anon=1 dirty=1 N1=1 kernelpagesize_kB=4\n";
  big += "8f00 default N0=4999\n";
  root.write("proc/42/numa_maps", big);
  SysRoot sys(root.path());
  auto read = read_numa_usage(sys, 42);
  REQUIRE(read);
  CHECK(read->policy == "bind:1");
  CHECK(read->pages == NodePages{{0, 4999}, {1, 5000}});
  CHECK_FALSE(read_numa_usage(sys, 43));
}

TEST_CASE("readers go through the root and report a vanished process as missing") {
  TempRoot root;
  root.write("proc/4242/stat", k_stat);
  root.write("proc/4242/status", "Name:\tx\nCpus_allowed_list:\t1\nMems_allowed_list:\t0\n");
  root.write("proc/4242/task/4242/stat", k_stat);
  root.write("proc/4242/task/4250/stat", k_stat);
  root.write("proc/4242/task/notanumber/stat", k_stat);
  root.write("proc/4242/numa_maps", "1 default N0=5 N1=1\n2 default N0=1");
  root.write("proc/7/status", "garbage\n");
  root.write("proc/8/stat", "garbage\n");
  root.write("proc/self/status", "x");
  SysRoot sys(root.path());
  CHECK(read_stat(sys, proc_dir(4242))->comm == "my (odd) comm");
  CHECK(format_cpulist(read_status(sys, proc_dir(4242))->cpus) == "1");
  CHECK(*read_tasks(sys, 4242) == std::vector<pid_t>{4242, 4250});
  CHECK(*read_numa_maps(sys, 4242) == NodePages{{0, 6}, {1, 1}});
  CHECK_FALSE(read_stat(sys, proc_dir(99)));
  CHECK_FALSE(read_status(sys, proc_dir(99)));
  CHECK_FALSE(read_tasks(sys, 99));
  CHECK_FALSE(read_numa_maps(sys, 99));
  CHECK(list_pids(sys) == std::vector<pid_t>{7, 8, 4242});
  CHECK_THROWS_WITH(read_status(sys, proc_dir(7)), root.path() + "/proc/7/status: no valid Cpus_allowed_list");
  CHECK_THROWS_WITH(read_stat(sys, proc_dir(8)), root.path() + "/proc/8/stat: not a stat line");
}

TEST_CASE("an oversized stat file is an error, not an allocation") {
  TempRoot root;
  root.write("proc/5/stat", std::string(10000, 'x'));
  SysRoot sys(root.path());
  CHECK_THROWS_AS(read_stat(sys, proc_dir(5)), Error);
}

TEST_CASE("IDs: parsing") {
  CHECK(parse_pid("4242") == 4242);
  CHECK(parse_pid("4194304") == 4194304);
  CHECK_FALSE(parse_pid("4194305"));
  CHECK_FALSE(parse_pid("0"));
  CHECK_FALSE(parse_pid("-1"));
  CHECK_FALSE(parse_pid("012"));
  CHECK_FALSE(parse_pid("12x"));
}

TEST_CASE("the real /proc: this process") {
  SysRoot sys;
  auto st = read_stat(sys, proc_dir(getpid()));
  REQUIRE(st);
  CHECK(st->id == getpid());
  CHECK(st->last_cpu >= 0);
  auto tasks = read_tasks(sys, getpid());
  REQUIRE(tasks);
  CHECK(tasks->front() == getpid());
  CHECK(read_numa_maps(sys, getpid()).has_value());
}

TEST_CASE("refuse_thread_ids: a thread of a real process is not a process") {
  SysRoot sys;
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::thread t([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    while (!done) std::this_thread::yield();
  });
  while (tid == 0) std::this_thread::yield();
  CHECK_NOTHROW(refuse_thread_ids(sys, {getpid(), 4194304}));  // the main thread; one that does not exist
  try {
    refuse_thread_ids(sys, {getpid(), tid});
    FAIL("a thread taken for a process");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(std::string(e.what()) == fmt::format("{} is a thread of process {}", tid.load(), getpid()));
    CHECK(e.hint() == fmt::format("'{}' shows the whole process", getpid()));
  }
  done = true;
  t.join();
}
