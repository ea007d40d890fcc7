// The one tokenizer of affix's command lines (the rules: command_line.hpp).
// Each command is a row of k_grammars: its options, each {long name, short
// letter, how it takes a value, what it does with it}, and what its other
// words are. Not CLI11, which affix no longer uses, because run's grammar is
// not one CLI11 can keep. Checked against CLI11 2.1.2, the version Debian 12
// ships:
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

#include <cctype>
#include <span>
#include <string_view>

#include "error.hpp"
#include "foreign_options.hpp"
#include "gpu_args.hpp"
#include "location.hpp"
#include "sched_args.hpp"
#include "text.hpp"

namespace affix {

namespace {

// How an option takes its value.
enum class Value {
  None,      // a flag: `--opt=V` is an error, `-oV` an unknown word
  Next,      // attached (`--opt=V`, `-oV`) or the next word, whatever it is
  NonEmpty,  // the same, and an empty value is no value ("needs a value")
  Attached,  // only attached (`--opt=V`); without one, a flag
  Optional,  // attached, or the next word where that is no option (topo, which has no other words)
};

// One option as the words gave it.
struct Given {
  std::string name;                  // as written, without the value: "--count", "-n"
  std::optional<std::string> value;  // nullopt: none (a flag, or Attached without one)
};

struct OptionSpec {
  const char* long_name;  // without "--"
  char short_name;        // 0: none
  Value value;
  void (*apply)(CommandLine& cl, const Given& given);  // throws Error(Usage) for a bad value
};

// What a command's words that are no options are.
enum class Words {
  None,          // topo: none at all
  Ids,           // show, watch: PIDs, among the options
  Where,         // explain: WHERE, and nothing more
  WhereIds,      // pin: WHERE, then IDs among the options
  WhereCommand,  // run: WHERE, then the command, which takes every word from its first on
};

struct Grammar {
  CommandKind kind;
  const char* name;   // "run": also in `see 'affix run --help'`
  const char* usage;  // the hint of a mistake no nearer hint explains
  std::span<const OptionSpec* const> options;
  Words words;
  bool foreign_hints;  // numactl's and taskset's options are told in affix's words
};

const Grammar& grammar(CommandKind kind);

[[noreturn]] void usage_error(const Grammar& g, const std::string& what, std::string hint = {}) {
  if (hint.empty()) hint = fmt::format("{}; see 'affix {} --help'", g.usage, g.name);
  throw Error(ErrorKind::Usage, what, hint);
}

[[noreturn]] void usage_error(CommandKind kind, const std::string& what) {
  usage_error(grammar(kind), what);
}

void apply_mem(CommandLine& cl, const Given& given) {
  try {
    cl.request.mem = parse_mem_option(*given.value);
  } catch (const Error& e) {  // numactl's -m NODES
    auto hint = given.name == "-m" ? numactl_mem_hint(given.name, *given.value) : std::nullopt;
    if (!hint) throw;
    throw Error(e.kind(), e.what(), *hint);
  }
}

// --- The options ------------------------------------------------------------
// Shared by every command that has them; each command lists its own, in the
// order its help text has them (the order in which a near miss is found).

constexpr OptionSpec k_help{"help", 'h', Value::None, [](CommandLine& cl, const Given&) { cl.help = true; }};
// Selection and memory (run, explain, pin)
constexpr OptionSpec k_no_smt{"no-smt", 0, Value::None,
                              [](CommandLine& cl, const Given&) { cl.request.no_smt = true; }};
constexpr OptionSpec k_count{"count", 'n', Value::Next, [](CommandLine& cl, const Given& g) {
                               cl.request.count = parse_count_option(*g.value);
                             }};
constexpr OptionSpec k_order{"order", 0, Value::Next, [](CommandLine& cl, const Given& g) {
                               cl.request.order = parse_order_option(*g.value);
                             }};
constexpr OptionSpec k_exclude{"exclude", 0, Value::Next,
                               [](CommandLine& cl, const Given& g) { cl.request.exclude = *g.value; }};
constexpr OptionSpec k_slice{"slice", 0, Value::Next, [](CommandLine& cl, const Given& g) {
                               cl.request.slice = parse_slice_option(*g.value);
                             }};
constexpr OptionSpec k_mem{"mem", 'm', Value::Next, apply_mem};
constexpr OptionSpec k_weights{"weights", 0, Value::Next, [](CommandLine& cl, const Given& g) {
                                 cl.request.weights = parse_weights_option(*g.value);
                               }};
constexpr OptionSpec k_gpu{"gpu", 0, Value::Next,
                           [](CommandLine& cl, const Given& g) { cl.request.gpu = parse_gpu_option(*g.value); }};
// explain
constexpr OptionSpec k_ranks{"ranks", 0, Value::Next,
                             [](CommandLine& cl, const Given& g) { cl.ranks = parse_ranks_option(*g.value); }};
// Scheduling (run, explain, pin)
constexpr OptionSpec k_policy{"policy", 0, Value::Next, [](CommandLine& cl, const Given& g) {
                                cl.sched.policy = parse_policy_option(*g.value);
                              }};
constexpr OptionSpec k_nice{"nice", 0, Value::Next,
                            [](CommandLine& cl, const Given& g) { cl.sched.nice = parse_nice_option(*g.value); }};
constexpr OptionSpec k_sched_slice{"sched-slice", 0, Value::Next, [](CommandLine& cl, const Given& g) {
                                     cl.sched.slice_ns = parse_sched_slice_option(*g.value);
                                   }};
constexpr OptionSpec k_uclamp{"uclamp", 0, Value::Next,
                              [](CommandLine& cl, const Given& g) { parse_uclamp_option(*g.value, cl.sched); }};
// run and pin
constexpr OptionSpec k_verbose{"verbose", 'v', Value::None,
                               [](CommandLine& cl, const Given&) { cl.verbose = true; }};
constexpr OptionSpec k_dry_run{"dry-run", 0, Value::None,
                               [](CommandLine& cl, const Given&) { cl.dry_run = true; }};
// run
constexpr OptionSpec k_env{"env", 0, Value::None, [](CommandLine& cl, const Given&) { cl.env = true; }};
// run and explain: --spread[=N]
constexpr OptionSpec k_spread{"spread", 0, Value::Attached, [](CommandLine& cl, const Given& g) {
                                cl.spread = g.value ? parse_spread_option(*g.value) : 1;
                              }};
// explain, topo, show, watch
constexpr OptionSpec k_json{"json", 0, Value::None, [](CommandLine& cl, const Given&) { cl.json = true; }};
// explain: an empty DIR is told after "given twice"
constexpr OptionSpec k_explain_root{"root", 0, Value::Next, [](CommandLine& cl, const Given& g) {
                                      if (g.value->empty()) usage_error(cl.kind, "option '--root' needs a value");
                                      cl.root = *g.value;
                                    }};
constexpr OptionSpec k_as{"as", 0, Value::Next,
                          [](CommandLine& cl, const Given& g) { cl.as = parse_as_option(*g.value); }};
// pin (and show: k_tree)
constexpr OptionSpec k_tid{"tid", 0, Value::None, [](CommandLine& cl, const Given&) { cl.tid = true; }};
constexpr OptionSpec k_migrate{"migrate", 0, Value::None,
                               [](CommandLine& cl, const Given&) { cl.migrate = true; }};
constexpr OptionSpec k_tree{"tree", 0, Value::None, [](CommandLine& cl, const Given&) { cl.tree = true; }};
constexpr OptionSpec k_check{"check", 0, Value::None, [](CommandLine& cl, const Given&) { cl.check = true; }};
constexpr OptionSpec k_follow{"follow", 0, Value::None, [](CommandLine& cl, const Given&) { cl.follow = true; }};
constexpr OptionSpec k_metrics{"metrics", 0, Value::NonEmpty,
                               [](CommandLine& cl, const Given& g) { cl.metrics = *g.value; }};
// pin and show
constexpr OptionSpec k_irq{"irq", 0, Value::None, [](CommandLine& cl, const Given&) { cl.irq = true; }};
// topo and show
constexpr OptionSpec k_root{"root", 0, Value::NonEmpty,
                            [](CommandLine& cl, const Given& g) { cl.root = *g.value; }};
// show and explain
constexpr OptionSpec k_shield{"shield", 0, Value::None, [](CommandLine& cl, const Given&) { cl.shield = true; }};
// shield
constexpr OptionSpec k_isolated{"isolated", 0, Value::None, [](CommandLine& cl, const Given&) { cl.isolated = true; }};
constexpr OptionSpec k_irqs{"irqs", 0, Value::None, [](CommandLine& cl, const Given&) { cl.irqs = true; }};
constexpr OptionSpec k_shield_mem{"mem", 0, Value::Attached, [](CommandLine& cl, const Given& g) {
                                    if (cl.shield_mem) usage_error(cl.kind, "option '--mem' given twice");
                                    cl.shield_mem = g.value.value_or("");
                                    if (!cl.shield_mem->empty())
                                      if (auto parsed = parse_mem_selector(*cl.shield_mem); !parsed)
                                        usage_error(cl.kind, fmt::format("invalid --mem={}: {}", printable(*cl.shield_mem),
                                                                         parsed.error.message));
                                  }};
constexpr OptionSpec k_name{"name", 0, Value::NonEmpty, [](CommandLine& cl, const Given& g) { cl.name = *g.value; }};
constexpr OptionSpec k_off{"off", 0, Value::NonEmpty, [](CommandLine& cl, const Given& g) { cl.off = *g.value; }};
// topo, explain, show, watch: the picture (--svg); topo, explain: --ascii
void apply_svg(CommandLine& cl, const Given& g) {
  if (cl.svg) usage_error(cl.kind, "option '--svg' given twice");
  cl.svg = g.value.value_or("");
}
constexpr OptionSpec k_svg_optional{"svg", 0, Value::Optional, apply_svg};
constexpr OptionSpec k_svg_attached{"svg", 0, Value::Attached, apply_svg};
constexpr OptionSpec k_svg_file{"svg", 0, Value::NonEmpty, apply_svg};
constexpr OptionSpec k_ascii{"ascii", 0, Value::None, [](CommandLine& cl, const Given&) { cl.ascii = true; }};
// show
constexpr OptionSpec k_pinned{"pinned", 0, Value::None, [](CommandLine& cl, const Given&) { cl.pinned = true; }};
constexpr OptionSpec k_cpu{"cpu", 0, Value::NonEmpty, [](CommandLine& cl, const Given& g) { cl.cpu = *g.value; }};
// watch
constexpr OptionSpec k_interval{"interval", 'i', Value::NonEmpty,
                                [](CommandLine& cl, const Given& g) { cl.interval = *g.value; }};
constexpr OptionSpec k_intervals{"count", 'c', Value::NonEmpty,
                                 [](CommandLine& cl, const Given& g) { cl.intervals = *g.value; }};
// top
constexpr OptionSpec k_once{"once", 0, Value::None, [](CommandLine& cl, const Given&) { cl.once = true; }};
constexpr OptionSpec k_no_events{"no-events", 0, Value::None,
                                 [](CommandLine& cl, const Given&) { cl.no_events = true; }};
constexpr OptionSpec k_top_pid{"pid", 0, Value::NonEmpty,
                               [](CommandLine& cl, const Given& g) { cl.top_pids = *g.value; }};
constexpr OptionSpec k_top_tree{"tree", 0, Value::NonEmpty,
                                [](CommandLine& cl, const Given& g) { cl.top_tree = *g.value; }};
constexpr OptionSpec k_frames{"frames", 'n', Value::NonEmpty,
                              [](CommandLine& cl, const Given& g) { cl.frames = *g.value; }};
constexpr OptionSpec k_threads{"threads", 0, Value::None, [](CommandLine& cl, const Given&) { cl.threads = true; }};

constexpr const OptionSpec* k_run_options[] = {&k_help,     &k_no_smt, &k_count,       &k_order,  &k_exclude,
                                               &k_slice,    &k_mem,    &k_weights,     &k_gpu,    &k_policy,
                                               &k_nice,     &k_sched_slice, &k_uclamp, &k_verbose, &k_dry_run,
                                               &k_env,      &k_spread};
constexpr const OptionSpec* k_explain_options[] = {&k_help,   &k_no_smt,      &k_count,  &k_order,
                                                   &k_exclude, &k_slice,      &k_mem,    &k_weights,
                                                   &k_gpu,    &k_policy,      &k_nice,   &k_sched_slice,
                                                   &k_uclamp, &k_json,        &k_explain_root, &k_as,
                                                   &k_spread, &k_ranks,       &k_shield, &k_svg_attached,
                                                   &k_ascii};
constexpr const OptionSpec* k_pin_options[] = {&k_help,    &k_no_smt,  &k_count,       &k_order,  &k_exclude,
                                               &k_slice,   &k_mem,     &k_weights,     &k_gpu,    &k_policy,
                                               &k_nice,    &k_sched_slice, &k_uclamp, &k_verbose,  &k_dry_run,
                                               &k_spread,  &k_tid,     &k_migrate, &k_tree,        &k_check,  &k_json,
                                               &k_irq};
constexpr const OptionSpec* k_topo_options[] = {&k_help, &k_json, &k_svg_optional, &k_ascii, &k_root};
constexpr const OptionSpec* k_show_options[] = {&k_help,   &k_json,   &k_tree, &k_pinned, &k_cpu,
                                                &k_irq,    &k_shield, &k_svg_attached, &k_root};
constexpr const OptionSpec* k_shield_options[] = {&k_help,   &k_isolated, &k_irqs,    &k_shield_mem,
                                                  &k_name,   &k_off,      &k_dry_run, &k_verbose};
constexpr const OptionSpec* k_watch_options[] = {&k_help,    &k_interval, &k_intervals,
                                                 &k_threads, &k_json,     &k_tree, &k_svg_file};
constexpr const OptionSpec* k_apply_options[] = {&k_help, &k_check, &k_dry_run, &k_json, &k_follow, &k_metrics};
constexpr const OptionSpec* k_top_options[] = {&k_help,    &k_once,     &k_json, &k_interval, &k_frames,
                                               &k_top_pid, &k_top_tree, &k_name, &k_root, &k_no_events};

constexpr Grammar k_grammars[] = {
    {CommandKind::Run, "run", "usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]", k_run_options,
     Words::WhereCommand, true},
    {CommandKind::Explain, "explain", "usage: affix explain [OPTIONS] WHERE [--json | --as FORMAT | --svg[=FILE] | --ascii]",
     k_explain_options, Words::Where, true},
    {CommandKind::Pin, "pin", "usage: affix pin [OPTIONS] WHERE PID...", k_pin_options, Words::WhereIds, true},
    {CommandKind::Topo, "topo", "usage: affix topo [--json | --svg [FILE] | --ascii] [--root DIR]", k_topo_options, Words::None, false},
    {CommandKind::Show, "show", "usage: affix show [--json] [--svg[=FILE]] [--tree] [--pinned | --cpu LIST | --irq] [--root DIR] [PID... | DEVICE...]", k_show_options,
     Words::Ids, false},
    {CommandKind::Watch, "watch", "usage: affix watch [-i SECONDS] [-c N] [--threads] [--json] [--tree] [--svg FILE] [PID... | -- COMMAND [ARG...]]",
     k_watch_options, Words::Ids, false},
    {CommandKind::Shield, "shield",
     "usage: affix shield WHERE [--isolated] [--irqs] [--mem[=NODES]] [--name NAME] [--dry-run] [-- COMMAND...] "
     "| affix shield --off NAME",
     k_shield_options, Words::WhereCommand, false},
    {CommandKind::Top, "top",
     "usage: affix top [--once [--json]] [-i SECONDS] [-n N] [WHERE] [--pid PID... | --tree PID | --name REGEX]",
     k_top_options, Words::Ids, false},
    {CommandKind::Apply, "apply",
     "usage: affix apply [--dry-run] [--json] FILE | affix apply --check [--json] [--metrics FILE] FILE | affix apply "
     "--follow [--metrics ADDR:PORT] FILE",
     k_apply_options, Words::Ids, false},
};

const Grammar& grammar(CommandKind kind) {
  for (const auto& g : k_grammars)
    if (g.kind == kind) return g;
  return k_grammars[0];
}

// A word that looks like an option, split into the spec it names and an
// attached value ("--count=4", "-n4"). spec is nullptr when it names no
// option of this command.
struct OptionWord {
  const OptionSpec* spec = nullptr;
  Given given;
};

OptionWord split_option(std::string_view word, const Grammar& g) {
  OptionWord out;
  if (word.substr(0, 2) == "--") {
    std::string_view body = word.substr(2);
    auto eq = body.find('=');
    std::string_view name = body.substr(0, eq);
    out.given.name = "--" + std::string(name);
    if (eq != std::string_view::npos) out.given.value = std::string(body.substr(eq + 1));
    for (const OptionSpec* spec : g.options)
      if (name == spec->long_name) out.spec = spec;
    return out;
  }
  char c = word[1];
  out.given.name = std::string("-") + c;
  for (const OptionSpec* spec : g.options) {
    if (spec->short_name != c) continue;
    if (word.size() > 2) {
      if (spec->value == Value::None) {  // "-vx": not one of ours
        out.given.name = std::string(word);
        return out;
      }
      out.given.value = std::string(word.substr(2));
    }
    out.spec = spec;
  }
  if (!out.spec) out.given.name = std::string(word);
  return out;
}

bool is_option_word(std::string_view word) { return word.size() > 1 && word[0] == '-'; }

// A word as a shell takes it back: quoted where it has more than letters,
// digits and -_./:,+=@%.
std::string shell_word(const std::string& word) {
  bool plain = !word.empty();
  for (char c : word)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("-_./:,+=@%").find(c) == std::string_view::npos)
      plain = false;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return printable(out + "'");
}

// A run without a command whose WHERE is no location (`affix --slice rank
// -- ./omp`): the command was read as WHERE. The hint is the same line with
// `all` (every CPU affix may use) as WHERE.
[[noreturn]] void command_read_as_where(const Grammar& g, const Args& args, size_t where_at) {
  std::string line = "affix";
  size_t all_at = where_at > 0 && args[where_at - 1] == "--" ? where_at - 1 : where_at;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i == all_at) line += " all";
    line += " " + shell_word(args[i]);
  }
  usage_error(g, fmt::format("no command given to run: '{}' was read as WHERE", printable(args[where_at])),
              fmt::format("WHERE comes before the command, and 'all' is every CPU affix may use: '{}'", line));
}

