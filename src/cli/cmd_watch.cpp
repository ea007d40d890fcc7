// affix watch [-i SECONDS] [-c N] [--threads] [--json] [--tree] [PID... | -- COMMAND [ARG...]]
//
// Parse, read the topology, open the migration events (or say why the
// counts are sampled), then sample every interval until -c N intervals,
// SIGINT or SIGTERM, and print the summary. Changes nothing.
//
// With a command: start it held (ChildOs, as shield does), watch it from
// before its exec, let it exec, follow it and its descendants until it
// ends, print the summary (on stderr: its stdout is the command's) and
// exit with its status.
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "command_line.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "id_args.hpp"
#include "launch_output.hpp"
#include "os.hpp"
#include "perf_events.hpp"
#include "proc.hpp"
#include "text.hpp"
#include "topology.hpp"
#include "watch_output.hpp"
#include "watch_timeline.hpp"
#include "watch_tracker.hpp"
#include "picture_output.hpp"

namespace affix {

namespace {

struct WatchOptions {
  double interval = 1.0;
  unsigned long count = 0;  // 0: until interrupted
  bool threads = false;
  bool json = false;
  bool tree = false;
  bool periodic = false;  // -i or -c given
  std::vector<pid_t> pids;
  std::vector<std::string> command;
  std::optional<std::string> svg;  // --svg FILE: the timeline, written at the end
};

// Parsing only: no side effects. nullopt where --help was printed.
std::optional<WatchOptions> parse_watch(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Watch, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Watch).c_str(), stdout);
    return std::nullopt;
  }
  WatchOptions o;
  o.threads = cl.threads;
  o.json = cl.json;
  std::string interval = cl.interval.value_or(""), count = cl.intervals.value_or("");
  if (!interval.empty()) {
    auto v = parse_seconds(interval);
    if (!v) throw Error(ErrorKind::Usage, fmt::format("invalid interval '{}': expected seconds from 0.1 to 3600", interval));
    o.interval = *v;
  }
  if (!count.empty()) {
    auto v = parse_decimal(count, 1000000000);
    if (!v || *v == 0)
      throw Error(ErrorKind::Usage, fmt::format("invalid count '{}': expected a number of intervals from 1 to 1000000000", count));
    o.count = static_cast<unsigned long>(*v);
  }
  o.tree = cl.tree;
  o.periodic = cl.interval.has_value() || cl.intervals.has_value();
  o.command = cl.command;
  if (cl.command_given && o.command.empty())
    throw Error(ErrorKind::Usage, "no command given after '--'", "'affix watch -- make -j8' starts make and watches it");
  if (!o.command.empty() && !cl.rest.empty())
    throw Error(ErrorKind::Usage, "PIDs and a command cannot be watched together",
                "give either PIDs to watch, or '-- COMMAND' to start one and watch it");
  o.pids = parse_pid_arguments(cl.rest);
  o.svg = cl.svg;
  if (o.svg && *o.svg == "-")
    throw Error(ErrorKind::Usage, "watch --svg needs a FILE: the watch's own text goes to standard output",
                "'affix watch --svg timeline.svg -- make -j8' writes the timeline when make ends");
  if (o.tree && o.pids.empty() && o.command.empty())
    throw Error(ErrorKind::Usage, "--tree needs the PIDs whose descendants to watch",
                "'affix watch --tree 1234' watches 1234 and every process below it");
  return o;
}

volatile sig_atomic_t g_stop = 0;
void on_stop(int) { g_stop = 1; }

// SIGINT and SIGTERM end the watch: blocked except while it sleeps, so that
// one arriving at any other moment is taken at the next sleep.
void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, nullptr);
}

// Sleeps until `deadline_ns` with the stop signals let in; false where one came.
bool sleep_until(MigrationEvents* events, uint64_t deadline_ns) {
  if (events) return events->wait_until(deadline_ns);
  for (;;) {
    uint64_t now = monotonic_ns();
    if (now >= deadline_ns) return true;
    uint64_t left = deadline_ns - now;
    timespec ts{static_cast<time_t>(left / 1000000000), static_cast<long>(left % 1000000000)};
    sigset_t none;
    sigemptyset(&none);
    if (ppoll(nullptr, 0, &ts, &none) < 0 && errno == EINTR) return false;
  }
}

std::string machine_text(const Topology& topo) {
  return fmt::format("{}, {}, {}", plural(topo.sockets.size(), "socket", "sockets"),
                     plural(topo.numa.size(), "node", "nodes"), plural(topo.online.count(), "CPU", "CPUs"));
}

