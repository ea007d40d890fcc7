#include <catch2/catch.hpp>

#include "cpuset.hpp"

using namespace affix;

namespace {
std::string roundtrip(const std::string& text) {
  auto p = parse_cpulist(text);
  REQUIRE(p);
  return format_cpulist(*p.value);
}
std::string error_of(const std::string& text) {
  auto p = parse_cpulist(text);
  REQUIRE_FALSE(p);
  return p.error.message;
}
}  // namespace

TEST_CASE("cpulist parse and format round-trip") {
  CHECK(roundtrip("0") == "0");
  CHECK(roundtrip("0-3,8-11") == "0-3,8-11");
  CHECK(roundtrip("3,1,2") == "1-3");
  CHECK(roundtrip("0-31:2") == "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30");
  CHECK(roundtrip("1-7:3") == "1,4,7");
  CHECK(roundtrip("0-4095") == "0-4095");
  CHECK(roundtrip("8191") == "8191");
  CHECK(roundtrip("0-1,1-2") == "0-2");
  CHECK(roundtrip("63,64,127-128") == "63-64,127-128");
  CHECK(roundtrip("5\n") == "5");
  auto p = parse_cpulist("0-8191");
  REQUIRE(p);
  CHECK(p.value->count() == 8192);
}

TEST_CASE("cpulist errors quote the input") {
  CHECK(error_of("3-1") == "invalid cpulist '3-1': reversed range 3-1 at offset 2");
  CHECK(error_of("1,,2") == "invalid cpulist '1,,2': unexpected ',' at offset 2");
  CHECK(error_of("1,") == "invalid cpulist '1,': stray comma at offset 1");
  CHECK(error_of("-1") == "invalid cpulist '-1': unexpected '-' at offset 0");
  CHECK(error_of("+1") == "invalid cpulist '+1': unexpected '+' at offset 0");
  CHECK(error_of("0x10") == "invalid cpulist '0x10': unexpected 'x' at offset 1");
  CHECK(error_of("010") == "invalid cpulist '010': leading zero at offset 0");
  CHECK(error_of("1-") == "invalid cpulist '1-': missing number at offset 2");
  CHECK(error_of("0-7:0") == "invalid cpulist '0-7:0': stride 0 at offset 4");
  CHECK(error_of("2000000") == "invalid cpulist '2000000': number beyond 1048576 at offset 0");
  CHECK(error_of("") == "invalid cpulist '': empty list at offset 0");
  CHECK(parse_cpulist("", true));
  CHECK(parse_cpulist("\n", true).value->empty());
}

TEST_CASE("cpumask parse and format") {
  auto p = parse_cpumask("ffffffff,00000001");
  REQUIRE(p);
  CHECK(format_cpulist(*p.value) == "0,32-63");
  CHECK(format_cpumask(*p.value) == "ffffffff,00000001");
  auto q = parse_cpumask("00000000,00000003\n");
  REQUIRE(q);
  CHECK(format_cpulist(*q.value) == "0-1");
  CHECK(format_cpumask(CpuSet()) == "00000000");
  auto bad = parse_cpumask("ff,g0");
  REQUIRE_FALSE(bad);
  CHECK(bad.error.message == "invalid cpu mask 'ff,g0': unexpected 'g' at offset 3");
  CHECK_FALSE(parse_cpumask("123456789"));
  CHECK_FALSE(parse_cpumask("ff,,ff"));
}

TEST_CASE("set operations") {
  auto a = *parse_cpulist("0-9").value;
  auto b = *parse_cpulist("5-14").value;
  CHECK(format_cpulist(a & b) == "5-9");
  CHECK(format_cpulist(a | b) == "0-14");
  CHECK(format_cpulist(a - b) == "0-4");
  CHECK((b - b).empty());
  CHECK(a.intersects(b));
  CHECK(CpuSet::range(2, 3).is_subset_of(a));
  CHECK_FALSE(b.is_subset_of(a));
  CHECK(a.first() == 0);
  CHECK(*a.next(3) == 4);
  CHECK_FALSE(a.next(9));
  CHECK(a.end() == 10);
  CHECK(CpuSet::range(60, 130).count() == 71);
}

TEST_CASE("decimal parser is strict") {
  CHECK(*parse_decimal("0", 10) == 0);
  CHECK(*parse_decimal("10", 10) == 10);
  CHECK_FALSE(parse_decimal("11", 10));
  CHECK_FALSE(parse_decimal("01", 10));
  CHECK_FALSE(parse_decimal("-1", 10));
  CHECK_FALSE(parse_decimal("", 10));
  CHECK_FALSE(parse_decimal("99999999999999999999999", ~0ull));
}

TEST_CASE("set_range fills exactly the range, across words") {
  CpuSet s;
  s.set_range(60, 130);
  CHECK(format_cpulist(s) == "60-130");
  s.set_range(5, 5);
  s.set_range(9, 8);  // reversed: nothing
  CHECK(format_cpulist(s) == "5,60-130");
  CHECK(format_cpulist(CpuSet::range(0, 63)) == "0-63");
  CHECK(format_cpulist(CpuSet::range(64, 64)) == "64");
}
