// The exposition format (src/apply/metrics.*): one HELP and TYPE per
// family before its samples, each name+labels once in the labels' order,
// label values and help escaped, numbers without the locale; and the
// textfile collector's file, written whole.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <clocale>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "error.hpp"
#include "metrics.hpp"
#include "metrics_http.hpp"

using namespace affix;

TEST_CASE("metrics: families in declaration order, samples by their sorted labels, each once", "[metrics]") {
  Metrics m;
  m.family("affix_rule_placements_total", "Placements made, by rule.", MetricType::Counter);
  m.family("affix_rule_matched_processes", "Processes a rule matches now.", MetricType::Gauge);
  m.add("affix_rule_placements_total", {{"rule", "web"}}, 1);
  m.add("affix_rule_placements_total", {{"rule", "db"}}, 2);
  m.add("affix_rule_placements_total", {{"rule", "web"}}, 3);  // the same series: added up
  m.set("affix_rule_matched_processes", {{"rule", "db"}, {"comm", "postgres"}}, 4);
  CHECK(m.text() ==
        "# HELP affix_rule_placements_total Placements made, by rule.\n"
        "# TYPE affix_rule_placements_total counter\n"
        "affix_rule_placements_total{rule=\"db\"} 2\n"
        "affix_rule_placements_total{rule=\"web\"} 4\n"
        "# HELP affix_rule_matched_processes Processes a rule matches now.\n"
        "# TYPE affix_rule_matched_processes gauge\n"
        "affix_rule_matched_processes{comm=\"postgres\",rule=\"db\"} 4\n");
  CHECK(m.get("affix_rule_placements_total", {{"rule", "web"}}) == 4);
  m.clear("affix_rule_matched_processes");
  CHECK(m.text().find("affix_rule_matched_processes{") == std::string::npos);
  CHECK(m.text().find("# TYPE affix_rule_matched_processes gauge\n") != std::string::npos);  // the family stays
}

TEST_CASE("metrics: label values escape backslash, quote and newline; help escapes backslash and newline", "[metrics]") {
  CHECK(metric_label_value("a\\b\"c\nd\te") == "a\\\\b\\\"c\\nd\te");
  CHECK(metric_help("x\\y\nz \"q\"") == "x\\\\y\\nz \"q\"");
  Metrics m;
  m.family("affix_x", "Line one\nline two", MetricType::Gauge);
  m.set("affix_x", {{"comm", "evil\"}\nfake 1"}}, 1);
  CHECK(m.text() == "# HELP affix_x Line one\\nline two\n# TYPE affix_x gauge\naffix_x{comm=\"evil\\\"}\\nfake 1\"} 1\n");
}

TEST_CASE("metrics: numbers without the locale, the format's NaN and infinities", "[metrics]") {
  // A locale with a decimal comma, where the system has one.
  const char* was = std::setlocale(LC_ALL, nullptr);
  std::string saved = was ? was : "C";
  bool comma = std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr || std::setlocale(LC_ALL, "fr_FR.UTF-8") != nullptr;
  CHECK(metric_number(0.25) == "0.25");
  CHECK(metric_number(1234567) == "1234567");
  CHECK(metric_number(-3.5) == "-3.5");
  CHECK(metric_number(0) == "0");
  CHECK(metric_number(std::nan("")) == "NaN");
  CHECK(metric_number(1.0 / 0.0) == "+Inf");
  CHECK(metric_number(-1.0 / 0.0) == "-Inf");
  std::setlocale(LC_ALL, saved.c_str());
  INFO("a decimal-comma locale was " << (comma ? "set" : "not installed"));
}

TEST_CASE("metrics: names and label names are checked; an undeclared family is an error", "[metrics]") {
  CHECK(metric_name_ok("affix_rule:ratio"));
  CHECK_FALSE(metric_name_ok("1affix"));
  CHECK_FALSE(metric_name_ok("affix-rule"));
  CHECK_FALSE(metric_name_ok("a:b", true));
  Metrics m;
  CHECK_THROWS_WITH(m.set("affix_nope", {}, 1), "metric family affix_nope is not declared");
  m.family("affix_y", "y", MetricType::Gauge);
  CHECK_THROWS_WITH(m.set("affix_y", {{"bad-label", "v"}}, 1), "not a label name: bad-label");
}

TEST_CASE("metrics: the textfile collector's file is written whole, by rename", "[metrics]") {
  char dir[] = "/tmp/affix-metrics-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string path = std::string(dir) + "/affix.prom";
  write_metrics_file(path, "a 1\n");
  struct stat before {};
  REQUIRE(stat(path.c_str(), &before) == 0);
  write_metrics_file(path, "# HELP b b\n# TYPE b gauge\nb 2\n");
  struct stat after {};
  REQUIRE(stat(path.c_str(), &after) == 0);
  CHECK(after.st_ino != before.st_ino);  // a new file renamed over it, not rewritten in place
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "# HELP b b\n# TYPE b gauge\nb 2\n");
  CHECK((after.st_mode & 0777) == 0644);
  unlink(path.c_str());
  // A directory that does not exist: an error naming the file, nothing left behind.
  CHECK_THROWS_WITH(write_metrics_file(std::string(dir) + "/no/such.prom", "x 1\n"),
                    Catch::Contains("cannot write " + std::string(dir) + "/no/such.prom.tmp."));
  rmdir(dir);
}

TEST_CASE("metrics: --metrics ADDR:PORT", "[metrics]") {
  auto a = parse_metrics_address("127.0.0.1:9431");
  CHECK((a.host == "127.0.0.1" && a.port == 9431 && !a.ipv6));
  auto b = parse_metrics_address("[::1]:0");
  CHECK((b.host == "::1" && b.port == 0 && b.ipv6));
  auto c = parse_metrics_address(":80");
  CHECK((c.host == "0.0.0.0" && c.port == 80));
  CHECK_THROWS_WITH(parse_metrics_address("9431"), "--metrics: '9431' is not ADDR:PORT (no port)");
  CHECK_THROWS_WITH(parse_metrics_address("localhost:9431"),
                    "--metrics: 'localhost:9431' is not ADDR:PORT (not an IPv4 address)");
  CHECK_THROWS_WITH(parse_metrics_address("1.2.3.4:70000"),
                    "--metrics: '1.2.3.4:70000' is not ADDR:PORT (the port is a number from 0 to 65535)");
  CHECK_THROWS_WITH(parse_metrics_address("::1:80"), "--metrics: '::1:80' is not ADDR:PORT (not an IPv4 address)");
  CHECK_THROWS_WITH(parse_metrics_address("[::1]80"),
                    "--metrics: '[::1]80' is not ADDR:PORT (an IPv6 address is written [ADDR]:PORT)");
}
