#include "gpu_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "error.hpp"
#include "cpuset.hpp"
#include "gpus.hpp"
#include "sysroot.hpp"
#include "text.hpp"

namespace affix {

namespace {

constexpr const char* k_list_hint =
    "affix reads the list as the GPU runtime does, to give only those GPUs: give indices or GPU UUIDs "
    "('affix topo --json' lists the GPUs and their UUIDs), or unset it to give every GPU";

const char* vendor_word(GpuVendor v) { return v == GpuVendor::Nvidia ? "NVIDIA" : v == GpuVendor::Amd ? "AMD" : "other"; }

bool all_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The GPUs of `vendor` this process may open, in PCI address order.
std::vector<const Gpu*> openable(const std::vector<Gpu>& gpus, GpuVendor vendor) {
  std::vector<const Gpu*> out;
  for (const Gpu& g : gpus)
    if (g.vendor == vendor && g.may_open != false) out.push_back(&g);
  return out;
}

std::string names_of(const std::vector<const Gpu*>& gpus) {
  std::string out;
  for (const Gpu* g : gpus) out += (out.empty() ? "" : ", ") + g->device.name;
  return out.empty() ? "none" : out;
}

// What names `g` to its runtime where no MIG instance does.
std::string own_id(const std::vector<Gpu>& all, const Gpu& g) {
  if (!g.uuid.empty()) return g.uuid;
  std::vector<const Gpu*> base = openable(all, g.vendor);
  auto at = std::find(base.begin(), base.end(), &g);
  return std::to_string(at == base.end() ? g.vendor_index : static_cast<unsigned>(at - base.begin()));
}

[[noreturn]] void unmappable(const std::string& var, const std::string& value, std::string_view entry,
                             const std::string& why) {
  throw Error(ErrorKind::Resolution,
              fmt::format("{}='{}': '{}' {}", var, printable(value), printable(entry), why), k_list_hint);
}

// The one GPU of `among` whose UUID starts with `prefix` ("GPU-8932f937").
const Gpu* by_uuid(const std::vector<const Gpu*>& among, std::string_view prefix, const std::string& var,
                   const std::string& value, std::string_view entry, GpuVendor vendor) {
  std::vector<const Gpu*> hits;
  bool any = false;
  for (const Gpu* g : among) {
    if (g->uuid.empty()) continue;
    any = true;
    if (g->uuid.size() >= prefix.size() && same_text(std::string_view(g->uuid).substr(0, prefix.size()), prefix))
      hits.push_back(g);
  }
  if (hits.size() == 1) return hits.front();
  if (!any)
    unmappable(var, value, entry,
               fmt::format("is a UUID, and the driver gives none for the {} GPUs here ({})", vendor_word(vendor),
                           names_of(among)));
  if (hits.empty())
    unmappable(var, value, entry,
               fmt::format("names no {} GPU this process may open ({})", vendor_word(vendor), names_of(among)));
  unmappable(var, value, entry, fmt::format("is the start of the UUIDs of {}", names_of(hits)));
}

// The GPUs the entries of `value` name among `among` (a runtime's order).
std::vector<PoolGpu> read_list(const std::vector<Gpu>& all, const std::vector<const Gpu*>& among, GpuVendor vendor,
                               const std::string& var, const std::string& value) {
  std::string_view text = trim_space(value);
  if (text.empty() || text == "-1")
    throw Error(ErrorKind::Resolution,
                fmt::format("{}='{}' gives this process no {} GPU", var, printable(value), vendor_word(vendor)),
                "--gpu gives a GPU of the job's: unset the variable, or run where the job was given GPUs");
  std::vector<PoolGpu> out;
  while (true) {
    size_t comma = text.find(',');
    std::string_view entry = trim_space(text.substr(0, comma));
    PoolGpu p;
    if (!entry.empty() && all_digits(entry)) {
      std::optional<unsigned long long> n = parse_decimal(entry, k_max_id);
      if (!n || *n >= among.size())
        unmappable(var, value, entry,
                   fmt::format("is an index, and this process may open {} {} GPU{} ({})", among.size(),
                               vendor_word(vendor), among.size() == 1 ? "" : "s", names_of(among)));
      p.gpu = among[*n];
      p.id = own_id(all, *p.gpu);
    } else if (vendor == GpuVendor::Nvidia && entry.size() > 4 && same_text(entry.substr(0, 4), "MIG-")) {
      std::string_view rest = entry.substr(4);
      if (rest.size() <= 4 || !same_text(rest.substr(0, 4), "GPU-"))
        unmappable(var, value, entry,
                   "is a MIG instance's own UUID, which sysfs ties to no GPU (name it as MIG-GPU-UUID/GI/CI, "
                   "or name its GPU)");
      size_t slash = rest.find('/');
      if (slash == std::string_view::npos)
        unmappable(var, value, entry, "is no MIG instance (MIG-GPU-UUID/GI/CI)");
      p.gpu = by_uuid(among, rest.substr(0, slash), var, value, entry, vendor);
      p.id = std::string(entry);
    } else if (entry.size() > 4 && same_text(entry.substr(0, 4), "GPU-")) {
      p.gpu = by_uuid(among, entry, var, value, entry, vendor);
      p.id = own_id(all, *p.gpu);
    } else {
      unmappable(var, value, entry,
                 vendor == GpuVendor::Nvidia ? "is no index, GPU UUID (GPU-...) or MIG instance (MIG-...)"
                                             : "is no index or GPU UUID (GPU-...)");
    }
    for (const PoolGpu& q : out)
      if (q.gpu == p.gpu) unmappable(var, value, entry, fmt::format("names {} again", gpu_label(*p.gpu)));
    out.push_back(std::move(p));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

bool any_index(std::string_view value) {
  while (true) {
    size_t comma = value.find(',');
    std::string_view entry = trim_space(value.substr(0, comma));
    if (!entry.empty() && all_digits(entry)) return true;
    if (comma == std::string_view::npos) return false;
    value.remove_prefix(comma + 1);
  }
}

// CUDA numbers the GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID;
// for GPUs of one model that is PCI address order.
std::optional<std::string> cuda_order_warning(const std::vector<const Gpu*>& base, const std::string& value,
                                              const EnvLookup& env) {
  if (base.size() < 2 || !any_index(value)) return std::nullopt;
  std::optional<std::string> order = env("CUDA_DEVICE_ORDER");
  if (order && *order == "PCI_BUS_ID") return std::nullopt;
  bool unknown = false, differ = false;
  for (const Gpu* g : base) {
    if (g->device_id == 0) unknown = true;
    else if (g->device_id != base.front()->device_id) differ = true;
  }
  if (!unknown && !differ) return std::nullopt;
  return fmt::format("CUDA_VISIBLE_DEVICES='{}' counts GPUs in CUDA's order, and CUDA_DEVICE_ORDER is {}: affix "
                     "takes each index in PCI address order, which CUDA's default (fastest first) follows for GPUs "
                     "of one model, and {} (set CUDA_DEVICE_ORDER=PCI_BUS_ID where the list was made)",
                     printable(value), order ? fmt::format("'{}'", printable(*order)) : std::string("unset"),
                     differ ? "these are of several models" : "their models are unknown here");
}

}  // namespace

std::vector<PoolGpu> gpus_named(const std::vector<Gpu>& gpus, GpuVendor vendor, const std::string& var,
                                const std::string& value) {
  return read_list(gpus, openable(gpus, vendor), vendor, var, value);
}

GpuPool gpu_pool(const std::vector<Gpu>& gpus, const EnvLookup& env) {
  GpuPool out;
  for (const Gpu& g : gpus)
    if (g.may_open == false)
      out.hidden.push_back(fmt::format("{}: this process may not open {}", gpu_label(g), printable(g.device_file)));
  auto note = [&](const char* var, const std::string& value) {
    out.source += fmt::format("{}{}={}", out.source.empty() ? "" : " ", var, printable(value));
  };
  std::vector<const Gpu*> nvidia = openable(gpus, GpuVendor::Nvidia), amd = openable(gpus, GpuVendor::Amd);
  std::optional<std::string> cuda = env("CUDA_VISIBLE_DEVICES");
  std::optional<std::string> rocr = env("ROCR_VISIBLE_DEVICES");
  std::optional<std::string> hip = env("HIP_VISIBLE_DEVICES");
  std::vector<PoolGpu> nv, am;
  if (!nvidia.empty()) {
    if (cuda) {
      nv = read_list(gpus, nvidia, GpuVendor::Nvidia, "CUDA_VISIBLE_DEVICES", *cuda);
      note("CUDA_VISIBLE_DEVICES", *cuda);
      if (std::optional<std::string> w = cuda_order_warning(nvidia, *cuda, env)) out.warnings.push_back(*w);
    } else {
      for (const Gpu* g : nvidia) nv.push_back({g, own_id(gpus, *g)});
    }
  }
  if (!amd.empty()) {
    std::vector<const Gpu*> shown = amd;
    if (rocr) {
      shown.clear();
      for (const PoolGpu& p : read_list(gpus, amd, GpuVendor::Amd, "ROCR_VISIBLE_DEVICES", *rocr))
        shown.push_back(p.gpu);
      note("ROCR_VISIBLE_DEVICES", *rocr);
    }
    const char* hip_var = hip ? "HIP_VISIBLE_DEVICES" : cuda ? "CUDA_VISIBLE_DEVICES" : nullptr;
    if (hip_var) {
      const std::string& v = hip ? *hip : *cuda;
      for (const PoolGpu& p : read_list(gpus, shown, GpuVendor::Amd, hip_var, v)) am.push_back({p.gpu, own_id(gpus, *p.gpu)});
      if (hip || nvidia.empty()) note(hip_var, v);
    } else {
      for (const Gpu* g : shown) am.push_back({g, own_id(gpus, *g)});
    }
  }
  if (out.source.empty()) {
    // No list: every GPU this process may open, in PCI address order.
    for (const Gpu& g : gpus)
      if (g.may_open != false) out.gpus.push_back({&g, own_id(gpus, g)});
    return out;
  }
  out.gpus = std::move(nv);
  for (PoolGpu& p : am) out.gpus.push_back(std::move(p));
  return out;
}

}  // namespace affix
