// affix pin [OPTIONS] WHERE PID... | affix pin --tid [OPTIONS] WHERE TID...
//
// Parse (command_line), then hand the IDs to the pin engine, which holds
// each target (pidfd) before the resolver below reads anything of it: WHERE
// is resolved for each process against its own allowed set (its cgroup
// cpuset, not affix's). The engine moves every thread; then, with
// --migrate, every target's pages are planned (nothing moves if one cannot
// be) and moved. A failure of --migrate puts the threads back too; pages
// already moved stay moved, and the message says so.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include <unistd.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "gpu_env.hpp"
#include "pin_gpu_expect.hpp"
#include "gpus.hpp"
#include "id_args.hpp"
#include "memory_text.hpp"
#include "migrate.hpp"
#include "pin.hpp"
#include "pin_check.hpp"
#include "pin_output.hpp"
#include "runtime_env.hpp"
#include "command_line.hpp"
#include "proc.hpp"
#include "near.hpp"
#include "resolver.hpp"
#include "shield_check.hpp"
#include "text.hpp"
#include "topology.hpp"
#include "weights_apply.hpp"

namespace affix {

namespace {

void check_options(const CommandLine& cl) {
  if (cl.check && cl.dry_run) {
    throw Error(ErrorKind::Usage, "--check and --dry-run cannot be used together",
                "--check verifies the placement, --dry-run shows what a pin would change; neither changes anything");
  }
  if (cl.json && !cl.check) {
    throw Error(ErrorKind::Usage, "--json goes with --check", "'affix pin --check --json WHERE PID...' prints the check as a document");
  }
  if (cl.request.mem && !cl.migrate && !cl.check) {
    throw Error(ErrorKind::Usage,
                "Linux cannot change another process's memory policy: a thread sets its own, for "
                "itself only",
                "--migrate moves the pages it has to the nodes of --mem (pinning the CPUs already "
                "makes its new local allocations land there)");
  }
  if (cl.request.gpu && !cl.check) {
    throw Error(ErrorKind::Usage,
                "--gpu goes with run, explain and pin --check: a running process's environment cannot be changed",
                "'affix pin --check --gpu closest WHERE PID' checks that a process's CPUs, memory and variables "
                "agree with its GPU");
  }
  if (cl.migrate && cl.tid) {
    throw Error(ErrorKind::Usage, "--migrate moves a process's pages, which its threads share; it does not go with --tid");
  }
  if (cl.tree && cl.tid) {
    throw Error(ErrorKind::Usage, "--tree moves whole processes and their descendants; it does not go with --tid");
  }
}

// The memory nodes --migrate moves pages to: those of --mem, else the
// default nodes of the selected CPUs.
CpuSet migrate_nodes(const Placement& p) { return p.mem_nodes.empty() ? p.nodes : p.mem_nodes; }

// --mem weighted: the order in which the pages go to the nodes, by the
// weights the kernel has (after --weights wrote them: read back, in
// `now`), or with --dry-run those --weights asks for (affix(1), MEMORY).
std::vector<unsigned> weighted_order(const Placement& p) {
  if (p.mem_policy != MemPolicy::Weighted || !p.weights) return {};
  std::map<unsigned, unsigned> weights;
  for (const NodeWeight& w : p.weights->nodes) {
    if (!w.want && !w.now)
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot spread the pages by weight: the kernel has no interleave weight for node {} "
                              "(Linux 6.9 and later have them)",
                              w.node),
                  "spread them evenly: --mem interleave");
    weights[w.node] = w.want ? *w.want : *w.now;
  }
  return weighted_sequence(weights);
}

// --weights: one plan for the machine's weights from every target's.
std::optional<WeightPlan> pin_weight_plan(const CommandLine& cl, const std::map<pid_t, Placement>& placements) {
  if (!cl.request.weights) return std::nullopt;
  std::vector<WeightPlan> plans;
  for (const auto& [id, p] : placements)
    if (p.weights) plans.push_back(*p.weights);
  if (plans.empty()) return std::nullopt;
  return merge_weight_plans(plans);
}

// pin --check --weights: the kernel's weights against the plan's.
WeightsCheck check_weights(const WeightPlan& plan) {
  WeightsCheck out;
  out.ok = plan.present && !plan.changes();
  out.text = weights_check_text(plan);
  for (const NodeWeight& w : plan.nodes) out.nodes.push_back({w.node, w.now, w.want});
  out.auto_mode = plan.auto_now;
  return out;
}

// After --weights wrote them, the placements' weights are those read back
// (migrate spreads by them).
void weights_read_back_into(std::map<pid_t, Placement>& placements, const InterleaveWeights& now) {
  for (auto& [id, p] : placements) {
    if (!p.weights) continue;
    for (NodeWeight& w : p.weights->nodes) {
      auto it = now.weights.find(w.node);
      w.now = it == now.weights.end() ? std::nullopt : std::optional<unsigned>(it->second);
      w.want.reset();
    }
  }
}

