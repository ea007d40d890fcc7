#include <catch2/catch.hpp>

#include "error.hpp"
#include "command_line.hpp"

using namespace affix;

namespace {

CommandLine parse(CommandKind kind, Args args) { return parse_command_line(kind, args); }
CommandLine run(Args args) { return parse(CommandKind::Run, std::move(args)); }

// The message of the usage error the words give.
std::string error_of(CommandKind kind, Args args) {
  try {
    parse_command_line(kind, args);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return e.what();
  }
  FAIL("no error");
  return {};
}
std::string run_error(Args args) { return error_of(CommandKind::Run, std::move(args)); }

// The hint of the usage error the words give.
std::string hint_of(CommandKind kind, const Args& args) {
  try {
    parse_command_line(kind, args);
  } catch (const Error& e) {
    return e.hint();
  }
  return "no error";
}

}  // namespace

TEST_CASE("run: the first word after WHERE that is not an option starts the command") {
  auto cl = run({"0", "ls", "-l"});
  CHECK(cl.request.where == "0");
  CHECK(cl.rest == Args{"ls", "-l"});

  cl = run({"--no-smt", "socket:0", "-n", "2", "./server", "--no-smt", "-n", "3"});
  CHECK(cl.request.where == "socket:0");
  CHECK(cl.request.no_smt);
  CHECK(cl.request.count == 2u);
  CHECK(cl.rest == Args{"./server", "--no-smt", "-n", "3"});

  cl = run({"all", "-v", "--env", "--dry-run", "--", "--weird", "a b", "'q'"});
  CHECK(cl.verbose);
  CHECK(cl.env);
  CHECK(cl.dry_run);
  CHECK(cl.rest == Args{"--weird", "a b", "'q'"});

  // An unknown dash word after WHERE is the command.
  cl = run({"0", "-l", "x"});
  CHECK(cl.rest == Args{"-l", "x"});
  // "--" before WHERE: WHERE is the next word, then the command.
  cl = run({"-v", "--", "0-1", "--", "x"});
  CHECK(cl.request.where == "0-1");
  CHECK(cl.rest == Args{"--", "x"});
  // "-" alone is a word, not an option.
  cl = run({"0", "-"});
  CHECK(cl.rest == Args{"-"});
}

TEST_CASE("value options in every spelling") {
  auto cl = run({"--count=3", "--order=scatter", "--exclude", "cpu:1", "--slice", "1/4",
                 "--mem=interleave:0-1", "all", "true"});
  CHECK(cl.request.count == 3u);
  CHECK(cl.request.order == Order::Scatter);
  CHECK(cl.request.exclude == std::optional<std::string>("cpu:1"));
  REQUIRE(cl.request.slice);
  CHECK(!cl.request.slice->from_rank);
  CHECK(cl.request.slice->k == 1);
  CHECK(cl.request.slice->n == 4);
  REQUIRE(cl.request.mem);
  CHECK(cl.request.mem->policy == MemPolicy::Interleave);
  REQUIRE(cl.request.mem->nodes);
  CHECK(cl.request.mem->nodes->text == "0-1");
  CHECK(format_cpulist(cl.request.mem->nodes->terms.at(0).ids) == "0-1");

  cl = run({"-n4", "-mbind", "all", "true"});
  CHECK(cl.request.count == 4u);
  CHECK(cl.request.mem->policy == MemPolicy::Bind);
  CHECK(!cl.request.mem->nodes);

  cl = run({"all", "-m", "preferred:1", "--slice=rank", "true"});
  CHECK(cl.request.mem->policy == MemPolicy::Preferred);
  REQUIRE(cl.request.mem->nodes);
  CHECK(cl.request.mem->nodes->text == "1");
  CHECK(cl.request.slice->from_rank);

  cl = run({"all", "--mem", "local", "true"});
  CHECK(cl.request.mem->policy == MemPolicy::Local);
  CHECK(cl.request.order == Order::Compact);
}

