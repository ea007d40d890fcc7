#include "location.hpp"

#include <fmt/format.h>

#include "devices.hpp"
#include "error.hpp"
#include "text.hpp"

namespace affix {

const char* level_plural(Level level) {
  switch (level) {
    case Level::Socket: return "sockets";
    case Level::Node: return "nodes";
    case Level::Die: return "dies";
    case Level::Llc: return "llcs";
    case Level::Core: return "cores";
    case Level::Cpu: return "cpus";
  }
  return "?";
}

namespace {

// One character per byte (a ? for any that is not printable ASCII), so the
// caret under a spec stays under the character it points at.
std::string caret_safe(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  return out;
}

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct LevelName {
  const char* word;
  Level level;
};
constexpr LevelName k_level_names[] = {
    {"socket", Level::Socket}, {"package", Level::Socket}, {"node", Level::Node},
    {"numa", Level::Node},     {"die", Level::Die},         {"llc", Level::Llc},
    {"l3", Level::Llc},        {"core", Level::Core},       {"cpu", Level::Cpu},
    {"thread", Level::Cpu},    {"pu", Level::Cpu},
};

bool level_from_word(std::string_view w, Level& out) {
  for (const auto& n : k_level_names)
    if (w == n.word) {
      out = n.level;
      return true;
    }
  return false;
}

// "did you mean 'socket'?" for a word close to a level name (`sokcet`).
std::string level_hint(std::string_view w) {
  std::vector<std::string> words;
  for (const auto& n : k_level_names) words.emplace_back(n.word);
  return did_you_mean(w, words);
}

class Parser {
public:
  explicit Parser(std::string_view spec) : m_s(spec) {}

  Location parse() {
    Location loc;
    loc.text = std::string(m_s);
    if (m_s.empty()) fail("empty location", 0);
    while (true) {
      if (at_end() || peek() == '+') fail("missing location before '+'", m_pos);
      loc.terms.push_back(term());
      if (at_end()) break;
      if (peek() != '+') fail(fmt::format("unexpected '{}'", caret_safe(m_s.substr(m_pos, 1))), m_pos);
      ++m_pos;
      if (at_end()) fail("missing location after '+'", m_pos);
    }
    return loc;
  }

private:
  [[noreturn]] void fail(std::string_view reason, size_t pos, std::string hint = {}) const {
    throw Error(ErrorKind::Spec, spec_error_text(m_s, reason, pos), std::move(hint));
  }
  bool at_end() const { return m_pos >= m_s.size(); }
  char peek() const { return m_s[m_pos]; }

  std::string_view word() {
    size_t start = m_pos;
    while (!at_end() && (is_letter(peek()) || is_digit(peek()))) ++m_pos;
    return m_s.substr(start, m_pos - start);
  }

  Term term() {
    Term t;
    t.position = m_pos;
    if (is_digit(peek()) || bare_all()) {
      Step s;
      s.level = Level::Cpu;
      s.position = m_pos;
      s.ids = ids();
      t.steps.push_back(s);
      t.bare = true;
      if (!at_end() && peek() == '.')
        fail("a bare CPU list takes no further step (write cpu:LIST)", m_pos);
    } else {
      if (!is_letter(peek()))
        fail(fmt::format("expected a level or a CPU number, found '{}'",
                         caret_safe(m_s.substr(m_pos, 1))),
             m_pos);
      t.steps.push_back(step(true));
      while (!at_end() && peek() == '.') {
        ++m_pos;
        if (at_end()) fail("missing step after '.'", m_pos);
        t.steps.push_back(step(false));
      }
    }
    t.length = m_pos - t.position;
    return t;
  }

  // "all" not followed by ':' (a bare `all`, meaning cpu:all).
  bool bare_all() const {
    if (m_s.substr(m_pos, 3) != "all") return false;
    size_t after = m_pos + 3;
    return after >= m_s.size() || !(is_letter(m_s[after]) || is_digit(m_s[after]) || m_s[after] == ':');
  }

  Step step(bool first) {
    Step s;
    s.position = m_pos;
    if (!is_letter(peek())) {
      fail(fmt::format("expected a level (socket, node, die, llc, core, cpu), found '{}'",
                       caret_safe(m_s.substr(m_pos, 1))),
           m_pos);
    }
    std::string_view w = word();
    if (w == "self") {
      if (!first) fail("'self' can only be the first step", s.position);
      if (!at_end() && peek() == ':') fail("'self' takes no ':' (it names the CPUs affix was started on)", m_pos);
      s.type = StepType::Self;
      return s;
    }
    if (w == "near") {
      if (!first) fail("'near:' can only be the first step", s.position);
      if (at_end() || peek() != ':') fail("expected ':' after 'near'", m_pos);
      ++m_pos;
      s.type = StepType::Near;
      s.device = device();
      return s;
    }
    if (w == "kind") {
      if (at_end() || peek() != ':') fail("expected ':' after 'kind'", m_pos);
      ++m_pos;
      s.type = StepType::Kind;
      kind_ids(s);
      return s;
    }
    if (!level_from_word(w, s.level))
      fail(fmt::format("unknown level '{}' (socket, node, die, llc, core, cpu)", caret_safe(w)),
           s.position, level_hint(w));
    if (at_end() || peek() != ':') fail(fmt::format("expected ':' after '{}'", w), m_pos);
    ++m_pos;
    s.ids = ids();
    return s;
  }