// Data pages of each thread's ring: 32 MiB of rings in all where the named
// processes have few threads, at least one page each (one for the machine).
unsigned ring_pages(const SysRoot& root, const std::vector<pid_t>& pids) {
  if (pids.empty()) return 1;
  long threads = 0;
  for (pid_t pid : pids) {
    try {
      if (auto st = read_stat(root, proc_dir(pid))) threads += st->num_threads;
    } catch (const Error&) {
    }
  }
  unsigned pages = 16;
  while (pages > 1 && static_cast<long>(pages) * std::max(threads, 1L) > 8192) pages /= 2;
  return pages;
}

size_t screen_rows() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row < 8) return 0;
  return ws.ws_row - 8u;  // the header (up to 6 lines), the column titles, a "more" line
}

// Every write is checked: a closed pipe or a full disk ends the watch at
// once, exit 1 (affix(1), WATCH). SIGPIPE is ignored (ignore_sigpipe) so
// that a closed pipe is such a failed write (EPIPE), whether SIGPIPE came
// ignored (systemd's IgnoreSIGPIPE=yes) or at its default, which would end
// affix without a word.
void ignore_sigpipe() {
  struct sigaction sa {};
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPIPE, &sa, nullptr);
}

void emit(const std::string& text, std::FILE* out = stdout) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), out) == text.size() && std::fflush(out) == 0) return;
  int err = errno ? errno : EIO;
  std::clearerr(out);
  throw Error(ErrorKind::Runtime, fmt::format("cannot write to standard {}: {}", out == stdout ? "output" : "error",
                                              std::strerror(err)));
}

// How often the descendants of a tree or command are looked for: each is
// counted from its creation where it is found alive.
constexpr uint64_t k_tree_poll_ns = 100000000;

// The command's part: its summary goes to stderr, and affix exits with its
// status. The command is started held (before its exec), its one thread
// watched, then let exec.
int watch_command(const WatchOptions& o, const SysRoot& root, const Topology& topo, const LevelMap& levels,
                  MigrationEvents* events, const WatchHeader& header, TimelineRecorder* timeline) {
  LinuxOs& os = linux_os();
  os.hold_signals();  // given back to the command at its exec
  pid_t pid = os.start_held(o.command);
  if (pid < 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot start the command: fork: {}", std::strerror(-pid)),
                "the machine is out of processes or memory");
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);  // let in while affix sleeps (the child has its own mask)
  WatchTracker tracker(root, topo, os, events, {pid}, o.threads || timeline, true);
  tracker.start();
  if (int err = os.release(pid); err != 0) {
    ExecFailure f = exec_failure(o.command.front(), err);
    print_error(Error(ErrorKind::Runtime, f.message, f.hint));
    return f.status;
  }
  ignore_sigpipe();  // after the exec: the command keeps its own SIGPIPE
  os.pass_signals(pid);
  const uint64_t start = monotonic_ns();
  const uint64_t step = static_cast<uint64_t>(o.interval * 1e9 + 0.5);
  double last = 0, now = 0;
  unsigned long k = 0;
  for (;;) {
    bool reports = o.periodic && (o.count == 0 || k < o.count);
    bool samples = reports || timeline;  // --svg: every interval kept, printed or not
    uint64_t next_report = start + (k + 1) * step;
    uint64_t wake = monotonic_ns() + k_tree_poll_ns;
    if (samples) wake = std::min(wake, next_report);
    sleep_until(events, wake);  // a signal for the command is passed on; SIGCHLD wakes it
    if (os.try_wait(pid)) break;
    tracker.find_descendants();
    if (!o.periodic && !events) {
      // Sampled, no interval printed: a sample at each look, unprinted, so
      // that what a process used is counted up to a tenth of a second
      // before its end (the summary adds them up).
      now = static_cast<double>(monotonic_ns() - start) / 1e9;
      IntervalReport report = tracker.sample(now, now - last);
      last = now;
      if (timeline) timeline->add(report);
    } else if (samples && monotonic_ns() >= next_report) {
      now = static_cast<double>(monotonic_ns() - start) / 1e9;
      IntervalReport report = tracker.sample(now, now - last);
      last = now;
      if (timeline) timeline->add(report);
      if (reports) emit(o.json ? watch_json_line(report) : watch_text(header, report, levels) + "\n", stderr);
      ++k;
    }
  }
  // The command has ended, not yet reaped: its /proc files (its total CPU
  // time) are still there for the last sample.
  tracker.find_descendants();
  now = static_cast<double>(monotonic_ns() - start) / 1e9;
  IntervalReport final_report = tracker.sample(now, now - last);
  if (timeline) timeline->add(final_report);
  os.stop_passing_signals();  // before the wait, which passes them on itself and puts back what it found
  int status = os.wait_passing_signals(pid);
  WatchSummary summary = tracker.summary(now);
  summary.command = WatchSummary::Command{pid, status};
  emit(o.json ? watch_json_summary(summary) : watch_text_summary(header, summary, levels), stderr);
  if (timeline) write_picture(*o.svg, timeline_svg(timeline->finish(topo), "affix watch -- " + o.command.front()));
  return status;
}

}  // namespace

