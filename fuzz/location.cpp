// Fuzz target: the location language and the resolver. The input's first
// line is WHERE, an optional second line an --exclude WHERE, an optional
// third line flags ("s" --no-smt, "c" scatter order, "nN" --count N, "K/N"
// --slice, "g" --gpu closest, "GN" --gpu N). WHERE is parsed, then resolved on a captured machine with
// offline CPUs (read once at start-up). Every outcome must be a placement or
// an affix::Error of kind Spec or Resolution with a message; a placement
// must lie within the allowed online CPUs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "error.hpp"
#include "location.hpp"
#include "near.hpp"
#include "os.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace {

struct Machine {
  affix::SysRoot root{AFFIX_FUZZ_MACHINE};
  affix::Topology topo;
  affix::Allowed allowed;
};

const Machine& machine() {
  static Machine m = [] {
    Machine out;
    const affix::SysRoot& root = out.root;
    out.topo = affix::read_topology(root);
    out.allowed = affix::read_allowed(root, out.topo, affix::linux_os());
    return out;
  }();
  return m;
}

std::optional<std::string> no_env(const std::string&) { return std::nullopt; }

void apply_flags(std::string_view flags, affix::PlacementRequest& req) {
  for (size_t i = 0; i < flags.size(); ++i) {
    char c = flags[i];
    if (c == 's') req.no_smt = true;
    if (c == 'c') req.order = affix::Order::Scatter;
    if (c == 'n' && i + 1 < flags.size()) req.count = static_cast<unsigned>(flags[++i] - '0');
    if (c == 'g') req.gpu = affix::GpuRequest{true, {}, "closest"};
    if (c == 'G' && i + 1 < flags.size()) {
      unsigned n = static_cast<unsigned char>(flags[++i]) % 10;
      req.gpu = affix::GpuRequest{false, {n}, std::to_string(n)};
    }
    if (c == '/' && i > 0 && i + 1 < flags.size()) {
      affix::SliceRequest slice;
      slice.k = static_cast<unsigned>(flags[i - 1] - '0');
      slice.n = static_cast<unsigned>(flags[i + 1] - '0');
      req.slice = slice;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string_view lines[3];
  for (int i = 0; i < 3; ++i) {
    size_t nl = text.find('\n');
    lines[i] = text.substr(0, nl);
    if (nl == std::string_view::npos) {
      text = {};
      break;
    }
    text.remove_prefix(nl + 1);
  }
  try {
    affix::parse_location(lines[0]);
  } catch (const affix::Error& e) {
    if (e.kind() != affix::ErrorKind::Spec || std::string(e.what()).empty()) std::abort();
    return 0;
  }
  const Machine& m = machine();
  affix::PlacementRequest req;
  req.where = std::string(lines[0]);
  if (!lines[1].empty()) req.exclude = std::string(lines[1]);
  apply_flags(lines[2], req);
  try {
    // As run and explain do: the devices near: names and the GPUs of --gpu
    // are read first (the captured machine has none, so near: and --gpu end
    // in a Resolution error).
    affix::RequestLocations locations = affix::parse_locations(req);
    affix::Topology topo = m.topo;
    affix::read_location_devices(m.root, locations, topo);
    affix::read_request_gpus(m.root, req, topo);
    affix::Placement p = affix::resolve(req, locations, topo, m.allowed, no_env);
    if (p.cpus.empty() || !p.cpus.is_subset_of(m.allowed.cpus & m.topo.online)) std::abort();
    if (p.sequence.size() != p.cpus.count()) std::abort();
  } catch (const affix::Error& e) {
    bool expected = e.kind() == affix::ErrorKind::Spec || e.kind() == affix::ErrorKind::Resolution;
    if (!expected || std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
