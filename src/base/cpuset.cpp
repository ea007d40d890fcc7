#include "cpuset.hpp"

#include <array>
#include <bit>

#include <fmt/format.h>

#include "text.hpp"

namespace affix {

CpuSet CpuSet::range(unsigned first, unsigned last) {
  CpuSet s;
  s.set_range(first, last);
  return s;
}

void CpuSet::set_range(unsigned first, unsigned last) {
  if (last < first) return;
  if (last / 64 >= m_words.size()) m_words.resize(last / 64 + 1, 0);
  for (unsigned w = first / 64; w <= last / 64; ++w) {
    unsigned lo = (w == first / 64) ? first % 64 : 0;
    unsigned hi = (w == last / 64) ? last % 64 : 63;
    uint64_t mask = (hi == 63 ? ~0ull : ((1ull << (hi + 1)) - 1)) & ~((1ull << lo) - 1);
    m_words[w] |= mask;
  }
}

void CpuSet::set(unsigned i) {
  if (i / 64 >= m_words.size()) m_words.resize(i / 64 + 1, 0);
  m_words[i / 64] |= 1ull << (i % 64);
}

void CpuSet::assign_words(const uint64_t* words, size_t n) {
  while (n > 0 && words[n - 1] == 0) --n;
  m_words.assign(words, words + n);
}

void CpuSet::reset(unsigned i) {
  if (i / 64 >= m_words.size()) return;
  m_words[i / 64] &= ~(1ull << (i % 64));
  trim();
}

bool CpuSet::test(unsigned i) const {
  return i / 64 < m_words.size() && (m_words[i / 64] >> (i % 64)) & 1;
}

bool CpuSet::empty() const { return m_words.empty(); }

unsigned CpuSet::count() const {
  unsigned n = 0;
  for (auto w : m_words) n += static_cast<unsigned>(__builtin_popcountll(w));
  return n;
}

unsigned CpuSet::first() const {
  for (size_t w = 0; w < m_words.size(); ++w)
    if (m_words[w]) return static_cast<unsigned>(w * 64 + __builtin_ctzll(m_words[w]));
  return 0;
}

std::optional<unsigned> CpuSet::next(unsigned i) const {
  unsigned j = i + 1;
  size_t w = j / 64;
  if (w >= m_words.size()) return std::nullopt;
  uint64_t bits = (j % 64) ? m_words[w] & ~((1ull << (j % 64)) - 1) : m_words[w];
  while (true) {
    if (bits) return static_cast<unsigned>(w * 64 + __builtin_ctzll(bits));
    if (++w >= m_words.size()) return std::nullopt;
    bits = m_words[w];
  }
}

unsigned CpuSet::end() const {
  if (m_words.empty()) return 0;
  uint64_t top = m_words.back();
  return static_cast<unsigned>((m_words.size() - 1) * 64 + 64 - __builtin_clzll(top));
}

std::vector<unsigned> CpuSet::members() const {
  std::vector<unsigned> out;
  out.reserve(count());
  for_each([&](unsigned i) { out.push_back(i); });
  return out;
}

CpuSet& CpuSet::operator|=(const CpuSet& o) {
  if (o.m_words.size() > m_words.size()) m_words.resize(o.m_words.size(), 0);
  for (size_t i = 0; i < o.m_words.size(); ++i) m_words[i] |= o.m_words[i];
  return *this;
}

CpuSet& CpuSet::operator&=(const CpuSet& o) {
  if (m_words.size() > o.m_words.size()) m_words.resize(o.m_words.size());
  for (size_t i = 0; i < m_words.size(); ++i) m_words[i] &= o.m_words[i];
  trim();
  return *this;
}

CpuSet& CpuSet::operator-=(const CpuSet& o) {
  size_t n = std::min(m_words.size(), o.m_words.size());
  for (size_t i = 0; i < n; ++i) m_words[i] &= ~o.m_words[i];
  trim();
  return *this;
}

bool CpuSet::operator==(const CpuSet& o) const { return m_words == o.m_words; }

bool CpuSet::intersects(const CpuSet& o) const {
  size_t n = std::min(m_words.size(), o.m_words.size());
  for (size_t i = 0; i < n; ++i)
    if (m_words[i] & o.m_words[i]) return true;
  return false;
}

bool CpuSet::is_subset_of(const CpuSet& o) const {
  for (size_t i = 0; i < m_words.size(); ++i) {
    uint64_t other = i < o.m_words.size() ? o.m_words[i] : 0;
    if (m_words[i] & ~other) return false;
  }
  return true;
}

void CpuSet::trim() {
  while (!m_words.empty() && m_words.back() == 0) m_words.pop_back();
}

std::optional<unsigned long long> parse_decimal(std::string_view text,
                                                unsigned long long max) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  unsigned long long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > max) return std::nullopt;
  }
  return v;
}