  // After "near:": a device name up to the first '.' or '+', or a PCI
  // address (which keeps its own ".F").
  std::string device() {
    size_t start = m_pos;
    while (!at_end() && peek() != '.' && peek() != '+') ++m_pos;
    std::string_view name = m_s.substr(start, m_pos - start);
    if (name.find(':') != std::string_view::npos) {
      if (!at_end() && peek() == '.') {
        ++m_pos;
        while (!at_end() && peek() != '.' && peek() != '+') ++m_pos;
        name = m_s.substr(start, m_pos - start);
      }
      Parsed<PciAddress> a = parse_pci_address(name);
      if (!a) fail(a.error.message, start + a.error.position);
      return std::string(name);
    }
    if (name.empty()) fail("missing device after 'near:'", start);
    if (size_t slash = name.find('/'); slash != std::string_view::npos)
      fail("a device name has no '/'", start + slash);
    if (size_t nul = name.find('\0'); nul != std::string_view::npos)
      fail("a device name has no NUL byte", start + nul);
    if (name.size() > k_max_device_name)
      fail(fmt::format("device name of {} characters (at most {})", name.size(), k_max_device_name), start);
    return std::string(name);
  }

  // After "kind:": performance, efficiency, or ids.
  void kind_ids(Step& s) {
    if (!at_end() && is_letter(peek())) {
      size_t start = m_pos;
      std::string_view w = word();
      if (w == "performance") {
        s.ids.ranges.push_back(IdRange{0, 0, 1, start});
        return;
      }
      if (w == "efficiency") {
        s.least = true;
        return;
      }
      if (w == "all") {
        s.ids.all = true;
        return;
      }
      fail("expected a kind: a number, 'performance' or 'efficiency'", start);
    }
    s.ids = ids();
  }

  Ids ids() {
    Ids out;
    if (!at_end() && is_letter(peek())) {
      size_t start = m_pos;
      std::string_view w = word();
      if (w != "all") fail("expected 'all' or a number", start);
      out.all = true;
      return out;
    }
    while (true) {
      IdRange r;
      r.position = m_pos;
      r.first = r.last = number();
      if (!at_end() && peek() == '-') {
        ++m_pos;
        size_t last_pos = m_pos;
        r.last = number();
        if (r.last < r.first) fail("reversed range", last_pos);
        if (!at_end() && peek() == ':') {
          ++m_pos;
          size_t stride_pos = m_pos;
          r.stride = number();
          if (r.stride == 0) fail("stride 0", stride_pos);
        }
      } else if (!at_end() && peek() == ':') {
        fail("a stride needs a range N-M", m_pos);
      }
      out.ranges.push_back(r);
      if (at_end() || peek() != ',') break;
      size_t comma = m_pos++;
      if (at_end()) fail("stray comma", comma);
    }
    return out;
  }

  unsigned number() {
    if (at_end()) fail("missing number", m_pos);
    if (peek() == ',') fail("stray comma", m_pos);
    if (!is_digit(peek()))
      fail(fmt::format("expected a number, found '{}'", caret_safe(m_s.substr(m_pos, 1))), m_pos);
    size_t start = m_pos;
    unsigned long long v = 0;
    bool too_big = false;
    while (!at_end() && is_digit(peek())) {
      if (!too_big) v = v * 10 + static_cast<unsigned>(peek() - '0');
      if (v > k_max_id) too_big = true;
      ++m_pos;
    }
    if (m_pos - start > 1 && m_s[start] == '0') fail("leading zero", start);
    if (too_big) fail(fmt::format("number beyond {}", k_max_id), start);
    return static_cast<unsigned>(v);
  }

  std::string_view m_s;
  size_t m_pos = 0;
};

}  // namespace

std::string spec_error_text(std::string_view spec, std::string_view reason, size_t position) {
  std::string shown = caret_safe(spec);
  return fmt::format("invalid location '{}': {}\n  {}\n  {}^", shown, reason, shown,
                     std::string(position, ' '));
}

Location parse_location(std::string_view spec) {
  if (spec.size() > k_max_location_length)
    throw Error(ErrorKind::Spec, fmt::format("location too long ({} characters, at most {})",
                                             spec.size(), k_max_location_length));
  return Parser(spec).parse();
}

}  // namespace affix
