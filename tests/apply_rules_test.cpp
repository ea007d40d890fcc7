// affix apply's rules file: the parser (toml++; every error with its
// FILE:LINE:COL), the matcher (one order: the first rule wins), the words
// checked on a captured machine, and IRQ rules on a fake IrqOs.
#include <catch2/catch.hpp>

#include "apply_engine.hpp"
#include "apply_words.hpp"
#include "error.hpp"
#include "fake_irq_os.hpp"
#include "rules.hpp"
#include "temp_root.hpp"
#include "topology.hpp"

using namespace affix;

namespace {

// The error text (and hint) of parsing `text` as "r.toml".
std::pair<std::string, std::string> parse_error(const std::string& text) {
  try {
    parse_rules(text, "r.toml");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return {e.what(), e.hint()};
  }
  FAIL("no error for: " << text);
  return {};
}

ProcessFacts facts(std::string comm) {
  ProcessFacts f;
  f.pid = 42;
  f.start_time = 1000;
  f.comm = std::move(comm);
  return f;
}

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }

std::string corpus(const char* name) { return std::string(AFFIX_CORPORA_DIR) + "/" + name; }

}  // namespace

TEST_CASE("a rules file: every key, in the file's order", "[apply]") {
  RuleSet rs = parse_rules(R"([[rule]]
name = "db"
comm = "postgres"
exe = "/usr/lib/postgresql/*/bin/postgres"
cmdline = "-D /srv/[a-z]+"
cgroup = "/system.slice/*"
unit = "postgresql"
user = 110
where = "node:1"
mem = "bind"
policy = "fifo:10"
nice = -5
spread = true
tree = true
enforce = true
threads = { "wal*" = "cpu:1", "gc" = "socket:1" }
irqs = { "eth1-*" = "near:eth1" }

[[rule]]
name = "web"
user = "www-data"
spread = 2
where = "all"
)",
                           "r.toml");
  REQUIRE(rs.rules.size() == 2);
  const Rule& db = rs.rules[0];
  CHECK(rs.file == "r.toml");
  CHECK(db.name.value == "db");
  CHECK(db.at.line == 1);
  CHECK(db.match.comm->value == "postgres");
  CHECK(db.match.comm->at.line == 3);
  CHECK(db.match.comm->at.column == 8);
  CHECK(db.match.exe->value == "/usr/lib/postgresql/*/bin/postgres");
  CHECK(db.match.cgroup->value == "/system.slice/*");
  CHECK(db.match.unit->value == "postgresql");
  CHECK(db.match.uid == 110u);
  CHECK(db.where->value == "node:1");
  CHECK(db.where->at.line == 9);
  CHECK(db.mem->value == "bind");
  CHECK(db.policy->value == "fifo:10");
  CHECK(db.nice->value == -5);
  CHECK(db.spread->value == 1);
  CHECK(db.tree);
  CHECK(db.enforce);
  // toml++ keeps keys sorted; the rule keeps the file's order ("first glob wins").
  REQUIRE(db.threads.size() == 2);
  CHECK(db.threads[0].glob.value == "wal*");
  CHECK(db.threads[1].glob.value == "gc");
  CHECK(db.threads[1].where.value == "socket:1");
  REQUIRE(db.irqs.size() == 1);
  CHECK(db.irqs[0].where.value == "near:eth1");
  const Rule& web = rs.rules[1];
  CHECK(web.match.user->value == "www-data");
  CHECK_FALSE(web.match.uid);  // a name: the loader looks it up
  CHECK(web.spread->value == 2);
  CHECK_FALSE(web.tree);
}

