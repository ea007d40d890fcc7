#pragma once
// `affix apply --follow`: the loop that keeps a rules file applied. It
// knows nothing of rules: what to do with a process is a FollowHandler's
// (the apply engine's, src/cli/cmd_apply_follow.cpp; a fake's in the unit
// tests), and where news of processes comes from is a FollowSource's (the
// kernel's process events connector, ProcEvents in src/os/proc_events.*,
// or none: a periodic scan of /proc).
//
// The order, after keepalived's track_process.c and libcgroup's
// cgrulesengd:
// - the source is subscribed before the loop starts, and the loop's first
//   act is a scan of every process: a process started between the two is
//   seen twice, never missed;
// - an event lost (the kernel's ENOBUFS on the socket, or a gap in one
//   CPU's event numbers, cn_msg.seq) is counted, the socket's buffer grown
//   (ENOBUFS), and followed by a scan of every process;
// - a process is looked at on its exec and on its name's change (COMM);
//   an exec's own COMM (the kernel renames the process before it sends the
//   EXEC) is not looked at twice where both come in one batch;
//   a fork is looked at only where its parent was placed: the child of an
//   unplaced process has its parent's name, executable, command line and
//   user, so no rule the parent missed matches it, and the child of a
//   placed process forked after the placement inherits it from the kernel
//   (CPU list, memory policy, scheduling policy, nice). A child forked
//   BEFORE its parent was placed (its event is stamped earlier than the
//   placement) inherited the old placement: it is placed as its parent
//   (FollowHandler::inherit, cgrulesengd's rule). A new thread, or a
//   thread's new name, of a placed process goes to FollowHandler::thread
//   (rules by thread name);
// - after each batch of events the loop pauses 2 ms, so that the next
//   events are read together (one wake-up for a dozen at 1,000 execs a
//   second, rather than one for each);
// - every `tick_ms` FollowHandler::tick (the enforce check, the metrics);
//   without a source, every `poll_ms` a scan of every process instead of
//   events;
// - SIGHUP: FollowHandler::reload (the rules file read again; a file
//   with an error keeps the rules in force), then a scan; SIGTERM, SIGINT:
//   the loop returns, and nothing placed is undone.
//
// Identity is PID + start time: a placement remembered for a PID counts
// only while the process under that PID has the start time it had.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proc_events.hpp"

namespace affix {

// Where the follower's events come from (the connector, or a fake).
class FollowSource {
public:
  virtual ~FollowSource() = default;
  // A descriptor poll(2) says readable when events are queued.
  virtual int fd() const = 0;
  // Appends the events queued now; false where the kernel dropped some
  // (ENOBUFS).
  virtual bool drain(std::vector<ProcEvent>& out) = 0;
  // More room after a loss; the size it now has, in bytes.
  virtual int grow() = 0;
};

// The connector's (ProcEvents) as a FollowSource.
std::unique_ptr<FollowSource> connector_source(std::unique_ptr<ProcEvents> events);

// What the follower does with what it learns.
class FollowHandler {
public:
  virtual ~FollowHandler() = default;
  // Every process on the machine now (first scan, rescan, poll, reload).
  virtual void scan() = 0;
  // A process that execed or was renamed (or a fork's child, see above):
  // the start time of the process placed where a rule matched it and it
  // was placed (or already was), nullopt otherwise. `event_ns`: when the
  // kernel sent the event (CLOCK_MONOTONIC), for the log's delay.
  virtual std::optional<unsigned long long> process(pid_t pid, uint64_t event_ns) = 0;
  // `child` was forked by `parent` before `parent` was placed: place it
  // as its parent is. Same return as process().
  virtual std::optional<unsigned long long> inherit(pid_t child, pid_t parent) = 0;
  // A new thread, or a thread's new name, in a placed process.
  virtual void thread(pid_t pid, pid_t tid) = 0;
  // The process ended.
  virtual void gone(pid_t pid) = 0;
  // Periodic: the enforce check, the metrics' counters.
  virtual void tick() = 0;
  // SIGHUP: read the rules file again; false (with a note) where it was
  // refused and the rules in force are kept.
  virtual bool reload() = 0;
  // The process's start time (stat field 22), nullopt where it is gone.
  virtual std::optional<unsigned long long> start_time(pid_t pid) = 0;
  // One line of the follower's log (stderr; the journal under systemd).
  virtual void note(const std::string& line) = 0;
};

struct FollowOptions {
  unsigned tick_ms = 1000;  // the enforce check and the metrics
  unsigned poll_ms = 1000;  // without events: how often /proc is scanned
};

// What the follower counted (the metrics' affix_follow_* families).
struct FollowStats {
  uint64_t events = 0;        // events read (acknowledgements apart)
  uint64_t overruns = 0;      // ENOBUFS: the kernel dropped events
  uint64_t gaps = 0;          // events missing in a CPU's numbers (each gap once, however long)
  uint64_t scans = 0;         // scans of every process (the first, rescans, polls, reloads)
  uint64_t reloads = 0;       // SIGHUPs whose file was taken
  uint64_t reload_errors = 0; // SIGHUPs whose file was refused
  uint64_t inherited = 0;     // children placed as their parent (forked before it was placed)
  int buffer_bytes = 0;       // the socket's receive buffer after the last growth (0: never grown)
};

class FollowLoop {
public:
  // `source` nullptr: no events, a scan every poll_ms.
  FollowLoop(FollowHandler& handler, std::unique_ptr<FollowSource> source, FollowOptions options);
  // Runs until `signal_fd` (a signalfd, or anything whose reads give
  // signalfd_siginfo records) reads SIGTERM or SIGINT. Returns the signal.
  int run(int signal_fd);
  // One batch of events, as run() handles them (for tests): `whole` false
  // where the source said some were dropped.
  void handle(const std::vector<ProcEvent>& events, bool whole);
  // Whether the last handle() asked for a scan (done by run()).
  bool scan_due() const { return m_scan_due; }
  void scan();
  const FollowStats& stats() const { return m_stats; }
  bool following() const { return m_source != nullptr; }

private:
  struct Placed {
    unsigned long long start_time = 0;
    uint64_t at_ns = 0;  // CLOCK_MONOTONIC, the events' clock
  };
  void placed(pid_t pid, std::optional<unsigned long long> start_time);
  // The placement remembered for `pid`, where the process under it is still the one placed.
  const Placed* placement(pid_t pid);
  void on_signal(int signo, bool& stop);

  FollowHandler& m_handler;
  std::unique_ptr<FollowSource> m_source;
  FollowOptions m_options;
  FollowStats m_stats;
  std::map<pid_t, Placed> m_placed;
  std::map<uint32_t, uint32_t> m_next_seq;  // per CPU: the number its next event should have
  bool m_scan_due = false;
};

// Blocks SIGHUP, SIGTERM and SIGINT in the calling thread (before any other
// thread starts, so all inherit it) and returns a signalfd reading them.
int follow_signal_fd();

// Tells systemd (Type=notify: $NOTIFY_SOCKET) the state ("READY=1",
// "RELOADING=1", "STOPPING=1"); nothing where it is not set. run() says
// READY=1 after its first scan, RELOADING=1 and READY=1 around a reload,
// STOPPING=1 when it stops.
void systemd_notify(const char* state);

// CLOCK_MONOTONIC in nanoseconds (the events' clock).
uint64_t follow_now_ns();

}  // namespace affix
