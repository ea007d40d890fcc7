// The rules file: TOML through toml++ (no exceptions: its parse result
// carries the error and its place), then each [[rule]] table key by key.
#include "rules.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"
#include "toml_include.hpp"

namespace affix {

namespace {

// The longest text a value may hold (a regex, a path): bounded input.
constexpr size_t k_max_value = 4096;
// The most rules and map entries a file may hold.
constexpr size_t k_max_rules = 10000;

std::optional<SourcePos> bad_table_header(std::string_view text);

SourcePos pos_of(const toml::source_region& r) {
  return {static_cast<unsigned>(r.begin.line), static_cast<unsigned>(r.begin.column)};
}

class Parser {
 public:
  explicit Parser(const std::string& file) : m_file(file) {}

  // Every error of the file: "FILE:LINE:COL: WHAT" (docs/errors.md lists
  // each WHAT).
  [[noreturn]] void fail(SourcePos at, const std::string& what, const std::string& hint = {}) const {
    std::string located = fmt::format("{}:{}:{}: ", printable(m_file), at.line, at.column) + what;
    throw Error(ErrorKind::Usage, located, hint);
  }

  Located<std::string> text(const toml::node& v, std::string_view key) const {
    const auto* s = v.as_string();
    if (!s) fail(pos_of(v.source()), fmt::format("'{}' must be a string, not {}", key, type_name(v)));
    const std::string& value = s->get();
    if (value.empty()) fail(pos_of(v.source()), fmt::format("'{}' is empty", key));
    if (value.size() > k_max_value)
      fail(pos_of(v.source()), fmt::format("'{}' is longer than {} bytes", key, k_max_value));
    if (value.find('\0') != std::string::npos) fail(pos_of(v.source()), fmt::format("'{}' holds a NUL byte", key));
    return {value, pos_of(v.source())};
  }

  bool boolean(const toml::node& v, std::string_view key) const {
    const auto* b = v.as_boolean();
    if (!b) fail(pos_of(v.source()), fmt::format("'{}' must be true or false, not {}", key, type_name(v)));
    return b->get();
  }

  Located<std::string> glob(const toml::node& v, std::string_view key) const {
    Located<std::string> g = text(v, key);
    check_glob(g, key);
    return g;
  }

  // fnmatch refuses nothing; a bracket left open is most likely a mistake.
  void check_glob(const Located<std::string>& g, std::string_view what) const {
    int depth = 0;
    for (size_t i = 0; i < g.value.size(); ++i) {
      char c = g.value[i];
      if (c == '\\') {
        ++i;
      } else if (c == '[' && depth == 0) {
        depth = 1;
        if (i + 1 < g.value.size() && (g.value[i + 1] == '!' || g.value[i + 1] == '^')) ++i;
        if (i + 1 < g.value.size() && g.value[i + 1] == ']') ++i;  // "[]...]": ']' first is a member
      } else if (c == ']' && depth == 1) {
        depth = 0;
      }
    }
    if (depth != 0)
      fail(g.at, fmt::format("{} '{}' has a '[' that is not closed", what, printable(g.value)),
           "'\\[' matches a '[' itself");
  }

  static std::string type_name(const toml::node& v) {
    switch (v.type()) {
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a number";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::table: return "a table";
      case toml::node_type::array: return "an array";
      case toml::node_type::date:
      case toml::node_type::time:
      case toml::node_type::date_time: return "a date or time";
      default: return "nothing";
    }
  }

  std::vector<GlobWhere> glob_map(const toml::node& v, std::string_view key) const {
    const auto* t = v.as_table();
    if (!t)
      fail(pos_of(v.source()), fmt::format("'{}' must be a table of GLOB = WHERE ({} = {{ \"gc\" = \"node:0\" }}), not {}",
                                           key, key, type_name(v)));
    std::vector<GlobWhere> out;
    for (auto&& [k, value] : *t) {
      if (out.size() >= k_max_rules) fail(pos_of(v.source()), fmt::format("'{}' has more than {} entries", key, k_max_rules));
      Located<std::string> g{std::string(k.str()), pos_of(k.source())};
      if (g.value.empty()) fail(g.at, fmt::format("a glob of '{}' is empty", key));
      if (g.value.size() > k_max_value) fail(g.at, fmt::format("a glob of '{}' is longer than {} bytes", key, k_max_value));
      if (g.value.find('\0') != std::string::npos) fail(g.at, fmt::format("a glob of '{}' holds a NUL byte", key));
      check_glob(g, "glob");
      out.push_back({g, text(value, fmt::format("{}.{}", key, printable(g.value)))});
    }
    if (out.empty()) fail(pos_of(v.source()), fmt::format("'{}' is empty", key));
    // toml++ keeps a table's keys in order of their text, not of the
    // file: file order is what "the first glob wins" means.
    std::stable_sort(out.begin(), out.end(), [](const GlobWhere& a, const GlobWhere& b) {
      return a.glob.at.line != b.glob.at.line ? a.glob.at.line < b.glob.at.line : a.glob.at.column < b.glob.at.column;
    });
    return out;
  }