TEST_CASE("a rules file's errors name the file, line and column", "[apply]") {
  using P = std::pair<std::string, std::string>;
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwher = \"cpu:0\"\n") ==
        P{"r.toml:4:1: unknown key 'wher' in a rule", "did you mean 'where'?"});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = 5\n") ==
        P{"r.toml:4:9: 'where' must be a string, not an integer", ""});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"0\"\nnice = 30\n") ==
        P{"r.toml:5:8: nice 30 is not from -20 to 19", ""});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"0\"\nnice = \"5\"\n") ==
        P{"r.toml:5:8: 'nice' must be an integer from -20 to 19, not a string", ""});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"0\"\nspread = 0\n") ==
        P{"r.toml:5:10: spread 0 is not from 1 to 1024 (threads per CPU)", ""});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"0\"\ntree = \"yes\"\n") ==
        P{"r.toml:5:8: 'tree' must be true or false, not a string", ""});
  CHECK(parse_error("[[rule]]\ncomm = \"x\"\nwhere = \"cpu:0\"\n") ==
        P{"r.toml:1:1: this rule has no name", "name = \"...\" names it in the output and the metrics"});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"0\"\n\n[[rule]]\nname = \"a\"\ncomm = \"y\"\nwhere = \"0\"\n") ==
        P{"r.toml:7:8: a rule named 'a' is given twice", "names tell the rules apart in the output and the metrics"});
  CHECK(parse_error("[[rule]]\nname = \"a\"\nwhere = \"cpu:0\"\n") ==
        P{"r.toml:1:1: rule 'a' matches no process: give comm, exe, cmdline, cgroup, unit or user", ""});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\n") ==
        P{"r.toml:1:1: rule 'a' does nothing: give where, policy, nice, threads or irqs", ""});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nmem = \"bind\"\npolicy = \"batch\"\n") ==
        P{"r.toml:4:7: rule 'a': mem goes with where (the pages go to the nodes of its CPUs, or mem's)", ""});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"[x\"\nwhere = \"0\"\n") ==
        P{"r.toml:3:8: comm '[x' has a '[' that is not closed", "'\\[' matches a '[' itself"});
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nthreads = \"gc\"\n").first ==
        "r.toml:4:11: 'threads' must be a table of GLOB = WHERE (threads = { \"gc\" = \"node:0\" }), not a string");
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nthreads = { \"gc\" = 1 }\n").first ==
        "r.toml:4:20: 'threads.gc' must be a string, not an integer");
  CHECK(parse_error("[[rules]]\nname = \"a\"\n") ==
        P{"r.toml:1:3: unknown key 'rules' (the file holds [[rule]] tables)", "did you mean 'rule'?"});
  CHECK(parse_error("[rule]\nname = \"a\"\n") ==
        P{"r.toml:1:1: 'rule' must be [[rule]] tables", "each rule starts with a line [[rule]]"});
  // A regex that does not compile: the library's words after ours.
  CHECK_THAT(parse_error("[[rule]]\nname = \"a\"\ncmdline = \"(x\"\nwhere = \"0\"\n").first,
             Catch::StartsWith("r.toml:3:11: cmdline '(x' is not a regular expression: "));
  // A number libstdc++ would overflow reading (fuzz/rules.cpp found the
  // back-reference): refused before the library sees it; 9 digits pass on
  // (a backslash is written \\\\ in the message, as every name is).
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncmdline = \"x\\\\8888888888888888888y\"\nwhere = \"0\"\n").first ==
        "r.toml:3:11: cmdline 'x\\\\8888888888888888888y' is not a regular expression: '\\\\8888888888888888888...': "
        "a count or a back-reference of more than 9 digits");
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncmdline = \"a{1,12345678901}\"\nwhere = \"0\"\n").first ==
        "r.toml:3:11: cmdline 'a{1,12345678901}' is not a regular expression: '{1,12345678901...': "
        "a count or a back-reference of more than 9 digits");
  CHECK_THAT(parse_error("[[rule]]\nname = \"a\"\ncmdline = \"(a)\\\\123456789\"\nwhere = \"0\"\n").first,
             Catch::StartsWith("r.toml:3:11: cmdline '(a)\\\\123456789' is not a regular expression: Back-reference"));
  // Escaped, they are text: a literal '{' and long numbers after commas.
  CHECK_NOTHROW(parse_rules("[[rule]]\nname = \"a\"\ncmdline = \"--ids=1,23456789012 \\\\{12345678901\"\nwhere = \"0\"\n", "r.toml"));
  // TOML syntax: toml++'s message, at its place.
  CHECK_THAT(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\nwhere = \"0\"\n").first,
             Catch::StartsWith("r.toml:3:10: "));
  CHECK_THAT(parse_error("[[rule]]\nname = \"a\"\nname = \"b\"\n").first, Catch::StartsWith("r.toml:3:"));
  // What toml++ 3.3 itself does not survive (fuzz/rules.cpp): refused first.
  CHECK(parse_error(std::string("[[rule]]\nname = \"a\0\"\n", 19)) ==
        P{"r.toml:2:10: a NUL byte (TOML allows none)", ""});
  CHECK(parse_error("\xef\xbb\xbf[[[\n") ==
        P{"r.toml:1:4: a table header needs a name after its '['", "each rule starts with a line [[rule]]"});
  CHECK(parse_error("[ *x]\n") ==
        P{"r.toml:1:3: a table header needs a name after its '['", "each rule starts with a line [[rule]]"});
  // A header-like line inside a multi-line string is no header.
  CHECK(parse_rules("[[rule]]\nname = \"a\"\ncmdline = \"\"\"\n[*x]\"\"\"\nwhere = \"0\"\n", "r.toml").rules.size() == 1);
  CHECK_THAT(parse_error("[[rule]]\nname = \"a\" \xc3\xa9\n").first, Catch::StartsWith("r.toml:2:"));
  CHECK_THAT(parse_error("[[rule]]\nname = \"a\" \xef\xb5\xbf\n").first, Catch::StartsWith("r.toml:2:"));
  // A name on a terminal is escaped.
  CHECK(parse_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\n\"w\\u001b[2J\" = 1\n").first ==
        "r.toml:4:1: unknown key 'w\\e[2J' in a rule");
}

