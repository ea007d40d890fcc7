#pragma once
// Running a child for a test and measuring it: its exit status, its output,
// and its peak resident memory (ru_maxrss from wait4). A CPU-time limit
// (RLIMIT_CPU) turns a hang into a SIGXCPU the test sees as a failure.
// Programs run through the rss_run helper (tests/helpers/rss_run.cpp): a
// child forked straight from the test binary would count the test binary's
// own memory in its peak.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace affix::test {

struct ChildResult {
  bool exited = false;   // exited normally (not killed by a signal)
  int code = -1;         // exit status when exited
  int signal = 0;        // the signal when killed
  long maxrss_kb = 0;    // peak resident set
  std::string out, err;  // stdout and stderr
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

namespace detail {
inline ChildResult finish(pid_t pid, const std::string& out_path, const std::string& err_path) {
  ChildResult r;
  int status = 0;
  struct rusage ru {};
  while (::wait4(pid, &status, 0, &ru) < 0) {
  }
  r.exited = WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.maxrss_kb = ru.ru_maxrss;
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return r;
}

inline void redirect(const std::string& path, int fd) {
  int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (f < 0) ::_exit(121);
  ::dup2(f, fd);
  ::close(f);
}

inline std::string temp_name(const char* what) {
  return "/tmp/affix-child-" + std::to_string(::getpid()) + "-" + what;
}
}  // namespace detail

// Runs argv[0] (a path) with argv through rss_run; stdin is /dev/null.
inline ChildResult run_child(const std::vector<std::string>& argv, unsigned cpu_seconds = 300) {
  std::string out_path = detail::temp_name("out"), err_path = detail::temp_name("err");
  std::string report_path = detail::temp_name("rss");
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    detail::redirect(out_path, 1);
    detail::redirect(err_path, 2);
    struct rlimit cpu {cpu_seconds, cpu_seconds};
    ::setrlimit(RLIMIT_CPU, &cpu);
    std::string helper = std::string(AFFIX_HELPER_DIR) + "/rss_run";
    std::vector<char*> args{helper.data(), report_path.data()};
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(122);
  }
  ChildResult r = detail::finish(pid, out_path, err_path);
  // rss_run's report replaces what wait4 said about rss_run itself.
  std::istringstream report(slurp(report_path));
  ::unlink(report_path.c_str());
  std::string how, word;
  long value = -1, maxrss = 0;
  if (!r.exited || r.code != 0 || !(report >> how >> value >> word >> maxrss)) {
    r.exited = false;
    r.code = -1;
    return r;
  }
  r.exited = how == "exit";
  r.code = r.exited ? static_cast<int>(value) : -1;
  r.signal = r.exited ? 0 : static_cast<int>(value);
  r.maxrss_kb = maxrss;
  return r;
}

// Runs `body` in a forked child (exit status 0 when it returns, 1 when it
// throws) and measures it like run_child.
inline ChildResult run_in_child(const std::function<void()>& body, unsigned cpu_seconds = 300) {
  std::string out_path = detail::temp_name("out"), err_path = detail::temp_name("err");
  pid_t pid = ::fork();
  if (pid == 0) {
    detail::redirect(out_path, 1);
    detail::redirect(err_path, 2);
    struct rlimit cpu {cpu_seconds, cpu_seconds};
    ::setrlimit(RLIMIT_CPU, &cpu);
    try {
      body();
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  return detail::finish(pid, out_path, err_path);
}

}  // namespace affix::test
