// The words of a rules file as run, pin and pin --irq read them: WHERE
// through the resolver (a process's own allowed set, as pin; the machine,
// as pin --irq), mem as --mem, policy as --policy.
#include "apply_words.hpp"

#include <pwd.h>

#include <vector>

#include <fmt/format.h>

#include "command_line.hpp"
#include "error.hpp"
#include "near.hpp"
#include "resolver.hpp"
#include "sched_args.hpp"
#include "text.hpp"

namespace affix {

namespace {

// The option parsers' errors in a file's words: "invalid policy 'x'", not
// "invalid --policy 'x'" (the file has keys, not options).
template <class F> auto as_key(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.rfind("invalid --", 0) == 0) what = "invalid " + what.substr(10);
    throw Error(e.kind(), what, e.hint());
  }
}

class RuleWordsOnMachine : public ApplyWords {
 public:
  RuleWordsOnMachine(const SysRoot& root, Topology topo) : m_root(root), m_topo(std::move(topo)), m_env(process_env()) {}

  ApplyPlace place(const std::string& where, const std::optional<std::string>& mem, pid_t pid) override {
    PlacementRequest request;
    request.where = where;
    if (mem) request.mem = as_key([&] { return parse_mem_option(*mem); });
    Placement p;
    if (pid == 0) {
      p = resolve_on_machine(m_root, request, m_topo, m_env);
    } else {
      RequestLocations locations = parse_locations(request);
      read_location_devices(m_root, locations, m_topo);
      Allowed allowed = read_allowed(m_root, m_topo, linux_os(), std::to_string(pid));
      p = resolve(request, locations, m_topo, allowed, m_env);
    }
    ApplyPlace out;
    out.cpus = p.cpus;
    out.sequence = p.sequence;
    out.mem_policy = p.mem_policy;
    out.mem_nodes = p.mem_nodes.empty() ? p.nodes : p.mem_nodes;
    out.warnings = p.warnings;
    return out;
  }

  void check_mem(const std::string& mem) override {
    MemRequest m = as_key([&] { return parse_mem_option(mem); });
    if (m.policy == MemPolicy::Weighted)
      throw Error(ErrorKind::Usage, "mem = \"weighted\" is not for rules: its weights are the machine's",
                  "'affix pin --mem weighted --weights ... --migrate' sets them and moves the pages");
  }

  SchedRequest sched(const std::optional<std::string>& policy, std::optional<int> nice) override {
    SchedRequest s;
    if (policy) s.policy = as_key([&] { return parse_policy_option(*policy); });
    if (nice) s.nice = *nice;
    check_sched_options(s);
    check_sched_support(s, linux_os().sched_support());
    return s;
  }

  std::optional<uid_t> user_id(const std::string& name) override {
    struct passwd pw {};
    struct passwd* found = nullptr;
    std::vector<char> buf(16384);
    if (::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found) return std::nullopt;
    return found->pw_uid;
  }

  const Topology& topology() const override { return m_topo; }

 private:
  const SysRoot& m_root;
  Topology m_topo;
  EnvLookup m_env;
};

}  // namespace

std::unique_ptr<ApplyWords> make_apply_words(const SysRoot& root, const Topology& topo) {
  return std::make_unique<RuleWordsOnMachine>(root, topo);
}

std::unique_ptr<LoadedApply> load_apply_engine(const std::string& file, const std::string& root_dir) {
  RuleSet rules = read_rules(file);
  auto loaded = std::make_unique<LoadedApply>(root_dir);
  Topology topo = read_topology(loaded->root);
  loaded->engine = std::make_unique<ApplyEngine>(std::move(rules), make_apply_words(loaded->root, topo), loaded->root,
                                                 linux_os(), loaded->irqs);
  return loaded;
}

}  // namespace affix