TEST_CASE("the matcher: every key given must match; the first rule wins", "[apply]") {
  RuleSet rs = parse_rules(R"T([[rule]]
name = "t1"
comm = "affix-t*"
cmdline = "--mode=(fast|slow)"
where = "0"

[[rule]]
name = "any-t1"
comm = "affix-t1"
where = "1"

[[rule]]
name = "svc"
unit = "nginx"
where = "1"

[[rule]]
name = "owner"
user = 1000
exe = "/usr/bin/*"
where = "1"

[[rule]]
name = "cg"
cgroup = "/system.slice/db-*.scope"
where = "1"

[[rule]]
name = "irqs-only"
irqs = { "eth0-*" = "0" }
)T",
                           "r.toml");
  ProcessFacts t1 = facts("affix-t1");
  t1.cmdline = "./affix-t1 --mode=slow -v";
  std::vector<size_t> also;
  CHECK(first_match(rs, t1, &also) == 0u);
  CHECK(also == std::vector<size_t>{1});
  t1.cmdline = "./affix-t1 --mode=other";
  also.clear();
  CHECK(first_match(rs, t1, &also) == 1u);
  CHECK(also.empty());
  t1.cmdline.reset();  // unreadable: a cmdline key does not match
  CHECK(first_match(rs, t1) == 1u);

  ProcessFacts web = facts("nginx");
  CHECK_FALSE(first_match(rs, web));
  web.cgroup = "/system.slice/nginx.service";
  web.unit = unit_of_cgroup(*web.cgroup);
  CHECK(web.unit == "nginx.service");
  CHECK(first_match(rs, web) == 2u);  // "nginx" is nginx.service

  ProcessFacts owned = facts("tool");
  owned.uid = 1000;
  CHECK_FALSE(first_match(rs, owned));  // exe unknown
  owned.exe = "/usr/bin/tool";
  CHECK(first_match(rs, owned) == 3u);
  owned.uid = 1001;
  CHECK_FALSE(first_match(rs, owned));

  ProcessFacts scoped = facts("db");
  scoped.cgroup = "/system.slice/db-7.scope";
  CHECK(first_match(rs, scoped) == 4u);

  // A kernel thread is never matched; an IRQ rule never matches a process.
  ProcessFacts k = facts("affix-t1");
  k.kernel_thread = true;
  CHECK_FALSE(first_match(rs, k));
  CHECK_FALSE(rule_matches(rs.rules[5], facts("eth0-0")));

  // Thread globs: the first in the file wins.
  RuleSet th = parse_rules("[[rule]]\nname = \"a\"\ncomm = \"x\"\nthreads = { \"net*\" = \"0\", \"net1\" = \"1\" }\n", "r");
  CHECK(first_glob(th.rules[0].threads, "net1") == 0u);
  CHECK_FALSE(first_glob(th.rules[0].threads, "gc"));
}

