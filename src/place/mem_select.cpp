#include "mem_select.hpp"

#include <map>

#include <fmt/format.h>

#include "error.hpp"
#include "memnodes.hpp"
#include "memory_kinds.hpp"
#include "memory_tiers.hpp"
#include "text.hpp"

namespace affix {

bool MemSelector::needs_tiers() const {
  for (const MemTerm& t : terms)
    if (t.type != MemTerm::Type::Nodes) return true;
  return false;
}

bool MemSelector::only_lists() const { return !needs_tiers(); }

namespace {

// The part of a cpulist parse message after "invalid cpulist '...': ".
std::string reason_of(const std::string& message) {
  auto at = message.find("': ");
  return at == std::string::npos ? message : message.substr(at + 3);
}

std::string kind_list() {
  const auto& words = mem_kind_words();
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

bool allowed_mem(const Allowed& allowed, unsigned node) { return allowed.mems.empty() || allowed.mems.test(node); }

// The nodes of `nodes` with memory that affix may use.
CpuSet usable(const Topology& topo, const CpuSet& nodes, const Allowed& allowed) {
  CpuSet out;
  nodes.for_each([&](unsigned n) {
    const NodeInfo* info = topo.node(n);
    if (info && info->has_memory() && allowed_mem(allowed, n)) out.set(n);
  });
  return out;
}

std::string allowed_text(const Allowed& allowed) {
  return fmt::format("allowed: {}, from {}", allowed.mems.empty() ? "all" : format_cpulist(allowed.mems),
                     printable(allowed.mems_source));
}

CpuSet tier_nodes(const Topology& topo, const MemTerm& term, const Allowed& allowed) {
  CpuSet out;
  term.ids.for_each([&](unsigned id) {
    const MemoryTier* tier = nullptr;
    for (const MemoryTier& t : topo.tiers)
      if (t.id == id) tier = &t;
    if (topo.tiers.empty())
      throw Error(ErrorKind::Resolution,
                  "no memory tiers on this machine: the kernel lists none (Linux 6.1 and later list them in "
                  "/sys/devices/virtual/memory_tiering)",
                  "name the nodes instead (--mem POLICY:NODES)");
    if (!tier) {
      std::string ids;
      for (const MemoryTier& t : topo.tiers) ids += (ids.empty() ? "" : ",") + std::to_string(t.id);
      throw Error(ErrorKind::Resolution, fmt::format("no memory tier {} on this machine (tiers: {})", id, ids),
                  "'affix topo' shows each node's tier (the kernel's numbers: a lower one is faster memory)");
    }
    CpuSet nodes = usable(topo, tier->nodes, allowed);
    if (nodes.empty())
      throw Error(ErrorKind::Resolution,
                  fmt::format("memory tier {} has no node affix may use (its nodes: {}; {})", id,
                              list_or_none(tier->nodes), allowed_text(allowed)));
    out |= nodes;
  });
  return out;
}

CpuSet kind_nodes(const Topology& topo, const MemTerm& term, const Allowed& allowed) {
  CpuSet matching;
  std::map<std::string, CpuSet> known;  // kind name -> nodes
  for (const NodeInfo& n : topo.nodes) {
    if (kind_matches(n.kind, term.kind)) matching.set(n.node);
    if (n.kind != MemKind::Unknown) known[mem_kind_name(n.kind)].set(n.node);
  }
  if (matching.empty()) {
    if (known.empty())
      throw Error(ErrorKind::Resolution,
                  fmt::format("the machine does not say which memory is {}: no node's kind is known", term.kind),
                  "'affix topo' shows each node's kind, found as hwloc finds it; name the nodes instead "
                  "(--mem POLICY:NODES)");
    std::string kinds;
    for (const auto& [name, nodes] : known) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", name, format_cpulist(nodes));
    throw Error(ErrorKind::Resolution, fmt::format("no {} memory on this machine (kinds: {})", term.kind, kinds));
  }
  CpuSet nodes = usable(topo, matching, allowed);
  if (nodes.empty())
    throw Error(ErrorKind::Resolution, fmt::format("no {} memory that affix may use (nodes {}; {})", term.kind,
                                                   format_cpulist(matching), allowed_text(allowed)));
  return nodes;
}

}  // namespace

Parsed<MemSelector> parse_mem_selector(std::string_view text) {
  Parsed<MemSelector> out;
  MemSelector sel;
  sel.text = std::string(text);
  size_t at = 0;
  while (true) {
    size_t plus = text.find('+', at);
    std::string_view word = text.substr(at, plus == std::string_view::npos ? std::string_view::npos : plus - at);
    MemTerm term;
    term.text = std::string(word);
    if (word.empty() && !text.empty()) {  // (an empty text is an empty node list, below)
      out.error = ParseError{plus == std::string_view::npos ? "missing nodes after '+'" : "missing nodes before '+'", at};
      return out;
    }
    if (word.substr(0, 4) == "mem:") {
      term.type = MemTerm::Type::Kind;
      term.kind = std::string(word.substr(4));
      bool known = false;
      for (const std::string& w : mem_kind_words()) known = known || w == term.kind;
      if (!known) {
        out.error = ParseError{fmt::format("unknown memory kind '{}' (expected {})", printable(term.kind), kind_list()),
                               at + 4};
        return out;
      }
    } else {
      bool tier = word.substr(0, 5) == "tier:";
      term.type = tier ? MemTerm::Type::Tier : MemTerm::Type::Nodes;
      auto list = parse_cpulist(tier ? word.substr(5) : word);
      if (!list) {
        out.error = ParseError{fmt::format("bad {} list: {}", tier ? "tier" : "node", reason_of(list.error.message)),
                               at + (tier ? 5 : 0) + list.error.position};
        return out;
      }
      term.ids = *list.value;
    }
    sel.terms.push_back(std::move(term));
    if (plus == std::string_view::npos) break;
    at = plus + 1;
  }
  out.value = std::move(sel);
  return out;
}

MemSelection resolve_mem_selector(const MemSelector& selector, const Topology& topo, const Allowed& allowed) {
  MemSelection out;
  for (const MemTerm& term : selector.terms) {
    CpuSet nodes;
    switch (term.type) {
      case MemTerm::Type::Nodes: nodes = explicit_mem_nodes(topo, term.ids, allowed); break;
      case MemTerm::Type::Tier: nodes = tier_nodes(topo, term, allowed); break;
      case MemTerm::Type::Kind: nodes = kind_nodes(topo, term, allowed); break;
    }
    out.nodes |= nodes;
    out.terms.emplace_back(term.text, nodes);
  }
  return out;
}

}  // namespace affix
