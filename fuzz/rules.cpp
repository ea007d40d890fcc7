// Fuzz target: the rules file of affix apply (TOML through toml++, then
// each [[rule]] table). Whatever the input, parse_rules gives a rule set or
// an Error(Usage) whose message starts with "FILE:LINE:COL: " (LINE and COL
// from 1, LINE within the input's lines); a rule set obeys what the parser
// promises (a name each, names unique, a match key where it acts on
// processes, file order of its globs), and matching it against a process
// with hostile names neither crashes nor hangs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "error.hpp"
#include "rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  affix::RuleSet rules;
  try {
    rules = affix::parse_rules(text, "f.toml");
  } catch (const affix::Error& e) {
    std::string what = e.what();
    if (e.kind() != affix::ErrorKind::Usage || what.rfind("f.toml:", 0) != 0) std::abort();
    size_t line = std::strtoul(what.c_str() + 7, nullptr, 10);
    if (line < 1 || line > lines + 1) std::abort();
    return 0;
  }
  std::set<std::string> names;
  for (const auto& r : rules.rules) {
    if (r.name.value.empty() || !names.insert(r.name.value).second) std::abort();
    if (r.acts_on_processes() && !r.match.any()) std::abort();
    if (!r.acts_on_processes() && r.irqs.empty()) std::abort();
    if (r.match.cmdline && !r.match.cmdline_re) std::abort();
    for (size_t i = 1; i < r.threads.size(); ++i)
      if (r.threads[i].glob.at.line < r.threads[i - 1].glob.at.line) std::abort();
  }
  affix::ProcessFacts f;
  f.pid = 1;
  f.comm = std::string(text.substr(0, 15));
  f.exe = "/usr/bin/" + std::string(text.substr(0, 64));
  f.cmdline = std::string(text.substr(0, 256));
  f.cgroup = "/system.slice/x.service";
  f.unit = "x.service";
  f.uid = 0;
  std::vector<size_t> also;
  auto first = affix::first_match(rules, f, &also);
  if (first && *first >= rules.rules.size()) std::abort();
  for (const auto& r : rules.rules) affix::first_glob(r.threads, f.comm);
  return 0;
}
