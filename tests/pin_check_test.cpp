// pin --check: the engine reads (never sets) and check_pin judges each
// thread against its placement, and the memory against --mem/--migrate.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "fake_os.hpp"
#include "pin.hpp"
#include "pin_check.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::TempRoot;

namespace {

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }

void add_process(FakeOs& os, TempRoot& root, pid_t pid, const std::vector<std::pair<pid_t, const char*>>& threads,
                 unsigned long flags = 4194560) {
  for (const auto& [tid, list] : threads) {
    os.threads[pid].push_back(tid);
    os.affinity[tid] = cpus(list);
    os.start_times[tid] = 100;
    root.write(fmt::format("proc/{}/task/{}/stat", pid, tid),
               fmt::format("{} (w{}) S 1 {} {} 0 -1 {} 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n",
                           tid, tid, pid, pid, flags));
  }
  os.start_times[pid] = 100;
  os.parents[pid] = 1;
}

PinResolver to(const char* list, std::vector<unsigned> spread = {}, unsigned per_cpu = 1) {
  PinPlace place{cpus(list), spread, per_cpu};
  return [place](const PinRequest&) { return place; };
}

struct Checked {
  CheckReport report;
  std::string text;
};

Checked check(FakeOs& os, const TempRoot& root, const std::vector<PinRequest>& requests, const PinResolver& resolve,
              std::optional<MemExpect> mem = std::nullopt, bool verbose = false) {
  SysRoot proc(root.path());
  PinOptions options;
  options.dry_run = options.check = true;
  PinReport report = pin_threads(os, proc, requests, resolve, options);
  Checked out;
  out.report = check_pin(proc, report, [&](const TargetReport&) { return mem; });
  out.text = format_check(proc, out.report, verbose);
  return out;
}

}  // namespace

TEST_CASE("--check: every thread within the selection is a pass, and nothing is set") {
  FakeOs os;
  TempRoot root;
  add_process(os, root, 10, {{10, "0-1"}, {11, "1"}, {12, "0"}});
  auto c = check(os, root, {{10, PinScope::Process}}, to("0-3"));
  CHECK(c.report.ok);
  CHECK(c.text == "10: 3 threads within CPUs 0-3\n");
  CHECK(os.set_affinity_calls.empty());
}

TEST_CASE("--check: a thread that may run outside is named, with its list and the selection") {
  FakeOs os;
  TempRoot root;
  add_process(os, root, 10, {{10, "0-1"}, {11, "0-7"}, {12, "4"}});
  auto c = check(os, root, {{10, PinScope::Process}}, to("0-3"));
  CHECK_FALSE(c.report.ok);
  CHECK(c.text ==
        "10: 3 threads, 2 not within CPUs 0-3\n"
        "  11 (w11): cpus 0-7, not within 0-3\n"
        "  12 (w12): cpus 4, not within 0-3\n");
  CHECK(os.set_affinity_calls.empty());
  CHECK(check_json(c.report) ==
        "{\"ok\": false, \"targets\": [{\"id\": 10, \"scope\": \"process\", \"cpus\": \"0-3\", \"spread\": null, "
        "\"exited\": false, \"ok\": false, \"processes\": 1, \"threads\": 3, \"outside\": ["
        "{\"pid\": 10, \"tid\": 11, \"comm\": \"w11\", \"cpus\": \"0-7\", \"want\": \"0-3\"}, "
        "{\"pid\": 10, \"tid\": 12, \"comm\": \"w12\", \"cpus\": \"4\", \"want\": \"0-3\"}], \"memory\": null, \"env\": null}], "
        "\"weights\": null, \"shields\": []}\n");
  // A shield the selection shares: its problems fail the check, each a line.
  c.report.shields.push_back(ShieldCheck{"affix-shield-1", *parse_cpulist("2-3").value, {"thread 40 (sshd) of process 40, in cgroup /, may run on CPUs 2-3"}});
  c.report.shields.push_back(ShieldCheck{"db", *parse_cpulist("1").value, {}});
  CHECK(format_check(SysRoot(root.path()), c.report, false) ==
        "10: 3 threads, 2 not within CPUs 0-3\n"
        "  11 (w11): cpus 0-7, not within 0-3\n"
        "  12 (w12): cpus 4, not within 0-3\n"
        "shield affix-shield-1 (CPUs 2-3): thread 40 (sshd) of process 40, in cgroup /, may run on CPUs 2-3\n"
        "shield db (CPUs 1): held, no other task on its CPUs\n");
  std::string json = check_json(c.report);
  CHECK(json.substr(json.find("\"shields\"")) ==
        "\"shields\": [{\"name\": \"affix-shield-1\", \"cpus\": \"2-3\", \"ok\": false, \"problems\": "
        "[\"thread 40 (sshd) of process 40, in cgroup /, may run on CPUs 2-3\"]}, "
        "{\"name\": \"db\", \"cpus\": \"1\", \"ok\": true, \"problems\": []}]}\n");
}

