// Fuzz target: the process events connector's datagrams (netlink messages
// holding cn_msg and proc_event, as the kernel sends them; pin --tree reads
// them). Any bytes give events or none, never a read past the datagram;
// each event appended is of a kind it names, and a fork's child is set.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "proc_events.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes: ASan sees any read past the datagram.
  std::vector<uint8_t> copy(data, data + size);
  std::vector<affix::ProcEvent> events;
  size_t n = affix::parse_proc_events(copy.data(), copy.size(), events);
  if (n != events.size()) std::abort();
  // Every event needs a netlink header, a cn_msg and proc_event's first 16 bytes.
  if (n * (16 + 20 + 16) > size) std::abort();
  return 0;
}