namespace {

std::string_view strip(std::string_view s, size_t& offset) {
  offset = 0;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) {
    s.remove_prefix(1);
    ++offset;
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

// Text a parse error quotes: a file's content is data (escaped as names
// are, printable()), and at most k_max_quote of its bytes, then "...": a
// 288 KB mask is not one line of a message (the offset says where it goes
// wrong).
constexpr size_t k_max_quote = 80;
std::string quoted(std::string_view s) {
  if (s.size() <= k_max_quote) return printable(s);
  return printable(s.substr(0, k_max_quote)) + "...";
}
std::string quoted(char c) { return printable(std::string_view(&c, 1)); }

// The value of a hex digit, -1 for any other byte.
constexpr std::array<int8_t, 256> k_hex_digit = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int c = 0; c < 10; ++c) t['0' + c] = static_cast<int8_t>(c);
  for (int c = 0; c < 6; ++c) t['a' + c] = t['A' + c] = static_cast<int8_t>(10 + c);
  return t;
}();

// Reads digits at pos; returns the number or an error message.
bool read_number(std::string_view s, size_t& pos, unsigned max_id, unsigned& out,
                 std::string& why) {
  size_t start = pos;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  if (pos == start) {
    why = pos < s.size() ? fmt::format("unexpected '{}'", quoted(s[pos])) : "missing number";
    return false;
  }
  auto digits = s.substr(start, pos - start);
  if (digits.size() > 1 && digits[0] == '0') {
    pos = start;
    why = "leading zero";
    return false;
  }
  auto v = parse_decimal(digits, max_id);
  if (!v) {
    pos = start;
    why = fmt::format("number beyond {}", max_id);
    return false;
  }
  out = static_cast<unsigned>(*v);
  return true;
}

}  // namespace

Parsed<CpuSet> parse_cpulist(std::string_view text, bool allow_empty, unsigned max_id) {
  Parsed<CpuSet> result;
  size_t offset = 0;
  std::string_view s = strip(text, offset);
  auto fail = [&](size_t pos, const std::string& why) {
    result.error.position = offset + pos;
    result.error.message = fmt::format("invalid cpulist '{}': {} at offset {}",
                                       quoted(strip(text, offset)), why, pos);
    return result;
  };
  CpuSet set;
  if (s.empty()) {
    if (allow_empty) {
      result.value = set;
      return result;
    }
    return fail(0, "empty list");
  }
  size_t pos = 0;
  while (true) {
    unsigned a = 0, b = 0, stride = 1;
    std::string why;
    if (!read_number(s, pos, max_id, a, why)) return fail(pos, why);
    b = a;
    if (pos < s.size() && s[pos] == '-') {
      ++pos;
      size_t bstart = pos;
      if (!read_number(s, pos, max_id, b, why)) return fail(pos, why);
      if (b < a) return fail(bstart, fmt::format("reversed range {}-{}", a, b));
      if (pos < s.size() && s[pos] == ':') {
        ++pos;
        size_t sstart = pos;
        if (!read_number(s, pos, max_id, stride, why)) return fail(pos, why);
        if (stride == 0) return fail(sstart, "stride 0");
      }
    }
    if (stride == 1) {
      set.set_range(a, b);
    } else {
      for (unsigned i = a; i <= b; i += stride) {
        set.set(i);
        if (b - i < stride) break;
      }
    }
    if (pos == s.size()) break;
    if (s[pos] != ',') return fail(pos, fmt::format("unexpected '{}'", quoted(s[pos])));
    ++pos;
    if (pos == s.size()) return fail(pos - 1, "stray comma");
  }
  result.value = std::move(set);
  return result;
}

