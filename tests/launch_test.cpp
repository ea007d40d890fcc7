#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <sstream>

#include "error.hpp"
#include "fake_os.hpp"
#include "fixtures.hpp"
#include "command_line.hpp"
#include "launch.hpp"
#include "launch_output.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::set_of;

namespace {

Placement placement(const char* cpus, std::optional<MemPolicy> policy = std::nullopt,
                    const char* mem_nodes = "") {
  return affix::test::placement_of(cpus, policy, mem_nodes);
}

LaunchRequest command(std::vector<std::string> argv) {
  LaunchRequest r;
  r.argv = std::move(argv);
  return r;
}

}  // namespace

TEST_CASE("launch sets the memory policy, then the affinity, then the environment, then execs") {
  FakeOs os;
  auto req = command({"./server", "--port", "a b", "-x", ""});
  req.env = {{"AFFIX_CPUS", "2-3"}, {"OMP_NUM_THREADS", "2"}};
  std::ostringstream out, err;
  CHECK(launch(os, placement("2-3", MemPolicy::Bind, "1"), req, out, err) == 0);
  CHECK(os.calls == std::vector<std::string>{"set_mempolicy", "set_affinity", "set_env", "set_env", "exec"});
  REQUIRE(os.set_mempolicy_calls.size() == 1);
  CHECK(os.set_mempolicy_calls[0].policy == MemPolicy::Bind);
  CHECK(os.set_mempolicy_calls[0].nodes == set_of("1"));
  REQUIRE(os.set_affinity_calls.size() == 1);
  CHECK(os.set_affinity_calls[0].tid == 0);
  CHECK(os.set_affinity_calls[0].cpus == set_of("2-3"));
  CHECK(os.env["AFFIX_CPUS"] == "2-3");
  CHECK(os.env["OMP_NUM_THREADS"] == "2");
  REQUIRE(os.exec_calls.size() == 1);
  CHECK(os.exec_calls[0] == std::vector<std::string>{"./server", "--port", "a b", "-x", ""});
  CHECK(out.str().empty());
  CHECK(err.str().empty());
}

TEST_CASE("without --mem the memory policy is left alone") {
  FakeOs os;
  std::ostringstream out, err;
  CHECK(launch(os, placement("0"), command({"true"}), out, err) == 0);
  CHECK(os.calls == std::vector<std::string>{"set_affinity", "exec"});
}

TEST_CASE("nothing execs when binding fails") {
  std::ostringstream out, err;
  SECTION("memory policy") {
    FakeOs os;
    os.set_mempolicy_error = EINVAL;
    try {
      launch(os, placement("0-1", MemPolicy::Interleave, "0-1"), command({"true"}), out, err);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Runtime);
      CHECK(std::string(e.what()) == "cannot set memory policy interleave on nodes 0-1: Invalid argument");
    }
    CHECK(os.calls == std::vector<std::string>{"set_mempolicy"});
  }
  SECTION("affinity") {
    FakeOs os;
    os.set_affinity_errors[0] = EINVAL;
    auto req = command({"true"});
    req.env = {{"AFFIX_CPUS", "0"}};
    try {
      launch(os, placement("0", MemPolicy::Local), req, out, err);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) == "cannot bind to CPUs 0: Invalid argument");
      CHECK(e.hint() == "the CPUs may have gone offline or out of affix's cpuset");
    }
    CHECK(os.calls == std::vector<std::string>{"set_mempolicy", "set_affinity"});
    CHECK(os.exec_calls.empty());
    CHECK(os.env.empty());
  }
}

TEST_CASE("exec failures give 127 and 126 with their messages") {
  std::ostringstream out, err;
  FakeOs os;
  os.exec_error = ENOENT;
  CHECK(launch(os, placement("0"), command({"nosuch", "x"}), out, err) == 127);
  CHECK(err.str() == "affix: error: command not found: 'nosuch'\n");

  err.str("");
  CHECK(launch(os, placement("0"), command({"./bin/x"}), out, err) == 127);
  CHECK(err.str() == "affix: error: cannot execute './bin/x': No such file or directory\n");

  err.str("");
  LaunchRequest dashed = command({"--no-smtt", "ls"});
  dashed.option_hint = [](const std::string& word) { return option_hint(word, CommandKind::Run); };
  CHECK(launch(os, placement("0"), dashed, out, err) == 127);
  CHECK(err.str() ==
        "affix: error: command not found: '--no-smtt'\n"
        "affix: hint: '--no-smtt' is not an affix option: the command starts at the first word after WHERE that is not one (did you mean '--no-smt'?)\n");

  err.str("");
  os.exec_error = EACCES;
  CHECK(launch(os, placement("0"), command({"/etc/passwd"}), out, err) == 126);
  CHECK(err.str() == "affix: error: cannot execute '/etc/passwd': Permission denied\n");

  os.exec_error = ENOEXEC;
  CHECK(exec_failure("./x", ENOEXEC).status == 126);
  CHECK(exec_failure("./x", ENOEXEC).message == "cannot execute './x': Exec format error");
  CHECK(exec_failure("dir/", ENOTDIR).status == 127);
}

