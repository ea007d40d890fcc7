#include "metrics.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

std::string metric_label_value(std::string_view raw) {
  // A process's name is any 15 bytes: the format is UTF-8 text.
  const std::string value = utf8_or_replacement(raw);
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string metric_help(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string metric_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // fmt never uses the locale unless asked ('L'): shortest round-trip form.
  return fmt::format("{}", value);
}

bool metric_name_ok(std::string_view name, bool label) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!label && c == ':');
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

void Metrics::family(const std::string& name, const std::string& help, MetricType type) {
  for (const auto& f : m_families)
    if (f.name == name) return;
  if (!metric_name_ok(name)) throw Error(ErrorKind::Runtime, fmt::format("not a metric name: {}", name));
  m_families.push_back(Family{name, help, type, {}});
}

Metrics::Family& Metrics::find(const std::string& name) {
  for (auto& f : m_families)
    if (f.name == name) return f;
  throw Error(ErrorKind::Runtime, fmt::format("metric family {} is not declared", name));
}

void Metrics::set(const std::string& name, const MetricLabels& labels, double value) {
  for (const auto& [k, v] : labels)
    if (!metric_name_ok(k, true)) throw Error(ErrorKind::Runtime, fmt::format("not a label name: {}", k));
  find(name).samples[labels] = value;
}

void Metrics::add(const std::string& name, const MetricLabels& labels, double delta) {
  for (const auto& [k, v] : labels)
    if (!metric_name_ok(k, true)) throw Error(ErrorKind::Runtime, fmt::format("not a label name: {}", k));
  find(name).samples[labels] += delta;
}

double Metrics::get(const std::string& name, const MetricLabels& labels) const {
  for (const auto& f : m_families)
    if (f.name == name) {
      auto it = f.samples.find(labels);
      return it == f.samples.end() ? 0 : it->second;
    }
  return 0;
}

void Metrics::clear(const std::string& name) { find(name).samples.clear(); }

std::string Metrics::text() const {
  std::string out;
  for (const auto& f : m_families) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, metric_help(f.help), f.name,
                       f.type == MetricType::Counter ? "counter" : "gauge");
    for (const auto& [labels, value] : f.samples) {
      out += f.name;
      if (!labels.empty()) {
        out += '{';
        bool first = true;
        for (const auto& [k, v] : labels) {
          if (!first) out += ',';
          first = false;
          out += fmt::format("{}=\"{}\"", k, metric_label_value(v));
        }
        out += '}';
      }
      out += ' ';
      out += metric_number(value);
      out += '\n';
    }
  }
  return out;
}

void write_metrics_file(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrorKind::Runtime, fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  size_t at = 0;
  int err = 0;
  while (at < text.size()) {
    ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    at += static_cast<size_t>(n);
  }
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    throw Error(ErrorKind::Runtime, fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
}

}  // namespace affix
