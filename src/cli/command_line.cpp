// The hand parser of run, explain and pin (the rules: command_line.hpp).
// Not CLI11, which topo, show and watch use through parse_cli11
// (cli_errors.hpp), because this grammar is not one CLI11 can keep. Checked
// against CLI11 2.1.2, the version Debian 12 ships:
//   - it cannot stop at an unknown option after WHERE: with prefix_command()
//     it stops at the first plain word after WHERE, but an unknown option
//     there is set aside and parsing goes on, so `affix 0 -x -v ls` would
//     take -v as affix's own and run `-x ls` (without prefix_command() the
//     unknown option is an error);
//   - it splits `-vx` into -v and -x, where `affix 0 -vx` must run `-vx`;
//   - it lets `--opt=` (an empty value) take the next word as the value:
//     `--count= ls` sets the count to "ls".
// And run parses on every launch: this parser builds nothing but the
// CommandLine it returns (a run line with four options: under 1 us here,
// against 15-30 us for a CLI11 App built and parsed with prefix_command()).
#include "command_line.hpp"

#include <fmt/format.h>

#include <string_view>

#include "error.hpp"
#include "foreign_options.hpp"
#include "text.hpp"

namespace affix {

namespace {

enum KindMask : unsigned { k_run = 1, k_explain = 2, k_pin = 4, k_all = 7 };

enum class Opt {
  Help, NoSmt, Count, Order, Exclude, Slice, Mem, Verbose, DryRun, Env, Json, Root, Spread,
  Tid, Migrate, Tree, As,
};

struct OptionSpec {
  Opt opt;
  const char* long_name;  // without "--"
  char short_name;        // 0: none
  bool takes_value;
  unsigned kinds;
};

constexpr OptionSpec k_options[] = {
    {Opt::Help, "help", 'h', false, k_all},
    {Opt::NoSmt, "no-smt", 0, false, k_all},
    {Opt::Count, "count", 'n', true, k_all},
    {Opt::Order, "order", 0, true, k_all},
    {Opt::Exclude, "exclude", 0, true, k_all},
    {Opt::Slice, "slice", 0, true, k_all},
    {Opt::Mem, "mem", 'm', true, k_all},
    {Opt::Verbose, "verbose", 'v', false, k_run | k_pin},
    {Opt::DryRun, "dry-run", 0, false, k_run | k_pin},
    {Opt::Env, "env", 0, false, k_run},
    {Opt::Json, "json", 0, false, k_explain},
    {Opt::Root, "root", 0, true, k_explain},
    {Opt::As, "as", 0, true, k_explain},
    {Opt::Spread, "spread", 0, false, k_all},  // run and explain: --spread=N
    {Opt::Tid, "tid", 0, false, k_pin},
    {Opt::Migrate, "migrate", 0, false, k_pin},
    {Opt::Tree, "tree", 0, false, k_pin},
};

unsigned kind_bit(CommandKind kind) {
  switch (kind) {
    case CommandKind::Run: return k_run;
    case CommandKind::Explain: return k_explain;
    case CommandKind::Pin: return k_pin;
  }
  return 0;
}

// A word that looks like an option, split into the spec it names and an
// attached value ("--count=4", "-n4"). spec is nullptr when it names no
// option of this command.
struct OptionWord {
  const OptionSpec* spec = nullptr;
  std::string name;  // as written, without any attached value: "--count", "-n"
  std::optional<std::string> value;
};

OptionWord split_option(std::string_view word, CommandKind kind) {
  OptionWord out;
  unsigned bit = kind_bit(kind);
  if (word.substr(0, 2) == "--") {
    std::string_view body = word.substr(2);
    auto eq = body.find('=');
    std::string_view name = body.substr(0, eq);
    out.name = "--" + std::string(name);
    if (eq != std::string_view::npos) out.value = std::string(body.substr(eq + 1));
    for (auto& spec : k_options)
      if (name == spec.long_name && (spec.kinds & bit)) out.spec = &spec;
    return out;
  }
  char c = word[1];
  out.name = std::string("-") + c;
  for (auto& spec : k_options) {
    if (spec.short_name != c || !(spec.kinds & bit)) continue;
    if (word.size() > 2) {
      if (!spec.takes_value) {  // "-vx": not one of ours
        out.name = std::string(word);
        return out;
      }
      out.value = std::string(word.substr(2));
    }
    out.spec = &spec;
  }
  if (!out.spec) out.name = std::string(word);
  return out;
}

bool is_option_word(std::string_view word) { return word.size() > 1 && word[0] == '-'; }

std::string usage_line(CommandKind kind) {
  switch (kind) {
    case CommandKind::Run: return "usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]";
    case CommandKind::Explain: return "usage: affix explain [OPTIONS] WHERE [--json | --as FORMAT]";
    case CommandKind::Pin: return "usage: affix pin [OPTIONS] WHERE PID...";
  }
  return {};
}

// The hint is the usage line, or the nearest option where one is close.
[[noreturn]] void usage_error(CommandKind kind, const std::string& what, std::string hint = {}) {
  if (hint.empty())
    hint = fmt::format("{}; see 'affix {} --help'", usage_line(kind), command_kind_name(kind));
  throw Error(ErrorKind::Usage, what, hint);
}



// The part of a cpulist parse message after "invalid cpulist '...': ".
std::string cpulist_reason(const std::string& message) {
  auto at = message.find("': ");
  return at == std::string::npos ? message : message.substr(at + 3);
}

}  // namespace

std::string option_hint(const std::string& word, CommandKind kind) {
  if (word.substr(0, 2) != "--") return {};
  std::vector<std::string> names;
  for (auto& spec : k_options)
    if (spec.kinds & kind_bit(kind)) names.push_back(std::string("--") + spec.long_name);
  return did_you_mean(word.substr(0, word.find('=')), names);
}

const char* command_kind_name(CommandKind kind) {
  switch (kind) {
    case CommandKind::Run: return "run";
    case CommandKind::Explain: return "explain";
    case CommandKind::Pin: return "pin";
  }
  return "?";
}

unsigned parse_count_option(const std::string& text) {
  auto v = parse_decimal(text, k_max_id);
  if (!v || *v == 0)
    throw Error(ErrorKind::Usage, fmt::format("invalid --count '{}': expected a whole number "
                                              "from 1 to {}", text, k_max_id));
  return static_cast<unsigned>(*v);
}

SliceRequest parse_slice_option(const std::string& text) {
  SliceRequest slice;
  if (text == "rank") {
    slice.from_rank = true;
    return slice;
  }
  auto slash = text.find('/');
  std::optional<unsigned long long> k, n;
  if (slash != std::string::npos) {
    k = parse_decimal(std::string_view(text).substr(0, slash), k_max_id);
    n = parse_decimal(std::string_view(text).substr(slash + 1), k_max_id);
  }
  if (!k || !n)
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --slice '{}': expected K/N (part K of N, 0-based) or 'rank'",
                            text));
  if (*n == 0) throw Error(ErrorKind::Usage, fmt::format("invalid --slice '{}': N must be at least 1", text));
  if (*k >= *n)
    throw Error(ErrorKind::Usage, fmt::format("invalid --slice '{}': there is no part {} of {} "
                                              "(parts are numbered 0 to {})", text, *k, *n, *n - 1));
  slice.k = static_cast<unsigned>(*k);
  slice.n = static_cast<unsigned>(*n);
  return slice;
}

