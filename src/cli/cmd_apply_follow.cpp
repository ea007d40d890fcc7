// affix apply --follow [--metrics ADDR:PORT] FILE (affix(1), APPLY,
// "Following"): the rules file is read and checked first (an error
// refuses it, exit 2, nothing done); then affix subscribes to the kernel's
// process events (or says why it cannot, once, and scans /proc every
// second), starts the metrics server, scans every process and follows
// (src/apply/follow_loop.*, follow_engine.*) until SIGTERM or SIGINT.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "apply_engine.hpp"
#include "apply_words.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "error.hpp"
#include "follow_engine.hpp"
#include "follow_loop.hpp"
#include "metrics_http.hpp"
#include "os.hpp"
#include "proc_events.hpp"
#include "topology.hpp"

namespace affix {

double unix_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

namespace {

// One line of the follower's log on stderr (the journal, under systemd).
void log_line(const std::string& line) {
  std::string out = "affix: " + line + "\n";
  ssize_t n [[maybe_unused]] = ::write(STDERR_FILENO, out.data(), out.size());
}

}  // namespace

int command_apply_follow(const CommandLine& cl, const std::string& file) {
  std::optional<MetricsAddress> address;
  if (cl.metrics) address = parse_metrics_address(*cl.metrics);
  // The file first: an error in it refuses it before anything is done.
  std::unique_ptr<LoadedApply> current = load_apply_engine(file);
  std::unique_ptr<LoadedApply> previous;
  // Signals blocked before any thread starts (the metrics server's), so
  // they come through the signalfd alone.
  const int signals = follow_signal_fd();
  // Subscribed before the first scan (FollowLoop::run's first act).
  std::string why;
  std::unique_ptr<ProcEvents> events = ProcEvents::open(why);
  const FollowOptions options;
  Topology topo = read_topology(current->root);
  auto reload = [&]() -> ApplyEngine& {
    std::unique_ptr<LoadedApply> next = load_apply_engine(file);
    previous = std::move(current);  // kept while the follower takes its counters
    current = std::move(next);
    return *current->engine;
  };
  ApplyFollower follower(*current->engine, reload, current->root, topo, linux_os(), log_line);
  const size_t rules = current->engine->rules().rules.size();
  if (events)
    log_line(fmt::format("following {}: {} rule{}, new processes from the kernel's process events", file, rules,
                         rules == 1 ? "" : "s"));
  else
    log_line(fmt::format("following {}: {} rule{}; no process events ({}): scanning /proc every {} ms instead", file,
                         rules, rules == 1 ? "" : "s", why, options.poll_ms));
  FollowLoop loop(follower, events ? connector_source(std::move(events)) : nullptr, options);
  follower.attach(&loop);
  std::unique_ptr<MetricsServer> server;
  if (address) {
    server = std::make_unique<MetricsServer>(*address, [&follower] { return follower.metrics_text(); });
    log_line(fmt::format("metrics on {}", server->url()));
  }
  const int signo = loop.run(signals);
  log_line(fmt::format("stopped by {}: placements left as they are", signo == SIGINT ? "SIGINT" : "SIGTERM"));
  server.reset();
  ::close(signals);
  return k_exit_ok;
}

}  // namespace affix