TEST_CASE("explain and pin options") {
  auto cl = parse(CommandKind::Explain, {"socket:1", "--json", "--root", "/tmp/x", "--no-smt"});
  CHECK(cl.request.where == "socket:1");
  CHECK(cl.json);
  CHECK(cl.root == std::optional<std::string>("/tmp/x"));
  CHECK(cl.request.no_smt);
  CHECK(cl.rest.empty());

  cl = parse(CommandKind::Pin, {"--tid", "node:0", "12", "--spread", "13", "-v", "--migrate"});
  CHECK(cl.tid);
  CHECK(cl.spread);
  CHECK(cl.verbose);
  CHECK(cl.migrate);
  CHECK(cl.request.where == "node:0");
  CHECK(cl.rest == Args{"12", "13"});
  // pin takes --weights too (written before --migrate spreads the pages, or checked).
  cl = parse(CommandKind::Pin, {"--migrate", "--mem", "weighted:0,2", "--weights", "0=3,2=1", "node:0", "12"});
  REQUIRE(cl.request.weights);
  CHECK(cl.request.weights->given == std::vector<std::pair<unsigned, unsigned>>{{0, 3}, {2, 1}});
  CHECK(error_of(CommandKind::Pin, {"--migrate", "--weights", "auto", "node:0", "12"}) ==
        "--weights goes with --mem weighted");

  CHECK(parse(CommandKind::Explain, {"--help"}).help);
  CHECK(parse(CommandKind::Run, {"-h"}).help);
  CHECK(parse(CommandKind::Pin, {"0", "--help"}).help);
  // --help after the command belongs to the command.
  auto r = run({"0", "ls", "--help"});
  CHECK(!r.help);
  CHECK(r.rest == Args{"ls", "--help"});
}

TEST_CASE("usage errors have exact messages and hints") {
  try {
    parse_command_line(CommandKind::Run, {});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "no location given");
    CHECK(e.hint() == "usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]; see 'affix run --help'");
  }
  CHECK(run_error({"0"}) == "no command given to run at '0'");
  CHECK(run_error({"0", "--"}) == "no command given to run at '0'");
  // The command read as WHERE (no WHERE before it): said so, with 'all' offered.
  CHECK(run_error({"--slice", "rank", "--", "./omp"}) == "no command given to run: './omp' was read as WHERE");
  try {
    parse_command_line(CommandKind::Run, {"--gpu", "closest", "./a b"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.hint() == "WHERE comes before the command, and 'all' is every CPU affix may use: "
                      "'affix --gpu closest all './a b''");
  }
  CHECK(run_error({"--bogus", "0", "ls"}) == "unknown option '--bogus' for 'run'");
  CHECK(run_error({"--json", "0", "ls"}) == "unknown option '--json' for 'run'");
  CHECK(run_error({"-vx", "0", "ls"}) == "unknown option '-vx' for 'run'");
  CHECK(run_error({"0", "-n"}) == "option '-n' needs a value");
  CHECK(run_error({"--count"}) == "option '--count' needs a value");
  CHECK(run_error({"-n", "2", "--count", "3", "0", "ls"}) == "option '--count' given twice");
  CHECK(run_error({"--slice", "rank", "--slice", "0/2", "0", "ls"}) == "option '--slice' given twice");
  CHECK(run_error({"-m", "bind", "--mem=local", "0", "ls"}) == "option '--mem' given twice");
  CHECK(run_error({"--no-smt=1", "0", "ls"}) == "option '--no-smt' takes no value");
  CHECK(run_error({"-n", "0", "0", "ls"}) == "invalid --count '0': expected a whole number from 1 to 1048576");
  CHECK(run_error({"-n", "-2", "0", "ls"}) == "invalid --count '-2': expected a whole number from 1 to 1048576");
  CHECK(run_error({"-n", "02", "0", "ls"}) == "invalid --count '02': expected a whole number from 1 to 1048576");
  CHECK(run_error({"-n", "1048577", "0", "ls"}) == "invalid --count '1048577': expected a whole number from 1 to 1048576");
  CHECK(run_error({"--order", "random", "0", "ls"}) == "invalid --order 'random': expected compact or scatter");
  CHECK(run_error({"--slice", "2", "0", "ls"}) == "invalid --slice '2': expected K/N (part K of N, 0-based) or 'rank'");
  CHECK(run_error({"--slice", "a/2", "0", "ls"}) == "invalid --slice 'a/2': expected K/N (part K of N, 0-based) or 'rank'");
  CHECK(run_error({"--slice", "0/0", "0", "ls"}) == "invalid --slice '0/0': N must be at least 1");
  CHECK(run_error({"--slice", "2/2", "0", "ls"}) == "invalid --slice '2/2': there is no part 2 of 2 (parts are numbered 0 to 1)");
  CHECK(run_error({"--mem", "fast", "0", "ls"}) == "invalid --mem 'fast': unknown policy 'fast' (expected bind, preferred, interleave, weighted or local)");
  CHECK(run_error({"--mem", "local:0", "0", "ls"}) == "invalid --mem 'local:0': 'local' takes no nodes");
  CHECK(run_error({"--mem", "bind:", "0", "ls"}) == "invalid --mem 'bind:': bad node list: empty list at offset 0");
  CHECK(run_error({"--mem", "bind:1-0", "0", "ls"}) == "invalid --mem 'bind:1-0': bad node list: reversed range 1-0 at offset 2");

  CHECK(error_of(CommandKind::Explain, {}) == "no location given");
  CHECK(error_of(CommandKind::Explain, {"0", "1"}) == "unexpected '1' after the location '0'");
  CHECK(error_of(CommandKind::Explain, {"0", "--env"}) == "unknown option '--env' for 'explain'");
  CHECK(error_of(CommandKind::Explain, {"0", "--root"}) == "option '--root' needs a value");
  CHECK(error_of(CommandKind::Explain, {"0", "--root="}) == "option '--root' needs a value");
  CHECK(error_of(CommandKind::Explain, {"0", "--root", ""}) == "option '--root' needs a value");
  CHECK(error_of(CommandKind::Pin, {"0"}) == "no process ID given: '0' was read as WHERE");
  CHECK(error_of(CommandKind::Pin, {"--tid", "0"}) == "no thread ID given: '0' was read as WHERE");
  CHECK(error_of(CommandKind::Pin, {"--irq", "all"}) == "no IRQ or device given: 'all' was read as WHERE");
  // A scheduling option with a selection option still needs WHERE.
  CHECK(error_of(CommandKind::Pin, {"--policy", "batch", "--count", "1", "4242"}) ==
        "no process ID given: '4242' was read as WHERE");
  CHECK(error_of(CommandKind::Pin, {"--nice", "5", "--migrate", "4242"}) == "no process ID given: '4242' was read as WHERE");
  CHECK(error_of(CommandKind::Pin, {"0", "12", "--env"}) == "unknown option '--env' for 'pin'");
}