MemRequest parse_mem_option(const std::string& text) {
  MemRequest mem;
  auto colon = text.find(':');
  std::string policy = text.substr(0, colon);
  if (policy == "bind") mem.policy = MemPolicy::Bind;
  else if (policy == "preferred") mem.policy = MemPolicy::Preferred;
  else if (policy == "interleave") mem.policy = MemPolicy::Interleave;
  else if (policy == "local") mem.policy = MemPolicy::Local;
  else
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --mem '{}': unknown policy '{}' (expected bind, preferred, "
                            "interleave or local)", text, policy));
  if (colon == std::string::npos) return mem;
  std::string nodes = text.substr(colon + 1);
  if (mem.policy == MemPolicy::Local)
    throw Error(ErrorKind::Usage, fmt::format("invalid --mem '{}': 'local' takes no nodes", text));
  auto parsed = parse_cpulist(nodes);
  if (!parsed)
    throw Error(ErrorKind::Usage, fmt::format("invalid --mem '{}': bad node list: {}", text,
                                              cpulist_reason(parsed.error.message)));
  mem.nodes = nodes;
  return mem;
}

unsigned parse_spread_option(const std::string& text) {
  auto v = parse_decimal(text, k_max_id);
  if (!v || *v == 0)
    throw Error(ErrorKind::Usage, fmt::format("invalid --spread '{}': expected a whole number of "
                                              "threads per CPU from 1 to {} (--spread=2)",
                                              text, k_max_id));
  return static_cast<unsigned>(*v);
}