  Rule rule(const toml::table& t, SourcePos at) const {
    static const std::vector<std::string> keys = {"name",   "comm",   "exe",    "cmdline", "cgroup", "unit",
                                                  "user",   "where",  "mem",    "policy",  "nice",   "spread",
                                                  "tree",   "enforce", "threads", "irqs"};
    Rule r;
    r.at = at;
    bool named = false;
    for (const auto& [kp, vp] : in_file_order(t)) {
      const toml::key& k = *kp;
      const toml::node& v = *vp;
      const std::string key(k.str());
      SourcePos kat = pos_of(k.source());
      if (key == "name") {
        r.name = text(v, key);
        named = true;
      } else if (key == "comm") {
        r.match.comm = glob(v, key);
      } else if (key == "exe") {
        r.match.exe = glob(v, key);
      } else if (key == "cmdline") {
        r.match.cmdline = text(v, key);
        r.match.cmdline_re = compile(*r.match.cmdline);
      } else if (key == "cgroup") {
        r.match.cgroup = glob(v, key);
      } else if (key == "unit") {
        r.match.unit = glob(v, key);
      } else if (key == "user") {
        user(r, v);
      } else if (key == "where") {
        r.where = text(v, key);
      } else if (key == "mem") {
        r.mem = text(v, key);
      } else if (key == "policy") {
        r.policy = text(v, key);
      } else if (key == "nice") {
        const auto* i = v.as_integer();
        if (!i) fail(pos_of(v.source()), fmt::format("'nice' must be an integer from -20 to 19, not {}", type_name(v)));
        int64_t n = i->get();
        if (n < -20 || n > 19) fail(pos_of(v.source()), fmt::format("nice {} is not from -20 to 19", n));
        r.nice = Located<int>{static_cast<int>(n), pos_of(v.source())};
      } else if (key == "spread") {
        if (const auto* b = v.as_boolean()) {
          if (b->get()) r.spread = Located<unsigned>{1, pos_of(v.source())};
        } else if (const auto* i = v.as_integer()) {
          int64_t n = i->get();
          if (n < 1 || n > 1024)
            fail(pos_of(v.source()), fmt::format("spread {} is not from 1 to 1024 (threads per CPU)", n));
          r.spread = Located<unsigned>{static_cast<unsigned>(n), pos_of(v.source())};
        } else {
          fail(pos_of(v.source()),
               fmt::format("'spread' must be true or a number of threads per CPU, not {}", type_name(v)));
        }
      } else if (key == "tree") {
        r.tree = boolean(v, key);
      } else if (key == "enforce") {
        r.enforce = boolean(v, key);
      } else if (key == "threads") {
        r.threads = glob_map(v, key);
      } else if (key == "irqs") {
        r.irqs = glob_map(v, key);
      } else {
        std::string hint = did_you_mean(key, keys);
        fail(kat, fmt::format("unknown key '{}' in a rule", printable(key)),
             hint.empty() ? "a rule's keys: " + join(keys) : hint);
      }
    }
    if (!named) fail(at, "this rule has no name", "name = \"...\" names it in the output and the metrics");
    if (r.mem && !r.where)
      fail(r.mem->at, fmt::format("rule '{}': mem goes with where (the pages go to the nodes of its CPUs, or mem's)",
                                  printable(r.name.value)));
    if (r.spread && !r.where)
      fail(r.spread->at, fmt::format("rule '{}': spread goes with where (one CPU each of it)", printable(r.name.value)));
    if (r.acts_on_processes() && !r.match.any())
      fail(at, fmt::format("rule '{}' matches no process: give comm, exe, cmdline, cgroup, unit or user",
                           printable(r.name.value)));
    if (!r.acts_on_processes() && r.irqs.empty())
      fail(at, fmt::format("rule '{}' does nothing: give where, policy, nice, threads or irqs", printable(r.name.value)));
    if (!r.acts_on_processes() && (r.tree || r.enforce || r.match.any()))
      fail(at, fmt::format("rule '{}' matches processes but does nothing to them: give where, policy, nice or threads",
                           printable(r.name.value)));
    return r;
  }

