// `affix watch --json`: JSON Lines as affix(1), WATCH, "Output" shows them.
#include <cmath>

#include "json.hpp"
#include "watch_output.hpp"

namespace affix {

namespace {

constexpr Crossing k_levels[] = {Crossing::Smt, Crossing::Core, Crossing::Llc, Crossing::Node,
                                 Crossing::Socket};

uint64_t ms(uint64_t ns) { return (ns + 500000) / 1000000; }

void activity(JsonWriter& j, const Activity& a) {
  j.key("migrations");
  j.begin_object();
  j.field("total", a.migrations.total());
  for (Crossing c : k_levels) j.field(crossing_name(c), a.migrations[c]);
  j.end_object();
  j.key("switches");
  j.begin_object();
  j.field("voluntary", a.voluntary);
  j.field("involuntary", a.involuntary);
  j.end_object();
  j.field("cpu_ms", ms(a.cpu_ns));
  // null where none of it could be read; wait_partial where some could
  // not: a lower bound.
  auto wait = a.wait();
  j.field("wait_ms", wait ? std::optional<uint64_t>(ms(*wait)) : std::nullopt);
  j.field("wait_partial", a.wait_partial());
}

void thread(JsonWriter& j, const ThreadReport& t) {
  j.begin_object();
  j.field("tid", t.tid);
  j.field("comm", t.comm);
  j.key("cpu");
  if (t.cpu >= 0) j.value(t.cpu);
  else j.null();
  activity(j, t.activity);
  j.field("exact", t.exact);
  j.field("exited", t.exited);
  j.end_object();
}

// "weighted": {"nodes": "0,2", "pages": {"0": 3072, "2": 1024}, "weights":
// {"0": 3, "2": 1}} (a weight 0: the kernel has none), or null.
void weighted(JsonWriter& j, const std::optional<WeightedShare>& w) {
  j.key("weighted");
  if (!w) {
    j.null();
    return;
  }
  j.begin_object();
  j.field("nodes", format_cpulist(w->nodes));
  node_counts_field(j, "pages", std::optional<NodePages>(w->pages));
  j.key("weights");
  j.begin_object();
  for (const auto& [node, weight] : w->weights) j.field(std::to_string(node), weight);
  j.end_object();
  j.end_object();
}

void process(JsonWriter& j, const ProcessReport& p, bool summary) {
  j.begin_object();
  j.field("pid", p.pid);
  j.field("comm", p.comm);
  j.field("threads", p.threads);
  j.field("threads_unread", p.threads_unread);
  j.field("cpus_ran", format_cpulist(p.cpus_ran));
  activity(j, p.activity);
  j.field("came_and_went_cpu_ms", ms(p.came_and_went_ns));
  node_counts_field(j, "memory_pages", p.pages);
  node_counts_field(j, "anon_pages", p.anon_pages);
  node_counts_field(j, "file_pages", p.file_pages);
  j.field("remote_pages", p.remote_pages);
  if (p.remote_pages) j.field("ran_on_nodes", format_cpulist(p.ran_nodes));
  else j.field("ran_on_nodes", std::optional<std::string>());
  j.field("remote_share", p.remote_share());
  weighted(j, p.weighted);
  j.field("exact", p.exact);
  j.field("exited", p.exited);
  if (summary) j.field("seconds", p.seconds);
  if (!p.thread_list.empty()) {
    j.key("thread_list");
    j.begin_array();
    for (const auto& t : p.thread_list) thread(j, t);
    j.end_array();
  }
  j.end_object();
}

}  // namespace

std::string watch_json_line(const IntervalReport& report) {
  JsonWriter j;
  j.begin_object();
  j.field("time", report.time);
  j.field("interval", report.interval);
  j.field("exact", report.exact);
  j.key("processes");
  j.begin_array();
  for (const auto& p : report.processes) process(j, p, false);
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

std::string watch_json_summary(const WatchSummary& summary) {
  JsonWriter j;
  j.begin_object();
  j.key("summary");
  j.begin_object();
  j.field("duration", summary.duration);
  j.field("exact", summary.exact);
  j.key("processes");
  j.begin_array();
  for (const auto& p : summary.processes) process(j, p, true);
  j.end_array();
  if (summary.unlisted) j.field("unlisted_exited", summary.unlisted);
  if (summary.command) {
    j.key("command");
    j.begin_object();
    j.field("pid", static_cast<long>(summary.command->pid));
    j.field("status", static_cast<long>(summary.command->status));
    j.end_object();
  }
  j.end_object();
  j.end_object();
  return j.str() + "\n";
}

}  // namespace affix
