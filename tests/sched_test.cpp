// Scheduling policies: the request laid over a thread's own attributes, the
// words, the kernel's refusals explained, and what /proc says
// (sched.hpp, sched_refusal.hpp, sched_proc.hpp).
#include <catch2/catch.hpp>

#include <cerrno>

#include "error.hpp"
#include "fixtures.hpp"
#include "sched.hpp"
#include "sched_proc.hpp"
#include "sched_refusal.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::set_of;
using affix::test::TempRoot;

namespace {

constexpr uint64_t k_ms = 1000000;

SchedAttr attr(SchedPolicy policy, int nice = 0, unsigned priority = 0, uint64_t slice = 0) {
  SchedAttr a;
  a.policy = policy;
  a.nice = nice;
  a.priority = priority;
  a.slice_ns = slice;
  return a;
}

SchedRequest policy(SchedPolicy p, unsigned priority = 0) {
  SchedRequest r;
  r.policy = PolicyRequest{p, priority};
  return r;
}

SchedRequest deadline(uint64_t runtime, uint64_t dl, uint64_t period) {
  SchedRequest r;
  r.policy = PolicyRequest{SchedPolicy::Deadline, 0, runtime, dl, period};
  return r;
}

}  // namespace

TEST_CASE("a request is laid over the thread's own attributes") {
  std::string why;
  SchedAttr other = attr(SchedPolicy::Other, 3, 0, 3 * k_ms);
  other.util_min = 0;
  other.util_max = 1024;
  // The policy alone: nice and slice kept between other and batch; no clamps set unasked.
  auto w = sched_want(policy(SchedPolicy::Batch), other, why);
  REQUIRE(w);
  CHECK(w->policy == SchedPolicy::Batch);
  CHECK(w->nice == 3);
  CHECK(w->slice_ns == 3 * k_ms);
  CHECK_FALSE(w->util_min);
  // To fifo: its priority; back to the kernel's own slice later.
  w = sched_want(policy(SchedPolicy::Fifo, 50), other, why);
  CHECK(w->priority == 50);
  CHECK(w->slice_ns == 0);
  // --nice alone keeps the policy; --sched-slice alone too.
  SchedRequest nice;
  nice.nice = -2;
  w = sched_want(nice, other, why);
  CHECK((w->policy == SchedPolicy::Other && w->nice == -2 && w->slice_ns == 3 * k_ms));
  // From fifo to other: nice 0, the default slice.
  w = sched_want(policy(SchedPolicy::Other), attr(SchedPolicy::Fifo, 0, 10), why);
  CHECK((w->policy == SchedPolicy::Other && w->priority == 0 && w->slice_ns == 0));
  // --nice on a thread that stays fifo: refused, with the reason.
  CHECK_FALSE(sched_want(nice, attr(SchedPolicy::Fifo, 0, 10), why));
  CHECK(why == "it runs under fifo, which has no nice value; --nice and --sched-slice apply to the other and batch "
               "policies");
  SchedRequest slice;
  slice.slice_ns = k_ms;
  CHECK_FALSE(sched_want(slice, attr(SchedPolicy::Idle), why));
  CHECK(why == "it runs under idle, which has no EEVDF slice; --nice and --sched-slice apply to the other and batch "
               "policies");
  // The clamps only where asked.
  SchedRequest clamp;
  clamp.util_min = 100;
  clamp.util_max = 900;
  w = sched_want(clamp, attr(SchedPolicy::RR, 0, 5), why);
  CHECK((w->policy == SchedPolicy::RR && w->priority == 5 && w->util_min == 100u && w->util_max == 900u));
  CHECK_FALSE(sched_restorable(other, nice).util_min);
  CHECK(sched_restorable(other, clamp).util_max == 1024u);
}