Parsed<CpuSet> parse_cpumask(std::string_view text, unsigned max_id) {
  Parsed<CpuSet> result;
  size_t offset = 0;
  std::string_view s = strip(text, offset);
  auto fail = [&](size_t pos, const std::string& why) {
    result.error.position = offset + pos;
    result.error.message =
        fmt::format("invalid cpu mask '{}': {} at offset {}", quoted(s), why, pos);
    return result;
  };
  if (s.empty()) return fail(0, "empty mask");
  // Comma-separated 32-bit groups, most significant first, read in one pass
  // into 64-bit words (a 4096-CPU mask is 128 groups: no list of groups, no
  // bit by bit). Text that is not a mask is looked at again, group by group,
  // to say where it goes wrong.
  auto why_not = [&]() {
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
      if (i == s.size() || s[i] == ',') {
        auto g = s.substr(start, i - start);
        if (g.empty()) return fail(i, "empty group");
        if (g.size() > 8) return fail(start, "group longer than 8 hex digits");
        for (size_t k = 0; k < g.size(); ++k)
          if (k_hex_digit[static_cast<unsigned char>(g[k])] < 0)
            return fail(start + k, fmt::format("unexpected '{}'", quoted(g[k])));
        start = i + 1;
      }
    }
    return fail(0, "not a mask");  // not reached: the caller saw a problem
  };
  // From the last (least significant) group back: no count of the groups
  // first.
  std::vector<uint64_t> words;
  words.reserve(s.size() / 17 + 1);
  size_t group = 0;  // groups read so far
  uint32_t v = 0;
  unsigned digits = 0;
  auto end_group = [&] {
    if (group % 2 == 0) words.push_back(v);
    else words.back() |= uint64_t{v} << 32;
    ++group;
    v = 0;
    digits = 0;
  };
  for (size_t i = s.size(); i-- > 0;) {
    char c = s[i];
    if (c == ',') {
      if (digits == 0) return why_not();
      end_group();
      continue;
    }
    int h = k_hex_digit[static_cast<unsigned char>(c)];
    if (h < 0 || digits == 8) return why_not();
    v |= static_cast<uint32_t>(h) << (4 * digits++);
  }
  if (digits == 0) return why_not();
  end_group();
  size_t used = words.size();
  while (used > 0 && words[used - 1] == 0) --used;
  if (used > 0 && (used - 1) * 64 + 63 - static_cast<size_t>(std::countl_zero(words[used - 1])) > max_id)
    return fail(0, fmt::format("bit beyond {}", max_id));
  CpuSet set;
  set.assign_words(words.data(), used);
  result.value = std::move(set);
  return result;
}

std::string format_cpulist(const CpuSet& set) {
  std::string out;
  bool in_run = false;
  unsigned run_start = 0, prev = 0;
  auto flush = [&] {
    if (!out.empty()) out += ',';
    if (prev == run_start)
      out += std::to_string(run_start);
    else
      out += fmt::format("{}-{}", run_start, prev);
  };
  set.for_each([&](unsigned i) {
    if (in_run && i == prev + 1) {
      prev = i;
      return;
    }
    if (in_run) flush();
    in_run = true;
    run_start = prev = i;
  });
  if (in_run) flush();
  return out;
}

std::string list_or_none(const CpuSet& set) { return set.empty() ? "none" : format_cpulist(set); }

std::string format_cpumask(const CpuSet& set) {
  unsigned groups = std::max(1u, (set.end() + 31) / 32);
  std::string out;
  for (unsigned g = groups; g-- > 0;) {
    uint32_t v = 0;
    for (unsigned b = 0; b < 32; ++b)
      if (set.test(g * 32 + b)) v |= 1u << b;
    if (!out.empty()) out += ',';
    out += fmt::format("{:08x}", v);
  }
  return out;
}

}  // namespace affix
