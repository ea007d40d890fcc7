#pragma once
// toml++ (Debian's libtomlplusplus-dev, header-only) as the rules parser
// uses it: no exceptions (a parse result carries the error and its place),
// no formatters. Its headers are not held to affix's warnings
// (-Wconversion, -Wshadow): this header is a system header for them.
#pragma GCC system_header

#define TOML_EXCEPTIONS 0
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>