TEST_CASE("dry run prints what would be done and does nothing") {
  FakeOs os;
  auto req = command({"ls", "a b", "it's"});
  req.dry_run = true;
  req.env = {{"OMP_PLACES", "{0},{1}"}};
  auto p = placement("0-1", MemPolicy::Preferred, "0");
  p.warnings = {"memory nodes 0 differ from the CPUs' nodes 1"};
  std::ostringstream out, err;
  CHECK(launch(os, p, req, out, err) == 0);
  CHECK(os.calls.empty());
  CHECK(err.str().empty());
  CHECK(out.str() ==
        "affix: would set memory policy preferred on node 0\n"
        "affix: would bind to CPUs 0-1 (2 CPUs; socket 0; node 0)\n"
        "affix: warning: memory nodes 0 differ from the CPUs' nodes 1\n"
        "affix: would set OMP_PLACES='{0},{1}'\n"
        "affix: would exec: ls 'a b' 'it'\\''s'\n");
}

TEST_CASE("verbose prints the placement on stderr before the exec") {
  FakeOs os;
  auto req = command({"true"});
  req.verbose = true;
  auto p = placement("1,3");
  p.sockets = set_of("0-1");
  p.nodes = set_of("0,2");
  std::ostringstream out, err;
  CHECK(launch(os, p, req, out, err) == 0);
  CHECK(err.str() ==
        "affix: bind to CPUs 1,3 (2 CPUs; sockets 0-1; nodes 0,2)\n"
        "affix: exec: true\n");
  CHECK(out.str().empty());
  CHECK(os.call_count("exec") == 1);
}

TEST_CASE("shell_quote") {
  CHECK(shell_quote("ls") == "ls");
  CHECK(shell_quote("--port=80") == "--port=80");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("$HOME") == "'$HOME'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
}

TEST_CASE("the widening warning goes to stderr once, whatever the mode") {
  const char* warning =
      "affix: warning: CPUs 0 are outside the CPUs affix was started on (1); 'self' keeps to those\n";
  auto p = placement("0-1");
  p.widening = "CPUs 0 are outside the CPUs affix was started on (1); 'self' keeps to those";
  p.warnings = {"memory nodes 0 differ from the CPUs' nodes 1", p.widening};
  {
    FakeOs os;
    std::ostringstream out, err;
    CHECK(launch(os, p, command({"true"}), out, err) == 0);
    CHECK(err.str() == warning);
    CHECK(out.str().empty());
  }
  {
    FakeOs os;
    auto req = command({"true"});
    req.verbose = true;
    std::ostringstream out, err;
    CHECK(launch(os, p, req, out, err) == 0);
    CHECK(err.str() == std::string(warning) +
                           "affix: bind to CPUs 0-1 (2 CPUs; socket 0; node 0)\n"
                           "affix: warning: memory nodes 0 differ from the CPUs' nodes 1\n"
                           "affix: exec: true\n");
  }
  {
    FakeOs os;
    auto req = command({"true"});
    req.dry_run = true;
    std::ostringstream out, err;
    CHECK(launch(os, p, req, out, err) == 0);
    CHECK(err.str() == warning);
    CHECK(out.str() ==
          "affix: would bind to CPUs 0-1 (2 CPUs; socket 0; node 0)\n"
          "affix: warning: memory nodes 0 differ from the CPUs' nodes 1\n"
          "affix: would exec: true\n");
  }
  // Without a widening nothing is printed.
  FakeOs os;
  std::ostringstream out, err;
  CHECK(launch(os, placement("0-1"), command({"true"}), out, err) == 0);
  CHECK(err.str().empty());
}

TEST_CASE("-v and --dry-run list the --env variables kept because the user set them") {
  FakeOs os;
  auto req = command({"prog"});
  req.verbose = true;
  req.env = {{"AFFIX_CPUS", "1"}, {"AFFIX_ENV", "GOMAXPROCS"}};
  req.kept = {{"OMP_NUM_THREADS", "7"}, {"OMP_PLACES", "{0} {1}"}};
  std::ostringstream out, err;
  CHECK(launch(os, placement("1"), req, out, err) == 0);
  CHECK(err.str() ==
        "affix: bind to CPUs 1 (1 CPU; socket 0; node 0)\n"
        "affix: set AFFIX_CPUS=1\n"
        "affix: set AFFIX_ENV=GOMAXPROCS\n"
        "affix: keep OMP_NUM_THREADS=7 (set by the user)\n"
        "affix: keep OMP_PLACES='{0} {1}' (set by the user)\n"
        "affix: exec: prog\n");
  // Kept variables are not set.
  CHECK(os.env_calls == std::vector<std::pair<std::string, std::string>>{{"AFFIX_CPUS", "1"}, {"AFFIX_ENV", "GOMAXPROCS"}});
  req.verbose = false;
  req.dry_run = true;
  std::ostringstream dry_out, dry_err;
  CHECK(launch(os, placement("1"), req, dry_out, dry_err) == 0);
  CHECK(dry_out.str().find("affix: would keep OMP_NUM_THREADS=7 (set by the user)\n") != std::string::npos);
}

