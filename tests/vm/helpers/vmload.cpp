// vmload: a test process for the VM scenarios (built static by run-vm).
//
//   vmload [--mb N] [--threads N] [--map FILE] [--wait] [--ready FILE] [--out FILE]
//
// Maps N MiB of anonymous memory and writes every page, maps FILE (--map)
// read-only and reads every page of it (its page cache), starts N-1 extra
// threads that only sleep, then prints one report line:
//   pid=P cpus=LIST addr=HEX pages=N nodes=N0=a,N1=b
// `cpus` is its Cpus_allowed_list, `addr` the start of the buffer as
// /proc/PID/numa_maps writes it, `nodes` where the buffer's pages are, from
// move_pages(2) (nodes with pages, ascending). With --wait it then writes the
// report to FILE of --ready, and on SIGUSR1 appends a fresh report to the
// --out file (or stdout); SIGTERM ends it.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

char* g_buffer = nullptr;
size_t g_pages = 0;
const size_t k_page = 4096;

std::string cpus_allowed() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Cpus_allowed_list:", 0) == 0) {
      size_t start = line.find_first_not_of(" \t", 18);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "?";
}

std::string report() {
  std::vector<void*> addrs(g_pages);
  std::vector<int> status(g_pages, -1);
  for (size_t i = 0; i < g_pages; ++i) addrs[i] = g_buffer + i * k_page;
  std::map<int, size_t> per_node;
  if (g_pages > 0 &&
      syscall(SYS_move_pages, 0, static_cast<unsigned long>(g_pages), addrs.data(), nullptr,
              status.data(), 0) != 0) {
    return std::string("error=move_pages:") + std::strerror(errno);
  }
  for (int s : status) per_node[s] += 1;  // negative: -errno (not present, ...)
  std::string nodes;
  for (const auto& [node, count] : per_node) {
    if (!nodes.empty()) nodes += ",";
    nodes += (node >= 0 ? "N" + std::to_string(node) : "E" + std::to_string(-node)) + "=" +
             std::to_string(count);
  }
  char addr[32];
  std::snprintf(addr, sizeof addr, "%lx", reinterpret_cast<unsigned long>(g_buffer));
  return "pid=" + std::to_string(getpid()) + " cpus=" + cpus_allowed() + " addr=" + addr +
         " pages=" + std::to_string(g_pages) + " nodes=" + nodes;
}

void write_line(const std::string& path, const std::string& line, bool append) {
  if (path.empty()) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    return;
  }
  std::string tmp = append ? path : path + ".tmp";
  {
    std::ofstream out(tmp, append ? std::ios::app : std::ios::trunc);
    out << line << "\n";
  }
  if (!append) std::rename(tmp.c_str(), path.c_str());  // readers see it whole
}

void* sleeper(void*) {
  for (;;) pause();
  return nullptr;
}

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: vmload [--mb N] [--threads N] [--map FILE] [--wait] [--ready FILE] [--out FILE]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = 0;
  int threads = 1;
  bool wait = false;
  std::string ready, out, map;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--mb" && has_value) mb = std::strtoul(argv[++i], nullptr, 10);
    else if (arg == "--threads" && has_value) threads = std::atoi(argv[++i]);
    else if (arg == "--ready" && has_value) ready = argv[++i];
    else if (arg == "--out" && has_value) out = argv[++i];
    else if (arg == "--map" && has_value) map = argv[++i];
    else if (arg == "--wait") wait = true;
    else usage();
  }
  if (mb > 65536 || threads < 1 || threads > 256) usage();

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by the sleepers

  g_pages = mb * 1024 * 1024 / k_page;
  if (g_pages > 0) {
    // A PROT_NONE page on either side keeps the kernel from merging the
    // buffer with a neighbouring mapping: its numa_maps line starts at addr.
    void* p = mmap(nullptr, (g_pages + 2) * k_page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("vmload: mmap");
      return 1;
    }
    g_buffer = static_cast<char*>(p) + k_page;
    if (mprotect(g_buffer, g_pages * k_page, PROT_READ | PROT_WRITE) != 0) {
      std::perror("vmload: mprotect");
      return 1;
    }
    for (size_t i = 0; i < g_pages; ++i) g_buffer[i * k_page] = static_cast<char>(i | 1);
  }
  if (!map.empty()) {
    int fd = open(map.c_str(), O_RDONLY);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
      std::perror("vmload: --map");
      return 1;
    }
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      std::perror("vmload: mmap --map");
      return 1;
    }
    close(fd);
    char sum = 0;
    for (off_t at = 0; at < st.st_size; at += static_cast<off_t>(k_page)) sum = static_cast<char>(sum + static_cast<volatile char*>(p)[at]);
    if (sum == 42) std::fputc(' ', stderr);  // the reads are kept
  }
  for (int t = 1; t < threads; ++t) {
    pthread_t id;
    if (pthread_create(&id, nullptr, sleeper, nullptr) != 0) {
      std::perror("vmload: pthread_create");
      return 1;
    }
  }
  if (!wait) {
    write_line(out, report(), false);
    return 0;
  }
  write_line(ready.empty() ? out : ready, report(), false);
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return 1;
    if (sig == SIGTERM) return 0;
    write_line(out, report(), true);
  }
}
