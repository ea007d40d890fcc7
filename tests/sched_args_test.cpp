// The scheduling options: every form each takes, and the exact words of
// every mistake (sched_args.hpp), on their own and on a command line.
#include <catch2/catch.hpp>

#include "command_line.hpp"
#include "error.hpp"
#include "sched_args.hpp"

using namespace affix;

namespace {

// The error (with its hint after " | ") that `f` throws; it must be Usage.
template <typename F> std::string usage_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return e.hint().empty() ? e.what() : std::string(e.what()) + " | " + e.hint();
  }
  FAIL("no error");
  return {};
}

std::string policy_error(const std::string& text) {
  return usage_error([&] { parse_policy_option(text); });
}

constexpr uint64_t k_ms = 1000000, k_us = 1000;

}  // namespace

TEST_CASE("--policy takes each policy, fifo and rr with a priority, deadline with its times") {
  CHECK(parse_policy_option("other") == PolicyRequest{SchedPolicy::Other});
  CHECK(parse_policy_option("batch") == PolicyRequest{SchedPolicy::Batch});
  CHECK(parse_policy_option("idle") == PolicyRequest{SchedPolicy::Idle});
  CHECK(parse_policy_option("fifo:50") == PolicyRequest{SchedPolicy::Fifo, 50});
  CHECK(parse_policy_option("rr:1") == PolicyRequest{SchedPolicy::RR, 1});
  CHECK(parse_policy_option("fifo:99") == PolicyRequest{SchedPolicy::Fifo, 99});
  CHECK(parse_policy_option("deadline:2ms/10ms/20ms") ==
        PolicyRequest{SchedPolicy::Deadline, 0, 2 * k_ms, 10 * k_ms, 20 * k_ms});
  // PERIOD left out is DEADLINE; units mix; decimals where exact.
  CHECK(parse_policy_option("deadline:500us/1ms") ==
        PolicyRequest{SchedPolicy::Deadline, 0, 500 * k_us, k_ms, k_ms});
  CHECK(parse_policy_option("deadline:0.5ms/1.25ms/1s") ==
        PolicyRequest{SchedPolicy::Deadline, 0, 500 * k_us, 1250 * k_us, 1000 * k_ms});
  CHECK(parse_policy_option("deadline:1024ns/2us/2us").runtime_ns == 1024);
}

TEST_CASE("--policy's mistakes, in exact words") {
  CHECK(policy_error("normal") ==
        "invalid --policy 'normal': expected other, batch, idle, fifo:P, rr:P or deadline:RUNTIME/DEADLINE/PERIOD | "
        "--policy fifo:50 (priority 1 to 99), --policy deadline:2ms/10ms/10ms; other, batch and idle take --nice");
  const std::string fifo_hint = " | the higher the priority, the sooner the thread runs; the kernel's own threads run at 50";
  CHECK(policy_error("fifo") == "invalid --policy 'fifo': fifo takes a priority from 1 to 99 (fifo:50)" + fifo_hint);
  CHECK(policy_error("fifo:0") == "invalid --policy 'fifo:0': fifo takes a priority from 1 to 99 (fifo:50)" + fifo_hint);
  CHECK(policy_error("rr:100") == "invalid --policy 'rr:100': rr takes a priority from 1 to 99 (rr:50)" + fifo_hint);
  CHECK(policy_error("rr:-1") == "invalid --policy 'rr:-1': rr takes a priority from 1 to 99 (rr:50)" + fifo_hint);
  CHECK(policy_error("fifo:050") == "invalid --policy 'fifo:050': fifo takes a priority from 1 to 99 (fifo:50)" + fifo_hint);
  CHECK(policy_error("batch:5") ==
        "invalid --policy 'batch:5': batch takes no parameter | --nice N sets the nice value of other and batch threads");
  const std::string shape_hint = " | deadline:2ms/10ms/10ms: 2 ms of CPU time in every 10 ms, done within 10 ms of each "
                                 "period's start (PERIOD may be left out: it is then DEADLINE)";
  CHECK(policy_error("deadline") == "invalid --policy 'deadline': expected deadline:RUNTIME/DEADLINE/PERIOD" + shape_hint);
  CHECK(policy_error("deadline:1ms") == "invalid --policy 'deadline:1ms': expected deadline:RUNTIME/DEADLINE/PERIOD" + shape_hint);
  CHECK(policy_error("deadline:1ms/2ms/3ms/4ms") ==
        "invalid --policy 'deadline:1ms/2ms/3ms/4ms': expected deadline:RUNTIME/DEADLINE/PERIOD" + shape_hint);
  const std::string time_hint = " | deadline:10ms/20ms/20ms, deadline:500us/1ms/1ms: each time takes its unit (chrt "
                                "takes nanoseconds, affix says which)";
  CHECK(policy_error("deadline:1000000/2000000/2000000") ==
        "invalid --policy 'deadline:1000000/2000000/2000000': bad time '1000000': expected a number and its unit (ns, "
        "us, ms or s)" + time_hint);
  CHECK(policy_error("deadline:1ms/2xs/3ms") ==
        "invalid --policy 'deadline:1ms/2xs/3ms': bad time '2xs': expected a number and its unit (ns, us, ms or s)" +
        time_hint);
  CHECK(policy_error("deadline:0ms/2ms") ==
        "invalid --policy 'deadline:0ms/2ms': bad time '0ms': expected a number and its unit (ns, us, ms or s)" +
        time_hint);
  CHECK(policy_error("deadline:0.5ns/2ms") ==
        "invalid --policy 'deadline:0.5ns/2ms': bad time '0.5ns': expected a number and its unit (ns, us, ms or s)" +
        time_hint);
  CHECK(policy_error("deadline:1000ns/2ms") ==
        "invalid --policy 'deadline:1000ns/2ms': the runtime must be at least 1.024us | the kernel keeps deadline "
        "times in units of 1024 ns (DL_SCALE)");
  CHECK(policy_error("deadline:3ms/2ms/10ms") ==
        "invalid --policy 'deadline:3ms/2ms/10ms': runtime 3ms must be at most deadline 2ms, and deadline at most "
        "period 10ms | RUNTIME is the CPU time the thread gets in each PERIOD, by DEADLINE after the period starts");
  CHECK(policy_error("deadline:1ms/20ms/10ms") ==
        "invalid --policy 'deadline:1ms/20ms/10ms': runtime 1ms must be at most deadline 20ms, and deadline at most "
        "period 10ms | RUNTIME is the CPU time the thread gets in each PERIOD, by DEADLINE after the period starts");
}

