// The follower's loop (src/apply/follow_loop.*) with a fake event source
// and a fake handler: what it asks the handler for each event, when it
// scans again, and how signals (records in a pipe, as a signalfd gives
// them) reload and stop it.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "follow_loop.hpp"

using namespace affix;

namespace {

struct FakeHandler : FollowHandler {
  std::vector<std::string> calls;
  std::map<pid_t, unsigned long long> starts;  // live processes
  std::map<pid_t, bool> matches;               // process(): placed or not
  bool reload_ok = true;
  int scans = 0, ticks = 0;
  std::vector<std::string> notes;

  void scan() override {
    ++scans;
    calls.push_back("scan");
  }
  std::optional<unsigned long long> process(pid_t pid, uint64_t) override {
    calls.push_back("process " + std::to_string(pid));
    if (matches[pid] && starts.count(pid)) return starts[pid];
    return std::nullopt;
  }
  std::optional<unsigned long long> inherit(pid_t child, pid_t parent) override {
    calls.push_back("inherit " + std::to_string(child) + " " + std::to_string(parent));
    if (starts.count(child)) return starts[child];
    return std::nullopt;
  }
  void thread(pid_t pid, pid_t tid) override { calls.push_back("thread " + std::to_string(pid) + " " + std::to_string(tid)); }
  void gone(pid_t pid) override { calls.push_back("gone " + std::to_string(pid)); }
  void tick() override { ++ticks; }
  bool reload() override {
    calls.push_back("reload");
    return reload_ok;
  }
  std::optional<unsigned long long> start_time(pid_t pid) override {
    if (!starts.count(pid)) return std::nullopt;
    return starts[pid];
  }
  void note(const std::string& line) override { notes.push_back(line); }
};

struct FakeSource : FollowSource {
  int pipe_fds[2] = {-1, -1};
  std::deque<std::pair<std::vector<ProcEvent>, bool>> batches;
  int grown = 0;
  FakeSource() { REQUIRE(pipe(pipe_fds) == 0); }
  ~FakeSource() override {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
  }
  void push(std::vector<ProcEvent> events, bool whole = true) {
    batches.emplace_back(std::move(events), whole);
    char c = 'x';
    REQUIRE(write(pipe_fds[1], &c, 1) == 1);
  }
  int fd() const override { return pipe_fds[0]; }
  bool drain(std::vector<ProcEvent>& out) override {
    char c;
    REQUIRE(read(pipe_fds[0], &c, 1) == 1);
    auto [events, whole] = batches.front();
    batches.pop_front();
    out.insert(out.end(), events.begin(), events.end());
    return whole;
  }
  int grow() override { return ++grown * 8 << 20; }
};

ProcEvent fork_event(pid_t parent, pid_t child, uint64_t t, uint32_t cpu, uint32_t seq, pid_t child_tgid = 0) {
  ProcEvent e;
  e.kind = ProcEvent::Kind::Fork;
  e.pid = e.tgid = parent;
  e.child_pid = child;
  e.child_tgid = child_tgid ? child_tgid : child;
  e.time_ns = t, e.cpu = cpu, e.seq = seq;
  return e;
}

ProcEvent simple(ProcEvent::Kind kind, pid_t pid, uint32_t cpu, uint32_t seq, pid_t tgid = 0, uint64_t t = 0) {
  ProcEvent e;
  e.kind = kind;
  e.pid = pid;
  e.tgid = tgid ? tgid : pid;
  e.cpu = cpu, e.seq = seq, e.time_ns = t;
  return e;
}

void send_signal(int fd, int signo) {
  signalfd_siginfo si{};
  si.ssi_signo = static_cast<uint32_t>(signo);
  REQUIRE(write(fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si));
}

}  // namespace

