#pragma once
// The machine as affix sees it: every possible CPU with its place in the
// tree socket -> node -> die -> llc -> core -> thread, the NUMA nodes with
// their memory and distances, isolated CPUs, and the units of each level in
// the order of units (affix(1), LOCATIONS, "Order of units": a tree walk,
// siblings visited by their lowest-numbered CPU; a unit spanning several
// parents is indexed where the walk first meets it).

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "device_info.hpp"
#include "interleave_weights.hpp"
#include "os.hpp"
#include "sysroot.hpp"

namespace affix {

enum class Level { Socket, Node, Die, Llc, Core, Cpu };
const char* level_name(Level level);  // "socket", "node", ...

struct CpuInfo {
  unsigned cpu = 0;
  bool online = false;
  bool known = false;         // topology known (online, or offline with topology files)
  // Kernel numbers (as lscpu / numactl show them); -1 where unknown.
  long socket = -1;           // physical_package_id (a -1 there is mapped, see topology.cpp)
  long die_id = -1;
  long core_id = -1;
  long node = -1;             // NUMA node number
  // Machine-wide indexes in the order of units; -1 where unknown.
  int die = -1;
  int llc = -1;
  int core = -1;
  int thread = -1;            // index inside its core
  CpuSet siblings;            // the CPUs of its core
  int kind = -1;              // index into Topology::kinds (0: most performant); -1: none
};

// What kind of memory a node holds, as hwloc names it (memory_kinds.hpp):
// "DRAM", "HBM", "GPUMemory", "SPM" (specific-purpose memory of no known
// kind), "NVM", "CXL-DRAM", "CXL-NVM"; Unknown where the machine does not say.
enum class MemKind { Unknown, Dram, Hbm, Gpu, Spm, Nvm, CxlDram, CxlNvm };
const char* mem_kind_name(MemKind kind);  // "DRAM", ...; "unknown"

// A node's HMAT figures as the kernel shows them
// (nodeN/accessZ/initiators/{read,write}_{bandwidth,latency}): the access
// from its nearest CPUs (access1), else from its nearest initiators of any
// kind (access0); each figure nullopt where not shown (hmat.hpp).
struct NodeHmat {
  int access = -1;  // 1 or 0: the class read; -1: none
  std::optional<unsigned long long> read_bandwidth, write_bandwidth;  // MB/s
  std::optional<unsigned long long> read_latency, write_latency;      // ns
  CpuSet initiators;  // the nodes the figures are for (the class's initiators/nodeX)
  bool any() const { return read_bandwidth || write_bandwidth || read_latency || write_latency; }
};

// One of the kernel's memory tiers (/sys/devices/virtual/memory_tiering/
// memory_tierN/nodelist): its number N and its nodes. A lower number is
// faster memory.
struct MemoryTier {
  unsigned id = 0;
  CpuSet nodes;
};

struct NodeInfo {
  unsigned node = 0;
  CpuSet cpus;
  std::optional<unsigned long long> memory_total_kb;  // nullopt where unknown
  std::optional<unsigned long long> memory_free_kb;
  std::vector<unsigned> distances;  // indexed like Topology::nodes (same order); empty where unknown
  // ReadScope::tiers (memory_tiers.hpp): its tier (nullopt where in none),
  // its kind, its HMAT figures.
  std::optional<unsigned> tier{};
  MemKind kind = MemKind::Unknown;
  NodeHmat hmat{};
  // False only where the node's size is known to be 0: a node whose size is
  // unknown (not read, or left out) may have memory, and the kernel decides.
  bool has_memory() const { return memory_total_kb.value_or(1) > 0; }
};

// One unit of a level: its identity and its CPUs (online CPUs with known
// topology). For Socket, Node and Cpu `id` is the kernel number; for Die,
// Llc and Core it is the machine-wide index (== position in the vector).
struct Unit {
  long id = 0;
  CpuSet cpus;
};

struct Allowed {
  CpuSet cpus;
  CpuSet mems;
  // affix's own affinity as it was started (what `self` names), online CPUs
  // only; nullopt where unknown (then `self` is everything allowed).
  std::optional<CpuSet> inherited;
  std::string source;  // "cgroup2:/sys/fs/cgroup/a/cpuset.cpus.effective", "cgroup1:...", "cpuset:...", "no-cpuset:/sys/fs/cgroup/cgroup.controllers", "status:/proc/self/status", "all-online"
  std::string mems_source;  // where `mems` came from: "cgroup2:/sys/fs/cgroup/a/cpuset.mems.effective", ..., "all-nodes"
};

// How the units are found (topology.cpp, as hwloc does): each grouping
// comes from the kernel's CPU masks (package_cpus/core_siblings,
// die_cpus, core_cpus/thread_siblings, the last level's shared_cpu_map,
// node cpumap; the *_list files where a mask is missing). A CPU with no
// unit at a level (no such file, or a mask that conflicts with the others)
// has -1 there and belongs to no unit of that level; `numa` lists the nodes
// without online CPUs after the walk, with empty `cpus`. A CPU that tells
// nothing of its core (no core_id, no core mask) is its own core; packages
// that share an id while their masks split them are merged on x86
// (topology.cpp).
struct Topology {
  std::vector<CpuInfo> cpus;  // indexed by CPU number, every possible CPU
  std::vector<NodeInfo> nodes;  // sorted by node number
  CpuSet possible;            // every CPU the kernel shows: cpuN directories, present, online
  CpuSet online;
  CpuSet isolated;
  unsigned smt = 1;           // largest number of hardware threads of any core
  // CPU kinds (cpu_kinds.hpp), most performant first; empty where the
  // kernel says nothing about them (then every CPU is of one kind).
  std::vector<CpuSet> kinds;
  bool hybrid = false;        // more than one kind
  // What was left out (a file that cannot be read or makes no sense, each
  // naming the file) or corrected while reading; `topo` prints them.
  std::vector<std::string> warnings;
  // The devices a location names with near: (read_location_devices,
  // place/near.hpp): read_topology reads none, a launch reads only those
  // (devices.hpp).
  std::vector<Device> devices;
  // ReadScope::tiers: the kernel's memory tiers (ascending number; none
  // where it lists none) and its interleave weights.
  bool tiers_read = false;
  std::vector<MemoryTier> tiers;
  InterleaveWeights interleave;
  // The GPUs (gpus.hpp), read where --gpu or topo needs them
  // (read_request_gpus, place/near.hpp; topo); empty otherwise.
  std::vector<Gpu> gpus;
  // The displays (gpus.hpp: class 03 functions no GPU runtime numbers),
  // read for topo; empty otherwise.
  std::vector<Display> displays;

