// The scheduling options (sched_args.hpp). The kernel's own limits are
// checked here, before anything is read: priorities 1-99 and deadline
// parameters as __sched_setscheduler and __checkparam_dl check them
// (kernel/sched/syscalls.c, kernel/sched/deadline.c), the slice's bounds
// as __setscheduler_params clamps them, the clamps' as uclamp_validate.
#include "sched_args.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "cpuset.hpp"  // parse_decimal
#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

constexpr uint64_t k_us = 1000, k_ms = 1000 * k_us, k_s = 1000 * k_ms;
constexpr uint64_t k_max_duration = 3600 * k_s;
constexpr uint64_t k_min_runtime = 1024;  // 1 << DL_SCALE ns

PolicyRequest parse_deadline(const std::string& text, std::string_view params) {
  auto parts = split(params, '/');
  if (parts.size() < 2 || parts.size() > 3)
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --policy '{}': expected deadline:RUNTIME/DEADLINE/PERIOD", printable(text)),
                "deadline:2ms/10ms/10ms: 2 ms of CPU time in every 10 ms, done within 10 ms of each period's start "
                "(PERIOD may be left out: it is then DEADLINE)");
  uint64_t ns[3] = {0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i) {
    auto v = parse_duration(parts[i]);
    if (!v || *v == 0)
      throw Error(ErrorKind::Usage,
                  fmt::format("invalid --policy '{}': bad time '{}': expected a number and its unit (ns, us, ms or s)",
                              printable(text), printable(parts[i])),
                  "deadline:10ms/20ms/20ms, deadline:500us/1ms/1ms: each time takes its unit (chrt takes "
                  "nanoseconds, affix says which)");
    ns[i] = *v;
  }
  PolicyRequest p;
  p.policy = SchedPolicy::Deadline;
  p.runtime_ns = ns[0];
  p.deadline_ns = ns[1];
  p.period_ns = parts.size() == 3 ? ns[2] : ns[1];
  if (p.runtime_ns < k_min_runtime)
    throw Error(ErrorKind::Usage, fmt::format("invalid --policy '{}': the runtime must be at least 1.024us", printable(text)),
                "the kernel keeps deadline times in units of 1024 ns (DL_SCALE)");
  if (p.runtime_ns > p.deadline_ns || p.deadline_ns > p.period_ns)
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --policy '{}': runtime {} must be at most deadline {}, and deadline at most "
                            "period {}", printable(text), duration_text(p.runtime_ns), duration_text(p.deadline_ns),
                            duration_text(p.period_ns)),
                "RUNTIME is the CPU time the thread gets in each PERIOD, by DEADLINE after the period starts");
  return p;
}

}  // namespace

std::optional<uint64_t> parse_duration(std::string_view text, uint64_t bare_unit_ns) {
  size_t digits_end = text.find_first_not_of("0123456789.");
  std::string_view number = text.substr(0, digits_end);
  std::string_view unit = digits_end == std::string_view::npos ? std::string_view() : text.substr(digits_end);
  uint64_t scale = 0;
  if (unit.empty()) scale = bare_unit_ns;
  else if (unit == "ns") scale = 1;
  else if (unit == "us") scale = k_us;
  else if (unit == "ms") scale = k_ms;
  else if (unit == "s") scale = k_s;
  if (scale == 0 || number.empty()) return std::nullopt;
  auto dot = number.find('.');
  std::string_view whole = number.substr(0, dot);
  std::string_view part = dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if (whole.empty() || (dot != std::string_view::npos && part.empty()) || part.find('.') != std::string_view::npos)
    return std::nullopt;
  auto w = parse_decimal(whole, k_max_duration);
  if (!w || *w > k_max_duration / scale) return std::nullopt;
  uint64_t ns = *w * scale;
  // Each decimal is a tenth of the one before: exact or not at all.
  uint64_t step = scale;
  for (char c : part) {
    if (step % 10 != 0) return std::nullopt;  // finer than a nanosecond
    step /= 10;
    ns += static_cast<uint64_t>(c - '0') * step;
  }
  if (ns > k_max_duration) return std::nullopt;
  return ns;
}

