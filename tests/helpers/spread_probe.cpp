// Test helper for run --spread (tests/cli/run_spread.sh): each thread it
// creates records, as its very first act, its CPU list (sched_getaffinity)
// and the CPU it runs on (sched_getcpu); built dynamic (spread_probe) and
// static (spread_probe_static).
//
//   spread_probe threads N       create N threads one after another (each
//                                joined before the next is made), then print
//                                "main CPULIST" and "K CPULIST CPU" per thread
//   spread_probe usr1 N FILE     count SIGUSR1 in a handler, write the count
//                                to FILE after each; exit 0 after N
//   spread_probe await FILE N    wait until FILE exists, then do `threads N`
//   spread_probe create N        create and join N threads (bench/spread)
//   spread_probe raise N         raise SIGUSR1 N times, handled (bench/spread)
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Record {
  cpu_set_t cpus;
  int cpu;
};

void* record(void* arg) {
  auto* r = static_cast<Record*>(arg);
  sched_getaffinity(0, sizeof r->cpus, &r->cpus);  // the first act
  r->cpu = sched_getcpu();
  return nullptr;
}

void* nothing(void*) { return nullptr; }

std::string cpulist(const cpu_set_t& set) {
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) ++e;
    if (!out.empty()) out += ',';
    out += e == c ? std::to_string(c) : std::to_string(c) + "-" + std::to_string(e);
    c = e;
  }
  return out;
}

int threads(int n) {
  std::vector<Record> records(static_cast<size_t>(n));
  for (auto& r : records) {
    pthread_t t;
    if (pthread_create(&t, nullptr, record, &r) != 0) return 120;
    pthread_join(t, nullptr);
  }
  cpu_set_t main_cpus;
  sched_getaffinity(0, sizeof main_cpus, &main_cpus);
  std::printf("main %s\n", cpulist(main_cpus).c_str());
  for (size_t i = 0; i < records.size(); ++i)
    std::printf("%zu %s %d\n", i + 1, cpulist(records[i].cpus).c_str(), records[i].cpu);
  return 0;
}

volatile sig_atomic_t g_count = 0;
void on_usr1(int) { g_count = g_count + 1; }

void write_count(const char* file, int n) {
  std::string tmp = std::string(file) + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) std::exit(120);
  std::fprintf(f, "%d\n", n);
  std::fclose(f);
  std::rename(tmp.c_str(), file);
}

int usr1(int n, const char* file) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &old);
  struct sigaction sa {};
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, nullptr);
  write_count(file, 0);
  int seen = 0;
  while (seen < n) {
    sigsuspend(&old);
    seen = g_count;
    write_count(file, seen);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "threads" && argc == 3) return threads(std::atoi(argv[2]));
  if (mode == "usr1" && argc == 4) return usr1(std::atoi(argv[2]), argv[3]);
  if (mode == "await" && argc == 4) {
    while (access(argv[2], F_OK) != 0) usleep(10000);
    return threads(std::atoi(argv[3]));
  }
  if (mode == "create" && argc == 3) {
    for (int i = 0, n = std::atoi(argv[2]); i < n; ++i) {
      pthread_t t;
      if (pthread_create(&t, nullptr, nothing, nullptr) != 0) return 120;
      pthread_join(t, nullptr);
    }
    return 0;
  }
  if (mode == "raise" && argc == 3) {
    signal(SIGUSR1, on_usr1);
    for (int i = 0, n = std::atoi(argv[2]); i < n; ++i) raise(SIGUSR1);
    return g_count == std::atoi(argv[2]) ? 0 : 1;
  }
  std::fprintf(stderr, "usage: spread_probe threads N | usr1 N FILE | await FILE N | create N | raise N\n");
  return 120;
}
