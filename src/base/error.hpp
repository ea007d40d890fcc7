#pragma once
// One small exception type for fatal errors, caught once at the top (app.cpp)
// and printed as `affix: error: WHAT` (plus optional `affix: hint: ...`).

#include <stdexcept>
#include <string>

namespace affix {

// What kind of failure it is; the command decides the exit status from it:
// run: every kind -> 125 (Exec kinds are 126/127); other commands: Usage,
// Spec, Resolution -> 2; Runtime -> 1.
enum class ErrorKind {
  Usage,       // bad command line
  Spec,        // bad location syntax
  Resolution,  // a unit that does not exist, not allowed, empty selection...
  Runtime,     // the operation failed: unreadable root, no such process, EPERM
};

class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, std::string what, std::string hint = {})
    : std::runtime_error(std::move(what)), m_kind(kind), m_hint(std::move(hint)) {}
  ErrorKind kind() const { return m_kind; }
  const std::string& hint() const { return m_hint; }

private:
  ErrorKind m_kind;
  std::string m_hint;
};

// Exit statuses (affix(1), EXIT STATUS).
constexpr int k_exit_ok = 0;
constexpr int k_exit_failed = 1;       // pin, show, topo, explain: operation failed
constexpr int k_exit_usage = 2;        // pin, show, topo, explain: usage/spec/resolution
constexpr int k_exit_run_failed = 125; // run: affix failed before the command started
constexpr int k_exit_cannot_exec = 126;
constexpr int k_exit_not_found = 127;

}  // namespace affix
