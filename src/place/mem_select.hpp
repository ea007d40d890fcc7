#pragma once
// The nodes of `--mem POLICY:NODES` (affix(1), MEMORY): one or more terms
// joined with '+', each
//   LIST       node numbers, a cpulist of them (0,2 or 0-3)
//   tier:LIST  the nodes of the kernel's memory tiers LIST (memory_tierN:
//              `affix topo` shows each node's tier)
//   mem:KIND   the nodes whose memory the machine says is KIND: hbm, dram,
//              cxl, nvm or gpu (memory_kinds.hpp)
// so `--mem bind:tier:22`, `--mem weighted:mem:dram+mem:cxl`,
// `--mem interleave:0+tier:22`. Parsed once, by the command line; the
// resolver takes the terms.
//
// A LIST names nodes that must each exist, have memory and be allowed
// (memnodes.hpp). A tier or a kind is a set, like a unit of a location:
// its nodes with memory that the cpuset allows; one that gives none is an
// error that says why.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpuset.hpp"
#include "topology.hpp"

namespace affix {

struct MemTerm {
  enum class Type { Nodes, Tier, Kind };
  Type type = Type::Nodes;
  CpuSet ids;        // Nodes: node numbers; Tier: tier numbers
  std::string kind;  // Kind: the word after "mem:"
  std::string text;  // the term as written ("tier:22")
};

struct MemSelector {
  std::vector<MemTerm> terms;
  std::string text;  // as written, terms and '+'
  // Whether some term is a tier or a kind (read the tiers: ReadScope::tiers).
  bool needs_tiers() const;
  // Whether every term is a node list (explain then need not say what each gave).
  bool only_lists() const;
};

// A MemSelector, or the reason it is none ("bad node list: reversed range",
// "unknown memory kind 'foo' (expected hbm, dram, cxl, nvm or gpu)").
Parsed<MemSelector> parse_mem_selector(std::string_view text);

// What each term gave (for explain) and their union.
struct MemSelection {
  CpuSet nodes;
  std::vector<std::pair<std::string, CpuSet>> terms;  // term text -> its nodes
};

// Throws Error(Resolution) for a node, tier or kind that the machine does
// not have, that has no memory, or none affix may use (naming the file the
// allowed nodes came from).
MemSelection resolve_mem_selector(const MemSelector& selector, const Topology& topo, const Allowed& allowed);

}  // namespace affix