// The error of a step after the threads moved, with every thread (and the
// weights written) put back, and the message saying so.
Error put_back(LinuxOs& os, const PinReport& report, const WeightWrite& written, const Error& e) {
  std::string stays = roll_back(os, os, os, report);
  std::string what = std::string(e.what()) +
                     (stays.empty() ? "; every thread was put back on its old CPU list" : "; not every thread was put back");
  if (written.changed()) {
    std::string weights = restore_weights(os, written);
    what += weights.empty() ? "; the interleave weights were put back" : "; not every interleave weight was put back";
    if (!weights.empty()) stays = stays.empty() ? weights : stays + "; " + weights;
  }
  std::string hint = e.hint();
  if (!stays.empty()) hint = hint.empty() ? stays : hint + "; " + stays;
  return Error(e.kind(), what, hint);
}

// --migrate over every process the pin moved; on a failure every thread
// goes back too.
std::string migrate_report(LinuxOs& os, const SysRoot& root, const PinReport& report,
                           const std::map<pid_t, Placement>& placements, const CpuSet& all_nodes, bool dry_run,
                           const WeightWrite& written) {
  std::vector<MigrateTarget> targets;
  for (const auto& t : report.targets) {
    const Placement& p = placements.at(t.request.id);
    for (const auto& proc : t.processes)
      if (!proc.exited)
        targets.push_back({proc.pid, *p.mem_policy, migrate_nodes(p),
                           [&os, &proc] { return identity_of(os, proc) == Identity::Same; }, weighted_order(p)});
  }
  // On a terminal, a move longer than a second shows its progress on
  // stderr (migrate_progress.hpp); never in a pipe or a file.
  std::optional<MigrateProgress> progress;
  if (!dry_run && ::isatty(STDERR_FILENO))
    progress.emplace([&os] { return os.now_ms(); },
                     [](const std::string& text) {
                       std::fputs(text.c_str(), stderr);
                       std::fflush(stderr);
                     });
  try {
    MigrateOutput out = migrate_all(os, root, targets, all_nodes, dry_run, progress ? &*progress : nullptr);
    for (const auto& w : out.warnings) print_warning(w);
    return out.text;
  } catch (const Error& e) {
    if (dry_run) throw;
    throw put_back(os, report, written, e);
  }
}

// With a scheduling option, a WHERE that is a bare number and does not
// resolve (`pin --policy batch 100 200`, meant as two PIDs, as chrt and
// renice users write them): the hint says how the words were read.
Error said_as_where(const CommandLine& cl, const Error& e) {
  const std::string& where = cl.request.where;
  bool number = !where.empty() && where.find_first_not_of("0123456789") == std::string::npos;
  if (!cl.sched.any() || !number || (e.kind() != ErrorKind::Resolution && e.kind() != ErrorKind::Spec)) return e;
  std::string ids;
  for (const auto& w : cl.rest) ids += (ids.empty() ? "'" : ", '") + printable(w) + "'";
  std::string read = fmt::format("'{}' was read as WHERE (CPU {}) and {} as the {}", where, where, ids,
                                 cl.tid ? "thread IDs" : "process IDs");
  read += "; without WHERE a scheduling option takes one ID (an 'affix pin' for each process)";
  return Error(e.kind(), e.what(), e.hint().empty() ? read : e.hint() + "; " + read);
}

}  // namespace