TEST_CASE("pin with a scheduling option alone and one word: the word is the ID, the CPUs are kept") {
  // `affix pin --policy batch 4242`, as chrt -p takes it (issue 33, item 11).
  for (const Args& args : {Args{"--policy", "batch", "4242"}, Args{"4242", "--nice", "5"}, Args{"--uclamp", "0:512", "4242"},
                           Args{"--check", "--policy", "batch", "4242"}, Args{"--tree", "--policy", "idle", "4242"}}) {
    CommandLine cl = parse_command_line(CommandKind::Pin, args);
    CHECK(cl.keep_cpus);
    CHECK(cl.request.where.empty());
    CHECK(cl.rest == Args{"4242"});
  }
  CommandLine tid = parse_command_line(CommandKind::Pin, {"--tid", "--policy", "batch", "4250"});
  CHECK((tid.keep_cpus && tid.tid && tid.rest == Args{"4250"}));
  // Two words: the first is WHERE, as before.
  CommandLine two = parse_command_line(CommandKind::Pin, {"--policy", "batch", "0", "4242"});
  CHECK_FALSE(two.keep_cpus);
  CHECK(two.request.where == "0");
  CHECK(two.rest == Args{"4242"});
}

TEST_CASE("an unknown option close to one of the command's: did you mean") {
  CHECK(run_error({"--no-smtt", "0", "ls"}) == "unknown option '--no-smtt' for 'run'");
  CHECK(hint_of(CommandKind::Run, {"--no-smtt", "0", "ls"}) == "did you mean '--no-smt'?");
  CHECK(hint_of(CommandKind::Run, {"--cont=2", "0", "ls"}) == "did you mean '--count'?");
  CHECK(hint_of(CommandKind::Explain, {"0", "--jsn"}) == "did you mean '--json'?");
  CHECK(hint_of(CommandKind::Pin, {"--migrat", "0", "1"}) == "did you mean '--migrate'?");
  // Only the command's own options are offered; nothing close: the usage.
  CHECK(hint_of(CommandKind::Run, {"--jsn", "0", "ls"}) ==
        "usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]; see 'affix run --help'");
  CHECK(hint_of(CommandKind::Pin, {"-x", "0", "1"}) ==
        "usage: affix pin [OPTIONS] WHERE PID...; see 'affix pin --help'");
}

