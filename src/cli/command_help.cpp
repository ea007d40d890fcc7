// The --help text of each command (`affix COMMAND --help`); the options
// they name are those of the command's grammar (command_line.cpp), and
// tests/cli/manpage_options.sh checks them against the man page and the
// completions.
#include <string>

#include "command_line.hpp"

namespace affix {

std::string command_help(CommandKind kind) {
  std::string shape =
             "Selection (applied in this order: WHERE, --exclude, --no-smt, --slice, --gpu, --count):\n"
             "  --exclude WHERE        remove these CPUs from the selection\n"
             "  --no-smt               one hardware thread per core (the lowest-numbered)\n"
             "  --slice K/N            keep part K (0-based) of N parts of whole cores\n"
             "  --slice rank           K and N from the MPI/Slurm launcher's local rank and size\n"
             "  -n, --count N          keep the first N CPUs in --order\n"
             "  --order compact|scatter  compact (default) or round-robin over NUMA nodes\n"
             "Memory:\n"
             "  -m, --mem POLICY[:NODES]  bind, preferred, interleave, weighted or local; NODES\n"
             "                         default to the nodes of the selected CPUs that have\n"
             "                         memory; NODES: 0,2 | tier:N | mem:hbm|dram|cxl|nvm|gpu,\n"
             "                         joined with '+' (weighted:mem:dram+mem:cxl)\n";
  std::string weights =
             "  --weights N=W,...|auto  --mem weighted: each node's interleave weight (1-255),\n"
             "                         or the kernel's own from each node's bandwidth; they\n"
             "                         are the machine's, for every process (root writes them)\n";
  std::string gpu =
             "GPU (after --slice, before --count):\n"
             "  --gpu closest|N|LIST   one GPU for this local rank: closest takes the NVIDIA\n"
             "                         and AMD GPUs near the ranks' CPUs round robin, N or\n"
             "                         LIST (0,2) those gpuN; binds to the CPUs near it and\n"
             "                         their node's memory (--mem bind unless given) and\n"
             "                         exports CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES;\n"
             "                         a job's GPUs (those variables, set before) are the\n"
             "                         pool, and gpuN counts no BMC's VGA (a display)\n";
  std::string sched =
             "Scheduling (every thread, together with its CPUs):\n"
             "  --policy POLICY        other, batch, idle, fifo:P, rr:P (P from 1 to 99) or\n"
             "                         deadline:RUNTIME/DEADLINE/PERIOD, times with their unit\n"
             "                         (deadline:2ms/10ms/10ms)\n"
             "  --nice N               the nice value of other and batch threads, -20 to 19\n"
             "  --sched-slice MS       the EEVDF slice of other and batch threads, 0.1 to 100\n"
             "                         ms (Linux 6.12); --slice splits the CPUs instead\n"
             "  --uclamp MIN:MAX       utilization clamps, 0 to 1024 (CONFIG_UCLAMP_TASK)\n";
  std::string where =
             "WHERE: socket:0 | node:1 | die:0 | llc:2 | core:0-3 | cpu:4 | 0-3,8 | all,\n"
             "       kind:performance | kind:efficiency | kind:1 (hybrid CPUs),\n"
             "       self (the CPUs affix was started on: self.core:0-1),\n"
             "       nested with '.' (socket:1.core:0-3), joined with '+' (node:0+node:2)\n";
  switch (kind) {
    case CommandKind::Run:
      return "Usage: affix [run] [OPTIONS] WHERE [--] COMMAND [ARG...]\n"
             "Run COMMAND placed at WHERE: set the memory policy, the CPU affinity and the\n"
             "scheduling policy, then exec it (no fork). The first word after WHERE that is\n"
             "not an affix option starts the command; '--' also ends affix's options.\n\n" +
             where + "\n" + shape + weights + gpu + sched +
             "Run:\n"
             "  --spread[=N]           each thread the command creates gets one CPU of the\n"
             "                         selection before it runs, N per CPU (default 1), in\n"
             "                         creation order; the main thread keeps the selection\n"
             "                         (refused for a set-user-ID, set-group-ID or setcap\n"
             "                         program, which would run without its privileges)\n"
             "                         (a command that binds itself, as taskset, keeps its\n"
             "                         CPUs: threads spread over the selection's CPUs in it)\n"
             "  --env                  export AFFIX_CPUS, AFFIX_NODES and, unless set,\n"
             "                         OMP_NUM_THREADS, GOMAXPROCS, OMP_PLACES, OMP_PROC_BIND\n"
             "  -v, --verbose          print the placement on stderr before the exec\n"
             "  --dry-run              print what would be done, run nothing\n"
             "  -h, --help             this text\n\n"
             "Exit status: the command's own; 125 affix failed before the command started;\n"
             "126 the command cannot be executed; 127 the command was not found.\n";
    case CommandKind::Explain:
      return "Usage: affix explain [OPTIONS] WHERE [--json | --as FORMAT]\n"
             "Resolve WHERE and print the placement; change nothing.\n\n" +
             where + "\n" + shape + weights + gpu + sched +
             "Output:\n"
             "  --spread[=N]           also the CPU run --spread[=N] gives each new thread;\n"
             "                         with --as nginx, N workers per CPU\n"
             "  --json                 one JSON document on stdout\n"
             "  --as FORMAT            the placement in another launcher's words: systemd\n"
             "                         (unit lines), nginx (worker_processes and\n"
             "                         worker_cpu_affinity: a worker per CPU), docker (run\n"
             "                         flags), taskset, numactl\n"
             "  --root DIR             read DIR/sys and DIR/proc instead of /sys and /proc\n"
             "  --ranks N              with --slice rank or --gpu: the table of N local ranks,\n"
             "                         each one's GPU, CPUs, nodes and memory\n"
             "  --shield               with --as systemd: the AllowedCPUs= drop-ins that keep\n"
             "                         system.slice, user.slice and init.scope off WHERE, and\n"
             "                         a slice on WHERE, and the shielded service's own lines\n"
             "                         that put it in that slice (see affix shield)\n"
             "  -h, --help             this text\n\n"
             "Exit status: 0 success; 1 the machine could not be read; 2 usage, location or\n"
             "resolution error.\n";
    case CommandKind::Pin:
      return "Usage: affix pin [OPTIONS] WHERE PID...\n"
             "       affix pin --tid [OPTIONS] WHERE TID...\n"
             "       affix pin --irq [OPTIONS] WHERE IRQ|DEVICE...\n"
             "       affix pin --policy P|--nice N|--sched-slice MS|--uclamp MIN:MAX PID\n"
             "Move running processes, every one of their threads, to WHERE. With a\n"
             "scheduling option alone and one PID (as chrt takes it), no WHERE: only the\n"
             "scheduling changes, every thread keeps its CPUs.\n\n" +
             where + "\n" + shape + weights +
             "                         (with --migrate written first, then the pages spread\n"
             "                         by them; with --check compared)\n" +
             gpu + sched +
             "Pin:\n"
             "  --tid                  the IDs are thread IDs; move only those threads\n"
             "  --tree                 each PID and all its descendants, every thread of each\n"
             "  --spread[=N]           one CPU per thread (N per CPU), one round over all the\n"
             "                         targets: processes in the order given, threads in TID\n"
             "                         order; with --tree the root keeps the whole selection\n"
             "  --migrate              also move existing pages to the memory nodes (on a\n"
             "                         terminal, a move over a second shows its progress)\n"
             "  --dry-run              print each thread's list and the one it would get;\n"
             "                         change nothing\n"
             "  --check                verify, change nothing: exit 0 where every thread is\n"
             "                         already within WHERE (with --spread on its CPU; with\n"
             "                         --mem also the memory policy; with --migrate the pages,\n"
             "                         what pin --migrate moved, not a policy;\n"
             "                         with --gpu the CPUs, memory and variables of its GPU;\n"
             "                         with a scheduling option the threads' policy; with\n"
             "                         --weights the machine's interleave weights)\n"
             "  --json                 with --check: the result as one JSON document\n"
             "  -v, --verbose          print each thread's old and new CPU list\n"
             "  --irq                  the IDs are IRQ numbers or device names (eth0,\n"
             "                         nvme0n1, 0000:02:00.0: every IRQ of the device);\n"
             "                         WHERE is of the machine's online CPUs; root only\n"
             "  -h, --help             this text\n\n"
             "Exit status: 0 success; 1 the move failed (rolled back), or --check found a\n"
             "thread, page or IRQ outside; 2 usage, location or resolution error.\n";
    // topo, show and watch: the layout their help had when CLI11 wrote it.
    case CommandKind::Topo:
      return "Show the machine: sockets, nodes, caches, cores, threads, memory, distances\n"
             "Usage: affix topo [OPTIONS]\n"
             "\n"
             "Options:\n"
             "  -h,--help                   this text\n"
             "  --json                      print one JSON document\n"
             "  --root DIR                  read DIR/sys and DIR/proc instead of /sys and /proc\n"
             "\n";
    case CommandKind::Show:
      return "Where processes and their threads may run and did run: each thread's CPU list and\n"
             "the CPU (and node) it last ran on, the pages per NUMA node, the command line.\n"
             "Usage: affix show [OPTIONS] [PID...]\n"
             "       affix show --irq [OPTIONS] [DEVICE...]\n"
             "       affix show --cpu LIST [--json] [--root DIR]\n"
             "       affix show --shield [--json]\n"
             "\n"
             "Positionals:\n"
             "  PID ...                     process IDs (default: affix itself; --tree needs one)\n"
             "  DEVICE ...                  with --irq: IRQ numbers, device names (eth0, nvme0n1)\n"
             "                              or PCI addresses (default: every IRQ with an action)\n"
             "\n"
             "Options:\n"
             "  -h,--help                   this text\n"
             "  --json                      print one JSON document\n"
             "  --tree                      each PID followed by its descendants, indented under\n"
             "                              their parents (\"children\" in JSON)\n"
             "  --pinned                    every process with a thread narrower than its allowed CPUs\n"
             "  --cpu LIST                  who may run and who ran on LIST's CPUs (a WHERE: 1,3,\n"
             "                              socket:1, node:0): pinned threads, kernel threads\n"
             "                              bound there, the others counted per process, IRQs\n"
             "  --irq                       interrupts: CPU lists, device, counts per CPU, managed\n"
             "  --shield                    the shields (affix shield) and, per shielded CPU, what\n"
             "                              still runs there: kernel threads, IRQs, other tasks\n"
             "  --root DIR                  read DIR/proc and DIR/sys instead of /proc and /sys\n"
             "\n"
             "Exit status: 0 success; 1 a process does not exist (the others are shown); 2 usage error.\n";
    case CommandKind::Watch:
      return "How often threads move between cores, caches, nodes and sockets, how long they\n"
             "wait for a CPU and where their memory is: every interval, per process (per\n"
             "thread with --threads), until -c N intervals, Ctrl-C or SIGTERM; then a summary.\n"
             "Without a PID, every process. With -- COMMAND: start it, watch it and every\n"
             "process it makes from before it runs to its end, print the summary on stderr\n"
             "(intervals only with -i or -c) and exit with its status.\n"
             "Usage: affix watch [OPTIONS] [PID...]\n"
             "       affix watch [OPTIONS] -- COMMAND [ARG...]\n"
             "\n"
             "Positionals:\n"
             "  PID ...                     process IDs (default: every process)\n"
             "  COMMAND ...                 a command to start and watch, after '--'\n"
             "\n"
             "Options:\n"
             "  -h,--help                   Print this help message and exit\n"
             "  -i,--interval SECONDS       seconds between samples, 0.1 to 3600 (default 1)\n"
             "  -c,--count N                stop after N intervals (default: when interrupted);\n"
             "                              with a command: N reports, the summary at its end\n"
             "  --threads                   one row per thread\n"
             "  --json                      JSON Lines: one object per interval, then the summary\n"
             "  --tree                      the PIDs' descendants too, those that appear included\n"
             "\n"
             "Exit status: 0 success (also after Ctrl-C or SIGTERM); 1 no named process exists;\n"
             "2 usage error. With a command: its own (128+N for signal N; SIGINT, SIGTERM,\n"
             "SIGHUP and SIGQUIT sent to affix go on to it); 126 it cannot be executed; 127 not\n"
             "found.\n";
    case CommandKind::Top:
      return "The whole machine, laid out like the topology: per CPU its busy %, IRQs per\n"
             "second, marks and the threads that ran on it; per process its CPU %, threads,\n"
             "migrations per second by level, anonymous pages per node and their remote share,\n"
             "allowed CPUs. Live on a terminal (q leaves), refreshed every interval.\n"
             "Usage: affix top [OPTIONS] [WHERE]\n"
             "\n"
             "Positionals:\n"
             "  WHERE                       only these CPUs, and the processes that ran there\n"
             "                              (a location, as for run: 0-3, node:1, socket:0)\n"
             "\n"
             "Options:\n"
             "  -h,--help                   Print this help message and exit\n"
             "  --once                      one interval, then print it and exit\n"
             "  --json                      with --once: the frame as one JSON object\n"
             "  -i,--interval SECONDS       seconds an interval lasts, 0.1 to 3600 (default 1)\n"
             "  -n,--frames N               leave after N frames (default: when q is pressed)\n"
             "  --pid PID[,PID...]          only these processes (shown though idle)\n"
             "  --tree PID                  only this process and its descendants\n"
             "  --name REGEX                only processes whose name matches (ECMAScript)\n"
             "  --root DIR                  read /proc and /sys under DIR (captures, tests)\n"
             "\n"
             "Exit status: 0 success; 1 no named process exists, or /proc cannot be read;\n"
             "2 usage error.\n";
    case CommandKind::Shield:
      return "Usage: affix shield WHERE [OPTIONS] [--] [COMMAND [ARG...]]\n"
             "       affix shield --off NAME\n"
             "Fence WHERE's CPUs off for one program: a cgroup v2 cpuset partition (cgroup v1:\n"
             "exclusive cpusets, as cset shield) that takes them away from every other task,\n"
             "PID 1 included. With COMMAND, run it inside and remove the shield when it ends,\n"
             "however it ends; without, leave the shield standing and print its name.\n\n" +
             where +
             "\nShield:\n"
             "  --isolated             also off the scheduler's load balancing and (Linux 6.7\n"
             "                         and later) the unbound workqueues: cpuset.cpus.partition\n"
             "                         isolated (cgroup v1: sched_load_balance 0)\n"
             "  --irqs                 move every movable IRQ off the CPUs (all or nothing, as\n"
             "                         pin moves interrupts; those the kernel will not move are\n"
             "                         named), and /proc/irq/default_smp_affinity\n"
             "  --mem[=NODES]          the shield's memory nodes: NODES, or those of WHERE's CPUs\n"
             "  --name NAME            call it NAME (default: affix-shield-N; under systemd its\n"
             "                         slice is affix-NAME.slice, NAME as systemd-escape writes it)\n"
             "  --off NAME             remove shield NAME and put back every file it changed\n"
             "                         (cpuset stays on where another cgroup uses it)\n"
             "  --dry-run              print what would be changed (with --off: what --off would\n"
             "                         do), change nothing\n"
             "  -v, --verbose          print each change as it is made\n"
             "  -h, --help             this text\n\n"
             "Root only; one shield change at a time (flock on /run/affix/shield.lock). The\n"
             "command gets every CPU of the shield, whatever mask affix inherited. Show lists\n"
             "the shields and what still runs on their CPUs.\n\n"
             "Exit status: with COMMAND, the command's own (also where the shield stayed after\n"
             "it: an error says why); 125 affix failed (the shield is not left behind); 126/127 the command could not be executed / was not found.\n"
             "Without: 0 success; 1 the shield could not be made or removed (nothing is left\n"
             "half made); 2 usage, location or resolution error.\n";
    case CommandKind::Apply:
      return "Apply a rules file (TOML: [[rule]] tables, see affix(1), APPLY) to what runs\n"
             "now: each process gets the first rule that matches it (comm, exe, cmdline,\n"
             "cgroup, unit, user), all or nothing per process as pin moves it; IRQ rules\n"
             "move interrupts. A file with an error is refused whole (FILE:LINE:COL).\n"
             "Usage: affix apply [--dry-run] [--json] FILE\n"
             "       affix apply --check [--json] FILE\n"
             "\n"
             "Options:\n"
             "  -h,--help                   Print this help message and exit\n"
             "  --check                     change nothing: exit 0 where everything a rule\n"
             "                              matches is where it says, else 1 with one line per\n"
             "                              difference\n"
             "  --dry-run                   print what would be done, change nothing\n"
             "  --json                      one JSON document\n"
             "\n"
             "Exit status: 0 success (rules that match nothing included); 1 a process or\n"
             "IRQ rule failed (each put back), or --check found a difference; 2 usage error\n"
             "or an error in FILE (nothing applied).\n";
  }
  return {};
}

}  // namespace affix
