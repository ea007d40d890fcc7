#include <catch2/catch.hpp>

#include "error.hpp"
#include "location.hpp"

using namespace affix;

namespace {

std::string spec_error(const std::string& spec) {
  try {
    parse_location(spec);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Spec);
    return e.what();
  }
  return "no error";
}

std::string caret(const std::string& spec, const std::string& reason, size_t pos) {
  return "invalid location '" + spec + "': " + reason + "\n  " + spec + "\n  " +
         std::string(pos, ' ') + "^";
}

}  // namespace

TEST_CASE("location: the man page's example error text") {
  CHECK(spec_error("socket:1-0") ==
        "invalid location 'socket:1-0': reversed range\n  socket:1-0\n           ^");
}

TEST_CASE("location: syntax errors quote the spec and point at the offending character") {
  struct Case {
    const char* spec;
    const char* reason;
    size_t pos;
  };
  const Case cases[] = {
      {"", "empty location", 0},
      {"socke:1", "unknown level 'socke' (socket, node, die, llc, core, cpu)", 0},
      {"socket:0.cores:1", "unknown level 'cores' (socket, node, die, llc, core, cpu)", 9},
      {"Socket:0", "unknown level 'Socket' (socket, node, die, llc, core, cpu)", 0},
      {"socket", "expected ':' after 'socket'", 6},
      {"socket=1", "expected ':' after 'socket'", 6},
      {"socket:", "missing number", 7},
      {"socket:1-", "missing number", 9},
      {"cpu:3-1", "reversed range", 6},
      {"cpu:0-7:0", "stride 0", 8},
      {"cpu:0-7:", "missing number", 8},
      {"cpu:3:2", "a stride needs a range N-M", 5},
      {"cpu:01", "leading zero", 4},
      {"cpu:1-007", "leading zero", 6},
      {"cpu:1048577", "number beyond 1048576", 4},
      {"cpu:99999999999999999999999", "number beyond 1048576", 4},
      {"cpu:1,", "stray comma", 5},
      {"cpu:1,,2", "stray comma", 6},
      {"cpu:,1", "stray comma", 4},
      {"1,2,", "stray comma", 3},
      {"socket:1x", "unexpected 'x'", 8},
      {"socket:1 ", "unexpected ' '", 8},
      {"socket:0 + node:1", "unexpected ' '", 8},
      {"socket:0+", "missing location after '+'", 9},
      {"+socket:0", "missing location before '+'", 0},
      {"socket:0++node:1", "missing location before '+'", 9},
      {"socket:0.", "missing step after '.'", 9},
      {"socket:0..core:1", "expected a level (socket, node, die, llc, core, cpu), found '.'", 9},
      {"socket:0.1", "expected a level (socket, node, die, llc, core, cpu), found '1'", 9},
      {"0-3.core:1", "a bare CPU list takes no further step (write cpu:LIST)", 3},
      {"all.core:1", "a bare CPU list takes no further step (write cpu:LIST)", 3},
      {"socket:al", "expected 'all' or a number", 7},
      {"socket:all,1", "unexpected ','", 10},
      {"core:-1", "expected a number, found '-'", 5},
      {"-1", "expected a level or a CPU number, found '-'", 0},
      {"socket:0+,1", "expected a level or a CPU number, found ','", 9},
      {"node:1:2", "a stride needs a range N-M", 6},
      {"cpu:0-3:2:1", "unexpected ':'", 9},
      {"all:1", "unknown level 'all' (socket, node, die, llc, core, cpu)", 0},
      {"cpu:0x10", "unexpected 'x'", 5},
  };
  for (const auto& c : cases) {
    INFO(c.spec);
    CHECK(spec_error(c.spec) == caret(c.spec, c.reason, c.pos));
  }
}

TEST_CASE("location: a word close to a level name: did you mean, the caret kept") {
  auto hint_of = [](const std::string& spec) {
    try {
      parse_location(spec);
    } catch (const Error& e) {
      return e.hint();
    }
    return std::string("no error");
  };
  CHECK(spec_error("sokcet:0") == caret("sokcet:0", "unknown level 'sokcet' (socket, node, die, llc, core, cpu)", 0));
  CHECK(hint_of("sokcet:0") == "did you mean 'socket'?");
  CHECK(spec_error("socket:0.cores:1") ==
        caret("socket:0.cores:1", "unknown level 'cores' (socket, node, die, llc, core, cpu)", 9));
  CHECK(hint_of("socket:0.cores:1") == "did you mean 'core'?");
  CHECK(hint_of("nuam:1") == "did you mean 'numa'?");
  CHECK(hint_of("Socket:0") == "did you mean 'socket'?");
  CHECK(hint_of("frobnicate:1") == "");  // nothing close: no hint
  CHECK(hint_of("socket:1-0") == "");    // not a level mistake
}

TEST_CASE("location: non-printable bytes are shown as '?' so the caret stays aligned") {
  CHECK(spec_error("cpu:1\t") == caret("cpu:1?", "unexpected '?'", 5));
  CHECK(spec_error("cpu:\xc3\xa9") == caret("cpu:??", "expected a number, found '?'", 4));
}

