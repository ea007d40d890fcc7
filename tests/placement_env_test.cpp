#include <catch2/catch.hpp>

#include <map>

#include "fixtures.hpp"
#include "placement_env.hpp"

using namespace affix;
using affix::test::env_of;

namespace {

Placement sample() {
  Placement p;
  p.sequence = {0, 4, 1, 5};
  for (unsigned c : p.sequence) p.cpus.set(c);
  p.nodes = CpuSet::range(0, 1);
  return p;
}

}  // namespace

TEST_CASE("placement_env: every variable, places in selection order") {
  EnvVars expected = {{"AFFIX_CPUS", "0-1,4-5"},  {"AFFIX_NODES", "0-1"},
                      {"OMP_NUM_THREADS", "4"},   {"GOMAXPROCS", "4"},
                      {"OMP_PLACES", "{0},{4},{1},{5}"}, {"OMP_PROC_BIND", "close"}};
  CHECK(placement_env(sample(), env_of({})) == expected);
}

TEST_CASE("placement_env: variables already set are left alone, AFFIX_* always set") {
  auto env = env_of({{"OMP_NUM_THREADS", "2"}, {"OMP_PROC_BIND", "spread"}, {"AFFIX_CPUS", "7"}});
  EnvVars expected = {{"AFFIX_CPUS", "0-1,4-5"},
                      {"AFFIX_NODES", "0-1"},
                      {"GOMAXPROCS", "4"},
                      {"OMP_PLACES", "{0},{4},{1},{5}"}};
  CHECK(placement_env(sample(), env) == expected);
  auto all_set = env_of({{"OMP_NUM_THREADS", ""}, {"GOMAXPROCS", "1"}, {"OMP_PLACES", "cores"},
                         {"OMP_PROC_BIND", "true"}});
  CHECK(placement_env(sample(), all_set).size() == 2);
}
