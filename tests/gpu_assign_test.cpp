// Which GPU each local rank gets (affix(1), GPUS, "Which GPU"), on CPU sets
// alone: round robin over the GPUs near a rank's CPUs, shared evenly where
// ranks outnumber them, the most constrained ranks first.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "gpu_assign.hpp"

using namespace affix;
using affix::test::set_of;

namespace {

std::vector<CpuSet> sets(std::initializer_list<const char*> lists) {
  std::vector<CpuSet> out;
  for (const char* l : lists) out.push_back(set_of(l));
  return out;
}

// "0 1 - 2": each rank's GPU index, '-' for none.
std::string map_text(const std::vector<std::optional<size_t>>& m) {
  std::string out;
  for (const auto& g : m) out += (out.empty() ? "" : " ") + (g ? std::to_string(*g) : std::string("-"));
  return out;
}

// `ranks` equal slices of `cpus` CPUs, in order.
std::vector<CpuSet> slices(unsigned cpus, unsigned ranks) {
  std::vector<CpuSet> out;
  for (unsigned r = 0; r < ranks; ++r) {
    CpuSet s;
    for (unsigned c = r * cpus / ranks; c < (r + 1) * cpus / ranks; ++c) s.set(c);
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("gpu_assign: as many ranks as GPUs, each its own, on its node") {
  // 2 nodes of 8 CPUs, 2 GPUs on each.
  auto gpus = sets({"0-7", "0-7", "8-15", "8-15"});
  CHECK(map_text(assign_gpus(gpus, slices(16, 4))) == "0 1 2 3");
  CHECK(map_text(assign_gpus(gpus, slices(16, 2))) == "0 2");  // fewer ranks: one each, near it
  CHECK(map_text(assign_gpus(gpus, slices(16, 1))) == "0");
}

TEST_CASE("gpu_assign: more ranks than GPUs share them evenly, round robin within a node") {
  auto gpus = sets({"0-7", "0-7", "8-15", "8-15"});
  CHECK(map_text(assign_gpus(gpus, slices(16, 8))) == "0 1 0 1 2 3 2 3");
  CHECK(map_text(assign_gpus(gpus, slices(16, 16))) == "0 1 0 1 0 1 0 1 2 3 2 3 2 3 2 3");
  // One GPU for the whole machine: everyone shares it.
  CHECK(map_text(assign_gpus(sets({"0-15"}), slices(16, 3))) == "0 0 0");
}

TEST_CASE("gpu_assign: 8 GPUs over 4 nodes, 1 to 16 ranks") {
  auto gpus = sets({"0-3", "0-3", "4-7", "4-7", "8-11", "8-11", "12-15", "12-15"});
  CHECK(map_text(assign_gpus(gpus, slices(16, 1))) == "0");
  CHECK(map_text(assign_gpus(gpus, slices(16, 4))) == "0 2 4 6");
  CHECK(map_text(assign_gpus(gpus, slices(16, 8))) == "0 1 2 3 4 5 6 7");
  CHECK(map_text(assign_gpus(gpus, slices(16, 16))) == "0 1 0 1 2 3 2 3 4 5 4 5 6 7 6 7");
}

TEST_CASE("gpu_assign: a rank across two nodes chooses after those near one GPU") {
  // 3 ranks on 2 nodes of 4 CPUs: rank 1 spans both; one GPU per node.
  auto gpus = sets({"0-3", "4-7"});
  auto ranks = sets({"0-2", "3-5", "6-7"});
  // Ranks 0 and 2 (one GPU near each) first: gpu0, gpu1; rank 1 then shares the one
  // that holds more of its CPUs (4-5 of 3-5).
  CHECK(map_text(assign_gpus(gpus, ranks)) == "0 1 1");
  // Two ranks on the second node: they share its GPU, the first keeps its own.
  auto ranks2 = sets({"0-3", "4-5", "6-7"});
  CHECK(map_text(assign_gpus(gpus, ranks2)) == "0 1 1");
}

TEST_CASE("gpu_assign: a rank near no GPU gets none; ties go to the GPU with more of the rank's CPUs, then the pool's order") {
  CHECK(map_text(assign_gpus(sets({"0-3"}), sets({"0-3", "4-7"}))) == "0 -");
  CHECK(map_text(assign_gpus(sets({"4-7", "0-7"}), sets({"0-7", "0-7", "0-7"}))) == "1 0 1");
  CHECK(map_text(assign_gpus(sets({"0-7", "0-7"}), sets({"0-7", "0-7", "0-7"}))) == "0 1 0");
  CHECK(map_text(assign_gpus({}, sets({"0-7"}))) == "-");
}
