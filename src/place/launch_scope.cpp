#include "launch_scope.hpp"

#include <string>

namespace affix {

namespace {

bool is_plain_cpulist(const PlacementRequest& request) {
  if (request.where.empty() || request.exclude || request.no_smt || request.count ||
      request.order != Order::Compact || request.slice || request.mem)
    return false;
  for (char c : request.where)
    if (!((c >= '0' && c <= '9') || c == ',' || c == '-' || c == ':')) return false;
  return true;
}

// Every term of `where` a single first step on socket/node/cpu (kernel
// numbers, which the order of units cannot change) or a bare list.
bool numbers_only(const std::string& where) {
  size_t start = 0;
  while (start <= where.size()) {
    size_t end = where.find('+', start);
    std::string term = where.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (term.find('.') != std::string::npos) return false;
    size_t colon = term.find(':');
    if (colon != std::string::npos && !(term[0] >= '0' && term[0] <= '9')) {
      std::string level = term.substr(0, colon);
      if (level != "socket" && level != "package" && level != "node" && level != "numa" &&
          level != "cpu" && level != "thread" && level != "pu")
        return false;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

}  // namespace

ReadScope scope_for(const PlacementRequest& request) {
  if (is_plain_cpulist(request)) return ReadScope{false, false, false};
  ReadScope scope;
  scope.memory = request.mem.has_value();
  scope.caches = request.count || request.slice || !numbers_only(request.where) ||
                 (request.exclude && !numbers_only(*request.exclude));
  return scope;
}

}  // namespace affix