int command_watch(const Args& args) {
  auto parsed = parse_watch(args);
  if (!parsed) return k_exit_ok;
  const WatchOptions& o = *parsed;
  SysRoot root("/");
  refuse_thread_ids(root, o.pids);
  const bool command = !o.command.empty();
  Topology topo = read_topology(root);
  LevelMap levels(topo);
  std::optional<TimelineRecorder> timeline;
  if (o.svg) {
    check_picture_file(*o.svg);  // before the watch, not after it
    timeline.emplace();
  }
  raise_open_files();
  std::string why_not;
  std::unique_ptr<MigrationEvents> events =
      open_migration_events(linux_os(), command ? 16 : ring_pages(root, o.pids), why_not);
  WatchHeader header;
  header.machine = machine_text(topo);
  header.interval = o.interval;
  header.threads = o.threads;
  header.mode = events ? "exact: the kernel's cpu-migrations event of every thread"
                       : fmt::format("sampled: moves from se.nr_migrations, levels estimated from the CPUs seen; "
                                     "{}; for exact counts run as root, with CAP_PERFMON, or with "
                                     "kernel.perf_event_paranoid <= 1",
                                     why_not);
  if (command) return watch_command(o, root, topo, levels, events.get(), header, timeline ? &*timeline : nullptr);
  catch_stop_signals();
  ignore_sigpipe();  // watch starts no program: nothing inherits it
  const uint64_t poll = o.tree ? k_tree_poll_ns : 0;
  WatchTracker tracker(root, topo, linux_os(), events.get(), o.pids, o.threads || o.svg, o.tree);
  auto missing = tracker.start();
  const auto& zombies = tracker.zombies();
  auto zombie_text = [](const WatchTracker::Zombie& z) {
    return fmt::format("process {} has exited (a zombie, <defunct>): its parent, {}, has not reaped it", z.pid,
                       z.parent);
  };
  if (!o.pids.empty() && missing.size() + zombies.size() == o.pids.size()) {
    std::string list, text;
    for (pid_t pid : missing) list += (list.empty() ? "" : ", ") + std::to_string(pid);
    if (!list.empty()) text = fmt::format("no such process: {}", list);
    for (const auto& z : zombies) text += (text.empty() ? "" : "; ") + zombie_text(z);
    if (!zombies.empty()) text += "; nothing to watch";
    throw Error(ErrorKind::Runtime, text);
  }
  for (pid_t pid : missing) print_warning(fmt::format("no such process: {}; watching the others", pid));
  for (const auto& z : zombies) print_warning(zombie_text(z) + "; watching the others");
  const bool screen = !o.json && isatty(STDOUT_FILENO);
  const uint64_t start = monotonic_ns();
  const uint64_t step = static_cast<uint64_t>(o.interval * 1e9 + 0.5);  // interval > 0 (no libm)
  double last = 0, now = 0;
  for (unsigned long k = 0; !g_stop && (o.count == 0 || k < o.count); ++k) {
    const uint64_t next = start + (k + 1) * step;
    // With --tree: its new descendants are looked for meanwhile.
    while (poll && !g_stop && monotonic_ns() + poll < next) {
      if (!sleep_until(events.get(), monotonic_ns() + poll)) break;
      tracker.find_descendants();
    }
    if (!g_stop) sleep_until(events.get(), next);
    tracker.find_descendants();
    now = static_cast<double>(monotonic_ns() - start) / 1e9;
    IntervalReport report = tracker.sample(now, now - last);
    last = now;
    if (timeline) {
      timeline->add(report);
      if (!o.threads && o.pids.empty())  // followed for the timeline alone: printed as without --svg
        for (auto& p : report.processes) p.thread_list.clear();
    }
    if (o.json) emit(watch_json_line(report));
    else if (screen) emit("\x1b[H\x1b[2J" + watch_text(header, report, levels, screen_rows()));
    else emit(watch_text(header, report, levels) + "\n");
  }
  WatchSummary summary = tracker.summary(now);
  if (timeline && !o.threads && o.pids.empty())
    for (auto& p : summary.processes) p.thread_list.clear();
  if (o.json) emit(watch_json_summary(summary));
  else emit((screen ? "\n" : "") + watch_text_summary(header, summary, levels));
  if (timeline) write_picture(*o.svg, timeline_svg(timeline->finish(topo), "affix watch"));
  return k_exit_ok;
}

}  // namespace affix
