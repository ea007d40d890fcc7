#pragma once
// What `affix explain` prints: the resolved placement, the allowed set and
// where it came from, the memory policy, the CPUs dropped and why, the
// variables `run --env` would export (and those it would keep), and the
// warnings; or the same placement in another launcher's words (--as). Text
// for people, JSON with the fields affix(1) lists under OUTPUT.

#include <string>
#include <vector>

#include "command_line.hpp"
#include "launch_env.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

// Aligned "name  value" lines, ending with a newline. A "self" line where
// affix was started on fewer CPUs than are allowed; "kept" lines for the
// --env variables the user set.
// With a scheduling request, a "sched" line after "memory" (explain_sched.hpp).
std::string explain_text(const Placement& placement, const Allowed& allowed, const PlacementEnv& env,
                         const SchedRequest& sched = {});

// One JSON document (with a final newline): cpus, count, sequence, sockets,
// nodes, allowed{cpus,nodes,source}, self (the CPUs `self` names), 
// mem{policy,nodes}|null, dropped[{cpus,reason}], env{...} (what run --env
// would export), env_kept{...} (set by the user, left alone), warnings[...];
// with a scheduling request, sched{...} after mem (explain_sched.hpp).
std::string explain_json(const Placement& placement, const Allowed& allowed, const PlacementEnv& env,
                         const SchedRequest& sched = {});

// explain --as (affix(1), "Explain options"), a line each, ending
// with a newline:
//   systemd  CPUAffinity=LIST; with --mem NUMAPolicy=bind|preferred|interleave|local
//            and, but for local, NUMAMask=NODES; with --policy and --nice
//            CPUSchedulingPolicy=, CPUSchedulingPriority=, Nice=
//   nginx    worker_processes N; and worker_cpu_affinity MASK...; with per_cpu
//            (--spread=N) consecutive workers on each CPU of the sequence, each
//            mask a binary digit a CPU, CPU 0 rightmost, as wide as the highest
//            CPU + 1; a CPU above 1023 or more than 1024 workers is an Error
//            (Resolution): nginx takes neither
//   docker   --cpuset-cpus=LIST, --cpuset-mems=NODES (of --mem, else of the CPUs)
//   taskset  taskset -c LIST
//   numactl  numactl --physcpubind=LIST [--membind=N | --preferred=N |
//            --preferred-many=NODES | --interleave=NODES | --localalloc]
std::string explain_as(const Placement& placement, AsFormat format, unsigned per_cpu = 1,
                       const SchedRequest& sched = {});

// What to say on stderr about the --as lines themselves: for nginx, that
// --mem is not in them, and more workers than a reload can start beside the
// old ones; for any, the scheduling options they cannot say.
std::vector<std::string> explain_as_warnings(const Placement& placement, AsFormat format, unsigned per_cpu = 1,
                                             const SchedRequest& sched = {});

}  // namespace affix
