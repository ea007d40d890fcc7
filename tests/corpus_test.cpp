#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "corpus.hpp"

using namespace affix::test;

TEST_CASE("all 26 captures are extracted with sys/ and an oracle") {
  auto names = corpus_names();
  CHECK(names.size() == 26);
  for (auto& n : names) {
    INFO(n);
    struct stat st;
    CHECK(stat((corpus_root(n) + "/sys").c_str(), &st) == 0);
    CHECK(stat(oracle_path(n, "hwloc.tsv").c_str(), &st) == 0);
    CHECK(stat(oracle_path(n, "queries.tsv").c_str(), &st) == 0);
  }
}
