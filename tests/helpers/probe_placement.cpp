// Prints where it was placed, as the kernel sees it from inside: its argv
// (one "arg N: [WORD]" line each), Cpus_allowed_list and Mems_allowed_list
// from /proc/self/status, and the memory policy of a freshly touched
// anonymous allocation from /proc/self/numa_maps ("policy: bind:0").
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) std::printf("arg %d: [%s]\n", i, argv[i]);
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    for (const char* key : {"Cpus_allowed_list:", "Mems_allowed_list:"}) {
      if (line.rfind(key, 0) == 0) {
        std::string value = line.substr(std::strlen(key));
        value.erase(0, value.find_first_not_of(" \t"));
        std::printf("%.*s: %s\n", static_cast<int>(std::strlen(key) - 1), key, value.c_str());
      }
    }
  }
  const size_t size = 4 * 4096;
  void* mem = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    return 99;
  }
  std::memset(mem, 1, size);
  // The mapping holding `mem`: the last one starting at or below it (the
  // kernel may merge it with a neighbour, e.g. under ASan, so that its line
  // starts lower).
  const unsigned long where = reinterpret_cast<unsigned long>(mem);
  std::ifstream maps("/proc/self/numa_maps");
  std::string policy = "unknown";
  unsigned long best = 0;
  while (std::getline(maps, line)) {
    std::istringstream words(line);
    std::string addr, pol;
    words >> addr >> pol;
    unsigned long start = std::strtoul(addr.c_str(), nullptr, 16);
    if (start <= where && start >= best) {
      best = start;
      policy = pol;
    }
  }
  std::printf("policy: %s\n", policy.c_str());
  munmap(mem, size);
  return 0;
}