TEST_CASE("numactl's and taskset's options: the hint says them in affix's words") {
  auto run_hint = [&](const Args& args) { return hint_of(CommandKind::Run, args); };
  CHECK(run_error({"--cpunodebind=0", "--membind=0", "ls"}) == "unknown option '--cpunodebind' for 'run'");
  CHECK(run_hint({"--cpunodebind=0", "--membind=0", "ls"}) ==
        "numactl's --cpunodebind=0 --membind=0 is 'affix node:0 --mem bind'");
  CHECK(run_hint({"-N", "1", "-m", "1", "ls"}) == "numactl's -N 1 -m 1 is 'affix node:1 --mem bind'");
  CHECK(run_hint({"-N0", "-m", "1", "ls"}) == "numactl's -N0 -m 1 is 'affix node:0 --mem bind:1'");
  CHECK(run_hint({"--cpubind", "0-1", "ls"}) == "numactl's --cpubind 0-1 is 'affix node:0-1'");
  CHECK(run_hint({"-C", "0-3", "ls"}) == "numactl's -C 0-3 is 'affix 0-3'");
  CHECK(run_hint({"--physcpubind=2", "--localalloc", "ls"}) ==
        "numactl's --physcpubind=2 --localalloc is 'affix 2 --mem local'");
  CHECK(run_hint({"-C", "1", "--membind=0", "ls"}) == "numactl's -C 1 --membind=0 is 'affix 1 --mem bind:0'");
  CHECK(run_hint({"--interleave=all", "ls"}) == "numactl's --interleave=all is 'affix all --mem interleave'");
  CHECK(run_hint({"-i", "0,1", "-N", "0", "ls"}) ==
        "numactl's -i 0,1 -N 0 is 'affix node:0 --mem interleave:0,1'");
  CHECK(run_hint({"--preferred=1", "ls"}) == "numactl's --preferred=1 is 'affix all --mem preferred:1'");
  CHECK(run_hint({"-w", "0,2", "-N", "0", "ls"}) ==
        "numactl's -w 0,2 -N 0 is 'affix node:0 --mem weighted:0,2'");
  CHECK(run_hint({"--weighted-interleave=all", "ls"}) ==
        "numactl's --weighted-interleave=all is 'affix all --mem weighted'");
  CHECK(run_hint({"-l", "ls"}) == "numactl's -l is 'affix all --mem local'");
  CHECK(run_hint({"-c", "0-3", "ls"}) == "taskset's -c 0-3 is 'affix 0-3'");
  CHECK(run_hint({"--cpu-list", "1", "ls"}) == "taskset's --cpu-list 1 is 'affix 1'");
  CHECK(run_hint({"-p", "1234"}) == "taskset's -p 1234 is 'affix show 1234'");
  CHECK(run_hint({"-p", "0x3", "1234"}) == "taskset's -p 0x3 1234 is 'affix pin 0-1 1234'");
  CHECK(run_hint({"-p", "f0", "1234"}) == "taskset's -p f0 1234 is 'affix pin 4-7 1234'");
  CHECK(run_hint({"-pc", "0-1", "1234"}) == "taskset's -pc 0-1 1234 is 'affix pin 0-1 1234'");
  CHECK(run_hint({"-a", "-cp", "1", "12"}) == "taskset's -a -cp 1 12 is 'affix pin 1 12'");
  CHECK(hint_of(CommandKind::Explain, {"--cpunodebind=1"}) == "numactl's --cpunodebind=1 is 'affix explain node:1'");
  // Words from the user are escaped like every name.
  CHECK(run_hint({"-C", "0\x1b", "ls"}) == "numactl's -C 0\\e is 'affix 0\\e'");
  // numactl's -m NODES is affix's -m (--mem) with a node list for a policy.
  CHECK(run_error({"-m", "0", "ls"}) ==
        "invalid --mem '0': unknown policy '0' (expected bind, preferred, interleave, weighted or local)");
  CHECK(run_hint({"-m", "0", "ls"}) == "numactl's -m 0 is '--mem bind:0'");
  CHECK(run_hint({"-m", "0-1", "ls"}) == "numactl's -m 0-1 is '--mem bind:0-1'");
  CHECK(run_hint({"-m", "fast", "ls"}) == "");
  // Neither tool's option: the usage line as before.
  CHECK(run_hint({"-q", "ls"}) == "usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]; see 'affix run --help'");
}

