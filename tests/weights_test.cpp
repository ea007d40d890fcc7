// The interleave weights of --mem weighted: --weights as given, the
// kernel's auto mode, and the weights computed from HMAT bandwidth as the
// kernel computes them (weights.hpp).
#include <catch2/catch.hpp>

#include "command_line.hpp"
#include "error.hpp"
#include "memory_root.hpp"
#include "memory_text.hpp"
#include "resolver.hpp"
#include "topology.hpp"
#include "weights.hpp"

using namespace affix;
using namespace affix::test;

namespace {

using Weights = std::map<unsigned, unsigned>;

Topology cxl_topology(const TempRoot& root) { return read_topology(SysRoot(root.path())); }

std::string plan_error(const std::optional<WeightsRequest>& request, const char* nodes, const Topology& topo) {
  try {
    plan_weights(request, *parse_cpulist(nodes).value, topo);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Resolution);
    return e.what();
  }
  return "no error";
}

std::string usage_error(const std::string& text) {
  try {
    parse_weights_option(text);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("weights from bandwidth: the kernel's reduce_interleave_weights, exactly") {
  // 100 and 50 GB/s: 32 x 2/3 = 21 and 32 x 1/3 = 10 (rounded down), not 2:1.
  CHECK(weights_from_bandwidth({{0, 100000}, {1, 50000}}) == Weights{{0, 21}, {1, 10}});
  // 12000, 12000, 8000 of 32000: 12, 12, 8, divided by 4.
  CHECK(weights_from_bandwidth({{0, 12000}, {1, 12000}, {2, 8000}}) == Weights{{0, 3}, {1, 3}, {2, 2}});
  // 32 * 30000 / 70000 = 13 (rounded down), 32 * 10000 / 70000 = 4: no common divisor.
  CHECK(weights_from_bandwidth({{0, 30000}, {1, 30000}, {2, 10000}}) == Weights{{0, 13}, {1, 13}, {2, 4}});
  // Below 1/32 of the sum, and no figure at all: 1.
  CHECK(weights_from_bandwidth({{0, 1000000}, {1, 1}}) == Weights{{0, 31}, {1, 1}});
  CHECK(weights_from_bandwidth({{0, 24000}, {1, 0}}) == Weights{{0, 32}, {1, 1}});
  CHECK(weights_from_bandwidth({{0, 5000}}) == Weights{{0, 1}});
}

TEST_CASE("--weights N=W: these nodes, the policy's others keep theirs; only changes are written") {
  TempRoot root;
  cxl_machine(root);
  Topology t = cxl_topology(root);
  WeightsRequest r;
  r.given = {{0, 3}, {2, 1}};
  WeightPlan p = plan_weights(r, *parse_cpulist("0-2").value, t);
  CHECK(p.source == WeightSource::Given);
  CHECK(p.present);
  REQUIRE(p.nodes.size() == 3);
  CHECK(p.nodes[0].now == 1u);
  CHECK(p.nodes[0].want == 3u);
  CHECK(!p.nodes[1].want);  // not given: the kernel's
  REQUIRE(p.writes().size() == 1);
  CHECK(p.writes()[0].node == 0);
  CHECK(p.changes());
  r.given = {{0, 1}};
  CHECK(!plan_weights(r, *parse_cpulist("0,2").value, t).changes());  // already 1: nothing to write
  r.given = {{1, 3}};
  CHECK(plan_error(r, "0,2", t) == "--weights gives node 1 a weight, but it is not one of the policy's nodes (0,2)");
  root.remove("sys/kernel/mm/mempolicy/weighted_interleave/node2");
  r.given = {{2, 3}};
  CHECK(plan_error(r, "0,2", cxl_topology(root)) ==
        "the kernel has no interleave weight for node 2 (no weighted_interleave/node2)");
  // No --weights: the kernel's, nothing written.
  WeightPlan k = plan_weights(std::nullopt, *parse_cpulist("0,2").value, t);
  CHECK(k.source == WeightSource::Kernel);
  CHECK(!k.changes());
}

TEST_CASE("--weights auto: the kernel's auto mode where it has one") {
  TempRoot root;
  cxl_machine(root);
  write_weights(root, {{0, 3}, {1, 3}, {2, 2}}, "true");
  WeightsRequest r;
  r.automatic = true;
  WeightPlan on = plan_weights(r, *parse_cpulist("0,2").value, cxl_topology(root));
  CHECK(on.source == WeightSource::KernelAuto);
  CHECK(!on.turn_auto_on);
  CHECK(!on.changes());
  CHECK(on.nodes[1].now == 2u);
  write_weights(root, {}, "false");
  WeightPlan off = plan_weights(r, *parse_cpulist("0,2").value, cxl_topology(root));
  CHECK(off.turn_auto_on);
  CHECK(off.auto_file == "auto");
  CHECK(off.changes());
  CHECK(off.writes().empty());
}

TEST_CASE("--weights auto without the kernel's auto mode: from HMAT bandwidth, over every node with memory") {
  TempRoot root;
  cxl_machine(root);
  WeightsRequest r;
  r.automatic = true;
  WeightPlan p = plan_weights(r, *parse_cpulist("0,2").value, cxl_topology(root));
  CHECK(p.source == WeightSource::Bandwidth);
  REQUIRE(p.nodes.size() == 2);
  CHECK(p.nodes[0].want == 3u);  // 3:3:2 over nodes 0-2; the policy's nodes 0 and 2 get theirs
  CHECK(p.nodes[1].want == 2u);
  CHECK(p.nodes[1].bandwidth == 8000u);
  CHECK(p.warnings.empty());
  // A node without figures weighs 1, as the kernel's auto mode weighs it.
  root.remove("sys/devices/system/node/node1/access1");
  p = plan_weights(r, *parse_cpulist("0,2").value, cxl_topology(root));
  CHECK(p.nodes[0].want == 19u);  // 32 * 12000 / 20000 = 19, 32 * 8000 / 20000 = 12, and 1: no divisor
  CHECK(p.nodes[1].want == 12u);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == "node 1 has no HMAT bandwidth figures: weight 1, as the kernel's auto mode gives it");
  root.remove("sys/devices/system/node/node0/access1");
  root.remove("sys/devices/system/node/node2/access1");
  CHECK(plan_error(r, "0,2", cxl_topology(root)) ==
        "--weights auto: no node has HMAT bandwidth figures, and this kernel has no auto mode (Linux 6.16 and later "
        "have it)");
}

TEST_CASE("--weights is parsed once: auto, or node=weight pairs") {
  WeightsRequest w = parse_weights_option("0=3,2=1");
  CHECK(!w.automatic);
  CHECK(w.given == std::vector<std::pair<unsigned, unsigned>>{{0, 3}, {2, 1}});
  CHECK(parse_weights_option("auto").automatic);
  CHECK(usage_error("0=3,2") == "invalid --weights '0=3,2': expected 'auto' or NODE=WEIGHT,... (--weights 0=3,2=1)");
  CHECK(usage_error("0=256") == "invalid --weights '0=256': the weight of node 0 is 256, not 1 to 255");
  CHECK(usage_error("1=2,1=3") == "invalid --weights '1=2,1=3': node 1 given twice");
  CHECK(usage_error("") == "invalid --weights '': expected 'auto' or NODE=WEIGHT,... (--weights 0=3,2=1)");
}

TEST_CASE("pin's targets: one plan of their nodes, each once; the auto mode turned on where one turns it on") {
  TempRoot root;
  cxl_machine(root);
  Topology t = cxl_topology(root);
  WeightsRequest r;
  r.given = {{2, 4}};
  WeightPlan a = plan_weights(r, *parse_cpulist("0,2").value, t);
  WeightPlan b = plan_weights(r, *parse_cpulist("1-2").value, t);
  WeightPlan m = merge_weight_plans({a, b});
  REQUIRE(m.nodes.size() == 3);
  CHECK(m.nodes[0].node == 0);
  CHECK(m.nodes[1].node == 1);
  CHECK(m.nodes[2].node == 2);
  CHECK(m.nodes[2].want == 4u);
  REQUIRE(m.writes().size() == 1);
  CHECK(m.source == WeightSource::Given);
  CHECK_FALSE(m.turn_auto_on);
  write_weights(root, {}, "false");
  WeightsRequest autoreq;
  autoreq.automatic = true;
  WeightPlan off = plan_weights(autoreq, *parse_cpulist("0").value, cxl_topology(root));
  CHECK(merge_weight_plans({plan_weights(autoreq, *parse_cpulist("0").value, cxl_topology(root)), off}).turn_auto_on);
  CHECK(merge_weight_plans({}).nodes.empty());
}

TEST_CASE("pin --check --weights: the kernel's weights against those asked, in words") {
  TempRoot root;
  cxl_machine(root);
  Topology t = cxl_topology(root);
  WeightsRequest r;
  r.given = {{0, 3}};
  CHECK(weights_check_text(plan_weights(r, *parse_cpulist("0,2").value, t)) ==
        "interleave weights node 0: 1 (asked: 3), node 2: 1, not as asked (given with --weights)");
  r.given = {{0, 1}, {2, 1}};
  CHECK(weights_check_text(plan_weights(r, *parse_cpulist("0,2").value, t)) ==
        "interleave weights node 0: 1, node 2: 1, as asked (given with --weights)");
  WeightsRequest autoreq;
  autoreq.automatic = true;
  // Without the kernel's auto mode: the weights it would compute (3:3:2).
  CHECK(weights_check_text(plan_weights(autoreq, *parse_cpulist("0,2").value, t)) ==
        "interleave weights node 0: 1 (asked: 3), node 2: 1 (asked: 2), not as asked (from HMAT bandwidth, as the "
        "kernel's auto mode computes them)");
  write_weights(root, {{0, 3}, {1, 3}, {2, 2}}, "false");
  CHECK(weights_check_text(plan_weights(autoreq, *parse_cpulist("0,2").value, cxl_topology(root))) ==
        "interleave weights node 0: 3, node 2: 2, not as asked (the kernel's auto mode is off)");
  write_weights(root, {{0, 3}, {1, 3}, {2, 2}}, "true");
  CHECK(weights_check_text(plan_weights(autoreq, *parse_cpulist("0,2").value, cxl_topology(root))) ==
        "interleave weights node 0: 3, node 2: 2, as asked (the kernel's auto mode)");
}