  // toml++ keeps a table's keys in the order of their text: the file's
  // order makes the first error reported the first in the file.
  static std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t) {
    std::vector<std::pair<const toml::key*, const toml::node*>> out;
    for (auto&& [k, v] : t) out.emplace_back(&k, &v);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      const auto& x = a.first->source().begin;
      const auto& y = b.first->source().begin;
      return x.line != y.line ? x.line < y.line : x.column < y.column;
    });
    return out;
  }

  static std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
    return out;
  }

  std::shared_ptr<const std::regex> compile(const Located<std::string>& re) const {
    if (auto bad = regex_overlong_number(re.value))
      fail(re.at, fmt::format("cmdline '{}' is not a regular expression: {}", printable(re.value), *bad));
    try {
      return std::make_shared<const std::regex>(re.value, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      fail(re.at, fmt::format("cmdline '{}' is not a regular expression: {}", printable(re.value), e.what()));
    }
  }

  void user(Rule& r, const toml::node& v) const {
    if (const auto* i = v.as_integer()) {
      int64_t n = i->get();
      if (n < 0 || n > static_cast<int64_t>(std::numeric_limits<uid_t>::max() - 1))
        fail(pos_of(v.source()), fmt::format("uid {} is not a user ID", n));
      r.match.user = Located<std::string>{std::to_string(n), pos_of(v.source())};
      r.match.uid = static_cast<uid_t>(n);
      return;
    }
    if (!v.as_string())
      fail(pos_of(v.source()), fmt::format("'user' must be a user name or a uid, not {}", type_name(v)));
    r.match.user = text(v, "user");
    const std::string& name = r.match.user->value;
    if (name.find_first_not_of("0123456789") == std::string::npos) {
      if (name.size() > 10 || std::stoull(name) >= std::numeric_limits<uid_t>::max())
        fail(r.match.user->at, fmt::format("uid {} is not a user ID", name));
      r.match.uid = static_cast<uid_t>(std::stoull(name));
    }
  }

  RuleSet parse(std::string_view text) const {
    RuleSet out;
    out.file = m_file;
    // TOML allows no NUL byte anywhere (nor in a comment); toml++ 3.3
    // asserts on one in a key (fuzz/rules.cpp found it), so it never
    // sees one.
    if (auto nul = text.find('\0'); nul != std::string_view::npos) {
      SourcePos at{1, 1};
      for (size_t i = 0; i < nul; ++i) {
        if (text[i] == '\n') {
          ++at.line;
          at.column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
          ++at.column;  // columns count characters, as toml++ counts them
        }
      }
      fail(at, "a NUL byte (TOML allows none)");
    }
    if (auto at = bad_table_header(text))
      fail(*at, "a table header needs a name after its '['", "each rule starts with a line [[rule]]");
    toml::parse_result parsed = toml::parse(text, m_file);
    if (!parsed) {
      const toml::parse_error& e = parsed.error();
      fail(pos_of(e.source()), std::string(e.description()));
    }
    const toml::table& top = parsed.table();
    for (auto&& [k, v] : top) {
      if (k.str() != "rule") {
        std::string hint = did_you_mean(k.str(), {"rule"});
        fail(pos_of(k.source()), fmt::format("unknown key '{}' (the file holds [[rule]] tables)", printable(k.str())),
             hint.empty() ? "each rule starts with a line [[rule]]" : hint);
      }
      const auto* rules = v.as_array();
      if (!rules || !rules->is_array_of_tables())
        fail(pos_of(v.source()), "'rule' must be [[rule]] tables", "each rule starts with a line [[rule]]");
      std::set<std::string> names;
      for (const toml::node& r : *rules) {
        if (out.rules.size() >= k_max_rules) fail(pos_of(r.source()), fmt::format("more than {} rules", k_max_rules));
        Rule rule_ = rule(*r.as_table(), pos_of(r.source()));
        if (!names.insert(rule_.name.value).second)
          fail(rule_.name.at, fmt::format("a rule named '{}' is given twice", printable(rule_.name.value)),
               "names tell the rules apart in the output and the metrics");
        out.rules.push_back(std::move(rule_));
      }
    }
    return out;
  }

 private:
  std::string m_file;
};