TEST_CASE("--check -v: every thread's line") {
  FakeOs os;
  TempRoot root;
  add_process(os, root, 10, {{10, "0-1"}, {11, "0-7"}});
  auto c = check(os, root, {{10, PinScope::Process}}, to("0-3"), std::nullopt, true);
  CHECK(c.text ==
        "10: 2 threads, 1 not within CPUs 0-3\n"
        "  10 (w10): cpus 0-1, within 0-3\n"
        "  11 (w11): cpus 0-7, not within 0-3\n");
}

TEST_CASE("--check --spread: each thread on the CPU the spread gives it, one round over every target") {
  FakeOs os;
  TempRoot root;
  // The spread over 0,1 gives 10 -> 0, 11 -> 1, then 20 -> 0, 21 -> 1.
  add_process(os, root, 10, {{10, "0"}, {11, "1"}});
  add_process(os, root, 20, {{20, "0"}, {21, "1"}});
  auto good = check(os, root, {{10, PinScope::Process}, {20, PinScope::Process}}, to("0-1", {0, 1}));
  CHECK(good.report.ok);
  CHECK(good.text ==
        "10: 2 threads within the CPU --spread gives each, of CPUs 0-1\n"
        "20: 2 threads within the CPU --spread gives each, of CPUs 0-1\n");
  // Each worker on the whole set: within the selection, not on its CPU.
  os.affinity[20] = os.affinity[21] = cpus("0-1");
  auto bad = check(os, root, {{10, PinScope::Process}, {20, PinScope::Process}}, to("0-1", {0, 1}));
  CHECK_FALSE(bad.report.ok);
  CHECK(bad.text ==
        "10: 2 threads within the CPU --spread gives each, of CPUs 0-1\n"
        "20: 2 threads, 2 not within the CPU --spread gives each, of CPUs 0-1\n"
        "  20 (w20): cpus 0-1, not within 0\n"
        "  21 (w21): cpus 0-1, not within 1\n");
  // --spread=2: 10 and 11 on 0, 20 and 21 on 1.
  os.affinity[10] = os.affinity[11] = cpus("0");
  os.affinity[20] = os.affinity[21] = cpus("1");
  auto two = check(os, root, {{10, PinScope::Process}, {20, PinScope::Process}}, to("0-1", {0, 1}, 2));
  CHECK(two.report.ok);
  CHECK(two.text.substr(0, two.text.find('\n')) == "10: 2 threads within the CPU --spread=2 gives each, of CPUs 0-1");
}

TEST_CASE("--check does not stop at a thread a pin could not move: it reports it") {
  FakeOs os;
  TempRoot root;
  add_process(os, root, 7, {{7, "0"}}, 69238880);  // PF_NO_SETAFFINITY, as a kernel thread
  auto c = check(os, root, {{7, PinScope::Process}}, to("1"));
  CHECK_FALSE(c.report.ok);
  CHECK(c.text == "7: 1 thread, 1 not within CPUs 1\n  7 (w7): cpus 0, not within 1\n");
}