TEST_CASE("help texts name every option of their command") {
  auto run_help = command_help(CommandKind::Run);
  for (const char* o : {"--env", "--dry-run", "--verbose", "--no-smt", "--count", "--order",
                        "--exclude", "--slice", "--mem", "125", "126", "127"})
    CHECK(run_help.find(o) != std::string::npos);
  auto explain_help = command_help(CommandKind::Explain);
  for (const char* o : {"--json", "--root", "--no-smt", "--slice"})
    CHECK(explain_help.find(o) != std::string::npos);
  auto pin_help = command_help(CommandKind::Pin);
  for (const char* o : {"--tid", "--spread", "--migrate", "--verbose"})
    CHECK(pin_help.find(o) != std::string::npos);
}

TEST_CASE("explain --as: the five formats, and not with --json") {
  CHECK(parse(CommandKind::Explain, {"0", "--as", "systemd"}).as == AsFormat::Systemd);
  CHECK(parse(CommandKind::Explain, {"0", "--as", "nginx", "--spread=2"}).as == AsFormat::Nginx);
  CHECK(parse(CommandKind::Explain, {"0", "--as", "nginx", "--spread=2"}).spread == 2);
  CHECK(parse(CommandKind::Explain, {"--as=docker", "0"}).as == AsFormat::Docker);
  CHECK(parse(CommandKind::Explain, {"0", "--as", "taskset"}).as == AsFormat::Taskset);
  CHECK(parse(CommandKind::Explain, {"0", "--as", "numactl", "-m", "bind"}).as == AsFormat::Numactl);
  CHECK(!parse(CommandKind::Explain, {"0"}).as);
  CHECK(error_of(CommandKind::Explain, {"0", "--as", "slurm"}) ==
        "invalid --as 'slurm': expected systemd, nginx, docker, taskset or numactl");
  CHECK(error_of(CommandKind::Explain, {"0", "--as", "taskset", "--json"}) ==
        "--as and --json cannot be used together");
  CHECK(error_of(CommandKind::Explain, {"--json", "0", "--as=docker"}) ==
        "--as and --json cannot be used together");
  CHECK(error_of(CommandKind::Run, {"--as", "taskset", "0", "ls"}) == "unknown option '--as' for 'run'");
  CHECK(command_help(CommandKind::Explain).find("--as FORMAT") != std::string::npos);
}

TEST_CASE("--spread[=N]: run, explain and pin take N threads per CPU") {
  CHECK(run({"0-1", "./bench"}).spread == 0);
  CHECK(run({"--spread", "0-1", "./bench"}).spread == 1);
  CHECK(run({"--spread=2", "0-1", "./bench"}).spread == 2);
  CHECK(run({"0-1", "--spread=3", "./bench", "--spread=4"}).spread == 3);  // the command's own
  CHECK(run({"0-1", "--spread=3", "./bench", "--spread=4"}).rest == Args{"./bench", "--spread=4"});
  CHECK(run({"--spread", "2", "./bench"}).request.where == "2");  // N is attached, else WHERE
  CHECK(parse(CommandKind::Explain, {"--spread=2", "0-1"}).spread == 2);
  CHECK(parse(CommandKind::Pin, {"--spread", "0-1", "12"}).spread == 1);
  for (const char* v : {"0", "x", "", "-1", "+2", "1048577"})
    CHECK(run_error({std::string("--spread=") + v, "0-1", "true"}) ==
          std::string("invalid --spread '") + v +
              "': expected a whole number of threads per CPU from 1 to 1048576 (--spread=2)");
  CHECK(parse(CommandKind::Pin, {"--spread=2", "0-1", "12"}).spread == 2);
  CHECK(error_of(CommandKind::Pin, {"--spread=0", "0-1", "12"}) ==
        "invalid --spread '0': expected a whole number of threads per CPU from 1 to 1048576 (--spread=2)");
}

