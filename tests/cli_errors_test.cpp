// parse_cli11: CLI11 parses topo, show and watch, but every mistake is told
// in affix's words, the same as the hand parser's (command_line_test.cpp).
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>

#include "cli_errors.hpp"
#include "error.hpp"
#include "command_line.hpp"

using namespace affix;

namespace {

// An app shaped like `affix show` (flags, a value option, PIDs), plus a
// typed option as watch has.
struct ShowLike {
  CLI::App app{"test", "affix show"};
  bool json = false;
  std::string root;
  double interval = 1;
  std::vector<std::string> pids;
  ShowLike() {
    app.add_flag("--json", json, "json")->disable_flag_override();
    app.add_option("--root", root, "root")->type_name("DIR");
    app.add_option("-i,--interval", interval, "seconds")->type_name("SECONDS");
    app.add_option("PID", pids, "pids")->type_name("");
  }
};

struct TopoLike {
  CLI::App app{"test", "affix topo"};
  bool json = false;
  std::string root;
  TopoLike() {
    app.add_flag("--json", json, "json")->disable_flag_override();
    app.add_option("--root", root, "root")->type_name("DIR");
  }
};

template <typename App> std::string error_of(const Args& args, const char* command, std::string* hint = nullptr) {
  App a;
  try {
    parse_cli11(a.app, args, command);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    if (hint) *hint = e.hint();
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("parse_cli11: values land where CLI11 puts them") {
  ShowLike s;
  REQUIRE(parse_cli11(s.app, {"--json", "--root=/r", "-i", "0.5", "1", "--", "-2"}, "show"));
  CHECK(s.json);
  CHECK(s.root == "/r");
  CHECK(s.interval == 0.5);
  CHECK(s.pids == std::vector<std::string>{"1", "-2"});
  ShowLike t;
  REQUIRE(parse_cli11(t.app, {"-i0.25", "--root", "--json"}, "show"));
  CHECK(t.interval == 0.25);
  CHECK(t.root == "--json");  // a value option takes the next word, whatever it is
  CHECK_FALSE(t.json);
}

TEST_CASE("parse_cli11: the usage line comes from the app") {
  CHECK(cli11_usage(ShowLike().app) == "usage: affix show [--json] [--root DIR] [-i SECONDS] [PID...]");
  CHECK(cli11_usage(TopoLike().app) == "usage: affix topo [--json] [--root DIR]");
}

TEST_CASE("parse_cli11: every mistake in affix's words") {
  std::string hint;
  CHECK(error_of<TopoLike>({"--bogus"}, "topo", &hint) == "unknown option '--bogus' for 'topo'");
  CHECK(hint == "usage: affix topo [--json] [--root DIR]; see 'affix topo --help'");
  CHECK(error_of<TopoLike>({"--bogus=1"}, "topo") == "unknown option '--bogus' for 'topo'");
  CHECK(error_of<TopoLike>({"-x"}, "topo") == "unknown option '-x' for 'topo'");
  CHECK(error_of<TopoLike>({"-hx"}, "topo") == "unknown option '-hx' for 'topo'");  // CLI11 would split it
  CHECK(error_of<TopoLike>({"--root"}, "topo", &hint) == "option '--root' needs a value");
  CHECK(hint == "usage: affix topo [--json] [--root DIR]; see 'affix topo --help'");
  // An empty attached value never takes the next word (CLI11's would).
  CHECK(error_of<TopoLike>({"--root=", "--json"}, "topo") == "option '--root' needs a value");
  CHECK(error_of<TopoLike>({"--root", ""}, "topo") == "option '--root' needs a value");
  CHECK(error_of<TopoLike>({"--json=1"}, "topo") == "option '--json' takes no value");
  CHECK(error_of<TopoLike>({"--json="}, "topo") == "option '--json' takes no value");
  CHECK(error_of<TopoLike>({"--root", "a", "--root=b"}, "topo") == "option '--root' given twice");
  CHECK(error_of<TopoLike>({"extra"}, "topo") == "unexpected argument 'extra' for 'topo'");
  CHECK(error_of<TopoLike>({"--", "--json"}, "topo") == "unexpected argument '--json' for 'topo'");
  CHECK(error_of<ShowLike>({"-i", "x"}, "show", &hint) == "invalid value 'x' for option '--interval'");
  CHECK(hint == "usage: affix show [--json] [--root DIR] [-i SECONDS] [PID...]; see 'affix show --help'");
  CHECK(error_of<ShowLike>({"--interval=fast", "1"}, "show") == "invalid value 'fast' for option '--interval'");
  CHECK(error_of<ShowLike>({"-i", "1", "--interval=2"}, "show") == "option '--interval' given twice");
  // Flags may be repeated, as in the hand parser.
  CHECK(error_of<TopoLike>({"--json", "--json"}, "topo") == "no error");
}

TEST_CASE("parse_cli11: did you mean, as the hand parser says it") {
  std::string hint;
  CHECK(error_of<TopoLike>({"--jsn"}, "topo", &hint) == "unknown option '--jsn' for 'topo'");
  CHECK(hint == "did you mean '--json'?");
  CHECK(error_of<ShowLike>({"--rot=/x"}, "show", &hint) == "unknown option '--rot' for 'show'");
  CHECK(hint == "did you mean '--root'?");
  CHECK(error_of<TopoLike>({"--frobnicate"}, "topo", &hint) == "unknown option '--frobnicate' for 'topo'");
  CHECK(hint == "usage: affix topo [--json] [--root DIR]; see 'affix topo --help'");
  // The same words from the hand parser of run, explain and pin.
  try {
    parse_command_line(CommandKind::Pin, {"--no-smtt", "0", "1"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "unknown option '--no-smtt' for 'pin'");
    CHECK(e.hint() == "did you mean '--no-smt'?");
  }
}

TEST_CASE("parse_cli11: --help stops the checking where it stands") {
  TopoLike a;
  CHECK_FALSE(parse_cli11(a.app, {"--help", "--bogus", "--root"}, "topo"));
  CHECK(error_of<TopoLike>({"--bogus", "--help"}, "topo") == "unknown option '--bogus' for 'topo'");
}