bool is_location(const std::string& word) {
  try {
    parse_location(word);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// An option that shapes the selection of CPUs or memory WHERE names (run,
// explain, pin), the spread and --migrate: with one, pin needs WHERE.
bool shapes_selection(const CommandLine& cl) {
  const PlacementRequest& r = cl.request;
  return r.exclude || r.no_smt || r.count || r.order != Order::Compact || r.slice || r.mem || r.weights || r.gpu ||
         cl.spread || cl.migrate;
}

// pin with one word: `pin --policy batch 4242` (chrt -p's order) changes
// only the scheduling, the word the ID; otherwise the word was read as
// WHERE and no ID is left: the error says so.
void pin_one_word(const Grammar& g, CommandLine& cl) {
  if (!cl.irq && cl.sched.any() && !shapes_selection(cl)) {
    cl.rest.push_back(cl.request.where);
    cl.request.where.clear();
    cl.keep_cpus = true;
    return;
  }
  std::string word = printable(cl.request.where);
  if (cl.irq)
    usage_error(g, fmt::format("no IRQ or device given: '{}' was read as WHERE", word),
                fmt::format("WHERE comes first, then the IRQs or devices: 'affix pin --irq all {}'", word));
  const char* id = cl.tid ? "thread ID" : "process ID";
  std::string hint = fmt::format("WHERE comes first, then the IDs: 'affix pin{} all {}' (all: every CPU it may use)",
                                 cl.tid ? " --tid" : "", word);
  if (!cl.sched.any()) hint += fmt::format("; a scheduling option alone changes only that: 'affix pin{} --policy batch {}'",
                                           cl.tid ? " --tid" : "", word);
  else hint += "; without WHERE only a scheduling option goes (not one that shapes the selection)";
  usage_error(g, fmt::format("no {} given: '{}' was read as WHERE", id, word), hint);
}

bool takes_where(Words words) {
  return words == Words::Where || words == Words::WhereIds || words == Words::WhereCommand;
}

}  // namespace

std::string option_hint(const std::string& word, CommandKind kind) {
  if (word.substr(0, 2) != "--") return {};
  std::vector<std::string> names;
  for (const OptionSpec* spec : grammar(kind).options) names.push_back(std::string("--") + spec->long_name);
  return did_you_mean(word.substr(0, word.find('=')), names);
}

const char* command_kind_name(CommandKind kind) { return grammar(kind).name; }

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
  else if (policy == "weighted") mem.policy = MemPolicy::Weighted;
  else if (policy == "local") mem.policy = MemPolicy::Local;
  else
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --mem '{}': unknown policy '{}' (expected bind, preferred, "
                            "interleave, weighted or local)", printable(text), printable(policy)));
  if (colon == std::string::npos) return mem;
  std::string nodes = text.substr(colon + 1);
  if (mem.policy == MemPolicy::Local)
    throw Error(ErrorKind::Usage, fmt::format("invalid --mem '{}': 'local' takes no nodes", printable(text)));
  auto parsed = parse_mem_selector(nodes);
  if (!parsed)
    throw Error(ErrorKind::Usage, fmt::format("invalid --mem '{}': {}", printable(text), parsed.error.message));
  mem.nodes = std::move(*parsed.value);
  return mem;
}