TEST_CASE("whether a thread is as asked, part by part") {
  CHECK(sched_satisfies(attr(SchedPolicy::Fifo, 0, 50), policy(SchedPolicy::Fifo, 50)));
  CHECK_FALSE(sched_satisfies(attr(SchedPolicy::Fifo, 0, 49), policy(SchedPolicy::Fifo, 50)));
  CHECK_FALSE(sched_satisfies(attr(SchedPolicy::RR, 0, 50), policy(SchedPolicy::Fifo, 50)));
  CHECK(sched_satisfies(attr(SchedPolicy::Batch, 7), policy(SchedPolicy::Batch)));  // nice not asked
  SchedRequest r = policy(SchedPolicy::Batch);
  r.nice = 5;
  CHECK_FALSE(sched_satisfies(attr(SchedPolicy::Batch, 7), r));
  CHECK(sched_satisfies(attr(SchedPolicy::Batch, 5), r));
  SchedAttr dl = attr(SchedPolicy::Deadline);
  dl.runtime_ns = k_ms;
  dl.deadline_ns = dl.period_ns = 10 * k_ms;
  CHECK(sched_satisfies(dl, deadline(k_ms, 10 * k_ms, 10 * k_ms)));
  CHECK_FALSE(sched_satisfies(dl, deadline(k_ms, 10 * k_ms, 20 * k_ms)));
  SchedRequest slice;
  slice.slice_ns = 2 * k_ms;
  CHECK(sched_satisfies(attr(SchedPolicy::Other, 0, 0, 2 * k_ms), slice));
  CHECK_FALSE(sched_satisfies(attr(SchedPolicy::Other, 0, 0, 0), slice));  // a kernel before 6.12 keeps none
}

TEST_CASE("the words of durations, requests and attributes") {
  CHECK(duration_text(10 * k_ms) == "10ms");
  CHECK(duration_text(1500000) == "1.5ms");
  CHECK(duration_text(1400000) == "1.4ms");
  CHECK(duration_text(750000) == "750us");
  CHECK(duration_text(1024) == "1.024us");
  CHECK(duration_text(999) == "999ns");
  CHECK(duration_text(2000 * k_ms) == "2s");
  CHECK(duration_text(1250 * k_ms) == "1.25s");
  CHECK(sched_request_text(deadline(2 * k_ms, 10 * k_ms, 20 * k_ms)) == "policy deadline:2ms/10ms/20ms");
  CHECK(sched_attr_text(attr(SchedPolicy::Other)) == "other");
  CHECK(sched_attr_text(attr(SchedPolicy::Batch, 5, 0, 3 * k_ms)) == "batch nice 5 slice 3ms");
  CHECK(sched_attr_text(attr(SchedPolicy::RR, 0, 7)) == "rr:7");
  CHECK(sched_attr_text(attr(SchedPolicy::Idle, 4)) == "idle");
  CHECK(sched_attr_text(attr(SchedPolicy::Deadline)) == "deadline");  // its times unknown
  SchedAttr clamped = attr(SchedPolicy::Other);
  clamped.util_min = 0;
  clamped.util_max = 1024;
  CHECK(sched_attr_text(clamped) == "other");
  clamped.util_min = 256;
  CHECK(sched_attr_text(clamped) == "other uclamp 256:1024");
  SchedRequest r = policy(SchedPolicy::Batch);
  r.nice = 5;
  CHECK(sched_have_text(attr(SchedPolicy::Other, 0), r) == "policy other, nice 0");
}

TEST_CASE("what the kernel lacks is refused before anything is set") {
  SchedRequest r;
  r.slice_ns = k_ms;
  SchedSupport old{false, false, "6.1.0-27-amd64"};
  try {
    check_sched_support(r, old);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    CHECK(std::string(e.what()) == "--sched-slice needs Linux 6.12 or later: this kernel (6.1.0-27-amd64) keeps no "
                                   "EEVDF slice of a thread's own");
  }
  SchedRequest c;
  c.util_min = 0;
  c.util_max = 512;
  try {
    check_sched_support(c, old);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "--uclamp needs utilization clamping: this kernel was built without "
                                   "CONFIG_UCLAMP_TASK");
    CHECK(e.hint() == "Debian's kernels are built without it (sched_setattr refuses the clamps: EOPNOTSUPP); leave "
                      "out --uclamp");
  }
  CHECK_NOTHROW(check_sched_support(policy(SchedPolicy::Fifo, 1), old));
}