  // Units in the order of units, per level (Cpu: every online known CPU, in
  // topology order).
  std::vector<Unit> sockets, numa, dies, llcs, cores, threads;
  const std::vector<Unit>& units(Level level) const;

  const NodeInfo* node(unsigned number) const;  // nullptr where no such node
  // Distance between two node numbers, or nullopt.
  std::optional<unsigned> distance(unsigned from, unsigned to) const;
  CpuSet node_set() const;  // every node number
};

// What to read. A launch whose placement cannot depend on a part skips it
// (launch_scope.hpp, docs/performance.md): without the tree only which
// CPUs exist and which are online are read (and the nodes' CPUs): every
// online CPU is known, its own only thread, with no socket, node, die, llc
// or core, and isolated and hybrid CPUs are not read; without caches there
// are no llc units and the order of units ignores them; without memory,
// nodes have no memory sizes and no distances; without tiers, no node's
// tier, memory kind or HMAT figures and no interleave weights.
struct ReadScope {
  bool tree = true;  // packages, dies, cores, caches, isolated and hybrid CPUs
  bool caches = true;
  bool memory = true;
  bool kinds = true;  // CPU kinds: per-CPU cpufreq and capacity files
  bool tiers = true;  // memory tiers, memory kinds, HMAT, interleave weights
};

// Reads the topology under `root`. Throws Error(Runtime) naming the file and
// the problem only where the CPUs or which of them are online cannot be read
// (a missing root, no CPUs, an online list that is garbage); any other file
// that cannot be read or makes no sense leaves its attribute out and adds a
// line to Topology::warnings.
Topology read_topology(const SysRoot& root, ReadScope scope = {});

// Each NUMA node's CPUs, without its memory, read as
// read_topology reads them, for a caller that needs only which node a CPU is
// on (show: the node a thread last ran on) and not the rest of the machine.
// Never fails: a node whose CPUs cannot be read has none. A machine with no
// node directory is one node 0 holding every CPU number up to the most
// supported.
std::vector<NodeInfo> read_node_cpus(const SysRoot& root);

// The number of the node among `nodes` (Topology::nodes, read_node_cpus)
// that holds `cpu`; -1 where none does (or cpu is -1).
long node_of_cpu(const std::vector<NodeInfo>& nodes, long cpu);

// The allowed CPUs and memory nodes of a process ("self" or a PID number) as
// seen under `root`: its cgroup cpuset (v2 effective, v1 effective, old
// /dev/cpuset), found through proc/PID/cgroup and proc/PID/mountinfo (or
// proc/mounts); else Cpus_allowed_list / Mems_allowed_list of
// proc/PID/status; else (only under a non-default root) every online CPU and
// every node. Always intersected with what is online/exists.
// `affinity` gives affix's own affinity under the default root
// (read_inherited).
Allowed read_allowed(const SysRoot& root, const Topology& topo, AffinityOs& affinity,
                     const std::string& pid = "self");

// affix's own affinity as it was started (Allowed::inherited, whatever PID
// read_allowed is asked about): under the default root the calling
// thread's affinity (`affinity`: get_affinity of thread 0); under another
// root Cpus_allowed_list of its proc/self/status, where there is one.
std::optional<CpuSet> read_inherited(const SysRoot& root, AffinityOs& affinity);

// The cgroup cpuset of one thread (cgroup v1 may put a thread in a cpuset
// of its own), as read_allowed finds a process's; nullopt where it has
// none (or none with an online CPU).
std::optional<CpuSet> read_thread_cpuset(const SysRoot& root, const Topology& topo, pid_t pid, pid_t tid);

}  // namespace affix
