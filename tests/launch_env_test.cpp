#include <catch2/catch.hpp>

#include <map>

#include "fixtures.hpp"
#include "launch_env.hpp"

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

TEST_CASE("launch_env: every variable, places in selection order") {
  EnvVars expected = {{"AFFIX_CPUS", "0-1,4-5"},  {"AFFIX_NODES", "0-1"},
                      {"OMP_NUM_THREADS", "4"},   {"GOMAXPROCS", "4"},
                      {"OMP_PLACES", "{0},{4},{1},{5}"}, {"OMP_PROC_BIND", "close"},
                      {"AFFIX_ENV", "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}};
  auto env = launch_env(sample(), env_of({}));
  CHECK(env.exported == expected);
  CHECK(env.kept.empty());
}

TEST_CASE("launch_env: variables the user set are kept and listed, AFFIX_* always set") {
  auto env = env_of({{"OMP_NUM_THREADS", "2"}, {"OMP_PROC_BIND", "spread"}, {"AFFIX_CPUS", "7"}});
  EnvVars expected = {{"AFFIX_CPUS", "0-1,4-5"},
                      {"AFFIX_NODES", "0-1"},
                      {"GOMAXPROCS", "4"},
                      {"OMP_PLACES", "{0},{4},{1},{5}"},
                      {"AFFIX_ENV", "GOMAXPROCS,OMP_PLACES"}};
  auto out = launch_env(sample(), env);
  CHECK(out.exported == expected);
  CHECK(out.kept == EnvVars{{"OMP_NUM_THREADS", "2"}, {"OMP_PROC_BIND", "spread"}});
  auto all_set = env_of({{"OMP_NUM_THREADS", ""}, {"GOMAXPROCS", "1"}, {"OMP_PLACES", "cores"},
                         {"OMP_PROC_BIND", "true"}});
  out = launch_env(sample(), all_set);
  CHECK(out.exported.size() == 3);
  CHECK(out.exported.back() == std::pair<std::string, std::string>{"AFFIX_ENV", ""});
  CHECK(out.kept.size() == 4);
}

TEST_CASE("launch_env: what an earlier affix --env exported is replaced") {
  // `affix --env all -- affix --env cpu:1 -- prog` on CPUs 0-1: the outer
  // affix's four variables, as it left them.
  std::map<std::string, std::string> outer = {
      {"AFFIX_CPUS", "0-1"},       {"AFFIX_NODES", "0"},
      {"OMP_NUM_THREADS", "2"},    {"GOMAXPROCS", "2"},
      {"OMP_PLACES", "{1},{0}"},   {"OMP_PROC_BIND", "close"},
      {"AFFIX_ENV", "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}};
  Placement inner;
  inner.cpus = CpuSet::range(1, 1);
  inner.sequence = {1};
  inner.nodes = CpuSet::range(0, 0);
  EnvVars expected = {{"AFFIX_CPUS", "1"},      {"AFFIX_NODES", "0"},
                      {"OMP_NUM_THREADS", "1"}, {"GOMAXPROCS", "1"},
                      {"OMP_PLACES", "{1}"},    {"OMP_PROC_BIND", "close"},
                      {"AFFIX_ENV", "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}};
  auto out = launch_env(inner, env_of(outer));
  CHECK(out.exported == expected);
  CHECK(out.kept.empty());

  // Changed since (by a job script): the user's now, kept.
  auto changed = outer;
  changed["OMP_NUM_THREADS"] = "8";
  changed["OMP_PLACES"] = "{0},{1},{1}";
  changed["OMP_PROC_BIND"] = "spread";
  out = launch_env(inner, env_of(changed));
  CHECK(out.kept == EnvVars{{"OMP_NUM_THREADS", "8"}, {"OMP_PLACES", "{0},{1},{1}"}, {"OMP_PROC_BIND", "spread"}});
  CHECK(out.exported.back().second == "GOMAXPROCS");

  // Not named in AFFIX_ENV (the outer affix kept the user's value): kept,
  // even where it looks like affix's.
  auto kept_before = outer;
  kept_before["AFFIX_ENV"] = "GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND";
  out = launch_env(inner, env_of(kept_before));
  CHECK(out.kept == EnvVars{{"OMP_NUM_THREADS", "2"}});

  // No AFFIX_CPUS to check the values against: kept.
  auto no_cpus = outer;
  no_cpus.erase("AFFIX_CPUS");
  CHECK(launch_env(inner, env_of(no_cpus)).kept.size() == 4);

  // Malformed places are not affix's.
  for (const char* places : {"{0},{1},", "{0}{1}", "{0-1}", "{0},{2}", "0,1", "{00},{1}"}) {
    auto odd = outer;
    odd["OMP_PLACES"] = places;
    CAPTURE(places);
    CHECK(launch_env(inner, env_of(odd)).kept == EnvVars{{"OMP_PLACES", places}});
  }
}
