#pragma once
// The one place that prints affix's diagnostics on stderr:
//   affix: error: WHAT
//   affix: hint: HINT
//   affix: warning: WHAT
// Every command and the top level go through these; nothing else writes
// "affix: error:".

#include <string>
#include <string_view>

#include "error.hpp"

namespace affix {

// The lines as printed (each ends in a newline), for output that goes to a
// stream other than stderr (launch.cpp writes to the stream it is given).
std::string format_error(const Error& e);
std::string format_warning(std::string_view what);

void print_error(const Error& e);
void print_warning(std::string_view what);

}  // namespace affix