WeightsRequest parse_weights_option(const std::string& text) {
  WeightsRequest weights;
  if (text == "auto") {
    weights.automatic = true;
    return weights;
  }
  std::string_view rest = text;
  while (true) {
    auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    auto eq = item.find('=');
    auto node = eq == std::string_view::npos ? std::nullopt : parse_decimal(item.substr(0, eq), k_max_id);
    auto weight = eq == std::string_view::npos ? std::nullopt : parse_decimal(item.substr(eq + 1), 1u << 20);
    if (!node || !weight)
      throw Error(ErrorKind::Usage,
                  fmt::format("invalid --weights '{}': expected 'auto' or NODE=WEIGHT,... (--weights 0=3,2=1)",
                              printable(text)));
    if (*weight == 0 || *weight > k_max_weight)
      throw Error(ErrorKind::Usage, fmt::format("invalid --weights '{}': the weight of node {} is {}, not 1 to 255",
                                                printable(text), *node, *weight));
    for (const auto& [n, w] : weights.given)
      if (n == *node)
        throw Error(ErrorKind::Usage, fmt::format("invalid --weights '{}': node {} given twice", printable(text), n));
    weights.given.emplace_back(static_cast<unsigned>(*node), static_cast<unsigned>(*weight));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return weights;
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
  if (text == "nginx") return AsFormat::Nginx;
  if (text == "docker") return AsFormat::Docker;
  if (text == "taskset") return AsFormat::Taskset;
  if (text == "numactl") return AsFormat::Numactl;
  throw Error(ErrorKind::Usage,
              fmt::format("invalid --as '{}': expected systemd, nginx, docker, taskset or numactl", text));
}

CommandLine parse_command_line(CommandKind kind, const Args& args) {
  const Grammar& g = grammar(kind);
  CommandLine cl;
  cl.kind = kind;
  bool have_where = false;
  size_t where_at = 0;  // the index of WHERE in args
  bool options_done = false;
  std::vector<const OptionSpec*> seen_values;  // value options already given
  auto& req = cl.request;
  // top's --pid takes the words right after its value that are PIDs too
  // (digits and commas): `--pid 12 34 node:0`.
  bool pid_words = false;

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (!options_done && word == "--") {
      options_done = true;
      if (kind == CommandKind::Watch) {  // the rest is a command to start and watch
        cl.command_given = true;
        cl.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
        break;
      }
      continue;
    }
    if (!options_done && is_option_word(word)) {
      auto [spec, given] = split_option(word, g);
      if (!spec) {
        if (g.words == Words::WhereCommand && have_where) {  // starts the command
          cl.rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
          break;
        }
        std::string what = fmt::format("unknown option '{}' for '{}'", given.name, g.name);
        if (g.foreign_hints)
          if (auto hint = foreign_option_hint(args, i, kind == CommandKind::Run ? "" : g.name))
            usage_error(g, what, *hint);
        usage_error(g, what, option_hint(given.name, kind));
      }
      if (spec->value == Value::Optional && !given.value && i + 1 < args.size() && !is_option_word(args[i + 1]) &&
          args[i + 1] != "--")
        given.value = args[++i];
      if (spec->value == Value::None && given.value)
        usage_error(g, fmt::format("option '{}' takes no value", given.name));
      if (spec->value == Value::Next || spec->value == Value::NonEmpty) {
        if (!given.value && i + 1 < args.size()) given.value = args[++i];
        if (!given.value || (spec->value == Value::NonEmpty && given.value->empty()))
          usage_error(g, fmt::format("option '{}' needs a value", given.name));
        for (const OptionSpec* seen : seen_values)
          if (seen == spec) usage_error(g, fmt::format("option '--{}' given twice", spec->long_name));
        seen_values.push_back(spec);
      }
      spec->apply(cl, given);
      if (cl.help) return cl;
      pid_words = spec == &k_top_pid;
      continue;
    }
    if (pid_words && !word.empty() && word.find_first_not_of("0123456789,") == std::string::npos) {
      if (!cl.top_pids->empty() && cl.top_pids->back() != ',') *cl.top_pids += ',';
      *cl.top_pids += word;
      continue;
    }
    pid_words = false;
    switch (g.words) {
      case Words::None:
        usage_error(g, fmt::format("unexpected argument '{}' for '{}'", word, g.name));
      case Words::Ids:
        cl.rest.push_back(word);
        continue;
      case Words::Where:
      case Words::WhereIds:
      case Words::WhereCommand:
        break;
    }
    if (!have_where) {
      req.where = word;
      have_where = true;
      where_at = i;
      continue;
    }
    if (g.words == Words::WhereCommand) {
      cl.rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (g.words == Words::Where)
      usage_error(g, fmt::format("unexpected '{}' after the location '{}'", word, req.where));
    cl.rest.push_back(word);
  }

  if (kind == CommandKind::Shield && cl.off && have_where)
    usage_error(g, fmt::format("--off takes a shield's name, not a location: unexpected '{}'", printable(req.where)));
  if (takes_where(g.words) && !have_where && !(kind == CommandKind::Shield && cl.off)) usage_error(g, "no location given");
  if (cl.as && cl.json) usage_error(g, "--as and --json cannot be used together");
  if (req.weights && !(req.mem && req.mem->policy == MemPolicy::Weighted))
    throw Error(ErrorKind::Usage, "--weights goes with --mem weighted",
                "'--mem weighted:0,2 --weights 0=3,2=1' interleaves 3 pages on node 0 for each on node 2");
  if (kind == CommandKind::Run && cl.rest.empty()) {
    if (!is_location(req.where)) command_read_as_where(g, args, where_at);
    usage_error(g, fmt::format("no command given to run at '{}'", req.where));
  }
  if (kind == CommandKind::Pin && cl.rest.empty()) pin_one_word(g, cl);
  check_sched_options(cl.sched);
  if (kind == CommandKind::Run && cl.spread && cl.sched.policy && cl.sched.policy->policy == SchedPolicy::Deadline)
    throw Error(ErrorKind::Usage,
                "--spread places the threads the command creates, and a SCHED_DEADLINE thread cannot create any",
                "the kernel refuses clone to a deadline thread (EAGAIN): start the command, then give its threads "
                "the policy with 'affix pin --policy deadline:...'");
  return cl;
}

}  // namespace affix
