#pragma once
// A minimal JSON reader for tests: enough to read affix's own documents
// (objects, arrays, strings without \u escapes, numbers, true/false/null).

#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace affix::test {

struct Json {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  long long number = 0;  // the integer part
  double real = 0;       // the number with its fraction
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json& operator[](const std::string& key) const {
    auto it = object.find(key);
    if (it == object.end()) throw std::runtime_error("no key " + key);
    return it->second;
  }
  const Json& operator[](size_t i) const { return array.at(i); }
  bool is_null() const { return type == Type::Null; }
};

class JsonReader {
public:
  explicit JsonReader(const std::string& text) : m_s(text) {}
  Json parse() {
    Json v = value();
    space();
    if (m_i != m_s.size()) fail("trailing text");
    return v;
  }

private:
  [[noreturn]] void fail(const char* why) {
    throw std::runtime_error(std::string("json: ") + why + " at " + std::to_string(m_i));
  }
  void space() {
    while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\n' || m_s[m_i] == '\t')) ++m_i;
  }
  bool eat(char c) {
    space();
    if (m_i < m_s.size() && m_s[m_i] == c) {
      ++m_i;
      return true;
    }
    return false;
  }
  std::string str() {
    if (!eat('"')) fail("expected string");
    std::string out;
    while (m_i < m_s.size() && m_s[m_i] != '"') {
      if (m_s[m_i] == '\\' && m_i + 1 < m_s.size()) ++m_i;
      out += m_s[m_i++];
    }
    if (!eat('"')) fail("unterminated string");
    return out;
  }
  Json value() {
    space();
    Json v;
    if (m_i >= m_s.size()) fail("unexpected end");
    char c = m_s[m_i];
    if (c == '{') {
      ++m_i;
      v.type = Json::Type::Object;
      if (eat('}')) return v;
      do {
        std::string k = str();
        if (!eat(':')) fail("expected :");
        v.object[k] = value();
      } while (eat(','));
      if (!eat('}')) fail("expected }");
    } else if (c == '[') {
      ++m_i;
      v.type = Json::Type::Array;
      if (eat(']')) return v;
      do v.array.push_back(value());
      while (eat(','));
      if (!eat(']')) fail("expected ]");
    } else if (c == '"') {
      v.type = Json::Type::String;
      v.string = str();
    } else if (m_s.compare(m_i, 4, "true") == 0) {
      v.type = Json::Type::Bool, v.boolean = true, m_i += 4;
    } else if (m_s.compare(m_i, 5, "false") == 0) {
      v.type = Json::Type::Bool, m_i += 5;
    } else if (m_s.compare(m_i, 4, "null") == 0) {
      m_i += 4;
    } else {
      size_t end = m_i;
      if (end < m_s.size() && m_s[end] == '-') ++end;
      while (end < m_s.size() && m_s[end] >= '0' && m_s[end] <= '9') ++end;
      if (end == m_i) fail("unexpected character");
      v.type = Json::Type::Number;
      v.number = std::stoll(m_s.substr(m_i, end - m_i));
      if (end < m_s.size() && m_s[end] == '.') {  // a fraction: kept whole in `real`
        ++end;
        while (end < m_s.size() && m_s[end] >= '0' && m_s[end] <= '9') ++end;
      }
      v.real = std::stod(m_s.substr(m_i, end - m_i));
      m_i = end;
    }
    return v;
  }
  const std::string& m_s;
  size_t m_i = 0;
};

inline Json parse_json(const std::string& text) { return JsonReader(text).parse(); }

// Runs a shell command; returns its stdout and sets `status` to its exit status.
inline std::string run_command(const std::string& command, int& status) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + command);
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = ::pclose(p);
  status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

}  // namespace affix::test
