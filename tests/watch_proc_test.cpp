#include <catch2/catch.hpp>

#include "proc.hpp"
#include "watch_proc.hpp"

using namespace affix;

TEST_CASE("sched: the counters watch uses") {
  auto c = parse_sched(
      "bash (29438, #threads: 1)\n"
      "-------------------------------------------------------------------\n"
      "se.exec_start                                :       1736364.756328\n"
      "se.sum_exec_runtime                          :            58.522316\n"
      "se.nr_migrations                             :                   25\n"
      "nr_switches                                  :                  178\n"
      "nr_voluntary_switches                        :                  144\n"
      "nr_involuntary_switches                      :                   34\n"
      "current_node=0, numa_group_id=0\n");
  REQUIRE(c);
  CHECK(c->nr_migrations == 25);
  CHECK(c->voluntary == 144);
  CHECK(c->involuntary == 34);
  CHECK(c->run_ns == 58522316);
}

TEST_CASE("sched: a missing or garbled field is no reading") {
  CHECK_FALSE(parse_sched("se.nr_migrations : 1\nnr_voluntary_switches : 2\nnr_involuntary_switches : 3\n"));
  CHECK_FALSE(parse_sched("se.sum_exec_runtime : 1.5\nse.nr_migrations : x\nnr_voluntary_switches : 2\n"
                          "nr_involuntary_switches : 3\n"));
  CHECK_FALSE(parse_sched("se.sum_exec_runtime : 1.5.2\nse.nr_migrations : 1\nnr_voluntary_switches : 2\n"
                          "nr_involuntary_switches : 3\n"));
  auto c = parse_sched("se.sum_exec_runtime : 7\nse.nr_migrations : 1\nnr_voluntary_switches : 2\n"
                       "nr_involuntary_switches : 3\n");
  REQUIRE(c);
  CHECK(c->run_ns == 7000000);
}

TEST_CASE("schedstat: run time, run-queue wait and time slices") {
  auto s = parse_schedstat("54024805 113989524 170\n");
  REQUIRE(s);
  CHECK(s->run_ns == 54024805);
  CHECK(s->wait_ns == 113989524);
  CHECK(s->timeslices == 170);
  CHECK(wait_kept(*s, 54024805));
  // A kernel that keeps no sched_info: "0 0 0" for a thread that ran.
  auto none = parse_schedstat("0 0 0\n");
  REQUIRE(none);
  CHECK_FALSE(wait_kept(*none, 58522316));
  CHECK(wait_kept(*none, 0));  // a thread that never ran waited 0
  // Whether it was ever given a CPU (pin's proof by a listing): its time
  // slices say so where its run time reads 0, as it can for ever for a
  // thread that ran once, briefly (seen on 6.18, an idle thread of 6000).
  CHECK(s->has_run());
  CHECK_FALSE(none->has_run());
  auto brief = parse_schedstat("0 60570 1\n");
  REQUIRE(brief);
  CHECK(brief->has_run());
  CHECK(parse_schedstat("12 0 0\n")->has_run());
  // Whether it ran: its run time or time slices, not its wait alone.
  SchedStat waited = *s;
  waited.wait_ns += 1000;
  CHECK_FALSE(waited.ran_since(*s));
  SchedStat ran = *s;
  ran.timeslices += 1;
  CHECK(ran.ran_since(*s));
  CHECK_FALSE(parse_schedstat("54024805 113989524\n"));
  CHECK_FALSE(parse_schedstat("a b c\n"));
}

TEST_CASE("stat: the thread count (field 20)") {
  auto st = parse_stat("42 (a b) S 1 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 7 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 3 0 0\n");
  REQUIRE(st);
  CHECK(st->num_threads == 7);
  CHECK(st->last_cpu == 3);
}