TEST_CASE("the cgroup and the systemd unit of a process", "[apply]") {
  CHECK(cgroup_of_proc("0::/system.slice/nginx.service\n") == "/system.slice/nginx.service");
  // cgroup v1: the systemd hierarchy's path, not the first controller's.
  CHECK(cgroup_of_proc("12:pids:/user.slice\n11:cpuset:/\n1:name=systemd:/system.slice/cron.service\n") ==
        "/system.slice/cron.service");
  CHECK(cgroup_of_proc("12:pids:/a\n11:cpuset,cpu:/b\n") == "/b");
  CHECK(cgroup_of_proc("3:memory:/odd:path\n") == "/odd:path");
  CHECK_FALSE(cgroup_of_proc(""));
  CHECK(unit_of_cgroup("/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope") == "run-1.scope");
  CHECK(unit_of_cgroup("/system.slice/nginx.service") == "nginx.service");
  CHECK_FALSE(unit_of_cgroup("/user.slice"));
  CHECK_FALSE(unit_of_cgroup("/.service"));
}

TEST_CASE("a rule's words are checked on the machine when the file is loaded", "[apply]") {
  SysRoot root(corpus("16amd64-8n2c"));
  Topology topo = read_topology(root);
  auto words = make_apply_words(root, topo);
  CHECK(words->place("node:3", std::nullopt, 0).cpus == cpus("6-7"));
  CHECK(words->place("node:3.core:1", std::nullopt, 0).cpus == cpus("7"));
  ApplyPlace mem = words->place("node:2", std::string("bind"), 0);
  CHECK(mem.mem_policy == MemPolicy::Bind);
  CHECK(mem.mem_nodes == cpus("2"));

  auto load_error = [&](const std::string& text) -> std::string {
    test::FakeIrqOs irqs;
    try {
      ApplyEngine engine(parse_rules(text, "r.toml"), make_apply_words(root, topo), root, linux_os(), irqs);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      return e.what();
    }
    return "no error";
  };
  CHECK(load_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"node:9\"\n") ==
        "r.toml:4:9: no node 9 on this machine (nodes: 0-7)");
  CHECK(load_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"node:1\"\nthreads = { gc = \"cpu:16\" }\n") ==
        "r.toml:5:18: no cpu 16 on this machine (cpus: 0-15)");
  CHECK(load_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"node:1\"\nmem = \"bnd\"\n") ==
        "r.toml:5:7: invalid mem 'bnd': unknown policy 'bnd' (expected bind, preferred, interleave, weighted or local)");
  CHECK(load_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"node:1\"\nmem = \"weighted\"\n") ==
        "r.toml:5:7: mem = \"weighted\" is not for rules: its weights are the machine's");
  CHECK(load_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\npolicy = \"fifo:100\"\n") ==
        "r.toml:4:10: invalid policy 'fifo:100': fifo takes a priority from 1 to 99 (fifo:50)");
  CHECK(load_error("[[rule]]\nname = \"a\"\nuser = \"no-such-user-here\"\nwhere = \"0\"\n") ==
        "r.toml:3:8: no such user: no-such-user-here");
  CHECK(load_error("[[rule]]\nname = \"a\"\nirqs = { \"eth0-*\" = \"near:eth9\" }\n").rfind("r.toml:3:21: ", 0) == 0);
  CHECK(load_error("[[rule]]\nname = \"a\"\ncomm = \"x\"\nwhere = \"node:1+node:7\"\n") == "no error");
}