// A table header whose '[' (or "[[") is not followed by a key, a quote or
// ']': toml++ 3.3 asserts there (built with NDEBUG by clang, assumes: no
// check at all), instead of reporting it (fuzz/rules.cpp found it). The
// place of the character, or nullopt. Lines inside a multi-line string
// ("""...""", '''...''') are not headers.
std::optional<SourcePos> bad_table_header(std::string_view text) {
  std::string_view open;  // the delimiter of the multi-line string we are in
  unsigned number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++number;
    if (open.empty()) {
      // Past blanks, a byte order mark and any other character toml++ may
      // take for white space (every non-ASCII one, to be safe).
      size_t i = 0;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || static_cast<unsigned char>(line[i]) >= 0x80)) ++i;
      if (i < line.size() && line[i] == '[') {
        size_t j = i + 1;
        if (j < line.size() && line[j] == '[') ++j;
        while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
        char c = j < line.size() ? line[j] : '\n';
        bool fine = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '"' || c == '\'' || c == ']';
        if (!fine) {
          unsigned column = 1;
          for (size_t k = 0; k < j; ++k) column += (static_cast<unsigned char>(line[k]) & 0xC0) != 0x80;
          return SourcePos{number, column};
        }
      }
    }
    for (size_t at = 0;;) {
      if (open.empty()) {
        size_t a = line.find("\"\"\"", at), b = line.find("'''", at);
        if (a == std::string_view::npos && b == std::string_view::npos) break;
        open = a < b ? std::string_view("\"\"\"") : std::string_view("'''");
        at = std::min(a, b) + 3;
      } else {
        size_t e = line.find(open, at);
        if (e == std::string_view::npos) break;
        open = {};
        at = e + 3;
      }
    }
  }
  return std::nullopt;
}

bool glob_matches(const std::string& glob, const std::string& text) {
  return ::fnmatch(glob.c_str(), text.c_str(), 0) == 0;
}

}  // namespace

RuleSet parse_rules(std::string_view text, const std::string& file) { return Parser(file).parse(text); }

RuleSet read_rules(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorKind::Runtime, fmt::format("cannot read {}: {}", printable(file), errno_text(errno)));
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > (size_t{16} << 20))
      throw Error(ErrorKind::Usage, fmt::format("{}: a rules file is at most 16 MiB", printable(file)));
  }
  if (in.bad()) throw Error(ErrorKind::Runtime, fmt::format("cannot read {}: {}", printable(file), errno_text(errno)));
  return parse_rules(text, file);
}

std::string where_in(const RuleSet& rules, SourcePos at) {
  return fmt::format("{}:{}:{}: ", printable(rules.file), at.line, at.column);
}

bool rule_matches(const Rule& rule, const ProcessFacts& f) {
  const RuleMatch& m = rule.match;
  if (!m.any() || f.kernel_thread) return false;
  if (m.comm && !glob_matches(m.comm->value, f.comm)) return false;
  if (m.exe && (!f.exe || !glob_matches(m.exe->value, *f.exe))) return false;
  if (m.cmdline && (!f.cmdline || !std::regex_search(*f.cmdline, *m.cmdline_re))) return false;
  if (m.cgroup && (!f.cgroup || !glob_matches(m.cgroup->value, *f.cgroup))) return false;
  if (m.unit) {
    if (!f.unit) return false;
    std::string want = m.unit->value;
    if (want.find('.') == std::string::npos) want += ".service";
    if (!glob_matches(want, *f.unit)) return false;
  }
  if (m.user && (!m.uid || !f.uid || *m.uid != *f.uid)) return false;
  return true;
}

std::optional<size_t> first_match(const RuleSet& rules, const ProcessFacts& facts, std::vector<size_t>* also) {
  std::optional<size_t> first;
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    if (!rules.rules[i].acts_on_processes() || !rule_matches(rules.rules[i], facts)) continue;
    if (!first) {
      first = i;
      if (!also) break;
    } else {
      also->push_back(i);
    }
  }
  return first;
}

std::optional<size_t> first_glob(const std::vector<GlobWhere>& globs, std::string_view name) {
  std::string n(name);
  for (size_t i = 0; i < globs.size(); ++i)
    if (glob_matches(globs[i].glob.value, n)) return i;
  return std::nullopt;
}

std::optional<std::string> unit_of_cgroup(std::string_view path) {
  std::optional<std::string> unit;
  for (std::string_view part : split(path, '/')) {
    auto ends = [&](std::string_view suffix) {
      return part.size() > suffix.size() && part.substr(part.size() - suffix.size()) == suffix;
    };
    if (ends(".service") || ends(".scope")) unit = std::string(part);
  }
  return unit;
}

std::optional<std::string> cgroup_of_proc(std::string_view text) {
  std::optional<std::string> unified, systemd, cpuset, first;
  for (std::string_view line : split(text, '\n')) {
    // "ID:CONTROLLERS:PATH"; the path may hold ':' itself.
    auto a = line.find(':');
    if (a == std::string_view::npos) continue;
    auto b = line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
    std::string path(line.substr(b + 1));
    if (!first) first = path;
    if (id == "0" && controllers.empty()) unified = path;
    if (controllers == "name=systemd") systemd = path;
    for (std::string_view c : split(controllers, ','))
      if (c == "cpuset") cpuset = path;
  }
  if (unified) return unified;
  if (systemd) return systemd;
  if (cpuset) return cpuset;
  return first;
}

}  // namespace affix