int command_pin(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Pin, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Pin).c_str(), stdout);
    return k_exit_ok;
  }
  if (cl.irq) return command_pin_irq(cl);  // interrupts (cmd_irq.cpp)
  check_options(cl);
  std::vector<pid_t> ids = parse_pid_arguments(cl.rest, cl.tid ? "thread ID" : "PID");
  SysRoot root;
  PlacementRequest request = cl.request;
  if (cl.migrate && !request.mem) request.mem = MemRequest{MemPolicy::Bind, std::nullopt};
  Topology topo = read_topology(root);
  // The devices near: names (a spec that does not parse is the resolver's
  // error, told for the first process as before).
  std::optional<RequestLocations> locations;
  if (!cl.keep_cpus) {
    try {
      locations = parse_locations(request);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Spec) throw;
    }
  }
  if (locations) read_location_devices(root, *locations, topo);
  read_request_gpus(root, request, topo);
  auto env = process_env();
  LinuxOs& os = linux_os();

  std::vector<PinRequest> requests;
  for (pid_t id : ids)
    requests.push_back({id, cl.tid ? PinScope::Thread : cl.tree ? PinScope::Tree : PinScope::Process});
  // Called by the engine for each target once it holds it: what is read
  // here is of the process that is then moved.
  std::map<pid_t, Placement> placements;
  auto resolver = [&](const PinRequest& r) {
    if (cl.keep_cpus) {  // no WHERE: the scheduling alone
      placements[r.id] = Placement{};
      PinPlace keep;
      keep.keep_cpus = true;
      return keep;
    }
    Allowed allowed = read_allowed(root, topo, os, std::to_string(r.id));
    Placement p;
    try {
      p = resolve(request, topo, allowed, env);
    } catch (const Error& e) {
      throw said_as_where(cl, e);
    }
    if (cl.migrate) {
      check_own_nodes(os, migrate_nodes(p));
      weighted_order(p);  // the weights are known before anything moves
    }
    PinPlace place{p.cpus, cl.spread ? p.sequence : std::vector<unsigned>{}, std::max(1u, cl.spread)};
    placements[r.id] = std::move(p);
    return place;
  };
  PinOptions options;
  options.dry_run = cl.dry_run || cl.check;
  options.check = cl.check;
  options.sched = cl.sched;
  // What the kernel lacks is refused before anything is held (a check
  // only reads, and says what each thread has).
  if (cl.sched.any() && !cl.check) check_sched_support(cl.sched, os.sched_support());
  options.cpuset_of = [&](pid_t pid, pid_t tid) { return read_thread_cpuset(root, topo, pid, tid); };
  // --tree: forks begun before a process moved and ended after are waited
  // for (the kernel's fork events, else /proc; affix(1), GUARANTEES).
  std::unique_ptr<ForkWatchOs> forks;
  if (cl.tree && !options.dry_run) {
    forks = linux_fork_watch();
    options.forks = forks.get();
  }
  PinReport report = pin_threads(os, root, requests, resolver, options);
  if (cl.verbose && !report.no_fork_events.empty())
    std::fprintf(stderr, "affix: no fork events (%s): forks under way were waited for through /proc alone\n",
                 report.no_fork_events.c_str());
  if (cl.verbose && report.clone_unproven > 0)
    std::fprintf(stderr, "affix: %zu moved thread%s ran all along and forked nothing: taken as not inside a fork after %u ms\n",
                 report.clone_unproven, report.clone_unproven == 1 ? "" : "s", options.clone_wait_ms);
  if (cl.check) {
    // --mem alone checks the policy; --migrate (its nodes: --mem's, else the
    // CPUs') the pages, what pin --migrate moved (mem_expect). --gpu: the
    // policy run --gpu sets, and the GPU's variables.
    auto mem_of = [&](const TargetReport& t) -> std::optional<MemExpect> {
      if (!cl.request.mem && !cl.migrate && !cl.request.gpu) return std::nullopt;
      const Placement& p = placements.at(t.request.id);
      return mem_expect(*p.mem_policy, migrate_nodes(p), cl.request.mem.has_value(), cl.request.gpu.has_value(),
                        cl.migrate);
    };
    auto env_of = [&](const TargetReport& t) -> std::optional<EnvExpect> {
      const Placement& p = placements.at(t.request.id);
      if (!p.gpu) return std::nullopt;
      return gpu_env_expect(*p.gpu, topo.gpus);
    };
    CheckReport check = check_pin(root, report, mem_of, env_of);
    CpuSet selected;
    for (const auto& [id, p] : placements) selected |= p.cpus;
    if (auto plan = pin_weight_plan(cl, placements)) {
      check.weights = check_weights(*plan);
      check.ok = check.ok && check.weights->ok;
    }
    check.shields = check_shields(root, selected);
    for (const auto& sh : check.shields) check.ok = check.ok && sh.problems.empty();
    std::string out = cl.json ? check_json(check) : format_check(root, check, cl.verbose);
    std::fputs(out.c_str(), stdout);
    return check.ok ? k_exit_ok : k_exit_failed;
  }

  std::string out;
  for (const auto& t : report.targets)
    out += format_target(root, t, cl.verbose || cl.dry_run, cl.dry_run, cl.sched);
  if (!cl.dry_run && !cl.keep_cpus)
    for (const auto& w : runtime_env_warnings(root, report)) print_warning(w);
  // --weights: written once the threads are where they go (all or nothing,
  // read back), before the pages move by them.
  WeightWrite written;
  if (auto plan = pin_weight_plan(cl, placements)) {
    if (!plan->changes()) {
      if (cl.verbose || cl.dry_run) out += fmt::format("interleave weights {}\n", weights_plan_text(*plan));
    } else if (cl.dry_run) {
      out += fmt::format("would set interleave weights {}\n", weights_plan_text(*plan));
    } else {
      print_warning(weights_warning(*plan));
      try {
        AppliedWeights applied = apply_weights(os, *plan);
        written = applied.written;
        out += fmt::format("set interleave weights {}\n", weights_read_back(*plan, applied.now));
        weights_read_back_into(placements, applied.now);
      } catch (const Error& e) {
        throw put_back(os, report, written, e);
      }
    }
  }
  if (cl.migrate) out += migrate_report(os, root, report, placements, topo.node_set(), cl.dry_run, written);
  std::fputs(out.c_str(), stdout);
  return k_exit_ok;
}

}  // namespace affix
