// A shield's record (shield_record.hpp): what affix shield changed, as a
// later --off reads it back; the file's escaping of paths and contents.
#include <catch2/catch.hpp>

#include "shield_record.hpp"

using namespace affix;

namespace {

ShieldRecord sample() {
  ShieldRecord r;
  r.name = "affix-shield-1";
  r.layout = ShieldLayout::Cgroup2;
  r.cgroup = "/sys/fs/cgroup/affix-shield-1";
  r.cpus = *parse_cpulist("4-7").value;
  r.isolated = true;
  r.irqs = true;
  r.ops = {{OpKind::Controller, "/sys/fs/cgroup/cgroup.subtree_control", "cpuset", ""},
           {OpKind::Mkdir, "/sys/fs/cgroup/affix-shield-1", "", ""},
           {OpKind::Write, "/sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition", "isolated", "member\n"},
           {OpKind::Irq, "24", "0-3", "4-7"},
           {OpKind::Shared, "/proc/irq/default_smp_affinity", "0000000f", "ff\n"}};
  return r;
}

}  // namespace

TEST_CASE("record: escaping keeps every byte and puts none of tab, new line or control on a line", "[shield]") {
  std::string raw = std::string("a\tb\nc\\d\x1b\xff e", 11);
  std::string esc = record_escape(raw);
  CHECK(esc == "a\\tb\\nc\\\\d\\x1b\\xff e");
  CHECK(record_unescape(esc) == raw);
  CHECK_FALSE(record_unescape("bad\\q").has_value());
  CHECK_FALSE(record_unescape("end\\").has_value());
  CHECK_FALSE(record_unescape("\\x4").has_value());
}

TEST_CASE("record: written and read back whole", "[shield]") {
  ShieldRecord r = sample();
  r.launcher = 120;
  r.launcher_start = 98765;
  r.command = 121;
  std::string text = record_text(r);
  CHECK(text ==
        "affix-shield-record\t1\n"
        "name\taffix-shield-1\n"
        "layout\tcgroup2\n"
        "cgroup\t/sys/fs/cgroup/affix-shield-1\n"
        "cpus\t4-7\nmems\t\nmode\tisolated\nirqs\tyes\nmade\t0\n"
        "launcher\t120\t98765\t121\n"
        "op\tcontroller\t/sys/fs/cgroup/cgroup.subtree_control\tcpuset\t\n"
        "op\tmkdir\t/sys/fs/cgroup/affix-shield-1\t\t\n"
        "op\twrite\t/sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition\tisolated\tmember\\n\n"
        "op\tirq\t24\t0-3\t4-7\n"
        "op\tshared\t/proc/irq/default_smp_affinity\t0000000f\tff\\n\n");
  std::string why;
  auto back = parse_record(text, why);
  REQUIRE(back);
  CHECK(record_text(*back) == text);
  CHECK(back->ops[2].before == "member\n");
  CHECK(back->launcher == 120);
  CHECK(back->command == 121);
  CHECK(back->isolated);
}

TEST_CASE("record: systemd's unit and v1 changes round trip", "[shield]") {
  ShieldRecord r = sample();
  r.layout = ShieldLayout::Systemd;
  r.unit = "affix-shield-1.slice";
  r.mems = *parse_cpulist("1").value;
  r.ops = {{OpKind::Unit, "/run/systemd/system/affix-shield-1.slice", "[Slice]\nAllowedCPUs=4-7\n", ""},
           {OpKind::Start, "affix-shield-1.slice", "/sys/fs/cgroup/affix.slice/affix-shield.slice/affix-shield-1.slice", ""},
           {OpKind::Exclusive, "/sys/fs/cgroup/affix.slice/cpuset.cpus.exclusive", "4-7", ""},
           {OpKind::SystemSet, "/cpuset/affix-system", "", ""},
           {OpKind::SystemTake, "/cpuset/affix-system/cpuset.cpus", "4-7", "0-7"},
           {OpKind::SystemMems, "/cpuset/affix-system/cpuset.mems", "1", "0-1"}};
  std::string why;
  auto back = parse_record(record_text(r), why);
  REQUIRE(back);
  CHECK(record_text(*back) == record_text(r));
  CHECK(back->unit == "affix-shield-1.slice");
  CHECK(format_cpulist(back->mems) == "1");
}

TEST_CASE("record: what is no record says where", "[shield]") {
  std::string why;
  CHECK_FALSE(parse_record("", why));
  CHECK(why == "empty");
  CHECK_FALSE(parse_record("hello\n", why));
  CHECK(why == "line 1: not an affix shield record");
  CHECK_FALSE(parse_record("affix-shield-record\t1\nname\tx\nop\tmove\ta\tb\tc\n", why));
  CHECK(why == "line 3: unknown change 'move'");
  CHECK_FALSE(parse_record("affix-shield-record\t1\nname\tx\ncpus\tfour\n", why));
  CHECK(why == "line 3: cpus is not a list");
  CHECK_FALSE(parse_record("affix-shield-record\t1\nname\tx\nop\twrite\ta\\q\tb\tc\n", why));
  CHECK(why == "line 3: a value is not escaped as affix writes it");
  CHECK_FALSE(parse_record("affix-shield-record\t1\ncpus\t1\n", why));
  CHECK(why == "no name");
  CHECK_FALSE(parse_record("affix-shield-record\t1\nname\tx\nlayout\tcgroup3\n", why));
  CHECK(why == "line 3: unknown layout 'cgroup3'");
}

TEST_CASE("record: shared changes are those one shield hands to the next", "[shield]") {
  CHECK(op_shared(OpKind::Controller));
  CHECK(op_shared(OpKind::Shared));
  CHECK(op_shared(OpKind::SystemSet));
  CHECK_FALSE(op_shared(OpKind::Write));
  CHECK_FALSE(op_shared(OpKind::Irq));
  CHECK_FALSE(op_shared(OpKind::Exclusive));
  CHECK(record_path("db") == "/run/affix/shields/db");
}