TEST_CASE("each refusal of the kernel, explained") {
  SchedFacts f;
  f.cpus = set_of("1");
  f.root_domain = set_of("0-3");
  f.rt_runtime_us = 950000;
  f.rt_period_us = 1000000;
  f.dl_period_min_us = 100;
  f.dl_period_max_us = 4194304;
  SchedAttr dl = attr(SchedPolicy::Deadline);
  dl.runtime_ns = 2 * k_ms;
  dl.deadline_ns = dl.period_ns = 10 * k_ms;
  SchedAttr other = attr(SchedPolicy::Other);

  f.cap_sys_nice = true;
  auto r = explain_sched_refusal(dl, other, EPERM, f);
  CHECK(r.reason == "a SCHED_DEADLINE thread must be allowed every CPU of its root domain (0-3), and CPUs 1 are not "
                    "all of it");
  CHECK(r.hint == "give it all of CPUs 0-3, or make CPUs 1 a root domain of their own and start the thread there: "
                  "'affix shield', or a cgroup v2 cpuset partition (cpuset.cpus.partition=root)");
  CHECK(explain_deadline_cpus(set_of("1"), f).reason == r.reason);
  r = explain_sched_refusal(dl, other, EBUSY, f);
  CHECK(r.reason == "deadline admission control refused it: the CPUs of its root domain (0-3) have not 2ms of every "
                    "10ms left for another deadline thread");
  CHECK(r.hint == "each CPU gives deadline threads at most kernel.sched_rt_runtime_us of every sched_rt_period_us "
                  "(950000 of 1000000), shared by every deadline thread of the root domain; ask for less runtime or a "
                  "longer period");
  SchedAttr slow = dl;
  slow.period_ns = 5000 * k_ms;
  CHECK(explain_sched_refusal(slow, other, EINVAL, f).reason ==
        "the kernel takes deadline periods from 100us to 4194304us only (kernel.sched_deadline_period_min_us, "
        "sched_deadline_period_max_us), not 5s");
  f.rt_runtime_us = 0;
  CHECK(explain_sched_refusal(dl, other, EPERM, f).reason ==
        "the kernel gives deadline threads no bandwidth: kernel.sched_rt_runtime_us is 0");
  f.rt_runtime_us = 950000;
  f.cpus = set_of("0-3");
  CHECK(explain_sched_refusal(dl, other, EPERM, f).hint.find("a security policy refused it") != std::string::npos);

  r = explain_sched_refusal(attr(SchedPolicy::RR, 0, 10), other, EPERM, f);
  CHECK(r.reason == "permission denied: the thread's cgroup gives real-time threads no runtime (CONFIG_RT_GROUP_SCHED: "
                    "its cpu.rt_runtime_us is 0), or a security policy refused it");
  CHECK(r.hint == "give the cgroup real-time runtime (cpu.rt_runtime_us above 0), or start the thread outside it");
  CHECK(explain_sched_refusal(attr(SchedPolicy::Batch), other, EPERM, f).hint ==
        "affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a security module (as in a "
        "container)");

  f.cap_sys_nice = false;
  CHECK(explain_sched_refusal(dl, other, EPERM, f).reason == "permission denied: SCHED_DEADLINE needs CAP_SYS_NICE");
  r = explain_sched_refusal(attr(SchedPolicy::Fifo, 0, 50), other, EPERM, f);
  CHECK(r.reason == "permission denied: fifo:50 needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 50");
  CHECK(r.hint == "run affix as root, or raise the thread's limit first (prlimit --rtprio, ulimit -r, LimitRTPRIO= "
                  "of a systemd unit)");
  CHECK(explain_sched_refusal(attr(SchedPolicy::Other, -5), other, EPERM, f).reason ==
        "permission denied: lowering nice from 0 to -5 needs CAP_SYS_NICE or an RLIMIT_NICE of at least 25");
  CHECK(explain_sched_refusal(attr(SchedPolicy::Other), attr(SchedPolicy::Idle), EPERM, f).reason ==
        "permission denied: leaving the idle policy needs CAP_SYS_NICE or an RLIMIT_NICE that allows its nice");
  r = explain_sched_refusal(attr(SchedPolicy::Batch), other, EPERM, f);
  CHECK(r.reason == "permission denied");
  CHECK(r.hint == "changing another user's thread needs CAP_SYS_NICE");
  SchedAttr clamp = other;
  clamp.util_min = 0;
  r = explain_sched_refusal(clamp, other, EOPNOTSUPP, f);
  CHECK(r.reason == "this kernel was built without CONFIG_UCLAMP_TASK");
  CHECK(r.hint == "Debian's kernels are built without it; leave out --uclamp");
  CHECK(explain_sched_refusal(other, other, EIO, f).reason == "Input/output error");
}