TEST_CASE("IRQ rules: the first glob of the first rule wins, all or nothing per rule", "[apply]") {
  SysRoot machine(corpus("16amd64-8n2c"));
  Topology topo = read_topology(machine);
  test::TempRoot tmp;  // no process; its interrupts
  tmp.write("proc/interrupts",
            "           CPU0       CPU1\n"
            " 30:          1          2  PCI-MSI 1-edge      eth0-TxRx-0\n"
            " 31:          1          2  PCI-MSI 2-edge      eth0-TxRx-1\n"
            " 32:          1          2  PCI-MSI 3-edge      eth0\n"
            " 40:          1          2  PCI-MSI 4-edge      nvme0q1\n");
  SysRoot root(tmp.path());
  test::FakeIrqOs irqs;
  for (unsigned irq : {30u, 31u, 32u, 40u}) irqs.affinity_of[irq] = cpus("0-15");
  RuleSet rs = parse_rules(R"([[rule]]
name = "nic"
irqs = { "eth0-TxRx-*" = "node:1", "eth0*" = "node:2" }

[[rule]]
name = "rest"
irqs = { "eth0*" = "node:3", "nvme*" = "node:4" }

[[rule]]
name = "nothing"
irqs = { "mlx*" = "0" }
)",
                           "r.toml");
  ApplyEngine engine(std::move(rs), make_apply_words(machine, topo), root, linux_os(), irqs);
  ApplyCheckReport before = engine.check_all();
  CHECK_FALSE(before.ok());
  CHECK(before.irqs_checked == 4);
  REQUIRE(before.differences.size() == 4);
  CHECK(before.differences[0].text == "nic: IRQ 30 (eth0-TxRx-0): cpus 0-15, not within 2-3");
  CHECK(before.unmatched == std::vector<size_t>{2});

  ApplyReport dry = engine.apply_all(true);
  CHECK(irqs.writes.empty());
  ApplyReport report = engine.apply_all(false);
  CHECK_FALSE(report.failed());
  CHECK(irqs.affinity_of[30] == cpus("2-3"));
  CHECK(irqs.affinity_of[31] == cpus("2-3"));
  CHECK(irqs.affinity_of[32] == cpus("4-5"));
  CHECK(irqs.affinity_of[40] == cpus("8-9"));  // "eth0*" of "rest" finds none left: nic took them
  CHECK(report.unmatched == std::vector<size_t>{2});
  CHECK(engine.counters()[0].placements == 3);
  CHECK(engine.counters()[1].placements == 1);
  CHECK(engine.check_all().ok());
  CHECK(format_apply(engine.rules(), dry) ==
        "rule nic: IRQs\n"
        "  'eth0-TxRx-*': 2 IRQs on CPUs 2-3 (2 would move)\n"
        "    IRQ 30 (eth0-TxRx-0): 0-15 -> 2-3\n"
        "    IRQ 31 (eth0-TxRx-1): 0-15 -> 2-3\n"
        "  'eth0*': 1 IRQ on CPUs 4-5 (1 would move)\n"
        "    IRQ 32 (eth0): 0-15 -> 4-5\n"
        "rule rest: IRQs\n"
        "  'nvme*': 1 IRQ on CPUs 8-9 (1 would move)\n"
        "    IRQ 40 (nvme0q1): 0-15 -> 8-9\n"
        "rule nothing: matched nothing\n");

  // A refused write puts back every IRQ of its rule; the other rules go on.
  for (unsigned irq : {30u, 31u, 32u, 40u}) irqs.affinity_of[irq] = cpus("0-15");
  irqs.refuse[32] = EIO;
  ApplyReport failed = engine.apply_all(false);
  CHECK(failed.failed());
  CHECK(irqs.affinity_of[30] == cpus("0-15"));
  CHECK(irqs.affinity_of[31] == cpus("0-15"));
  CHECK(irqs.affinity_of[40] == cpus("8-9"));
  CHECK(engine.counters()[0].failures == 1);
}