PolicyRequest parse_policy_option(const std::string& text) {
  auto colon = text.find(':');
  std::string name = text.substr(0, colon);
  std::string_view params = colon == std::string::npos ? std::string_view() : std::string_view(text).substr(colon + 1);
  PolicyRequest p;
  if (name == "other") p.policy = SchedPolicy::Other;
  else if (name == "batch") p.policy = SchedPolicy::Batch;
  else if (name == "idle") p.policy = SchedPolicy::Idle;
  else if (name == "fifo") p.policy = SchedPolicy::Fifo;
  else if (name == "rr") p.policy = SchedPolicy::RR;
  else if (name == "deadline") p.policy = SchedPolicy::Deadline;
  else
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --policy '{}': expected other, batch, idle, fifo:P, rr:P or "
                            "deadline:RUNTIME/DEADLINE/PERIOD", printable(text)),
                "--policy fifo:50 (priority 1 to 99), --policy deadline:2ms/10ms/10ms; other, batch and idle take "
                "--nice");
  if (p.policy == SchedPolicy::Deadline) return parse_deadline(text, colon == std::string::npos ? "" : params);
  if (is_realtime(p.policy)) {
    auto prio = colon == std::string::npos ? std::nullopt : parse_decimal(params, 99);
    if (!prio || *prio == 0)
      throw Error(ErrorKind::Usage,
                  fmt::format("invalid --policy '{}': {} takes a priority from 1 to 99 ({}:50)", printable(text), name, name),
                  "the higher the priority, the sooner the thread runs; the kernel's own threads run at 50");
    p.priority = static_cast<unsigned>(*prio);
    return p;
  }
  if (colon != std::string::npos)
    throw Error(ErrorKind::Usage, fmt::format("invalid --policy '{}': {} takes no parameter", printable(text), name),
                "--nice N sets the nice value of other and batch threads");
  return p;
}

int parse_nice_option(const std::string& text) {
  bool negative = !text.empty() && text[0] == '-';
  auto v = parse_decimal(std::string_view(text).substr(negative ? 1 : 0), 20);
  if (!v || (negative ? *v > 20 : *v > 19) || (negative && *v == 0))
    throw Error(ErrorKind::Usage, fmt::format("invalid --nice '{}': expected a whole number from -20 to 19", printable(text)),
                "a higher nice value gives the thread a smaller share of the CPU: --nice 5, --nice -5");
  return negative ? -static_cast<int>(*v) : static_cast<int>(*v);
}

uint64_t parse_sched_slice_option(const std::string& text) {
  auto v = parse_duration(text, k_ms);
  if (!v || *v < 100 * k_us || *v > 100 * k_ms)
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --sched-slice '{}': expected milliseconds from 0.1 to 100 (3, 0.5, 500us)", printable(text)),
                "the kernel clamps a slice to 0.1-100 ms; a shorter slice runs the thread sooner after it wakes, "
                "for shorter stretches");
  return *v;
}

void parse_uclamp_option(const std::string& text, SchedRequest& into) {
  auto colon = text.find(':');
  auto min = colon == std::string::npos ? std::nullopt : parse_decimal(std::string_view(text).substr(0, colon), 1024);
  auto max = colon == std::string::npos ? std::nullopt : parse_decimal(std::string_view(text).substr(colon + 1), 1024);
  if (!min || !max || *min > *max)
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --uclamp '{}': expected MIN:MAX, whole numbers from 0 to 1024 with MIN at most "
                            "MAX", printable(text)),
                "1024 is a CPU's whole capacity: --uclamp 512:1024 asks for at least half");
  into.util_min = static_cast<unsigned>(*min);
  into.util_max = static_cast<unsigned>(*max);
}

void check_sched_options(const SchedRequest& r) {
  if (!r.policy || is_fair(r.policy->policy)) return;
  const char* name = sched_policy_name(r.policy->policy);
  if (r.nice)
    throw Error(ErrorKind::Usage, fmt::format("--nice applies to the other and batch policies, not {}", name),
                "a fifo or rr thread's priority is its P; idle and deadline threads have no nice value");
  if (r.slice_ns)
    throw Error(ErrorKind::Usage, fmt::format("--sched-slice applies to the other and batch policies, not {}", name),
                "the EEVDF slice is the fair scheduler's: fifo, rr, idle and deadline threads have none of their own");
}

}  // namespace affix
