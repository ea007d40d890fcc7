// bench-timer: runs commands in interleaved rounds (A B C, B C A, C A B ...) and
// prints the wall time of every run, so that ratios are taken between runs
// that saw the same machine state.
//
//   bench-timer [--rounds N] [--warmup N] [--toggle V1,V2,...]
//               [--verify-pid PID --verify-threads N] -- CMD ::: CMD ::: ...
//
// Each CMD is an argv; leading NAME=VALUE words are set in its environment.
// The word "{v}" anywhere in a CMD is replaced by the next value of --toggle,
// taken in turn at every run (so consecutive runs always change something).
// With --verify-pid, after every run every thread of PID must have
// Cpus_allowed_list equal to the value just used, and the process must have
// at least --verify-threads threads; otherwise the run is reported and the
// timer exits 3. Output: one line per measured run, "ROUND INDEX WALL_NS CPU_NS"
// (CPU_NS: user + system time of the child, from wait4).
// A command that exits non-zero stops the timer (exit 2) with its status.
#include <dirent.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct Command {
  std::vector<std::string> env;   // NAME=VALUE
  std::vector<std::string> argv;
};

long long now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

std::string substitute(const std::string& word, const std::string& value) {
  std::string out = word;
  for (size_t pos; (pos = out.find("{v}")) != std::string::npos;) out.replace(pos, 3, value);
  return out;
}

long long tv_ns(const timeval& tv) {
  return static_cast<long long>(tv.tv_sec) * 1000000000LL + tv.tv_usec * 1000LL;
}

// Runs one command with stdout/stderr on /dev/null; returns wait status, the
// elapsed wall ns and the CPU ns (user + system) the child used.
int run(const Command& cmd, const std::string& value, long long& elapsed, long long& cpu) {
  std::vector<std::string> args, envs;
  for (const auto& a : cmd.argv) args.push_back(substitute(a, value));
  for (char** e = environ; *e; ++e) envs.emplace_back(*e);
  for (const auto& e : cmd.env) envs.push_back(substitute(e, value));
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  long long t0 = now_ns();
  int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    std::fprintf(stderr, "bench-timer: cannot run %s: %s\n", argv[0], std::strerror(rc));
    std::exit(2);
  }
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0) {
  }
  elapsed = now_ns() - t0;
  cpu = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
  return status;
}

// Every thread of pid allowed exactly `want`; returns the number of threads, or -1.
long verify(const std::string& pid, const std::string& want, std::string& bad) {
  std::string dir = "/proc/" + pid + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) {
    bad = dir + ": cannot open";
    return -1;
  }
  long count = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name + "/status");
    std::string line, got;
    while (std::getline(in, line))
      if (line.rfind("Cpus_allowed_list:", 0) == 0) {
        got = line.substr(line.find_first_not_of(" \t", 18));
        break;
      }
    if (!in.good() && got.empty()) continue;  // thread gone
    if (got != want) {
      bad = "thread " + std::string(e->d_name) + " has " + got + ", want " + want;
      closedir(d);
      return -1;
    }
    ++count;
  }
  closedir(d);
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  long rounds = 20, warmup = 2, verify_threads = 0;
  std::vector<std::string> toggle{""};
  std::string verify_pid;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench-timer: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--") { ++i; break; }
    if (a == "--rounds") rounds = std::atol(next().c_str());
    else if (a == "--warmup") warmup = std::atol(next().c_str());
    else if (a == "--toggle") toggle = split(next(), ',');
    else if (a == "--verify-pid") verify_pid = next();
    else if (a == "--verify-threads") verify_threads = std::atol(next().c_str());
    else {
      std::fprintf(stderr, "bench-timer: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  std::vector<Command> cmds(1);
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == ":::") { cmds.emplace_back(); continue; }
    if (cmds.back().argv.empty() && a.find('=') != std::string::npos && a[0] != '=')
      cmds.back().env.push_back(a);
    else
      cmds.back().argv.push_back(a);
  }
  for (const auto& c : cmds)
    if (c.argv.empty()) {
      std::fprintf(stderr, "bench-timer: empty command\n");
      return 2;
    }
  size_t turn = 0;
  for (long r = -warmup; r < rounds; ++r) {
    // The order rotates every round, so that no command always follows the
    // same one (a heavy command before it would tax its caches every time).
    for (size_t j = 0; j < cmds.size(); ++j) {
      const size_t k = (j + static_cast<size_t>(r + warmup)) % cmds.size();
      const std::string value = toggle[turn++ % toggle.size()];
      long long ns = 0, cpu_ns = 0;
      int status = run(cmds[k], value, ns, cpu_ns);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "bench-timer: command %zu (%s ...) failed with status %d\n", k,
                     cmds[k].argv[0].c_str(), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return 2;
      }
      if (!verify_pid.empty()) {
        std::string bad;
        long n = verify(verify_pid, value, bad);
        if (n < 0 || n < verify_threads) {
          std::fprintf(stderr, "bench-timer: after command %zu (%s ...): %s\n", k,
                       cmds[k].argv[0].c_str(),
                       n < 0 ? bad.c_str() : ("only " + std::to_string(n) + " threads").c_str());
          return 3;
        }
      }
      if (r >= 0) std::printf("%ld %zu %lld %lld\n", r, k, ns, cpu_ns);
    }
  }
  return 0;
}