TEST_CASE("follow: an exec is looked at; a fork of an unplaced process is not", "[follow]") {
  FakeHandler h;
  FollowLoop loop(h, nullptr, {});
  h.starts = {{100, 5}, {101, 6}};
  loop.handle({fork_event(100, 101, 10, 0, 0), simple(ProcEvent::Kind::Exec, 101, 0, 1)}, true);
  CHECK(h.calls == std::vector<std::string>{"process 101"});
  CHECK_FALSE(loop.scan_due());
  CHECK(loop.stats().events == 2);
}

TEST_CASE("follow: a gap in one CPU's event numbers asks for a rescan; other CPUs' numbers are their own", "[follow]") {
  FakeHandler h;
  FollowLoop loop(h, nullptr, {});
  loop.handle({simple(ProcEvent::Kind::Exit, 7, 0, 10), simple(ProcEvent::Kind::Exit, 8, 1, 500),
               simple(ProcEvent::Kind::Exit, 9, 0, 11), simple(ProcEvent::Kind::Exit, 10, 1, 501)},
              true);
  CHECK_FALSE(loop.scan_due());
  CHECK(loop.stats().gaps == 0);
  loop.handle({simple(ProcEvent::Kind::Exit, 11, 0, 14)}, true);  // 12 and 13 lost
  CHECK(loop.scan_due());
  CHECK(loop.stats().gaps == 1);
  REQUIRE(h.notes.size() == 1);
  CHECK(h.notes[0] == "process events lost (CPU 0: event 14 came where 12 was due): every process scanned again");
  loop.scan();
  CHECK_FALSE(loop.scan_due());
  CHECK(h.scans == 1);
  CHECK(loop.stats().scans == 1);
  // The kernel's acknowledgement carries the request's number: not counted.
  ProcEvent ack;
  ack.kind = ProcEvent::Kind::Ack;
  ack.seq = 999;
  loop.handle({ack, simple(ProcEvent::Kind::Exit, 12, 0, 15)}, true);
  CHECK_FALSE(loop.scan_due());
}

TEST_CASE("follow: ENOBUFS is counted, grows the buffer and asks for a rescan", "[follow]") {
  FakeHandler h;
  auto src = std::make_unique<FakeSource>();
  FakeSource* raw = src.get();
  FollowLoop loop(h, std::move(src), {});
  loop.handle({}, false);
  CHECK(loop.scan_due());
  CHECK(loop.stats().overruns == 1);
  CHECK(raw->grown == 1);
  CHECK(loop.stats().buffer_bytes == 8 << 20);
  REQUIRE(h.notes.size() == 1);
  CHECK(h.notes[0] ==
        "the kernel dropped process events (its socket's buffer was full): buffer now 8192 KiB, every process "
        "scanned again");
}

TEST_CASE("follow: a child forked before its parent was placed is placed as its parent; one forked after is not", "[follow]") {
  FakeHandler h;
  FollowLoop loop(h, nullptr, {});
  h.starts = {{200, 50}, {201, 51}, {202, 52}};
  h.matches[200] = true;
  const uint64_t before = follow_now_ns();
  loop.handle({simple(ProcEvent::Kind::Exec, 200, 0, 0)}, true);  // placed now (after `before`)
  h.calls.clear();
  // 201's fork is stamped before the placement, 202's after.
  loop.handle({fork_event(200, 201, before, 0, 1), fork_event(200, 202, follow_now_ns() + 1000000000, 0, 2)}, true);
  CHECK(h.calls == std::vector<std::string>{"inherit 201 200"});
  CHECK(loop.stats().inherited == 1);
  // Both are remembered as placed: their threads and children are followed.
  h.calls.clear();
  loop.handle({fork_event(201, 301, 0, 0, 3, 201), fork_event(202, 302, 0, 0, 4, 202)}, true);
  CHECK(h.calls == std::vector<std::string>{"thread 201 301", "thread 202 302"});
}

TEST_CASE("follow: identity is PID and start time: a reused PID is not the placed process", "[follow]") {
  FakeHandler h;
  FollowLoop loop(h, nullptr, {});
  h.starts = {{300, 70}};
  h.matches[300] = true;
  loop.handle({simple(ProcEvent::Kind::Exec, 300, 0, 0)}, true);
  h.starts[300] = 99;  // exited unseen (events lost), another process got its PID
  h.starts[301] = 100;
  h.calls.clear();
  loop.handle({fork_event(300, 301, 0, 0, 1)}, true);
  CHECK(h.calls.empty());
}