TEST_CASE("--check --mem: the policy numa_maps shows; --migrate: the anonymous pages") {
  FakeOs os;
  TempRoot root;
  add_process(os, root, 10, {{10, "0"}});
  root.write("proc/10/numa_maps",
             "400000 bind:0 anon=7790 dirty=7790 N0=7790 kernelpagesize_kB=4\n"
             "500000 bind:0 anon=1210 dirty=1210 N1=1210 kernelpagesize_kB=4\n"
             "600000 bind:0 file=/usr/lib/x mapped=50 N1=50 kernelpagesize_kB=4\n");
  MemExpect mem{MemPolicy::Bind, cpus("0"), true, true};
  auto c = check(os, root, {{10, PinScope::Process}}, to("0-3"), mem);
  CHECK_FALSE(c.report.ok);
  CHECK(c.text ==
        "10: 1 thread within CPUs 0-3, anonymous pages outside node 0\n"
        "  10: memory policy bind:0, as asked (bind:0)\n"
        "  10: 1,210 of 9,000 anonymous pages on node 1, outside 0\n");
  // The policy alone (--mem without --migrate) passes: the file pages on
  // node 1 are page cache, not the process's own memory.
  mem.pages_asked = false;
  CHECK(check(os, root, {{10, PinScope::Process}}, to("0-3"), mem).report.ok);
  mem = {MemPolicy::Interleave, cpus("0-1"), true, false};
  auto il = check(os, root, {{10, PinScope::Process}}, to("0-3"), mem);
  CHECK_FALSE(il.report.ok);
  CHECK(il.text == "10: 1 thread within CPUs 0-3, memory policy not interleave:0-1\n"
                  "  10: memory policy bind:0, not interleave:0-1\n");
  mem = {MemPolicy::Bind, cpus("0-1"), false, true};
  auto pages = check(os, root, {{10, PinScope::Process}}, to("0-3"), mem);
  CHECK(pages.report.ok);
  CHECK(pages.text == "10: 1 thread within CPUs 0-3\n  10: 9,000 anonymous pages, all on nodes 0-1\n");
}

TEST_CASE("mem_expect: --check with pin --migrate's words checks what it did (the pages), not a policy") {
  // pin --mem bind --migrate leaves the process's own policy as it was (no
  // one may set another's): the check with the same words passes on the pages.
  FakeOs os;
  TempRoot root;
  add_process(os, root, 10, {{10, "0"}});
  root.write("proc/10/numa_maps", "400000 default anon=70 dirty=70 N0=70 kernelpagesize_kB=4\n");
  auto mem = mem_expect(MemPolicy::Bind, cpus("0"), true, false, true);
  REQUIRE(mem);
  CHECK_FALSE(mem->policy_asked);
  CHECK(mem->pages_asked);
  auto c = check(os, root, {{10, PinScope::Process}}, to("0-3"), mem);
  CHECK(c.report.ok);
  CHECK(c.text == "10: 1 thread within CPUs 0-3\n  10: 70 anonymous pages, all on node 0\n");
  // --mem alone: the policy, which a process started by run --mem has.
  mem = mem_expect(MemPolicy::Bind, cpus("0"), true, false, false);
  CHECK(mem->policy_asked);
  CHECK_FALSE(mem->pages_asked);
  auto policy = check(os, root, {{10, PinScope::Process}}, to("0-3"), mem);
  CHECK_FALSE(policy.report.ok);
  CHECK(policy.text == "10: 1 thread within CPUs 0-3, memory policy not bind:0\n  10: memory policy default, not bind:0\n");
  // --migrate alone, pages off the nodes: the line says it is the pages.
  root.write("proc/10/numa_maps", "400000 default anon=70 dirty=70 N0=60 N1=10 kernelpagesize_kB=4\n");
  auto pages = check(os, root, {{10, PinScope::Process}}, to("0-3"), mem_expect(MemPolicy::Bind, cpus("0"), false, false, true));
  CHECK_FALSE(pages.report.ok);
  CHECK(pages.text == "10: 1 thread within CPUs 0-3, anonymous pages outside node 0\n"
                      "  10: 10 of 70 anonymous pages on node 1, outside 0\n");
  // --gpu: the policy run --gpu sets, with --migrate the pages too.
  mem = mem_expect(MemPolicy::Bind, cpus("0"), false, true, true);
  CHECK((mem->policy_asked && mem->pages_asked));
  CHECK_FALSE(mem_expect(MemPolicy::Bind, cpus("0"), false, false, false));
}

