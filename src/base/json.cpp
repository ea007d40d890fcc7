#include "json.hpp"

#include <cmath>

#include <fmt/format.h>

#include "text.hpp"

namespace affix {

// Valid UTF-8 whatever the input (U+FFFD for a byte that is not), with every
// control character escaped (C0, DEL and the C1 controls).
std::string json_escape(std::string_view raw) {
  std::string s = utf8_or_replacement(raw);
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[++i]));  // U+0080-U+009F
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) out += fmt::format("\\u{:04x}", c);
        else out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

void JsonWriter::separator() {
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  if (!m_first.empty()) {
    if (!m_first.back()) m_out += ", ";
    m_first.back() = false;
  }
}

void JsonWriter::begin_object() { separator(); m_out += '{'; m_first.push_back(true); }
void JsonWriter::end_object() { m_out += '}'; m_first.pop_back(); }
void JsonWriter::begin_array() { separator(); m_out += '['; m_first.push_back(true); }
void JsonWriter::end_array() { m_out += ']'; m_first.pop_back(); }

void JsonWriter::key(std::string_view name) {
  separator();
  m_out += json_escape(name);
  m_out += ": ";
  m_after_key = true;
}

void JsonWriter::value(std::string_view s) { separator(); m_out += json_escape(s); }
void JsonWriter::value(bool b) { separator(); m_out += b ? "true" : "false"; }
void JsonWriter::value(long long n) { separator(); m_out += std::to_string(n); }
void JsonWriter::value(unsigned long long n) { separator(); m_out += std::to_string(n); }
void JsonWriter::value(double d) {
  separator();
  m_out += std::isfinite(d) ? fmt::format("{:.3f}", d) : "null";
}
void JsonWriter::value_fixed(double d, int decimals) {
  separator();
  m_out += std::isfinite(d) ? fmt::format("{:.{}f}", d, decimals) : "null";
}
void JsonWriter::null() { separator(); m_out += "null"; }

void node_counts_field(JsonWriter& j, std::string_view key,
                       const std::optional<std::map<unsigned, unsigned long long>>& counts) {
  j.key(key);
  if (!counts) {
    j.null();
    return;
  }
  j.begin_object();
  for (const auto& [node, count] : *counts) j.field(std::to_string(node), count);
  j.end_object();
}

}  // namespace affix