Order parse_order_option(const std::string& text) {
  if (text == "compact") return Order::Compact;
  if (text == "scatter") return Order::Scatter;
  throw Error(ErrorKind::Usage,
              fmt::format("invalid --order '{}': expected compact or scatter", text));
}

AsFormat parse_as_option(const std::string& text) {
  if (text == "systemd") return AsFormat::Systemd;
  if (text == "docker") return AsFormat::Docker;
  if (text == "taskset") return AsFormat::Taskset;
  if (text == "numactl") return AsFormat::Numactl;
  throw Error(ErrorKind::Usage,
              fmt::format("invalid --as '{}': expected systemd, docker, taskset or numactl", text));
}

CommandLine parse_command_line(CommandKind kind, const Args& args) {
  CommandLine cl;
  cl.kind = kind;
  bool have_where = false;
  bool options_done = false;
  std::vector<Opt> seen_values;  // value options already given
  auto& req = cl.request;

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (!options_done && word == "--") {
      options_done = true;
      continue;
    }
    if (!options_done && is_option_word(word)) {
      OptionWord ow = split_option(word, kind);
      if (!ow.spec) {
        if (kind == CommandKind::Run && have_where) {  // starts the command
          cl.rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
          break;
        }
        std::string what =
            fmt::format("unknown option '{}' for '{}'", ow.name, command_kind_name(kind));
        if (auto hint = foreign_option_hint(args, i, kind == CommandKind::Run ? "" : command_kind_name(kind)))
          usage_error(kind, what, *hint);
        usage_error(kind, what, option_hint(ow.name, kind));
      }
      const OptionSpec& spec = *ow.spec;
      std::string value;
      if (spec.takes_value) {
        if (ow.value) {
          value = *ow.value;
        } else if (i + 1 < args.size()) {
          value = args[++i];
        } else {
          usage_error(kind, fmt::format("option '{}' needs a value", ow.name));
        }
        for (Opt o : seen_values)
          if (o == spec.opt)
            usage_error(kind, fmt::format("option '--{}' given twice", spec.long_name));
        seen_values.push_back(spec.opt);
      } else if (ow.value && spec.opt == Opt::Spread && kind == CommandKind::Pin) {
        usage_error(kind, "option '--spread' takes no value for 'pin': N threads per CPU "
                          "(--spread=N) is for run");
      } else if (ow.value && spec.opt != Opt::Spread) {
        usage_error(kind, fmt::format("option '{}' takes no value", ow.name));
      }
      switch (spec.opt) {
        case Opt::Help: cl.help = true; return cl;
        case Opt::NoSmt: req.no_smt = true; break;
        case Opt::Count: req.count = parse_count_option(value); break;
        case Opt::Order: req.order = parse_order_option(value); break;
        case Opt::Exclude: req.exclude = value; break;
        case Opt::Slice: req.slice = parse_slice_option(value); break;
        case Opt::Mem:
          try {
            req.mem = parse_mem_option(value);
          } catch (const Error& e) {  // numactl's -m NODES
            auto hint = ow.name == "-m" ? numactl_mem_hint(ow.name, value) : std::nullopt;
            if (!hint) throw;
            throw Error(e.kind(), e.what(), *hint);
          }
          break;
        case Opt::Verbose: cl.verbose = true; break;
        case Opt::DryRun: cl.dry_run = true; break;
        case Opt::Env: cl.env = true; break;
        case Opt::Json: cl.json = true; break;
        case Opt::Root:
          if (value.empty()) usage_error(kind, "option '--root' needs a value");
          cl.root = value;
          break;
        case Opt::Spread: cl.spread = ow.value ? parse_spread_option(*ow.value) : 1; break;
        case Opt::Tid: cl.tid = true; break;
        case Opt::Migrate: cl.migrate = true; break;
        case Opt::Tree: cl.tree = true; break;
        case Opt::As: cl.as = parse_as_option(value); break;
      }
      continue;
    }
    if (!have_where) {
      req.where = word;
      have_where = true;
      continue;
    }
    if (kind == CommandKind::Run) {
      cl.rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (kind == CommandKind::Explain)
      usage_error(kind, fmt::format("unexpected '{}' after the location '{}'", word, req.where));
    cl.rest.push_back(word);
  }

  if (!have_where) usage_error(kind, "no location given");
  if (cl.as && cl.json) usage_error(kind, "--as and --json cannot be used together");
  if (kind == CommandKind::Run && cl.rest.empty())
    usage_error(kind, fmt::format("no command given to run at '{}'", req.where));
  if (kind == CommandKind::Pin && cl.rest.empty())
    usage_error(kind, cl.tid ? "no thread ID given" : "no process ID given");
  return cl;
}

