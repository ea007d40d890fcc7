// numactl's and taskset's options in affix's words (foreign_options.hpp).
// The options are numactl 2.0.19's (numactl(8)) and util-linux taskset's
// (taskset(1)); affix(1), COMING FROM NUMACTL AND TASKSET, has the table.
#include "foreign_options.hpp"

#include <fmt/format.h>

#include <string_view>

#include "cpuset.hpp"
#include "text.hpp"

namespace affix {

namespace {

enum class Foreign {
  CpuNodes,   // numactl --cpunodebind / -N
  PhysCpus,   // numactl --physcpubind / -C
  MemBind,    // numactl --membind / -m (alone, -m is affix's own --mem)
  Interleave, // numactl --interleave / -i
  Weighted,   // numactl --weighted-interleave / -w (numactl 2.0.19)
  Preferred,  // numactl --preferred, --preferred-many / -P
  LocalAlloc, // numactl --localalloc / -l
  CpuList,    // taskset --cpu-list / -c
  Pid,        // taskset --pid / -p
  AllTasks,   // taskset --all-tasks / -a
};

struct ForeignSpec {
  Foreign what;
  const char* long_name;
  char short_name;  // 0: none (numactl's -p and -a are taskset's here)
  bool takes_value;
  bool numactl;     // else taskset
};

constexpr ForeignSpec k_foreign[] = {
    {Foreign::CpuNodes, "cpunodebind", 'N', true, true},
    {Foreign::CpuNodes, "cpubind", 0, true, true},
    {Foreign::PhysCpus, "physcpubind", 'C', true, true},
    {Foreign::MemBind, "membind", 'm', true, true},  // reached only after another of numactl's
    {Foreign::Interleave, "interleave", 'i', true, true},
    {Foreign::Weighted, "weighted-interleave", 'w', true, true},
    {Foreign::Preferred, "preferred", 0, true, true},
    {Foreign::Preferred, "preferred-many", 'P', true, true},
    {Foreign::LocalAlloc, "localalloc", 'l', false, true},
    {Foreign::CpuList, "cpu-list", 'c', false, false},
    {Foreign::Pid, "pid", 'p', false, false},
    {Foreign::AllTasks, "all-tasks", 'a', false, false},
};

const ForeignSpec* by_long(std::string_view name) {
  for (auto& spec : k_foreign)
    if (name == spec.long_name) return &spec;
  return nullptr;
}

const ForeignSpec* by_short(char c) {
  for (auto& spec : k_foreign)
    if (spec.short_name == c) return &spec;
  return nullptr;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// What the words said, gathered.
struct Gathered {
  bool numactl = false, taskset = false;
  std::optional<std::string> cpu_nodes, phys_cpus, cpu_list;
  std::optional<std::pair<Foreign, std::string>> mem;  // policy and nodes ("" for local)
  bool pid_mode = false;
  std::optional<std::string> mask;  // taskset -p MASK PID
  std::optional<std::string> pid;
};

void take(Gathered& g, const ForeignSpec& spec, const std::string& value) {
  (spec.numactl ? g.numactl : g.taskset) = true;
  switch (spec.what) {
    case Foreign::CpuNodes: g.cpu_nodes = value; break;
    case Foreign::PhysCpus: g.phys_cpus = value; break;
    case Foreign::MemBind:
    case Foreign::Interleave:
    case Foreign::Weighted:
    case Foreign::Preferred: g.mem = std::pair(spec.what, value); break;
    case Foreign::LocalAlloc: g.mem = std::pair(spec.what, std::string()); break;
    case Foreign::CpuList: break;  // its list is the next word (taskset -c LIST, -pc LIST PID)
    case Foreign::Pid: g.pid_mode = true; break;
    case Foreign::AllTasks: break;  // pin moves every thread anyway
  }
}

// taskset's mask (hex, with or without 0x) as a cpulist, or the text as it is.
std::string mask_as_list(const std::string& mask) {
  std::string_view hex = mask;
  if (hex.substr(0, 2) == "0x" || hex.substr(0, 2) == "0X") hex.remove_prefix(2);
  if (hex.empty() || hex.find_first_not_of("0123456789abcdefABCDEF,") != std::string_view::npos)
    return mask;
  auto set = parse_cpumask(hex);
  return set ? format_cpulist(*set.value) : mask;
}

std::string mem_words(const Gathered& g) {
  if (!g.mem) return {};
  const auto& [what, nodes] = *g.mem;
  const char* policy = what == Foreign::MemBind      ? "bind"
                       : what == Foreign::Interleave ? "interleave"
                       : what == Foreign::Weighted   ? "weighted"
                       : what == Foreign::Preferred  ? "preferred"
                                                     : "local";
  // The nodes of the CPUs are affix's default; "all" is every node with memory.
  if (nodes.empty() || nodes == "all" || (g.cpu_nodes && nodes == *g.cpu_nodes && !g.phys_cpus))
    return fmt::format(" --mem {}", policy);
  return fmt::format(" --mem {}:{}", policy, nodes);
}

}  // namespace

std::optional<std::string> foreign_option_hint(const std::vector<std::string>& args, size_t at,
                                               const std::string& command) {
  Gathered g;
  size_t i = at;
  bool cpu_list_next = false;  // taskset's -c: the next plain word is the list
  while (i < args.size()) {
    const std::string& word = args[i];
    if (word.size() > 2 && word.compare(0, 2, "--") == 0) {
      std::string_view body = std::string_view(word).substr(2);
      auto eq = body.find('=');
      const ForeignSpec* spec = by_long(body.substr(0, eq));
      if (!spec) break;
      std::string value;
      if (spec->takes_value) {
        if (eq != std::string_view::npos) value = std::string(body.substr(eq + 1));
        else if (i + 1 < args.size()) value = args[++i];
      }
      take(g, *spec, value);
      if (spec->what == Foreign::CpuList) cpu_list_next = true;
      ++i;
      continue;
    }
    if (word.size() > 1 && word[0] == '-') {
      const ForeignSpec* first = by_short(word[1]);
      if (!first) break;
      if (first->numactl) {  // -N0, -N 0, -l
        std::string value;
        if (first->takes_value) {
          if (word.size() > 2) value = word.substr(2);
          else if (i + 1 < args.size()) value = args[++i];
        } else if (word.size() > 2) {
          break;
        }
        take(g, *first, value);
        ++i;
        continue;
      }
      // taskset's letters may be grouped: -pc, -cp, -apc.
      bool ok = true;
      for (char c : std::string_view(word).substr(1)) {
        const ForeignSpec* spec = by_short(c);
        if (!spec || spec->numactl) ok = false;
      }
      if (!ok) break;
      for (char c : std::string_view(word).substr(1)) {
        take(g, *by_short(c), {});
        if (c == 'c') cpu_list_next = true;
      }
      ++i;
      continue;
    }
    // A plain word: taskset's list, then (with -p) its mask and PID.
    if (cpu_list_next) {
      g.cpu_list = word;
      cpu_list_next = false;
      ++i;
      continue;
    }
    if (g.pid_mode && !g.pid) {
      if (!g.cpu_list && i + 1 < args.size() && all_digits(args[i + 1])) {
        g.mask = word;
        g.pid = args[i + 1];
        i += 2;
      } else {
        g.pid = word;
        ++i;
      }
      break;
    }
    break;
  }
  if (!g.numactl && !g.taskset) return std::nullopt;

  std::string typed;
  for (size_t k = at; k < i; ++k) typed += (k == at ? "" : " ") + printable(args[k]);
  const char* tool = g.numactl && g.taskset ? "numactl's and taskset's"
                     : g.numactl            ? "numactl's"
                                            : "taskset's";
  std::string where = g.cpu_list   ? *g.cpu_list
                      : g.phys_cpus ? *g.phys_cpus
                      : g.mask      ? mask_as_list(*g.mask)
                      : g.cpu_nodes ? "node:" + *g.cpu_nodes
                                    : "all";
  std::string affix;
  if (g.pid_mode) {
    std::string pid = g.pid ? *g.pid : "PID";
    bool query = !g.cpu_list && !g.mask;
    affix = query ? fmt::format("affix show {}", pid) : fmt::format("affix pin {} {}", where, pid);
  } else {
    affix = fmt::format("affix {}{}{}", command.empty() ? "" : command + " ", where, mem_words(g));
  }
  return fmt::format("{} {} is '{}'", tool, typed, printable(affix));
}

std::optional<std::string> numactl_mem_hint(const std::string& option, const std::string& value) {
  if (value != "all" && !parse_cpulist(value)) return std::nullopt;
  return fmt::format("numactl's {} {} is '--mem bind{}'", option, printable(value),
                     value == "all" ? "" : ":" + printable(value));
}

}  // namespace affix
