#pragma once
// The location language (WHERE, affix(1) LOCATIONS): its syntax tree and its
// parser. Pure text processing; what the numbers mean is the resolver's job.
//
//   WHERE := TERM ( '+' TERM )*            union
//   TERM  := FIRST ( '.' STEP )* | CPULIST
//   FIRST := STEP | self | near:DEVICE     self: the CPUs affix was started on;
//                                          near: the CPUs near a device
//   DEVICE := a name (it ends at the first '.' or '+'; no '/', NUL, at
//             most 255 characters) | DDDD:BB:DD.F | BB:DD.F (PCI address)
//   STEP  := LEVEL ':' IDS | kind ':' KIND
//   LEVEL := socket | node | die | llc | core | cpu
//            (aliases: package; numa; l3; thread, pu)
//   KIND  := IDS | performance | efficiency   (performance is kind 0,
//            efficiency the least performant kind)
//   IDS   := all | RANGE ( ',' RANGE )*
//   RANGE := N | N-M | N-M:STRIDE
//
// Numbers are decimal, no sign, no leading zero, at most 2^20 (k_max_id).
//
// A syntax error throws Error(ErrorKind::Spec) with a three-line message:
//
//   invalid location 'SPEC': REASON
//     SPEC
//     ^                      (two spaces, then the caret under the
//                             offending character; one past the end when
//                             something is missing at the end)
//
// Bytes outside printable ASCII are shown as '?' so the caret stays aligned.
// Specs longer than k_max_location_length are refused with a one-line
// message "location too long (N characters, at most 4096)".

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "topology.hpp"

namespace affix {

constexpr size_t k_max_location_length = 4096;

struct IdRange {
  unsigned first = 0;
  unsigned last = 0;
  unsigned stride = 1;
  size_t position = 0;  // offset of `first` in the spec
};

struct Ids {
  bool all = false;
  std::vector<IdRange> ranges;  // empty when `all`
};

enum class StepType {
  Level,  // LEVEL:IDS
  Self,   // self (first step only)
  Kind,   // kind:IDS, kind:performance (ids 0), kind:efficiency (least)
  Near,   // near:DEVICE (first step only)
};

struct Step {
  StepType type = StepType::Level;
  Level level = Level::Cpu;  // StepType::Level
  Ids ids;                   // StepType::Level and StepType::Kind
  bool least = false;        // kind:efficiency
  std::string device;        // StepType::Near: the name, or the PCI address as written
  size_t position = 0;  // offset of the level word (or of the list, when bare)
};

struct Term {
  std::vector<Step> steps;  // a bare CPU list is one Cpu step
  bool bare = false;        // written as a bare CPU list
  size_t position = 0;
  size_t length = 0;        // characters of the spec this term spans
};

struct Location {
  std::string text;  // the spec as given
  std::vector<Term> terms;
};

// Parses WHERE; throws Error(Spec) as described above.
Location parse_location(std::string_view spec);

// Plural of level_name (topology.hpp) for messages: "sockets", "nodes", ...
const char* level_plural(Level level);

// The three-line spec error text (exposed for the resolver's own errors that
// point into a spec, and for tests).
std::string spec_error_text(std::string_view spec, std::string_view reason, size_t position);

// Calls f(id) for every id of a range, in ascending order.
template <typename F> void for_each_id(const IdRange& r, F&& f) {
  for (unsigned i = r.first;; i += r.stride) {
    f(i);
    if (r.last - i < r.stride) break;
  }
}

}  // namespace affix