TEST_CASE("a deadline policy on fewer CPUs than their root domain is foreseen") {
  SchedFacts f;
  f.root_domain = set_of("0-3");
  auto r = predict_deadline_refusal(set_of("2"), f);
  REQUIRE(r);
  CHECK(r->reason == "a SCHED_DEADLINE thread must be allowed every CPU of its root domain (0-3), and CPUs 2 are not "
                     "all of it");
  CHECK_FALSE(predict_deadline_refusal(set_of("0-3"), f));
  CHECK_FALSE(predict_deadline_refusal(set_of("0-7"), f));
  f.rt_runtime_us = -1;  // admission control off
  CHECK_FALSE(predict_deadline_refusal(set_of("2"), f));
  CHECK_FALSE(predict_deadline_refusal(set_of("2"), SchedFacts{}));  // unknown: the kernel will say
}

TEST_CASE("/proc/PID/task/TID/sched: policy, priority, nice, slice, clamps") {
  auto a = parse_sched_file("x (1, #threads: 1)\n---\nse.exec_start : 1.5\npolicy : 0\nprio : 125\n"
                            "se.slice : 2800000\nclock-delta : 40\n");
  REQUIRE(a);
  CHECK(sched_attr_text(*a) == "other nice 5 slice 2.8ms");
  a = parse_sched_file("policy : 1\nprio : 49\n");
  CHECK(sched_attr_text(*a) == "fifo:50");
  a = parse_sched_file("uclamp.min : 128\nuclamp.max : 1024\npolicy : 3\nprio : 120\n");
  CHECK(sched_attr_text(*a) == "batch uclamp 128:1024");
  a = parse_sched_file("policy : 6\nprio : -1\ndl.runtime : 123\ndl.deadline : 456\n");
  CHECK(sched_attr_text(*a) == "deadline");
  CHECK_FALSE(parse_sched_file("policy : 7\nprio : 120\n"));  // SCHED_EXT: not affix's
  CHECK_FALSE(parse_sched_file("prio : 120\n"));

  TempRoot root;
  root.write("proc/10/task/11/sched", "policy : 5\nprio : 120\n");
  CHECK(sched_attr_text(*read_thread_sched(SysRoot(root.path()), 10, 11)) == "idle");
  CHECK_FALSE(read_thread_sched(SysRoot(root.path()), 10, 12));
}

TEST_CASE("/proc/schedstat: each CPU's root domain, versions 15 to 17") {
  auto v15 = parse_schedstat_domains("version 15\ntimestamp 1\ncpu0 0 0 0\ndomain0 00000003 1 2\ndomain1 0000000f 3\n"
                                     "cpu1 0 0\ndomain0 00000003 1\ndomain1 0000000f 3\ncpu4 0 0\n");
  CHECK(format_cpulist(v15.at(0)) == "0-3");
  CHECK(format_cpulist(v15.at(1)) == "0-3");
  CHECK_FALSE(v15.count(4));  // no domains: isolated, or alone
  auto v17 = parse_schedstat_domains("version 17\ncpu2 0\ndomain0 SMT 0000000c 1\ndomain1 PKG 000000f0,0000000f 9\n");
  CHECK(format_cpulist(v17.at(2)) == "0-3,36-39");
  TempRoot root;
  root.write("proc/schedstat", "version 15\ncpu0 0\ndomain0 00000003 1\ncpu1 0\ndomain0 00000003 1\ncpu2 0\n"
                               "domain0 0000000c 1\ncpu3 0\ndomain0 0000000c 1\n");
  SysRoot sys(root.path());
  CHECK(format_cpulist(*read_root_domain(sys, set_of("1"))) == "0-1");
  CHECK(format_cpulist(*read_root_domain(sys, set_of("1-2"))) == "0-3");
  root.write("proc/sys/kernel/sched_rt_runtime_us", "950000\n");
  root.write("proc/sys/kernel/sched_deadline_period_max_us", "4194304\n");
  SchedFacts f = read_sched_facts(sys, set_of("2"));
  CHECK(format_cpulist(*f.root_domain) == "2-3");
  CHECK(f.rt_runtime_us == 950000);
  CHECK(f.dl_period_max_us == 4194304);
  CHECK_FALSE(f.rt_period_us);
  CHECK_FALSE(read_root_domain(SysRoot("/nonexistent-affix-root"), set_of("0")));
}