TEST_CASE("a time takes its unit, and is a whole number of nanoseconds") {
  CHECK(parse_duration("10ms") == 10 * k_ms);
  CHECK(parse_duration("1.5ms") == 1500 * k_us);
  CHECK(parse_duration("0.001ms") == k_us);
  CHECK(parse_duration("2s") == 2000 * k_ms);
  CHECK(parse_duration("250us") == 250 * k_us);
  CHECK(parse_duration("7ns") == 7u);
  CHECK(parse_duration("3600s") == 3600 * 1000 * k_ms);
  CHECK_FALSE(parse_duration("3601s"));
  CHECK_FALSE(parse_duration("10"));
  CHECK(parse_duration("10", k_ms) == 10 * k_ms);
  CHECK(parse_duration("1.0001ms") == 1000100u);
  CHECK_FALSE(parse_duration("1.0000001ms"));  // below a nanosecond
  CHECK_FALSE(parse_duration("ms"));
  CHECK_FALSE(parse_duration(".5ms"));
  CHECK_FALSE(parse_duration("5.ms"));
  CHECK_FALSE(parse_duration("1.2.3ms"));
  CHECK_FALSE(parse_duration("01ms"));
  CHECK_FALSE(parse_duration("-1ms"));
  CHECK_FALSE(parse_duration("1 ms"));
  CHECK_FALSE(parse_duration("1MS"));
  CHECK_FALSE(parse_duration(""));
}

TEST_CASE("--nice, --sched-slice and --uclamp take their ranges, and say so") {
  CHECK(parse_nice_option("0") == 0);
  CHECK(parse_nice_option("19") == 19);
  CHECK(parse_nice_option("-20") == -20);
  CHECK(parse_nice_option("-5") == -5);
  const std::string nice_hint =
      " | a higher nice value gives the thread a smaller share of the CPU: --nice 5, --nice -5";
  for (const char* bad : {"20", "-21", "+5", "-0", "x", "", "05", "1.5"})
    CHECK(usage_error([&] { parse_nice_option(bad); }) ==
          "invalid --nice '" + std::string(bad) + "': expected a whole number from -20 to 19" + nice_hint);

  CHECK(parse_sched_slice_option("3") == 3 * k_ms);
  CHECK(parse_sched_slice_option("0.1") == 100 * k_us);
  CHECK(parse_sched_slice_option("100") == 100 * k_ms);
  CHECK(parse_sched_slice_option("500us") == 500 * k_us);
  CHECK(parse_sched_slice_option("0.75ms") == 750 * k_us);
  const std::string slice_hint = " | the kernel clamps a slice to 0.1-100 ms; a shorter slice runs the thread sooner "
                                 "after it wakes, for shorter stretches";
  for (const char* bad : {"0.09", "101", "99us", "0", "x", "", "1s"})
    CHECK(usage_error([&] { parse_sched_slice_option(bad); }) ==
          "invalid --sched-slice '" + std::string(bad) + "': expected milliseconds from 0.1 to 100 (3, 0.5, 500us)" +
              slice_hint);

  SchedRequest r;
  parse_uclamp_option("0:1024", r);
  CHECK(r.util_min == 0u);
  CHECK(r.util_max == 1024u);
  parse_uclamp_option("512:512", r);
  CHECK(r.util_min == 512u);
  const std::string uclamp_hint = " | 1024 is a CPU's whole capacity: --uclamp 512:1024 asks for at least half";
  for (const char* bad : {"512", "600:500", "0:1025", ":5", "5:", "a:b", "-1:5"})
    CHECK(usage_error([&] { parse_uclamp_option(bad, r); }) ==
          "invalid --uclamp '" + std::string(bad) + "': expected MIN:MAX, whole numbers from 0 to 1024 with MIN at "
          "most MAX" + uclamp_hint);
}

