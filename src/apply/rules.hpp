#pragma once
// The rules file of `affix apply` (affix(1), APPLY): TOML, parsed with
// toml++, into rules that say which processes they match and where those
// go. Pure: nothing here reads the machine. The words of a value (WHERE,
// --mem, --policy) are kept as written, each with where it stands in the
// file, and checked by the engine's loader (apply_engine.hpp), which reads
// the machine; their errors carry the same FILE:LINE:COL.
//
// One matcher, one order: a process's rule is the first rule, in file
// order, whose every match key matches it (first_match). A process is
// known by its PID and its start time (ProcessFacts).

#include <sys/types.h>

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace affix {

// Where a value stands in the rules file, 1-based as toml++ counts
// (columns in bytes... of UTF-8 code points, as toml++ gives them).
struct SourcePos {
  unsigned line = 0, column = 0;
};

// A value of the file and where it was written.
template <class T> struct Located {
  T value{};
  SourcePos at;
};

// What a rule matches; every key given must match (and), none given
// matches nothing (the parser refuses a rule with process actions and no
// key). Globs are fnmatch(3)'s without flags: '*' also matches '/'.
struct RuleMatch {
  std::optional<Located<std::string>> comm;     // glob over /proc/PID/comm (at most 15 bytes)
  std::optional<Located<std::string>> exe;      // glob over the path /proc/PID/exe points to
  std::optional<Located<std::string>> cmdline;  // ECMAScript regex, searched in the command line (args joined by spaces)
  std::shared_ptr<const std::regex> cmdline_re; // `cmdline` compiled
  std::optional<Located<std::string>> cgroup;   // glob over the process's cgroup path ("/system.slice/nginx.service")
  std::optional<Located<std::string>> unit;     // glob over its systemd unit ("nginx.service"; ".service" added where the value has no '.')
  std::optional<Located<std::string>> user;     // a user name or a numeric uid (its real uid)
  std::optional<uid_t> uid;                     // `user` as a number: the parser's for digits, the loader's for a name
  bool any() const { return comm || exe || cmdline || cgroup || unit || user; }
};

// A per-thread placement (threads = { GLOB = WHERE }) or an IRQ rule
// (irqs = { GLOB = WHERE }): the glob over a thread's comm, or over an
// IRQ's action names in /proc/interrupts, and the WHERE they go to.
struct GlobWhere {
  Located<std::string> glob;
  Located<std::string> where;
};

struct Rule {
  Located<std::string> name;  // unique in the file; names it in output and metrics
  SourcePos at;               // the [[rule]] header
  RuleMatch match;
  // What to do with a matching process (each as the pin option of that name).
  std::optional<Located<std::string>> where;   // WHERE (every thread of the process)
  std::optional<Located<std::string>> mem;     // --mem POLICY[:NODES]: the pages are moved (pin --migrate)
  std::optional<Located<std::string>> policy;  // --policy
  std::optional<Located<int>> nice;            // --nice, -20 to 19
  std::optional<Located<unsigned>> spread;     // --spread[=N]: true is 1
  bool tree = false;                           // --tree: descendants too
  bool enforce = false;                        // the follower puts back what others move
  std::vector<GlobWhere> threads;              // by thread name, in file order (first glob wins)
  std::vector<GlobWhere> irqs;                 // by IRQ name, in file order (first glob wins)
  // Whether the rule does anything to processes (else it is IRQs only).
  bool acts_on_processes() const { return where || policy || nice || !threads.empty(); }
};

struct RuleSet {
  std::string file;  // as named on the command line (the messages' FILE)
  std::vector<Rule> rules;
};

// Parses the text of a rules file named `file`. Throws Error(Usage) with
// "FILE:LINE:COL: WHAT" for a TOML syntax error, an unknown key (with the
// nearest known one as a hint), a value of the wrong type, an invalid
// regex or glob, a nice out of range, a spread of 0, a rule without a name,
// a name given twice, a rule with process actions and no match key, a rule
// with nothing to do, mem or spread without where.
RuleSet parse_rules(std::string_view text, const std::string& file);
// Reads and parses FILE: Error(Runtime) where it cannot be read.
RuleSet read_rules(const std::string& file);

// "FILE:LINE:COL: " for messages.
std::string where_in(const RuleSet& rules, SourcePos at);

// What the matcher knows of a process. nullopt: could not be read (another
// user's exe, a kernel thread, a process gone): a key on it never matches.
struct ProcessFacts {
  pid_t pid = 0;
  unsigned long long start_time = 0;  // with pid, the process's identity
  std::string comm;
  std::optional<std::string> exe;
  std::optional<std::string> cmdline;
  std::optional<std::string> cgroup;  // the unified (or name=systemd) hierarchy's path
  std::optional<std::string> unit;    // the deepest systemd unit in `cgroup` (.service or .scope)
  std::optional<uid_t> uid;           // real uid
  bool kernel_thread = false;         // never matched
};

// Whether one rule matches the process (every key it gives).
bool rule_matches(const Rule& rule, const ProcessFacts& facts);

// The first rule that matches, and in `also` every later rule that
// matches too (first wins; apply --check says so). nullopt: none.
std::optional<size_t> first_match(const RuleSet& rules, const ProcessFacts& facts,
                                  std::vector<size_t>* also = nullptr);

// The first of `globs` whose glob matches `name` (fnmatch), nullopt: none.
std::optional<size_t> first_glob(const std::vector<GlobWhere>& globs, std::string_view name);

// The systemd unit of a cgroup path: its deepest component that ends in
// ".service" or ".scope" ("/system.slice/nginx.service" -> "nginx.service");
// nullopt where none does.
std::optional<std::string> unit_of_cgroup(std::string_view path);

// The cgroup path of /proc/PID/cgroup's text: the "0::" line's (cgroup
// v2), else the "name=systemd" hierarchy's, else the cpuset one's, else
// the first line's; nullopt where the text has no line.
std::optional<std::string> cgroup_of_proc(std::string_view text);

}  // namespace affix
