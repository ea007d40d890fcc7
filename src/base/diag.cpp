#include "diag.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace affix {

std::string format_error(const Error& e) {
  std::string text = fmt::format("affix: error: {}\n", e.what());
  if (!e.hint().empty()) text += fmt::format("affix: hint: {}\n", e.hint());
  return text;
}

std::string format_warning(std::string_view what) { return fmt::format("affix: warning: {}\n", what); }

void print_error(const Error& e) { std::fputs(format_error(e).c_str(), stderr); }

void print_warning(std::string_view what) { std::fputs(format_warning(what).c_str(), stderr); }

}  // namespace affix
