#pragma once
// A small streaming JSON writer: enough for affix's documents, with correct
// string escaping. Usage:
//   JsonWriter j; j.begin_object(); j.key("cpus"); j.value("0-3"); j.end_object();
//   std::string text = j.str();

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affix {

class JsonWriter {
public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view name);
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b);
  void value(long long n);
  void value(unsigned long long n);
  void value(int n) { value(static_cast<long long>(n)); }
  void value(long n) { value(static_cast<long long>(n)); }
  void value(unsigned n) { value(static_cast<unsigned long long>(n)); }
  void value(unsigned long n) { value(static_cast<unsigned long long>(n)); }
  void value(double d);  // three decimals ("1.250"); null where not finite
  void null();
  // `decimals` places ("12.3" with 1); null where not finite.
  void value_fixed(double d, int decimals);
  template <typename T> void value(const std::optional<T>& v) {
    if (v) value(*v); else null();
  }
  // key + value in one call
  template <typename T> void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }
  const std::string& str() const { return m_out; }

private:
  void separator();
  std::string m_out;
  std::vector<bool> m_first;  // per open container: nothing written yet
  bool m_after_key = false;
};

std::string json_escape(std::string_view s);  // with the quotes

// `key`: {"0": 216, "1": 5}, a count per node (pages per NUMA node),
// ascending node number; null where the counts are unknown.
void node_counts_field(JsonWriter& j, std::string_view key,
                       const std::optional<std::map<unsigned, unsigned long long>>& counts);

}  // namespace affix
