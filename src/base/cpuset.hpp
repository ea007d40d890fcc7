#pragma once
// Sets of CPU or NUMA node numbers, sized at run time, with the kernel's two
// text forms: cpulist ("0-3,8-11", strides "0-31:2" on input) and hex mask
// ("ffffffff,00000001" as in cpumap / Cpus_allowed).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affix {

// Largest CPU or node number accepted anywhere (2^20, affix(1), "Kernel numbers and indexes").
constexpr unsigned k_max_id = 1u << 20;

class CpuSet {
public:
  CpuSet() = default;
  static CpuSet range(unsigned first, unsigned last);  // inclusive

  void set(unsigned i);
  // Adds first..last (inclusive) in time proportional to the words touched.
  void set_range(unsigned first, unsigned last);
  void reset(unsigned i);
  bool test(unsigned i) const;
  bool empty() const;
  unsigned count() const;
  // Lowest member; only call on a non-empty set.
  unsigned first() const;
  // Next member strictly after i, or nullopt.
  std::optional<unsigned> next(unsigned i) const;
  // One past the highest member (0 when empty).
  unsigned end() const;
  std::vector<unsigned> members() const;

  CpuSet& operator|=(const CpuSet& o);
  CpuSet& operator&=(const CpuSet& o);
  CpuSet& operator-=(const CpuSet& o);  // set difference
  friend CpuSet operator|(CpuSet a, const CpuSet& b) { return a |= b; }
  friend CpuSet operator&(CpuSet a, const CpuSet& b) { return a &= b; }
  friend CpuSet operator-(CpuSet a, const CpuSet& b) { return a -= b; }
  bool operator==(const CpuSet& o) const;
  bool intersects(const CpuSet& o) const;
  bool is_subset_of(const CpuSet& o) const;

  template <typename F> void for_each(F&& f) const {
    for (size_t w = 0; w < m_words.size(); ++w) {
      uint64_t bits = m_words[w];
      while (bits) {
        unsigned b = static_cast<unsigned>(__builtin_ctzll(bits));
        f(static_cast<unsigned>(w * 64 + b));
        bits &= bits - 1;
      }
    }
  }

  const std::vector<uint64_t>& words() const { return m_words; }
  // Replaces the set with n 64-bit words (bit i of word w is member w*64+i),
  // reusing the storage: a kernel mask becomes a set without a bit-by-bit walk.
  void assign_words(const uint64_t* words, size_t n);

private:
  void trim();
  std::vector<uint64_t> m_words;  // no trailing zero words
};

// Result of a parser: a value, or a message that quotes the input and the
// offset (0-based, into the input) of the offending character.
struct ParseError {
  std::string message;
  size_t position = 0;
};

template <typename T> struct Parsed {
  std::optional<T> value;
  ParseError error;
  explicit operator bool() const { return value.has_value(); }
};

// "0-3,8-11", "0-31:2"; strict (no empty list unless allow_empty, no sign, no
// leading zero, no hex). Surrounding whitespace (a trailing newline from
// sysfs) is accepted. Numbers above max_id are an error.
Parsed<CpuSet> parse_cpulist(std::string_view text, bool allow_empty = false,
                             unsigned max_id = k_max_id);
// "ffffffff,00000001" (32-bit words, most significant first).
Parsed<CpuSet> parse_cpumask(std::string_view text, unsigned max_id = k_max_id);

std::string format_cpulist(const CpuSet& set);
// format_cpulist, or "none" for an empty set (in messages).
std::string list_or_none(const CpuSet& set);
std::string format_cpumask(const CpuSet& set);

// Strict unsigned decimal: no sign, no leading zero (except "0"), <= max.
std::optional<unsigned long long> parse_decimal(std::string_view text,
                                                unsigned long long max);

}  // namespace affix
