// The --mem words (command_line.cpp, parse_mem_option) down to the mode
// set_mempolicy(2) is given (os_linux.cpp, mem_policy_mode): the kernel's
// MPOL_* numbers, written out here as the uapi header
// include/uapi/linux/mempolicy.h numbers them (MPOL_DEFAULT 0,
// MPOL_PREFERRED 1, MPOL_BIND 2, MPOL_INTERLEAVE 3, MPOL_LOCAL 4,
// MPOL_PREFERRED_MANY 5 since Linux 5.15, MPOL_WEIGHTED_INTERLEAVE 6 since
// 6.9), so that a mode swapped or renumbered in os_linux.cpp fails here and
// not only in a shell test on a machine with several nodes.
#include <catch2/catch.hpp>

#include "command_line.hpp"
#include "error.hpp"
#include "fixtures.hpp"
#include "os.hpp"

using namespace affix;
using affix::test::set_of;

namespace {

// The mode a --mem word gives over `nodes`.
int mode_of(const std::string& word, const char* nodes) {
  return mem_policy_mode(parse_mem_option(word).policy, *nodes ? set_of(nodes) : CpuSet());
}

std::string refusal(const std::string& word) {
  try {
    parse_mem_option(word);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return e.what();
  }
  FAIL("parse_mem_option accepted " << word);
  return {};
}

}  // namespace

TEST_CASE("--mem words map to the kernel's MPOL_* modes", "[mempolicy]") {
  CHECK(mode_of("preferred", "1") == 1);    // MPOL_PREFERRED
  CHECK(mode_of("bind", "0") == 2);         // MPOL_BIND
  CHECK(mode_of("bind", "0-3") == 2);
  CHECK(mode_of("interleave", "0-1") == 3); // MPOL_INTERLEAVE
  CHECK(mode_of("local", "") == 4);         // MPOL_LOCAL
  CHECK(mode_of("preferred", "0-1") == 5);  // MPOL_PREFERRED_MANY: several nodes preferred
  CHECK(mode_of("preferred", "0,2") == 5);
  CHECK(mode_of("weighted", "0-1") == 6);   // MPOL_WEIGHTED_INTERLEAVE
  // With nodes after ':' the word is the same policy.
  CHECK(parse_mem_option("bind:0").policy == MemPolicy::Bind);
  CHECK(parse_mem_option("interleave:0-1").policy == MemPolicy::Interleave);
  CHECK(parse_mem_option("preferred:1").policy == MemPolicy::Preferred);
  CHECK(parse_mem_option("weighted:0-1").policy == MemPolicy::Weighted);
  // Each policy's name (explain, --json) is its word.
  for (const char* word : {"bind", "preferred", "interleave", "local", "weighted"})
    CHECK(std::string(mem_policy_name(parse_mem_option(word).policy)) == word);
}

TEST_CASE("--mem has no word for MPOL_DEFAULT nor one for MPOL_PREFERRED_MANY", "[mempolicy]") {
  // MPOL_DEFAULT is what a command has without --mem; preferred-many is
  // 'preferred' over several nodes.
  CHECK(refusal("default") ==
        "invalid --mem 'default': unknown policy 'default' (expected bind, preferred, interleave, weighted or local)");
  CHECK(refusal("preferred-many:0-1") ==
        "invalid --mem 'preferred-many:0-1': unknown policy 'preferred-many' (expected bind, preferred, interleave, "
        "weighted or local)");
}