// topo, show and watch: the same tokenizer, in the same words.
namespace {

std::string error_and_hint(CommandKind kind, const Args& args, std::string* hint = nullptr) {
  try {
    parse_command_line(kind, args);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    if (hint) *hint = e.hint();
    return e.what();
  }
  return "no error";
}
std::string topo_error(const Args& args, std::string* hint = nullptr) {
  return error_and_hint(CommandKind::Topo, args, hint);
}

}  // namespace

TEST_CASE("topo, show, watch: values land where they belong") {
  auto s = parse(CommandKind::Show, {"--json", "--root=/r", "1", "--", "-2"});
  CHECK(s.json);
  CHECK(s.root == std::optional<std::string>("/r"));
  CHECK(s.rest == Args{"1", "-2"});
  auto w = parse(CommandKind::Watch, {"-i", "0.5", "--threads", "1", "-c3", "--", "-2"});
  CHECK(w.interval == std::optional<std::string>("0.5"));
  CHECK(w.intervals == std::optional<std::string>("3"));
  CHECK(w.threads);
  CHECK(w.rest == Args{"1"});  // after "--": a command (watch refuses it with a PID)
  CHECK(w.command_given);
  CHECK(w.command == Args{"-2"});
  auto c = parse(CommandKind::Watch, {"-i", "2", "--", "make", "-j8", "--threads"});
  CHECK(c.rest.empty());
  CHECK(c.command == Args{"make", "-j8", "--threads"});
  CHECK_FALSE(c.threads);
  auto t = parse(CommandKind::Watch, {"-i0.25", "--count", "--json"});
  CHECK(t.interval == std::optional<std::string>("0.25"));
  CHECK(t.intervals == std::optional<std::string>("--json"));  // a value option takes the next word, whatever it is
  CHECK_FALSE(t.json);
  auto r = parse(CommandKind::Show, {"--root", "--json"});
  CHECK(r.root == std::optional<std::string>("--json"));
  CHECK_FALSE(r.json);
  CHECK(parse(CommandKind::Show, {"--pinned"}).pinned);
  // show --cpu LIST: the WHERE as written (cmd_show resolves it), attached or not.
  CHECK(parse(CommandKind::Show, {"--cpu", "socket:1"}).cpu == std::optional<std::string>("socket:1"));
  CHECK(parse(CommandKind::Show, {"--json", "--cpu=0-3"}).cpu == std::optional<std::string>("0-3"));
  CHECK_FALSE(parse(CommandKind::Show, {"--json"}).cpu);
  // Values are watch's to check, once every word is read (watch_cli.sh).
  CHECK(parse(CommandKind::Watch, {"-i", "x"}).interval == std::optional<std::string>("x"));
  CHECK(parse(CommandKind::Watch, {"--interval=fast", "1"}).interval == std::optional<std::string>("fast"));
}

TEST_CASE("topo, show, watch: the usage line is the hint") {
  CHECK(hint_of(CommandKind::Show, {"--bogus"}) ==
        "usage: affix show [--json] [--svg[=FILE]] [--tree] [--pinned | --cpu LIST | --irq] [--root DIR] [PID... | DEVICE...]; see 'affix show --help'");
  CHECK(hint_of(CommandKind::Topo, {"--bogus"}) == "usage: affix topo [--json | --svg [FILE] | --ascii] [--root DIR]; see 'affix topo --help'");
  CHECK(hint_of(CommandKind::Watch, {"-x"}) ==
        "usage: affix watch [-i SECONDS] [-c N] [--threads] [--json] [--tree] [--svg FILE] [PID... | -- COMMAND [ARG...]]; see 'affix watch --help'");
}

