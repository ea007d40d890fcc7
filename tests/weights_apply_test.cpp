// Writing the interleave weights all or nothing (weights_apply.hpp), on a
// recording fake that refuses a file or fails the k-th write; and run's
// order: the weights, then the policy, put back where the command does not
// start.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "error.hpp"
#include "fake_os.hpp"
#include "fixtures.hpp"
#include "launch.hpp"
#include "memory_root.hpp"
#include "resolver.hpp"
#include "topology.hpp"
#include "weights_apply.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::TempRoot;

namespace {

using Writes = std::vector<std::pair<std::string, std::string>>;

// The kernel with weights 1 for nodes 0-2 (and an auto mode file where `auto_now`).
void kernel_weights(FakeOs& os, std::optional<bool> auto_now = std::nullopt) {
  os.weights.present = true;
  os.weights.weights = {{0, 1}, {1, 1}, {2, 1}};
  if (auto_now) {
    os.weights.auto_file = "auto";
    os.weights.auto_mode = *auto_now;
  }
}

// Given weights for nodes 0-2 against what `os` has now.
WeightPlan given(const FakeOs& os, std::map<unsigned, unsigned> want) {
  WeightPlan p;
  p.source = WeightSource::Given;
  p.present = true;
  p.auto_file = os.weights.auto_file;
  p.auto_now = os.weights.auto_mode;
  for (unsigned n = 0; n < 3; ++n) {
    NodeWeight w{n, os.weights.weights.at(n), std::nullopt, std::nullopt};
    if (want.count(n)) w.want = want.at(n);
    p.nodes.push_back(w);
  }
  return p;
}

Error apply_error(FakeOs& os, const WeightPlan& plan) {
  try {
    apply_weights(os, plan);
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorKind::Usage, "no error");
}

Placement weighted_placement(const WeightPlan& plan) {
  Placement p = affix::test::placement_of("0-1", MemPolicy::Weighted, "0,2");
  p.weights = plan;
  return p;
}

LaunchRequest command(std::vector<std::string> argv) {
  LaunchRequest r;
  r.argv = std::move(argv);
  return r;
}

// Linux 6.16's weighted_interleave directory on a synthetic sysfs (files
// under a TempRoot), written as mm/mempolicy.c's stores do: a node's weight
// written sets it and turns the auto mode off; "true" written to `auto`
// sets every node's weight from its bandwidth (`bandwidth_weights`);
// "false" keeps the weights there.
class SysfsWeights : public WeightsOs {
public:
  SysfsWeights(const TempRoot& root, std::map<unsigned, unsigned> bandwidth_weights)
      : m_root(root), m_bandwidth(std::move(bandwidth_weights)) {}
  std::vector<std::pair<std::string, std::string>> writes;