TEST_CASE("--check --mem: numa_maps that cannot be read is a failure, not a pass") {
  FakeOs os;
  TempRoot root;
  add_process(os, root, 10, {{10, "0"}});
  auto c = check(os, root, {{10, PinScope::Process}}, to("0"), MemExpect{MemPolicy::Bind, cpus("0"), true, false});
  CHECK_FALSE(c.report.ok);
  CHECK(c.text == "10: 1 thread within CPUs 0, memory unknown\n  10: memory unknown (its numa_maps cannot be read)\n");
}

TEST_CASE("policy_matches: the mode, and nodes within (interleave: exactly)") {
  CHECK(policy_matches("bind:0", MemPolicy::Bind, cpus("0-1")));
  CHECK(policy_matches("bind=static:1", MemPolicy::Bind, cpus("0-1")));
  CHECK_FALSE(policy_matches("bind:0-2", MemPolicy::Bind, cpus("0-1")));
  CHECK_FALSE(policy_matches("default", MemPolicy::Bind, cpus("0")));
  CHECK(policy_matches("prefer:1", MemPolicy::Preferred, cpus("1")));
  CHECK(policy_matches("prefer (many):0-1", MemPolicy::Preferred, cpus("0-1")));
  CHECK_FALSE(policy_matches("prefer:2", MemPolicy::Preferred, cpus("0-1")));
  CHECK(policy_matches("interleave:0-1", MemPolicy::Interleave, cpus("0-1")));
  CHECK_FALSE(policy_matches("interleave:0", MemPolicy::Interleave, cpus("0-1")));
  CHECK(policy_matches("local", MemPolicy::Local, cpus("0")));
  CHECK(policy_matches("default", MemPolicy::Local, cpus("0")));
  CHECK_FALSE(policy_matches("bind:0", MemPolicy::Local, cpus("0")));
  CHECK_FALSE(policy_matches("bind:x", MemPolicy::Bind, cpus("0")));
  CHECK(numa_maps_policy(MemPolicy::Preferred, cpus("0-1")) == "prefer (many):0-1");
  CHECK(numa_maps_policy(MemPolicy::Preferred, cpus("1")) == "prefer:1");
}

TEST_CASE("--check --weights: the machine's weights' line after the targets', and in JSON") {
  FakeOs os;
  TempRoot root;
  add_process(os, root, 10, {{10, "0"}});
  auto c = check(os, root, {{10, PinScope::Process}}, to("0-3"));
  c.report.weights = WeightsCheck{false, "interleave weights node 0: 1 (asked: 3), node 2: 1, not as asked (given with --weights)",
                                  {{0, 1u, 3u}, {2, 1u, std::nullopt}}, std::nullopt};
  SysRoot proc(root.path());
  CHECK(format_check(proc, c.report, false) ==
        "10: 1 thread within CPUs 0-3\n"
        "interleave weights node 0: 1 (asked: 3), node 2: 1, not as asked (given with --weights)\n");
  std::string json = check_json(c.report);
  CHECK(json.substr(json.find("\"weights\"")) ==
        "\"weights\": {\"ok\": false, \"nodes\": [{\"node\": 0, \"now\": 1, \"want\": 3}, "
        "{\"node\": 2, \"now\": 1, \"want\": null}], \"auto_mode\": null}, \"shields\": []}\n");
  // Without --weights: null.
  c.report.weights.reset();
  CHECK(check_json(c.report).find("\"weights\": null, \"shields\": []}") != std::string::npos);
}
