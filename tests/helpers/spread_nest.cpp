// Test helper for run --spread (tests/cli/run_spread_inner.sh): threads that
// create threads. Each records, as its first act, its CPU list
// (sched_getaffinity), then creates the next and joins it.
//
//   spread_nest N     a chain of N threads: the main thread creates thread
//                     1, thread 1 creates thread 2, ...; then prints
//                     "main CPULIST" and "K CPULIST" per thread
#include <pthread.h>
#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::vector<cpu_set_t> g_lists;

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

void* link(void* arg) {
  auto k = reinterpret_cast<size_t>(arg);
  sched_getaffinity(0, sizeof g_lists[k], &g_lists[k]);  // the first act
  if (k + 1 < g_lists.size()) {
    pthread_t t;
    if (pthread_create(&t, nullptr, link, reinterpret_cast<void*>(k + 1)) != 0) std::exit(120);
    pthread_join(t, nullptr);
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: spread_nest N\n");
    return 2;
  }
  int n = std::atoi(argv[1]);
  if (n < 1) return 2;
  g_lists.resize(static_cast<size_t>(n));
  pthread_t t;
  if (pthread_create(&t, nullptr, link, nullptr) != 0) return 120;
  pthread_join(t, nullptr);
  cpu_set_t main_cpus;
  sched_getaffinity(0, sizeof main_cpus, &main_cpus);
  std::printf("main %s\n", cpulist(main_cpus).c_str());
  for (size_t i = 0; i < g_lists.size(); ++i) std::printf("%zu %s\n", i + 1, cpulist(g_lists[i]).c_str());
  return 0;
}