TEST_CASE("follow: threads' names and threads of placed processes go to the handler; exits end them", "[follow]") {
  FakeHandler h;
  FollowLoop loop(h, nullptr, {});
  h.starts = {{400, 1}, {500, 2}};
  h.matches[400] = true;
  loop.handle({simple(ProcEvent::Kind::Exec, 400, 0, 0)}, true);
  h.calls.clear();
  auto named = simple(ProcEvent::Kind::Comm, 401, 0, 1, 400);
  auto other = simple(ProcEvent::Kind::Comm, 501, 0, 2, 500);    // a thread of an unplaced process
  auto renamed = simple(ProcEvent::Kind::Comm, 500, 0, 3, 500);  // a process renamed: looked at again
  loop.handle({named, other, renamed, simple(ProcEvent::Kind::Exit, 401, 0, 4, 400),
               simple(ProcEvent::Kind::Exit, 400, 0, 5, 400)},
              true);
  CHECK(h.calls == std::vector<std::string>{"thread 400 401", "process 500", "gone 400"});
  // An exec's own rename (COMM, sent before its EXEC): one look, at the exec.
  h.calls.clear();
  loop.handle({simple(ProcEvent::Kind::Comm, 500, 0, 7), simple(ProcEvent::Kind::Exec, 500, 0, 8)}, true);
  CHECK(h.calls == std::vector<std::string>{"process 500"});
  h.calls.clear();
  loop.handle({fork_event(400, 402, 0, 0, 6, 400)}, true);  // gone: its threads are no longer followed
  CHECK(h.calls.empty());
}

TEST_CASE("follow: run scans first, handles events, rescans after a loss, reloads on SIGHUP, stops on SIGTERM", "[follow]") {
  FakeHandler h;
  auto src = std::make_unique<FakeSource>();
  FakeSource* raw = src.get();
  FollowOptions o;
  o.tick_ms = 3600000;  // no tick during the test
  FollowLoop loop(h, std::move(src), o);
  int sig[2];
  REQUIRE(pipe(sig) == 0);
  h.starts = {{600, 1}};
  raw->push({simple(ProcEvent::Kind::Exec, 600, 0, 0)});
  raw->push({}, false);  // ENOBUFS
  h.reload_ok = false;
  send_signal(sig[1], SIGHUP);
  send_signal(sig[1], SIGTERM);
  // Each time poll returns the loop handles one batch of events, then one
  // signal: the exec and the SIGHUP, then the loss and the SIGTERM.
  CHECK(loop.run(sig[0]) == SIGTERM);
  CHECK(h.calls == std::vector<std::string>{"scan", "process 600", "reload"});
  CHECK(loop.stats().overruns == 1);
  CHECK(raw->grown == 1);
  CHECK(loop.stats().reload_errors == 1);
  CHECK(loop.stats().reloads == 0);
  CHECK(h.ticks == 0);
  close(sig[0]);
  close(sig[1]);
}

TEST_CASE("follow: a reload taken rescans; SIGINT stops like SIGTERM", "[follow]") {
  FakeHandler h;
  FollowOptions o;
  o.tick_ms = 3600000;
  o.poll_ms = 3600000;
  FollowLoop loop(h, nullptr, o);  // polling: no source
  int sig[2];
  REQUIRE(pipe(sig) == 0);
  send_signal(sig[1], SIGHUP);
  send_signal(sig[1], SIGINT);
  CHECK(loop.run(sig[0]) == SIGINT);
  CHECK(h.calls == std::vector<std::string>{"scan", "reload", "scan"});
  CHECK(loop.stats().reloads == 1);
  CHECK(loop.stats().scans == 2);
  CHECK_FALSE(loop.following());
  close(sig[0]);
  close(sig[1]);
}
