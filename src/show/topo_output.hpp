#pragma once
// What `affix topo` prints: a compact tree for people, or one JSON document
// with the fields affix(1) lists under OUTPUT (topo --json).

#include <string>

#include "text.hpp"  // format_kb
#include "topology.hpp"

namespace affix {

class JsonWriter;

std::string topo_json(const Topology& topo, const Allowed& allowed);
std::string topo_text(const Topology& topo, const Allowed& allowed);

// "allowed": {"cpus": ..., "nodes": ..., "source": ...}, shared by topo and explain.
void write_allowed_json(JsonWriter& j, const Allowed& allowed);

// How a CPU kind is written after "kind:" on a hybrid machine:
// "performance" (kind 0), "efficiency" (the last), else its number; "" for
// -1 or a machine of one kind.
std::string kind_word(const Topology& topo, int kind);

// Memory that is not all alike (topo_memory.cpp): the "tiers" and
// "weights" lines of the header ("" where the kernel shows none); the table
// of each node's tier, kind and HMAT figures ("" where no node has any);
// the JSON fields of a node (tier, kind, hmat, interleave_weight) and of
// the machine (tiers, interleave_auto).
std::string topo_memory_header(const Topology& topo);
std::string topo_memory_table(const Topology& topo);
void write_node_memory_json(JsonWriter& j, const Topology& topo, const NodeInfo& node);
void write_tiers_json(JsonWriter& j, const Topology& topo);
// The GPUs (topo_gpus.cpp): a line each after the devices ("gpus  gpu0
// 0000:3b:00.0  nvidia  node 0  cpus 0-11  card1  memory on node 255");
// the note of a node holding a GPU's memory ("  GPU memory of gpu0
// (0004:05:00.0)"; empty where it holds none); and the fields topo --json
// adds to a gpu device (vendor, memory_node, card, uuid), from
// Topology::gpus.
std::string gpus_text(const Topology& topo);
std::string gpu_memory_note(const Topology& topo, unsigned node);
void gpu_device_json(JsonWriter& j, const Topology& topo, const Device& device);

}  // namespace affix
