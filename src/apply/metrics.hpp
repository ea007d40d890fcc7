#pragma once
// The one writer of affix's metrics: Prometheus's text exposition format
// (version 0.0.4), served on /metrics by `apply --follow --metrics
// ADDR:PORT` (metrics_http.*) and written for the node exporter's textfile
// collector by `apply --check --metrics FILE`. By the format's rules (and
// prometheus-cpp's, core/src/family.cc):
// - one `# HELP` and one `# TYPE` line per family, before its samples;
//   families in the order they were declared, samples in their labels'
//   order (a sorted label map: each name+labels once);
// - label values escape `\`, `"` and newline; help texts `\` and newline;
// - numbers are written without the locale (a '.' whatever LC_NUMERIC
//   says; NaN, +Inf, -Inf as the format spells them).

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace affix {

using MetricLabels = std::map<std::string, std::string>;

enum class MetricType { Counter, Gauge };

class Metrics {
public:
  // Declares a family (again: nothing changes). Its samples come after.
  void family(const std::string& name, const std::string& help, MetricType type);
  // The sample of `name` with `labels` (declared by family() before:
  // Error(Runtime) otherwise).
  void set(const std::string& name, const MetricLabels& labels, double value);
  void add(const std::string& name, const MetricLabels& labels, double delta);
  double get(const std::string& name, const MetricLabels& labels) const;
  // Drops every sample of a family (a gauge whose label sets changed).
  void clear(const std::string& name);
  // The text exposition.
  std::string text() const;

private:
  struct Family {
    std::string name, help;
    MetricType type = MetricType::Gauge;
    std::map<MetricLabels, double> samples;
  };
  Family& find(const std::string& name);
  std::vector<Family> m_families;
};

// A label value as the format writes it between its quotes.
std::string metric_label_value(std::string_view value);
// A help text as the format writes it after the family's name.
std::string metric_help(std::string_view help);
// A number as the format writes it: shortest round-trip form, '.' as the
// decimal point whatever the locale, "NaN", "+Inf", "-Inf".
std::string metric_number(double value);
// Whether `name` is a valid metric (or, with `label`, label) name.
bool metric_name_ok(std::string_view name, bool label = false);

// Writes `text` to `path` for the node exporter's textfile collector: to a
// temporary file beside it (PATH.tmp.PID), flushed, then renamed over
// `path`, so the collector never reads half a file. Error(Runtime) naming
// the file where it cannot (the temporary file is removed).
void write_metrics_file(const std::string& path, const std::string& text);

}  // namespace affix