TEST_CASE("topo, show, watch: every mistake in the same words") {
  std::string hint;
  CHECK(topo_error({"--bogus"}, &hint) == "unknown option '--bogus' for 'topo'");
  CHECK(hint == "usage: affix topo [--json | --svg [FILE] | --ascii] [--root DIR]; see 'affix topo --help'");
  CHECK(topo_error({"--bogus=1"}) == "unknown option '--bogus' for 'topo'");
  CHECK(topo_error({"-x"}) == "unknown option '-x' for 'topo'");
  CHECK(topo_error({"-hx"}) == "unknown option '-hx' for 'topo'");  // never split
  CHECK(topo_error({"--root"}, &hint) == "option '--root' needs a value");
  CHECK(hint == "usage: affix topo [--json | --svg [FILE] | --ascii] [--root DIR]; see 'affix topo --help'");
  // An empty attached value never takes the next word.
  CHECK(topo_error({"--root=", "--json"}) == "option '--root' needs a value");
  CHECK(topo_error({"--root", ""}) == "option '--root' needs a value");
  CHECK(topo_error({"--json=1"}) == "option '--json' takes no value");
  CHECK(topo_error({"--json="}) == "option '--json' takes no value");
  CHECK(topo_error({"--root", "a", "--root=b"}) == "option '--root' given twice");
  CHECK(topo_error({"extra"}) == "unexpected argument 'extra' for 'topo'");
  CHECK(topo_error({"--", "--json"}) == "unexpected argument '--json' for 'topo'");
  CHECK(error_and_hint(CommandKind::Watch, {"-i", "1", "--interval=2"}) == "option '--interval' given twice");
  CHECK(error_and_hint(CommandKind::Watch, {"-c", "1", "-c2"}) == "option '--count' given twice");
  CHECK(error_and_hint(CommandKind::Watch, {"-i", ""}) == "option '-i' needs a value");
  CHECK(error_and_hint(CommandKind::Show, {"--pinned=yes"}) == "option '--pinned' takes no value");
  // Flags may be repeated, as in run, explain and pin.
  CHECK(topo_error({"--json", "--json"}) == "no error");
}

TEST_CASE("topo, show, watch: did you mean, as for run, explain and pin") {
  std::string hint;
  CHECK(topo_error({"--jsn"}, &hint) == "unknown option '--jsn' for 'topo'");
  CHECK(hint == "did you mean '--json'?");
  CHECK(error_and_hint(CommandKind::Show, {"--rot=/x"}, &hint) == "unknown option '--rot' for 'show'");
  CHECK(hint == "did you mean '--root'?");
  CHECK(error_and_hint(CommandKind::Watch, {"--treads"}, &hint) == "unknown option '--treads' for 'watch'");
  CHECK(hint == "did you mean '--threads'?");
  CHECK(topo_error({"--frobnicate"}, &hint) == "unknown option '--frobnicate' for 'topo'");
  CHECK(hint == "usage: affix topo [--json | --svg [FILE] | --ascii] [--root DIR]; see 'affix topo --help'");
  // The same words from pin.
  try {
    parse_command_line(CommandKind::Pin, {"--no-smtt", "0", "1"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "unknown option '--no-smtt' for 'pin'");
    CHECK(e.hint() == "did you mean '--no-smt'?");
  }
}

TEST_CASE("topo, show, watch: --help stops the checking where it stands") {
  CHECK(parse(CommandKind::Topo, {"--help", "--bogus", "--root"}).help);
  CHECK(parse(CommandKind::Show, {"1", "-h", "--pinned"}).help);
  CHECK(topo_error({"--bogus", "--help"}) == "unknown option '--bogus' for 'topo'");
  CHECK(topo_error({"extra", "--help"}) == "unexpected argument 'extra' for 'topo'");
  // The help texts name every option.
  for (const char* o : {"--json", "--root DIR"}) CHECK(command_help(CommandKind::Topo).find(o) != std::string::npos);
  for (const char* o : {"--json", "--pinned", "--cpu LIST", "--root DIR", "PID"})
    CHECK(command_help(CommandKind::Show).find(o) != std::string::npos);
  for (const char* o : {"-i,--interval SECONDS", "-c,--count N", "--threads", "--json", "PID"})
    CHECK(command_help(CommandKind::Watch).find(o) != std::string::npos);
}