std::string command_help(CommandKind kind) {
  std::string shape =
      "Selection (applied in this order: WHERE, --exclude, --no-smt, --slice, --count):\n"
      "  --exclude WHERE        remove these CPUs from the selection\n"
      "  --no-smt               one hardware thread per core (the lowest-numbered)\n"
      "  --slice K/N            keep part K (0-based) of N parts of whole cores\n"
      "  --slice rank           K and N from the MPI/Slurm launcher's local rank and size\n"
      "  -n, --count N          keep the first N CPUs in --order\n"
      "  --order compact|scatter  compact (default) or round-robin over NUMA nodes\n"
      "Memory:\n"
      "  -m, --mem POLICY[:NODES]  bind, preferred, interleave or local; NODES default to\n"
      "                         the nodes of the selected CPUs that have memory\n";
  std::string where =
      "WHERE: socket:0 | node:1 | die:0 | llc:2 | core:0-3 | cpu:4 | 0-3,8 | all,\n"
      "       kind:performance | kind:efficiency | kind:1 (hybrid CPUs),\n"
      "       self (the CPUs affix was started on: self.core:0-1),\n"
      "       nested with '.' (socket:1.core:0-3), joined with '+' (node:0+node:2)\n";
  switch (kind) {
    case CommandKind::Run:
      return "Usage: affix [run] [OPTIONS] WHERE [--] COMMAND [ARG...]\n"
             "Run COMMAND placed at WHERE: set the memory policy and the CPU affinity, then\n"
             "exec it (no fork). The first word after WHERE that is not an affix option\n"
             "starts the command; '--' also ends affix's options.\n\n" +
             where + "\n" + shape +
             "Run:\n"
             "  --spread[=N]           each thread the command creates gets one CPU of the\n"
             "                         selection before it runs, N per CPU (default 1), in\n"
             "                         creation order; the main thread keeps the selection\n"
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
             where + "\n" + shape +
             "Output:\n"
             "  --spread[=N]           also the CPU run --spread[=N] gives each new thread\n"
             "  --json                 one JSON document on stdout\n"
             "  --as FORMAT            the placement in another launcher's words: systemd\n"
             "                         (unit lines), docker (run flags), taskset, numactl\n"
             "  --root DIR             read DIR/sys and DIR/proc instead of /sys and /proc\n"
             "  -h, --help             this text\n\n"
             "Exit status: 0 success; 1 the machine could not be read; 2 usage, location or\n"
             "resolution error.\n";
    case CommandKind::Pin:
      return "Usage: affix pin [OPTIONS] WHERE PID...\n"
             "       affix pin --tid [OPTIONS] WHERE TID...\n"
             "Move running processes, every one of their threads, to WHERE.\n\n" +
             where + "\n" + shape +
             "Pin:\n"
             "  --tid                  the IDs are thread IDs; move only those threads\n"
             "  --tree                 each PID and all its descendants, every thread of each\n"
             "  --spread               one CPU per thread, round-robin in TID order\n"
             "  --migrate              also move existing pages to the memory nodes\n"
             "  --dry-run              print each thread's list and the one it would get;\n"
             "                         change nothing\n"
             "  -v, --verbose          print each thread's old and new CPU list\n"
             "  -h, --help             this text\n\n"
             "Exit status: 0 success; 1 the move failed (rolled back); 2 usage, location or\n"
             "resolution error.\n";
  }
  return {};
}

}  // namespace affix