TEST_CASE("a dry run exits 127 or 126 where the real run would") {
  FakeOs os;
  auto req = command({"no-such-command"});
  req.dry_run = true;
  os.find_error = ENOENT;
  std::ostringstream out, err;
  CHECK(launch(os, placement("0"), req, out, err) == 127);
  CHECK(out.str() ==
        "affix: would bind to CPUs 0 (1 CPU; socket 0; node 0)\n"
        "affix: would exec: no-such-command\n");
  CHECK(err.str() == "affix: error: command not found: 'no-such-command'\n");
  CHECK(os.calls.empty());
  req.argv = {"/etc/passwd"};
  os.find_error = EACCES;
  std::ostringstream out2, err2;
  CHECK(launch(os, placement("0"), req, out2, err2) == 126);
  CHECK(err2.str() == "affix: error: cannot execute '/etc/passwd': Permission denied\n");
  CHECK(os.calls.empty());
}

TEST_CASE("--spread: the follower starts after the affinity and the environment, before the exec") {
  FakeOs os;
  auto req = command({"./bench"});
  req.spread = 2;
  req.env = {{"AFFIX_CPUS", "0-1"}};
  std::ostringstream out, err;
  Placement p = placement("0-1");
  p.sequence = {1, 0};  // --order: the follower gets the CPUs in selection order
  CHECK(launch(os, p, req, out, err) == 0);
  CHECK(os.calls == std::vector<std::string>{"set_affinity", "set_env", "follow_threads", "exec"});
  REQUIRE(os.follow_calls.size() == 1);
  CHECK(os.follow_calls[0].cpus == std::vector<unsigned>{1, 0});
  CHECK(os.follow_calls[0].per_cpu == 2);
  CHECK(os.set_affinity_calls[0].cpus == set_of("0-1"));  // the main thread keeps the selection
}

TEST_CASE("--spread: a refused ptrace is an error and the command never starts") {
  FakeOs os;
  os.follow_error = EPERM;
  auto req = command({"./bench"});
  req.spread = 1;
  std::ostringstream out, err;
  try {
    launch(os, placement("0-1"), req, out, err);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    CHECK(std::string(e.what()) ==
          "cannot follow the command's threads for --spread: ptrace: Operation not permitted");
    CHECK(e.hint() == "the kernel refuses ptrace here (Yama ptrace_scope 3, a seccomp filter, or a "
                      "container without CAP_SYS_PTRACE); the command was not started");
  }
  CHECK(os.exec_calls.empty());
}

TEST_CASE("--spread: a tracer of affix's own (strace, gdb, an outer --spread) is named, escaped") {
  FakeOs os;
  os.follow_error = EPERM;
  os.traced_by = Tracer{5151, "s\ttrace"};
  auto req = command({"./bench"});
  req.spread = 1;
  std::ostringstream out, err;
  try {
    launch(os, placement("0-1"), req, out, err);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    CHECK(std::string(e.what()) ==
          "cannot follow the command's threads for --spread: ptrace: Operation not permitted: affix is already "
          "traced by process 5151 (s\\ttrace)");
    CHECK(e.hint() == "a process has one tracer at a time (strace, gdb, an outer 'affix --spread'): run --spread "
                      "outside it, or leave out --spread; the command was not started");
  }
  CHECK(os.exec_calls.empty());
  // Another errno with a tracer (out of processes): not the tracer's doing.
  os.follow_error = EAGAIN;
  try {
    launch(os, placement("0-1"), req, out, err);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot follow the command's threads for --spread: ptrace: Resource "
                                   "temporarily unavailable");
  }
}

TEST_CASE("--spread: the order, N per CPU") {
  CHECK(spread_order_text({0, 1}, 1) == "thread 1: CPU 0, thread 2: CPU 1, then again from CPU 0");
  CHECK(spread_order_text({3, 1}, 2) ==
        "threads 1-2: CPU 3, threads 3-4: CPU 1, then again from CPU 3");
  auto lines = describe_launch(placement("0-1"), [] {
    auto r = command({"true"});
    r.spread = 1;
    return r;
  }(), true);
  CHECK(std::find(lines.begin(), lines.end(),
                  "affix: would follow the command's threads with ptrace: a debugger or strace "
                  "cannot attach to it while it runs") != lines.end());
}
