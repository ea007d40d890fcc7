#pragma once
// What explain prints of --gpu (affix(1), GPUS): the rank's GPU, where it
// is, which rank it is and the variables run exports for it; and, with
// --ranks N, the whole map of the node's ranks: each one's GPU, CPUs,
// nodes, memory and the variable that names its GPU.

#include <string>
#include <vector>

#include "json.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

// One line of explain's text: LABEL in 10 columns, then VALUE and a newline
// (explain_output.cpp's lines and these alike).
void explain_line(std::string& out, const char* label, const std::string& value);

// explain's lines for --gpu ("gpu", "rank", "exports", "left out"), aligned
// as explain's others, each ending with a newline.
std::string explain_gpu_text(const GpuPlacement& gpu);

// "gpu": {name, pci, vendor, node, memory_node, card, uuid, cpus, rank,
// ranks, rank_source, shared_with, env, replaced, left_out}.
void explain_gpu_json(JsonWriter& j, const GpuPlacement& gpu);

// explain --ranks: one placement per rank, rank 0 first.
std::string explain_ranks_text(const std::vector<Placement>& ranks, const Allowed& allowed);
std::string explain_ranks_json(const std::vector<Placement>& ranks, const Allowed& allowed);

}  // namespace affix
