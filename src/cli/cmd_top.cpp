// affix top [--once [--json] [--no-events]] [-i SECONDS] [-n N] [WHERE] [--pid PID... | --tree PID | --name REGEX]
//
// Parse, read the topology, resolve WHERE to CPUs (of every online CPU, not
// affix's own list: top looks at the whole machine), collect affix's
// shields' CPUs, then: --once: one interval (from the scheduler's events
// where the kernel gives them, TopSampler::use_events), printed as text or JSON;
// else the live screen on a terminal (top_screen.hpp), the text frames
// every interval otherwise (top_batch.hpp). Changes nothing.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "command_line.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "files_os.hpp"
#include "id_args.hpp"
#include "os.hpp"
#include "proc.hpp"
#include "resolver.hpp"
#include "shield_machine.hpp"
#include "text.hpp"
#include "top_batch.hpp"
#include "top_output.hpp"
#include "top_sampler.hpp"
#include "top_screen.hpp"
#include "topology.hpp"

namespace affix {

namespace {

struct TopOptions {
  bool once = false;
  bool json = false;
  bool no_events = false;
  double interval = 1.0;
  unsigned frames = 0;
  std::optional<std::string> where;
  std::vector<pid_t> pids;
  std::optional<pid_t> tree;
  std::optional<std::string> name;
  std::string root = "/";
};

const char* k_usage =
    "usage: affix top [--once [--json]] [-i SECONDS] [-n N] [WHERE] [--pid PID... | --tree PID | --name REGEX]; "
    "see 'affix top --help'";

std::optional<TopOptions> parse_top(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Top, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Top).c_str(), stdout);
    return std::nullopt;
  }
  TopOptions o;
  o.once = cl.once;
  o.json = cl.json;
  o.no_events = cl.no_events;
  if (cl.root) o.root = *cl.root;
  if (cl.json && !cl.once) throw Error(ErrorKind::Usage, "--json goes with --once", k_usage);
  if (cl.no_events && !cl.once) throw Error(ErrorKind::Usage, "--no-events goes with --once", k_usage);
  if (cl.interval) {
    auto v = parse_seconds(*cl.interval);
    if (!v)
      throw Error(ErrorKind::Usage,
                  fmt::format("invalid interval '{}': expected seconds from 0.1 to 3600", printable(*cl.interval)));
    o.interval = *v;
  }
  if (cl.frames) {
    if (cl.once) throw Error(ErrorKind::Usage, "-n and --once cannot be used together", k_usage);
    auto v = parse_decimal(*cl.frames, 1000000000);
    if (!v || *v == 0)
      throw Error(ErrorKind::Usage, fmt::format("invalid frame count '{}': expected a number of frames from 1 to "
                                                "1000000000",
                                                printable(*cl.frames)));
    o.frames = static_cast<unsigned>(*v);
  }
  int filters = (cl.top_pids ? 1 : 0) + (cl.top_tree ? 1 : 0) + (cl.name ? 1 : 0);
  if (filters > 1) throw Error(ErrorKind::Usage, "--pid, --tree and --name cannot be used together", k_usage);
  if (cl.top_pids) {
    std::vector<std::string> words;
    for (auto w : split(*cl.top_pids, ',')) words.emplace_back(w);
    o.pids = parse_pid_arguments(words);
  }
  if (cl.top_tree) {
    auto v = parse_pid(*cl.top_tree);
    if (!v)
      throw Error(ErrorKind::Usage, fmt::format("invalid PID '{}': expected a number from 1 to {}",
                                                printable(*cl.top_tree), k_max_pid));
    o.tree = *v;
  }
  o.name = cl.name;
  if (cl.rest.size() > 1)
    throw Error(ErrorKind::Usage, fmt::format("unexpected argument '{}' after the location '{}'",
                                              printable(cl.rest[1]), printable(cl.rest[0])),
                k_usage);
  if (!cl.rest.empty()) o.where = cl.rest[0];
  return o;
}

// The CPUs of affix's shields, as their records say (affix(1), SHIELD).
CpuSet shield_cpus(const SysRoot& root) {
  LinuxFilesOs files(root);
  std::vector<std::string> bad;
  CpuSet cpus;
  for (const ShieldRecord& r : read_records(files, bad)) cpus |= r.cpus;
  return cpus;
}

}  // namespace

int command_top(const Args& args) {
  auto parsed = parse_top(args);
  if (!parsed) return k_exit_ok;
  const TopOptions& o = *parsed;
  SysRoot root(o.root);
  if (!o.pids.empty()) refuse_thread_ids(root, o.pids);
  Topology topo = read_topology(root);
  TopFilter filter;
  if (o.where) {
    PlacementRequest request;
    request.where = *o.where;
    // WHERE is of the whole machine, not of affix's own CPU list.
    Allowed everything{topo.online, topo.node_set(), std::nullopt, "all-online", "all-nodes"};
    filter.cpus = resolve(request, topo, everything, process_env()).cpus;
  }
  filter.pids = o.pids;
  filter.tree = o.tree;
  filter.name = o.name;
  if (o.tree && !root.exists(proc_dir(*o.tree)))
    throw Error(ErrorKind::Runtime, fmt::format("no such process: {}", *o.tree));
  raise_open_files();
  TopSampler sampler(root, topo, linux_os(), filter, shield_cpus(root));
  TopScreenOptions screen;
  screen.interval = o.interval;
  screen.frames = o.frames;
  screen.color = std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO);
  if (!o.once) {
    if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) return run_top_screen(sampler, screen);
    return run_top_batch(sampler, screen);
  }
  sampler.use_events(!o.no_events);
  sampler.next();
  if (!o.pids.empty()) {
    const auto& missing = sampler.missing();
    if (missing.size() == o.pids.size()) {
      std::string list;
      for (pid_t pid : missing) list += (list.empty() ? "" : ", ") + std::to_string(pid);
      throw Error(ErrorKind::Runtime, fmt::format("no such process: {}", list));
    }
    for (pid_t pid : missing) print_warning(fmt::format("no such process: {}; showing the others", pid));
  }
  sampler.wait(o.interval);
  TopFrame frame = sampler.next();
  if (!sampler.events_lost().empty()) {  // not whole: the interval again, every thread read
    std::string why = sampler.events_lost();
    sampler.restart();
    sampler.next();
    sampler.wait(o.interval);
    frame = sampler.next();
    frame.warnings.push_back(why + ": the interval was taken again, every thread read");
  }
  std::string text = o.json ? top_json(frame) : top_text(frame);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw Error(ErrorKind::Runtime, "cannot write to standard output");
  return k_exit_ok;
}

}  // namespace affix