TEST_CASE("the scheduling options on run, explain and pin, and what goes with what") {
  auto run = parse_command_line(CommandKind::Run, {"--policy", "batch", "--nice", "-5", "--sched-slice=2",
                                                   "--uclamp", "0:512", "0-1", "server", "--nice", "3"});
  CHECK(run.sched.policy == PolicyRequest{SchedPolicy::Batch});
  CHECK(run.sched.nice == -5);
  CHECK(run.sched.slice_ns == 2 * k_ms);
  CHECK(run.sched.util_max == 512u);
  CHECK(run.rest == std::vector<std::string>{"server", "--nice", "3"});  // the command's own
  CHECK(sched_request_text(run.sched) == "policy batch, nice -5, slice 2ms, uclamp 0:512");

  auto pin = parse_command_line(CommandKind::Pin, {"--policy=fifo:10", "all", "42"});
  CHECK(pin.sched.policy == PolicyRequest{SchedPolicy::Fifo, 10});
  auto explain = parse_command_line(CommandKind::Explain, {"all", "--policy", "deadline:1ms/2ms"});
  CHECK(explain.sched.policy->period_ns == 2 * k_ms);
  CHECK_FALSE(parse_command_line(CommandKind::Run, {"0", "true"}).sched.any());

  CHECK(usage_error([] { parse_command_line(CommandKind::Pin, {"--policy", "fifo:5", "--nice", "1", "0", "1"}); }) ==
        "--nice applies to the other and batch policies, not fifo | a fifo or rr thread's priority is its P; idle "
        "and deadline threads have no nice value");
  CHECK(usage_error([] { parse_command_line(CommandKind::Run, {"--policy", "idle", "--nice", "1", "0", "x"}); }) ==
        "--nice applies to the other and batch policies, not idle | a fifo or rr thread's priority is its P; idle "
        "and deadline threads have no nice value");
  CHECK(usage_error([] {
          parse_command_line(CommandKind::Explain, {"--policy", "rr:5", "--sched-slice", "1", "0"});
        }) == "--sched-slice applies to the other and batch policies, not rr | the EEVDF slice is the fair "
              "scheduler's: fifo, rr, idle and deadline threads have none of their own");
  CHECK(usage_error([] {
          parse_command_line(CommandKind::Run, {"--spread", "--policy", "deadline:1ms/2ms", "0", "x"});
        }) == "--spread places the threads the command creates, and a SCHED_DEADLINE thread cannot create any | the "
              "kernel refuses clone to a deadline thread (EAGAIN): start the command, then give its threads the "
              "policy with 'affix pin --policy deadline:...'");
  CHECK(usage_error([] { parse_command_line(CommandKind::Run, {"--policy", "0", "x"}); }) ==
        "invalid --policy '0': expected other, batch, idle, fifo:P, rr:P or deadline:RUNTIME/DEADLINE/PERIOD | "
        "--policy fifo:50 (priority 1 to 99), --policy deadline:2ms/10ms/10ms; other, batch and idle take --nice");
  CHECK(usage_error([] { parse_command_line(CommandKind::Pin, {"--policy", "batch", "--policy", "idle", "0", "1"}); })
            .find("option '--policy' given twice") == 0);
  CHECK(usage_error([] { parse_command_line(CommandKind::Pin, {"--sched-slic", "1", "0", "1"}); }) ==
        "unknown option '--sched-slic' for 'pin' | did you mean '--sched-slice'?");
  // --slice is the CPUs' split, not the EEVDF slice.
  CHECK(usage_error([] { parse_command_line(CommandKind::Run, {"--slice", "3ms", "0", "x"}); })
            .find("invalid --slice '3ms'") == 0);
}
