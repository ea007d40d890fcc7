// The process events connector's messages (proc_events.cpp), built by hand
// as the kernel lays them out: netlink header, cn_msg, proc_event. And the
// syscall file's text as pin reads it (clone_state_of).
#include <catch2/catch.hpp>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "proc_events.hpp"

using namespace affix;

namespace {

// One netlink message of the connector: `what`, the time, and the event's
// 32-bit fields; data_len overrides the cn_msg's length where not 0.
std::vector<unsigned char> message(uint32_t what, uint64_t time_ns, std::vector<int32_t> fields,
                                   uint32_t idx = CN_IDX_PROC, uint16_t type = NLMSG_DONE, uint16_t data_len = 0) {
  const size_t data = 16 + 4 * fields.size();
  std::vector<unsigned char> out(16 + 20 + data, 0);
  uint32_t len = static_cast<uint32_t>(out.size());
  std::memcpy(&out[0], &len, 4);
  std::memcpy(&out[4], &type, 2);
  uint32_t val = CN_VAL_PROC;
  std::memcpy(&out[16], &idx, 4);
  std::memcpy(&out[20], &val, 4);
  uint16_t dl = data_len ? data_len : static_cast<uint16_t>(data);
  std::memcpy(&out[32], &dl, 2);
  std::memcpy(&out[36], &what, 4);
  std::memcpy(&out[44], &time_ns, 8);
  for (size_t i = 0; i < fields.size(); ++i) std::memcpy(&out[52 + 4 * i], &fields[i], 4);
  while (out.size() % 4) out.push_back(0);
  return out;
}

std::vector<unsigned char> join(std::initializer_list<std::vector<unsigned char>> parts) {
  std::vector<unsigned char> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

TEST_CASE("proc events: forks, a thread's creation, an exit and the acknowledgement, in one datagram") {
  auto buf = join({message(proc_event::PROC_EVENT_NONE, 5, {0}),                  // the subscription's ack (err 0)
                   message(proc_event::PROC_EVENT_FORK, 100, {10, 10, 50, 50}),   // 10 forked process 50
                   message(proc_event::PROC_EVENT_FORK, 200, {1, 1, 51, 10}),     // 10 made thread 51 (its parent named)
                   message(proc_event::PROC_EVENT_EXIT, 300, {50, 50, 0, 17, 10, 10}),
                   message(proc_event::PROC_EVENT_EXEC, 400, {52, 52})});
  std::vector<ProcEvent> out;
  REQUIRE(parse_proc_events(buf.data(), buf.size(), out) == 5);
  CHECK(out[0].kind == ProcEvent::Kind::Ack);
  CHECK(out[0].error == 0);
  CHECK(out[1].kind == ProcEvent::Kind::Fork);
  CHECK(out[1].time_ns == 100);
  CHECK((out[1].pid == 10 && out[1].tgid == 10 && out[1].child_pid == 50 && out[1].child_tgid == 50));
  CHECK(out[1].new_process());
  CHECK(out[2].kind == ProcEvent::Kind::Fork);
  CHECK_FALSE(out[2].new_process());
  CHECK((out[2].child_pid == 51 && out[2].child_tgid == 10));
  CHECK(out[3].kind == ProcEvent::Kind::Exit);
  CHECK((out[3].pid == 50 && out[3].tgid == 50 && out[3].time_ns == 300));
  CHECK(out[4].kind == ProcEvent::Kind::Exec);
  CHECK(out[4].pid == 52);
}

TEST_CASE("proc events: the acknowledgement of a subscription says whose it is and the kernel's errno") {
  auto buf = message(proc_event::PROC_EVENT_NONE, 5, {1});  // EPERM
  uint32_t seq = 4242, ack = 8;
  std::memcpy(&buf[24], &seq, 4);
  std::memcpy(&buf[28], &ack, 4);
  auto other = message(proc_event::PROC_EVENT_UID, 6, {10, 10, 0, 0});
  buf.insert(buf.end(), other.begin(), other.end());
  std::vector<ProcEvent> out;
  REQUIRE(parse_proc_events(buf.data(), buf.size(), out) == 2);
  CHECK(out[0].kind == ProcEvent::Kind::Ack);
  CHECK((out[0].error == 1 && out[0].seq == 4242 && out[0].ack == 8));
  CHECK(out[1].kind == ProcEvent::Kind::Other);
}

TEST_CASE("proc events: messages of another kind or connector are skipped; one cut short ends the datagram") {
  std::vector<ProcEvent> out;
  SECTION("another connector's message, a netlink no-op, then a fork") {
    auto buf = join({message(proc_event::PROC_EVENT_FORK, 1, {1, 1, 2, 2}, CN_IDX_PROC + 1),
                     message(proc_event::PROC_EVENT_FORK, 1, {1, 1, 3, 3}, CN_IDX_PROC, NLMSG_NOOP),
                     message(proc_event::PROC_EVENT_FORK, 7, {1, 1, 4, 4})});
    REQUIRE(parse_proc_events(buf.data(), buf.size(), out) == 1);
    CHECK(out[0].child_pid == 4);
  }
  SECTION("a fork too short for its four IDs") {
    auto buf = join({message(proc_event::PROC_EVENT_FORK, 1, {1, 1, 2, 2}, CN_IDX_PROC, NLMSG_DONE, 16 + 12),
                     message(proc_event::PROC_EVENT_FORK, 7, {1, 1, 4, 4})});
    REQUIRE(parse_proc_events(buf.data(), buf.size(), out) == 1);
    CHECK(out[0].child_pid == 4);
  }
  SECTION("a cn_msg that claims more data than its message holds") {
    auto buf = message(proc_event::PROC_EVENT_FORK, 1, {1, 1, 2, 2}, CN_IDX_PROC, NLMSG_DONE, 200);
    CHECK(parse_proc_events(buf.data(), buf.size(), out) == 0);
  }
  SECTION("a datagram cut inside its second message") {
    auto buf = join({message(proc_event::PROC_EVENT_FORK, 7, {1, 1, 4, 4}), message(proc_event::PROC_EVENT_FORK, 8, {1, 1, 5, 5})});
    buf.resize(buf.size() - 10);
    REQUIRE(parse_proc_events(buf.data(), buf.size(), out) == 1);
    CHECK(out[0].child_pid == 4);
  }
  SECTION("a netlink length below its header, and an empty datagram") {
    auto buf = message(proc_event::PROC_EVENT_FORK, 7, {1, 1, 4, 4});
    uint32_t bad = 8;
    std::memcpy(&buf[0], &bad, 4);
    CHECK(parse_proc_events(buf.data(), buf.size(), out) == 0);
    CHECK(parse_proc_events(buf.data(), 0, out) == 0);
    CHECK(parse_proc_events(buf.data(), 15, out) == 0);
  }
  CHECK(out.size() <= 1);
}

TEST_CASE("clone_state_of: the call a thread is in, from /proc/PID/task/TID/syscall") {
  CHECK(clone_state_of("running\n") == CloneState::Unknown);
  CHECK(clone_state_of("") == CloneState::Unknown);
  CHECK(clone_state_of("x1 0x0\n") == CloneState::Unknown);
  CHECK(clone_state_of("-1 0x7ffd2c3e1a40 0x401136\n") == CloneState::Outside);
  CHECK(clone_state_of(std::to_string(SYS_nanosleep) + " 0x7ffd 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x4011\n") ==
        CloneState::Outside);
  CHECK(clone_state_of(std::to_string(SYS_clone) + " 0x1200011 0x0 0x0 0x0 0x7f 0x0 0x7ffd 0x4011\n") ==
        CloneState::Inside);
#ifdef SYS_clone3
  CHECK(clone_state_of(std::to_string(SYS_clone3) + " 0x7ffd 0x58 0x0 0x0 0x0 0x0 0x7ffd 0x4011\n") ==
        CloneState::Inside);
#endif
#ifdef SYS_vfork
  const std::string vfork = std::to_string(SYS_vfork) + " 0x0 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x4011\n";
  CHECK(clone_state_of(vfork) == CloneState::Inside);
  // Asleep in kernel_clone itself, not in copy_process below it: the new
  // process is made, and its creator waits for it to exec or exit (vfork).
  CHECK(clone_state_of(vfork, "kernel_clone") == CloneState::Outside);
  CHECK(clone_state_of(vfork, "_do_fork") == CloneState::Outside);
  CHECK(clone_state_of(vfork, "copy_process") == CloneState::Inside);
  CHECK(clone_state_of(vfork, "0") == CloneState::Inside);
#endif
  CHECK(clone_state_of("running\n", "kernel_clone") == CloneState::Unknown);
}

// The real connector, or nullptr after checking why it cannot be had
// (without CAP_NET_ADMIN, or in a namespace of affix's own).
std::unique_ptr<ProcEvents> subscribe_or_why() {
  std::string why;
  auto events = ProcEvents::open(why);
  INFO(why);
  if (!events)
    CHECK((why == "subscribing to the process events connector needs CAP_NET_ADMIN" ||
           why.find("namespace") != std::string::npos));
  else
    CHECK(why.empty());
  return events;
}

// The real connector on this kernel: subscribed, a fork of the test's own is
// named (the forking thread, the child) with a time after the fork began;
// without CAP_NET_ADMIN the reason is what is checked.
TEST_CASE("proc events: the kernel names a fork of ours, or says why it cannot") {
  auto events = subscribe_or_why();
  if (!events) return;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t before = static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
  pid_t child = fork();
  if (child == 0) _exit(0);
  REQUIRE(child > 0);
  waitpid(child, nullptr, 0);
  std::vector<ProcEvent> out;
  bool named = false;
  for (int i = 0; i < 100 && !named; ++i) {
    out.clear();
    events->drain(out);
    for (const auto& e : out)
      if (e.kind == ProcEvent::Kind::Fork && e.child_pid == child) {
        CHECK(e.new_process());
        CHECK(e.pid == static_cast<pid_t>(syscall(SYS_gettid)));
        CHECK(e.tgid == getpid());
        CHECK(e.time_ns > before);
        named = true;
      }
    if (!named) usleep(10000);
  }
  CHECK(named);
}

// Any process may send to the subscriber's port: what it sends is not the
// kernel's, and a forged fork naming a placed parent would have a root
// follower move the "child" it names. Only the kernel's events are read.
TEST_CASE("proc events: a datagram another process sends to the subscriber is dropped") {
  auto events = subscribe_or_why();
  if (!events) return;
  sockaddr_nl to{};
  socklen_t len = sizeof to;
  REQUIRE(getsockname(events->fd(), reinterpret_cast<sockaddr*>(&to), &len) == 0);
  REQUIRE(to.nl_pid != 0);
  int forger = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
  REQUIRE(forger >= 0);
  sockaddr_nl me{};
  me.nl_family = AF_NETLINK;
  REQUIRE(bind(forger, reinterpret_cast<sockaddr*>(&me), sizeof me) == 0);
  // A fork of PID 1 naming process 999999: well formed, as the kernel's are.
  auto forged = message(proc_event::PROC_EVENT_FORK, 5, {1, 1, 999999, 999999});
  std::vector<ProcEvent> parsed;
  REQUIRE(parse_proc_events(forged.data(), forged.size(), parsed) == 1);
  to.nl_groups = 0;
  REQUIRE(sendto(forger, forged.data(), forged.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) ==
          static_cast<ssize_t>(forged.size()));
  close(forger);
  // Then one of the kernel's: a fork of ours, read after the forged one.
  pid_t child = fork();
  if (child == 0) _exit(0);
  REQUIRE(child > 0);
  waitpid(child, nullptr, 0);
  bool kernels = false, forgeds = false;
  for (int i = 0; i < 100 && !kernels; ++i) {
    std::vector<ProcEvent> out;
    events->drain(out);
    for (const auto& e : out) {
      if (e.kind == ProcEvent::Kind::Fork && e.child_pid == child) kernels = true;
      if (e.kind == ProcEvent::Kind::Fork && e.child_pid == 999999) forgeds = true;
    }
    if (!kernels) usleep(10000);
  }
  CHECK(kernels);
  CHECK_FALSE(forgeds);
}

TEST_CASE("proc events: a comm change names the task and its new name; every event its CPU and number") {
  // comm_proc_event: pid, tgid, then 16 bytes of name ("affix-t1", NUL-padded).
  char name[16] = "affix-t1";
  std::vector<int32_t> fields = {77, 70};
  for (int i = 0; i < 4; ++i) {
    int32_t word;
    std::memcpy(&word, name + 4 * i, 4);
    fields.push_back(word);
  }
  auto buf = join({message(proc_event::PROC_EVENT_COMM, 10, fields), message(proc_event::PROC_EVENT_EXEC, 11, {70, 70})});
  uint32_t cpu = 1, seq = 41;
  std::memcpy(&buf[40], &cpu, 4);  // proc_event.cpu
  std::memcpy(&buf[24], &seq, 4);  // cn_msg.seq
  std::vector<ProcEvent> out;
  REQUIRE(parse_proc_events(buf.data(), buf.size(), out) == 2);
  CHECK(out[0].kind == ProcEvent::Kind::Comm);
  CHECK((out[0].pid == 77 && out[0].tgid == 70));
  CHECK(out[0].comm == "affix-t1");
  CHECK((out[0].cpu == 1 && out[0].seq == 41));
  CHECK((out[1].cpu == 0 && out[1].seq == 0));
  // A name that fills its 16 bytes has no NUL: cut at 16.
  std::memset(name, 'x', 16);
  fields.resize(2);
  for (int i = 0; i < 4; ++i) {
    int32_t word;
    std::memcpy(&word, name + 4 * i, 4);
    fields.push_back(word);
  }
  auto full = message(proc_event::PROC_EVENT_COMM, 10, fields);
  out.clear();
  REQUIRE(parse_proc_events(full.data(), full.size(), out) == 1);
  CHECK(out[0].comm == std::string(16, 'x'));
  // Too short to hold its IDs: skipped.
  auto cut = message(proc_event::PROC_EVENT_COMM, 10, {77});
  out.clear();
  CHECK(parse_proc_events(cut.data(), cut.size(), out) == 0);
}