TEST_CASE("location: an overlong spec is refused without quoting it") {
  std::string spec = "cpu:0";
  while (spec.size() <= k_max_location_length) spec += "+cpu:0";
  CHECK(spec_error(spec) == "location too long (" + std::to_string(spec.size()) +
                                " characters, at most 4096)");
  std::string fits(k_max_location_length, '1');
  CHECK_THROWS_WITH(parse_location(fits), Catch::Contains("number beyond"));
}

TEST_CASE("location: levels, aliases, ranges, strides, all, bare lists") {
  auto loc = parse_location("package:1.numa:0+l3:2.thread:all+pu:0-8:4,10+die:3+llc:1+core:0-3+2,5-6");
  REQUIRE(loc.terms.size() == 7);
  CHECK(loc.terms[0].steps.size() == 2);
  CHECK(loc.terms[0].steps[0].level == Level::Socket);
  CHECK(loc.terms[0].steps[0].ids.ranges.size() == 1);
  CHECK(loc.terms[0].steps[0].ids.ranges[0].first == 1);
  CHECK(loc.terms[0].steps[1].level == Level::Node);
  CHECK(loc.terms[0].steps[1].position == 10);
  CHECK(loc.terms[1].steps[0].level == Level::Llc);
  CHECK(loc.terms[1].steps[1].level == Level::Cpu);
  CHECK(loc.terms[1].steps[1].ids.all);
  const auto& r = loc.terms[2].steps[0].ids.ranges;
  REQUIRE(r.size() == 2);
  CHECK(r[0].first == 0);
  CHECK(r[0].last == 8);
  CHECK(r[0].stride == 4);
  CHECK(r[1].first == 10);
  CHECK(r[1].last == 10);
  CHECK(loc.terms[3].steps[0].level == Level::Die);
  CHECK(loc.terms[4].steps[0].level == Level::Llc);
  CHECK(loc.terms[5].steps[0].level == Level::Core);
  CHECK(loc.terms[6].bare);
  CHECK(loc.terms[6].steps[0].level == Level::Cpu);
  CHECK(loc.terms[6].steps[0].ids.ranges.size() == 2);
  CHECK(loc.terms[6].position == 66);
}

TEST_CASE("location: bare all and the largest number") {
  auto loc = parse_location("all");
  REQUIRE(loc.terms.size() == 1);
  CHECK(loc.terms[0].bare);
  CHECK(loc.terms[0].steps[0].ids.all);
  auto big = parse_location("cpu:1048576");
  CHECK(big.terms[0].steps[0].ids.ranges[0].first == k_max_id);
  CHECK(parse_location("0").terms[0].steps[0].ids.ranges[0].first == 0);
}

TEST_CASE("location: for_each_id walks strides and stops at the end") {
  std::vector<unsigned> seen;
  for_each_id(IdRange{1, 10, 3, 0}, [&](unsigned i) { seen.push_back(i); });
  CHECK(seen == std::vector<unsigned>{1, 4, 7, 10});
  seen.clear();
  for_each_id(IdRange{0, 7, 2, 0}, [&](unsigned i) { seen.push_back(i); });
  CHECK(seen == std::vector<unsigned>{0, 2, 4, 6});
  seen.clear();
  for_each_id(IdRange{k_max_id - 1, k_max_id, 1, 0}, [&](unsigned i) { seen.push_back(i); });
  CHECK(seen == std::vector<unsigned>{k_max_id - 1, k_max_id});
}

TEST_CASE("location: self as a first step, kind: in any step") {
  auto loc = parse_location("self+self.core:0-1+kind:performance+socket:0.kind:efficiency+kind:1,2+kind:all");
  REQUIRE(loc.terms.size() == 6);
  CHECK(loc.terms[0].steps.size() == 1);
  CHECK(loc.terms[0].steps[0].type == StepType::Self);
  CHECK(!loc.terms[0].bare);
  CHECK(loc.terms[1].steps[0].type == StepType::Self);
  CHECK(loc.terms[1].steps[1].type == StepType::Level);
  CHECK(loc.terms[1].steps[1].level == Level::Core);
  const Step& perf = loc.terms[2].steps[0];
  CHECK(perf.type == StepType::Kind);
  REQUIRE(perf.ids.ranges.size() == 1);
  CHECK(perf.ids.ranges[0].first == 0);
  CHECK(perf.ids.ranges[0].last == 0);
  CHECK(!perf.least);
  const Step& eff = loc.terms[3].steps[1];
  CHECK(eff.type == StepType::Kind);
  CHECK(eff.least);
  CHECK(eff.ids.ranges.empty());
  CHECK(loc.terms[4].steps[0].ids.ranges.size() == 2);
  CHECK(loc.terms[5].steps[0].ids.all);

  CHECK(spec_error("core:0.self") == caret("core:0.self", "'self' can only be the first step", 7));
  CHECK(spec_error("self:0") ==
        caret("self:0", "'self' takes no ':' (it names the CPUs affix was started on)", 4));
  CHECK(spec_error("kind") == caret("kind", "expected ':' after 'kind'", 4));
  CHECK(spec_error("kind:fast") == caret("kind:fast", "expected a kind: a number, 'performance' or 'efficiency'", 5));
  CHECK(spec_error("kind:") == caret("kind:", "missing number", 5));
  CHECK(spec_error("selfish") == caret("selfish", "unknown level 'selfish' (socket, node, die, llc, core, cpu)", 0));
  CHECK(spec_error("self.") == caret("self.", "missing step after '.'", 5));
}
