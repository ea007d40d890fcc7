#include "text.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace affix {

namespace {

// The length of the valid UTF-8 sequence at s[i] and its code point, or 0.
size_t utf8_sequence(std::string_view s, size_t i, char32_t& cp) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t len;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = byte(i + k);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  // Overlong forms, surrogates, beyond U+10FFFF.
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

// Walks s one UTF-8 sequence at a time: valid(bytes, code point) for each
// well-formed sequence, invalid(byte) for each byte that starts none.
template <typename Valid, typename Invalid>
void for_each_sequence(std::string_view s, Valid valid, Invalid invalid) {
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    size_t len = utf8_sequence(s, i, cp);
    if (len == 0) {
      invalid(static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      valid(s.substr(i, len), cp);
      i += len;
    }
  }
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [&out](unsigned char b) { out += fmt::format("\\x{:02x}", b); };
  for_each_sequence(
      s,
      [&](std::string_view seq, char32_t cp) {
        if (cp == '\\') out += "\\\\";
        else if (cp == '\n') out += "\\n";
        else if (cp == '\t') out += "\\t";
        else if (cp == '\r') out += "\\r";
        else if (cp == 0x1b) out += "\\e";
        else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
          for (char b : seq) hex(static_cast<unsigned char>(b));
        else out.append(seq);
      },
      hex);
  return out;
}

namespace {

// Columns a printable code point takes on a terminal: 2 for the wide forms
// (the ranges fmt's width estimate uses), else 1.
size_t columns_of(char32_t cp) {
  bool wide = (cp >= 0x1100 && cp <= 0x115f) || cp == 0x2329 || cp == 0x232a ||
              (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) || (cp >= 0xac00 && cp <= 0xd7a3) ||
              (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe10 && cp <= 0xfe19) ||
              (cp >= 0xfe30 && cp <= 0xfe6f) || (cp >= 0xff00 && cp <= 0xff60) ||
              (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x20000 && cp <= 0x2fffd) ||
              (cp >= 0x30000 && cp <= 0x3fffd) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
              (cp >= 0x1f900 && cp <= 0x1f9ff);
  return wide ? 2 : 1;
}

}  // namespace

std::string printable_cell(std::string_view s, size_t columns) {
  std::string out;
  size_t used = 0;
  bool cut = false;
  const size_t room = columns > 0 ? columns - 1 : 0;  // where a cut name leaves its '+'
  std::string kept;  // out as far as `room` columns
  size_t kept_used = 0;
  auto add = [&](const std::string& piece, size_t width) {
    if (cut) return;
    if (used + width > columns) {
      cut = true;
      return;
    }
    out += piece;
    used += width;
    if (used <= room) {
      kept = out;
      kept_used = used;
    }
  };
  for_each_sequence(
      s,
      [&](std::string_view seq, char32_t cp) {
        std::string piece = printable(seq);
        add(piece, piece.size() == seq.size() ? columns_of(cp) : piece.size());
      },
      [&](unsigned char b) { add(fmt::format("\\x{:02x}", b), 4); });
  if (cut && columns > 0) {
    out = kept + "+";
    used = kept_used + 1;
  }
  out.append(columns > used ? columns - used : 0, ' ');
  return out;
}

std::string utf8_or_replacement(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for_each_sequence(
      s, [&out](std::string_view seq, char32_t) { out.append(seq); },
      [&out](unsigned char) { out += "\xef\xbf\xbd"; });  // U+FFFD
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates, size_t max) {
  std::string best;
  size_t best_distance = max + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    // A word that keeps fewer than two of its characters is no misspelling
    // (`all` is not `llc`, `l4` not `l3`).
    if (d + 2 > word.size()) continue;
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates, size_t max) {
  std::string n = nearest(word, candidates, max);
  return n.empty() ? std::string() : fmt::format("did you mean '{}'?", n);
}

std::string format_id_list(const std::vector<pid_t>& ids, size_t width) {
  std::string out;
  size_t i = 0;
  while (i < ids.size()) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    std::string item = std::to_string(ids[i]);
    if (j > i) item += '-' + std::to_string(ids[j]);
    if (!out.empty() && out.size() + 1 + item.size() > width) break;
    if (!out.empty()) out += ',';
    out += item;
    i = j + 1;
  }
  if (i < ids.size()) out += fmt::format(" +{} more", ids.size() - i);
  return out;
}

std::string plural(unsigned long long n, std::string_view one, std::string_view many) {
  if (n == 1) return fmt::format("{} {}", n, one);
  if (many.empty()) return fmt::format("{} {}s", n, one);
  return fmt::format("{} {}", n, many);
}

std::string errno_text(int err) { return std::strerror(err); }

std::string grouped(unsigned long long n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_node_counts(const std::map<unsigned, unsigned long long>& counts, bool drop_zero) {
  std::string out;
  for (const auto& [node, count] : counts) {
    if (drop_zero && count == 0) continue;
    out += fmt::format("{}{}:{}", out.empty() ? "" : " ", node, count);
  }
  return out.empty() ? "none" : out;
}

std::string format_kb(unsigned long long kb) {
  if (kb >= 1024ull * 1024) return fmt::format("{:.1f} GiB", static_cast<double>(kb) / (1024.0 * 1024.0));
  if (kb >= 1024) return fmt::format("{:.1f} MiB", static_cast<double>(kb) / 1024.0);
  return fmt::format("{} KiB", kb);
}

std::optional<std::string> regex_overlong_number(std::string_view re) {
  constexpr size_t k_digits = 9;
  auto digits = [&](size_t from) {
    size_t j = from;
    while (j < re.size() && re[j] >= '0' && re[j] <= '9') ++j;
    return j - from;
  };
  for (size_t i = 0; i < re.size(); ++i) {
    if (re[i] != '\\' && re[i] != '{') continue;
    size_t first = digits(i + 1), end = i + 1 + first, second = 0;
    if (re[i] == '{' && end < re.size() && re[end] == ',') second = digits(end + 1);
    if (first > k_digits || second > k_digits) {
      std::string_view number = re.substr(i, std::min<size_t>((second ? end + 1 + second : end) - i, 24));
      return fmt::format("'{}...': a count or a back-reference of more than 9 digits", printable(number));
    }
    if (re[i] == '\\') ++i;  // what it escapes is not a backslash or a '{' of its own
  }
  return std::nullopt;
}

}  // namespace affix