  int check_weight_file(const std::string& name) override {
    return std::filesystem::exists(m_root.path(dir() + name)) ? 0 : ENOENT;
  }
  int write_weight_file(const std::string& name, const std::string& text) override {
    if (check_weight_file(name)) return ENOENT;
    writes.emplace_back(name, text);
    if (name == "auto") {
      auto on = parse_auto_mode(text);
      if (!on) return EINVAL;
      if (*on)
        for (const auto& [node, w] : m_bandwidth) m_root.write(dir() + "node" + std::to_string(node), fmt::format("{}\n", w));
      m_root.write(dir() + "auto", *on ? "true\n" : "false\n");
      return 0;
    }
    auto w = parse_weight(text);
    if (!w) return EINVAL;
    m_root.write(dir() + name, fmt::format("{}\n", *w));
    m_root.write(dir() + "auto", "false\n");
    return 0;
  }
  InterleaveWeights read_weights() override { return read_interleave_weights(SysRoot(m_root.path())); }

private:
  static std::string dir() { return std::string(k_weights_dir) + "/"; }
  const TempRoot& m_root;
  std::map<unsigned, unsigned> m_bandwidth;
};

std::string sysfs_file(const TempRoot& root, const std::string& name) {
  std::ifstream f(root.path(std::string(k_weights_dir) + "/" + name));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("weights auto on Linux 6.16: a failed run puts back the administrator's weights and the auto mode off") {
  TempRoot root;
  affix::test::cxl_machine(root);
  // The administrator's own weights, the kernel's auto mode off.
  affix::test::write_weights(root, {{0, 5}, {1, 4}, {2, 7}}, "false");
  WeightsRequest r;
  r.automatic = true;
  WeightPlan plan = plan_weights(r, *parse_cpulist("0,2").value, read_topology(SysRoot(root.path())));
  REQUIRE(plan.turn_auto_on);
  SysfsWeights os(root, {{0, 3}, {1, 3}, {2, 2}});
  AppliedWeights done = apply_weights(os, plan);
  CHECK(sysfs_file(root, "auto") == "true\n");
  CHECK(done.now.weights == std::map<unsigned, unsigned>{{0, 3}, {1, 3}, {2, 2}});
  // What a run that fails after this (its policy, CPUs, exec) does.
  CHECK(restore_weights(os, done.written).empty());
  CHECK(sysfs_file(root, "node0") == "5\n");
  CHECK(sysfs_file(root, "node1") == "4\n");
  CHECK(sysfs_file(root, "node2") == "7\n");
  CHECK(sysfs_file(root, "auto") == "false\n");
  CHECK(os.writes == Writes{{"auto", "true\n"}, {"node2", "7\n"}, {"node1", "4\n"}, {"node0", "5\n"}, {"auto", "false\n"}});

  // Auto mode on and weights given: a failed run turns it on again, and the
  // kernel sets its own weights.
  affix::test::write_weights(root, {{0, 3}, {1, 3}, {2, 2}}, "true");
  WeightsRequest g;
  g.given = {{0, 9}};
  SysfsWeights on(root, {{0, 3}, {1, 3}, {2, 2}});
  AppliedWeights given_done =
      apply_weights(on, plan_weights(g, *parse_cpulist("0,2").value, read_topology(SysRoot(root.path()))));
  CHECK(sysfs_file(root, "auto") == "false\n");
  CHECK(sysfs_file(root, "node0") == "9\n");
  CHECK(restore_weights(on, given_done.written).empty());
  CHECK(sysfs_file(root, "node0") == "3\n");
  CHECK(sysfs_file(root, "auto") == "true\n");
}

TEST_CASE("weights auto: a node file that could not be put back refuses before the auto mode is turned on") {
  FakeOs os;
  kernel_weights(os, false);
  os.weights.weights = {{0, 5}, {1, 4}, {2, 7}};
  os.check_weight_errors["node1"] = EACCES;
  WeightPlan p = given(os, {});
  p.source = WeightSource::KernelAuto;
  p.turn_auto_on = true;
  Error e = apply_error(os, p);
  CHECK(std::string(e.what()) == "cannot turn on the kernel's auto interleave weights: node 1's weight 4 could not be "
                                 "put back (Permission denied); nothing was written");
  CHECK(os.weight_writes.empty());
}

TEST_CASE("weights: every file is checked first; a refusal writes nothing") {
  FakeOs os;
  kernel_weights(os);
  os.check_weight_errors["node2"] = EACCES;
  Error e = apply_error(os, given(os, {{0, 3}, {2, 2}}));
  CHECK(std::string(e.what()) == "cannot write the interleave weight of node 2: Permission denied; nothing was written");
  CHECK(e.hint() == "the interleave weights are the machine's, for every process: writing them needs root");
  CHECK(os.weight_writes.empty());
  CHECK(os.weights.weights == std::map<unsigned, unsigned>{{0, 1}, {1, 1}, {2, 1}});
}

TEST_CASE("weights: where the k-th write fails, the ones before are put back, last first") {
  for (int k = 0; k < 3; ++k) {
    FakeOs os;
    kernel_weights(os);
    os.fail_write_at = k;
    Error e = apply_error(os, given(os, {{0, 3}, {1, 4}, {2, 2}}));
    unsigned failed = static_cast<unsigned>(k);
    std::string what = "cannot write the interleave weight of node " + std::to_string(failed) + ": Input/output error";
    if (k > 0) what += "; the weights written before it were put back";
    CHECK(std::string(e.what()) == what);
    Writes want;
    const char* written[] = {"3\n", "4\n"};
    for (int i = 0; i < k; ++i) want.emplace_back("node" + std::to_string(i), written[i]);
    for (int i = k - 1; i >= 0; --i) want.emplace_back("node" + std::to_string(i), "1\n");
    CHECK(os.weight_writes == want);
    CHECK(os.weights.weights == std::map<unsigned, unsigned>{{0, 1}, {1, 1}, {2, 1}});
  }
}

TEST_CASE("weights: a write turns the kernel's auto mode off; putting back turns it on again") {
  FakeOs os;
  kernel_weights(os, true);
  os.auto_weights = {{0, 1}, {1, 1}, {2, 1}};
  os.fail_write_at = 1;
  Error e = apply_error(os, given(os, {{0, 3}, {2, 2}}));
  CHECK(std::string(e.what()) ==
        "cannot write the interleave weight of node 2: Input/output error; the weights written before it were put back");
  CHECK(os.weight_writes == Writes{{"node0", "3\n"}, {"node0", "1\n"}, {"auto", "true\n"}});
  CHECK(os.weights.auto_mode == true);
}

TEST_CASE("weights: read back; where the kernel kept another, everything is put back") {
  FakeOs os;
  kernel_weights(os);
  AppliedWeights done = apply_weights(os, given(os, {{0, 3}, {2, 2}}));
  CHECK(done.now.weights == std::map<unsigned, unsigned>{{0, 3}, {1, 1}, {2, 2}});
  CHECK(done.written.old == std::vector<std::pair<unsigned, unsigned>>{{0, 1}, {2, 1}});
  CHECK(restore_weights(os, done.written).empty());
  CHECK(os.weights.weights == std::map<unsigned, unsigned>{{0, 1}, {1, 1}, {2, 1}});

  FakeOs kept;
  kernel_weights(kept);
  kept.kept_weights[2] = 5;
  Error e = apply_error(kept, given(kept, {{0, 3}, {2, 2}}));
  CHECK(std::string(e.what()) == "the kernel kept weight 5 for node 2, not 2; the weights written were put back");
  CHECK(kept.weights.weights.at(0) == 1);
}

TEST_CASE("weights: the kernel's auto mode turned on, and off again where the command does not start") {
  FakeOs os;
  kernel_weights(os, false);
  os.auto_weights = {{0, 3}, {1, 3}, {2, 2}};
  WeightPlan p = given(os, {});
  p.source = WeightSource::KernelAuto;
  p.turn_auto_on = true;
  os.exec_error = ENOENT;
  std::ostringstream out, err;
  CHECK(launch(os, weighted_placement(p), command({"nope"}), out, err) == 127);
  CHECK(os.weight_writes ==
        Writes{{"auto", "true\n"}, {"node2", "1\n"}, {"node1", "1\n"}, {"node0", "1\n"}, {"auto", "false\n"}});
  CHECK(os.weights.weights == std::map<unsigned, unsigned>{{0, 1}, {1, 1}, {2, 1}});
  CHECK(os.weights.auto_mode == false);
  CHECK(err.str().rfind("affix: warning: turning on the kernel's auto interleave weights", 0) == 0);
}

TEST_CASE("run writes the weights before the memory policy, and puts them back where the policy fails") {
  FakeOs os;
  kernel_weights(os);
  std::ostringstream out, err;
  REQUIRE(launch(os, weighted_placement(given(os, {{0, 3}})), command({"true"}), out, err) == 0);
  CHECK(os.calls == std::vector<std::string>{"has_weighted_interleave", "check_weight_file", "write_weight_file",
                                             "read_weights", "set_mempolicy", "set_affinity", "exec"});
  CHECK(os.set_mempolicy_calls.at(0).policy == MemPolicy::Weighted);
  CHECK(err.str() ==
        "affix: warning: writing the machine's interleave weights (node 0: 1 -> 3): every process's weighted "
        "interleave on this machine uses them from now on, not only this command's\n");

  FakeOs refused;
  kernel_weights(refused);
  refused.set_mempolicy_error = EINVAL;
  std::ostringstream o2, e2;
  try {
    launch(refused, weighted_placement(given(refused, {{0, 3}})), command({"true"}), o2, e2);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot set memory policy weighted interleave on nodes 0,2: Invalid argument; the "
                                   "interleave weights were put back");
  }
  CHECK(refused.weights.weights.at(0) == 1);
  CHECK(refused.exec_calls.empty());
}

TEST_CASE("-v says the weights as the kernel took them, after the warning and before the rest") {
  FakeOs os;
  kernel_weights(os, true);
  LaunchRequest r = command({"true"});
  r.verbose = true;
  std::ostringstream out, err;
  REQUIRE(launch(os, weighted_placement(given(os, {{0, 3}})), r, out, err) == 0);
  CHECK(err.str() ==
        "affix: warning: writing the machine's interleave weights (node 0: 1 -> 3; the kernel's auto mode turns "
        "off): every process's weighted interleave on this machine uses them from now on, not only this command's\n"
        "affix: set interleave weights node 0: 3, node 1: 1, node 2: 1 (read back from the kernel)\n"
        "affix: set memory policy weighted interleave on nodes 0,2\n"
        "affix: bind to CPUs 0-1 (2 CPUs; socket 0; node 0)\n"
        "affix: exec: true\n");
  CHECK(os.weights.auto_mode == false);  // the write turned the kernel's auto mode off
}

TEST_CASE("run --mem weighted on a kernel before 6.9: refused before anything, also by a dry run") {
  for (bool dry : {false, true}) {
    FakeOs os;
    kernel_weights(os);
    os.weighted_interleave = false;
    LaunchRequest r = command({"true"});
    r.dry_run = dry;
    std::ostringstream out, err;
    try {
      launch(os, weighted_placement(given(os, {{0, 3}})), r, out, err);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) == "cannot interleave by weights on nodes 0,2: this kernel has no "
                                     "MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later have it)");
      CHECK(e.hint() == "use --mem interleave (every node alike), or boot Linux 6.9 or later");
    }
    CHECK(os.calls == std::vector<std::string>{"has_weighted_interleave"});
  }
}

TEST_CASE("a dry run says which weights it would write and writes none") {
  FakeOs os;
  kernel_weights(os);
  LaunchRequest r = command({"true"});
  r.dry_run = true;
  std::ostringstream out, err;
  CHECK(launch(os, weighted_placement(given(os, {{0, 3}})), r, out, err) == 0);
  CHECK(os.weight_writes.empty());
  CHECK(out.str().rfind("affix: would set interleave weights node 0: 3 (now 1), node 1: 1, node 2: 1 (given with "
                        "--weights)\naffix: would set memory policy weighted interleave on nodes 0,2\n",
                        0) == 0);
}
