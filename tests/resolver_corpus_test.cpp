// The resolver on the 26 captured machines, compared with hwloc-calc run
// live on the same capture (HWLOC_FSROOT). Each affix question is
// translated into the hwloc question that means the same thing:
// - the allowed set is affix's (read_allowed: cgroup v1 effective_cpus,
//   where hwloc reads cpuset.cpus), handed to hwloc as a bitmask A;
// - kernel numbers (socket:N, node:N, cpu:N) -> hwloc physical input (--pi)
//   on the whole topology (--disallowed), intersected in hwloc with A (xA);
// - machine-wide indexes (core:I, llc:I), which count disallowed units too
//   -> hwloc logical indexes on the whole topology, intersected with A;
// - nested steps with a kernel number first -> hwloc's logical index of that
//   unit, asked of hwloc (-I package / -I numa), then the same nesting;
// - --no-smt, --count, --order, --slice, which work on the allowed CPUs ->
//   whole cores and their first PU in the topology restricted to A
//   (--disallowed --restrict A).
// hwloc's answer is never post-processed beyond reading its CPU list. The
// queries run through hwloc-calc's stdin mode, one location per line, one
// process per set of options.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <optional>

#include "corpus.hpp"
#include "error.hpp"
#include "fake_os.hpp"
#include "resolver.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string run_hwloc(const std::string& root, const std::string& options, const std::string& input) {
  char path[] = "/tmp/affix-hwloc-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return {};
  FILE* in = fdopen(fd, "w");
  fputs(input.c_str(), in);
  fclose(in);
  // HWLOC_COMPONENTS=-x86: hwloc's x86 backend would otherwise mix the CPUID
  // of the machine running the tests into the capture.
  std::string cmd = "HWLOC_COMPONENTS=-x86 HWLOC_FSROOT=" + quote(root) + " hwloc-calc " + options + " < " + path + " 2>/dev/null";
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    pclose(f);
  }
  unlink(path);
  return out;
}

// hwloc-calc OPTIONS with one location per line on stdin: one answer per line
// (an empty answer where hwloc found nothing or could not parse the line).
std::vector<std::string> hwloc_lines(const std::string& root, const std::string& options,
                                     const std::vector<std::string>& lines) {
  std::string input;
  for (const auto& l : lines) input += l + "\n";
  std::string out = run_hwloc(root, options, input);
  std::vector<std::string> answers;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(pos, end - pos);
    if (line.rfind("Waiting", 0) != 0) answers.push_back(line);
    pos = end + 1;
  }
  answers.resize(lines.size());
  return answers;
}

std::string hwloc_one(const std::string& root, const std::string& options, const std::string& loc) {
  return hwloc_lines(root, options, {loc})[0];
}

std::string hwloc_mask(const CpuSet& set) {
  std::string mask = format_cpumask(set), out = "0x";
  for (char c : mask) out += c == ',' ? std::string(",0x") : std::string(1, c);
  return out;
}

struct Query {
  std::string where;
  std::string options;  // hwloc-calc options of the group
  std::string line;     // the hwloc location
  bool no_smt = false;
  std::optional<unsigned> count;
  Order order = Order::Compact;
  std::optional<std::string> exclude;
  std::optional<SliceRequest> slice;
};

class CorpusCheck {
public:
  explicit CorpusCheck(const std::string& name) : m_name(name), m_root(corpus_root(name)) {
    SysRoot root(m_root);
    m_topo = read_topology(root);
    test::FakeAffinity lists;  // never asked: the root is a capture
    m_allowed = read_allowed(root, m_topo, lists);
    m_a = hwloc_mask(m_allowed.cpus);
  }

  int run_all() {
    build_queries();
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t i = 0; i < m_queries.size(); ++i) groups[m_queries[i].options].push_back(i);
    for (const auto& [options, members] : groups) {
      std::vector<std::string> lines;
      for (size_t i : members) lines.push_back(m_queries[i].line);
      auto answers = hwloc_lines(m_root, options + " --po -I pu", lines);
      for (size_t j = 0; j < members.size(); ++j) compare(m_queries[members[j]], answers[j]);
    }
    return m_compared;
  }

private:
  Query& add(std::string where, std::string options, std::string line) {
    Query q;
    q.where = std::move(where);
    q.options = std::move(options);
    q.line = std::move(line);
    m_queries.push_back(q);
    return m_queries.back();
  }

  // hwloc's logical index of the unit with physical index `id`, or "".
  std::string logical(const std::string& type, long id) {
    auto out = hwloc_one(m_root, "--disallowed --pi -I " + type, type + ":" + std::to_string(id));
    return out.find(',') == std::string::npos ? out : "";
  }

  // affix(1)'s order of units, computed from hwloc's own description of
  // the machine (oracle/NAME.hwloc.tsv): the walk socket -> node -> llc ->
  // core, siblings by their lowest CPU. hwloc orders cores by levels the
  // walk ignores (L2, books), so an affix index is translated into hwloc's
  // logical core index (core_l) through this walk.
  struct Walk {
    bool has_cores = false;
    std::vector<int> cores;                      // core_l in walk order
    std::map<int, std::string> core_package, core_node;
    std::map<int, std::string> core_llc;         // "L3:k"
    std::set<int> allowed_cores;
    std::map<int, unsigned> core_allowed_cpu;    // one allowed CPU of each allowed core
    std::vector<std::string> node_order;         // nodes in walk order
  };

  Walk walk() const {
    struct Row {
      unsigned cpu;
      int core;
      std::string package, node, llc;
      bool allowed;
    };
    std::vector<Row> rows;
    for (auto& r : read_tsv(oracle_path(m_name, "hwloc.tsv"))) {
      if (r.size() < 9 || r[6] != "1") continue;
      Row row{static_cast<unsigned>(std::stoul(r[0])), r[1] == "-" ? -1 : std::stoi(r[1]), r[3],
              r[4].substr(0, r[4].find(',')), r[5], r[7] == "1"};
      rows.push_back(row);
    }
    std::map<std::string, unsigned> pmin, nmin, lmin;
    std::map<int, unsigned> cmin;
    auto lower = [](auto& m, const auto& k, unsigned v) {
      auto it = m.find(k);
      if (it == m.end() || v < it->second) m[k] = v;
    };
    for (const Row& r : rows) {
      lower(pmin, r.package, r.cpu);
      lower(nmin, r.node, r.cpu);
      lower(lmin, r.llc, r.cpu);
      lower(cmin, r.core, r.cpu);
    }
    auto key = [&](const Row& r) {
      return std::make_tuple(pmin[r.package], nmin[r.node], lmin[r.llc],
                             r.core < 0 ? r.cpu : cmin[r.core], r.cpu);
    };
    std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return key(a) < key(b); });
    Walk w;
    for (const Row& r : rows) {
      if (std::find(w.node_order.begin(), w.node_order.end(), r.node) == w.node_order.end())
        w.node_order.push_back(r.node);
      if (r.core < 0) continue;
      w.has_cores = true;
      if (std::find(w.cores.begin(), w.cores.end(), r.core) == w.cores.end()) w.cores.push_back(r.core);
      w.core_package[r.core] = r.package;
      w.core_node[r.core] = r.node;
      w.core_llc[r.core] = r.llc;
      if (r.allowed && m_allowed.cpus.test(r.cpu)) {
        w.allowed_cores.insert(r.core);
        w.core_allowed_cpu.emplace(r.core, r.cpu);
      }
    }
    return w;
  }

  void build_queries() {
    const std::string whole = "--disallowed", phys = "--disallowed --pi";
    const std::string restricted = "--disallowed --restrict " + m_a;
    const std::string x = " x" + m_a;
    auto n = [](auto v) { return std::to_string(v); };
    Walk w = walk();
    auto cores_of = [&](const std::vector<int>& list, size_t from, size_t count) {
      std::string out;
      for (size_t i = from; i < from + count && i < list.size(); ++i) out += (out.empty() ? "" : " ") + ("core:" + n(list[i]));
      return out;
    };
    auto llc_loc = [](const std::string& llc) {  // "L3:4" -> "l3cache:4"
      return "l" + llc.substr(1, llc.find(':') - 1) + "cache:" + llc.substr(llc.find(':') + 1);
    };

    add("all", restricted, "all");
    add("cpu:all", whole, "all" + x);
    add("all", restricted + " --no-smt", "all").no_smt = true;
    unsigned first = m_allowed.cpus.first();
    add("all", phys, "all ~pu:" + n(first) + x).exclude = "cpu:" + n(first);
    auto cpus = m_allowed.cpus.members();
    std::string where = "cpu:", hw;
    for (size_t i = 0; i < cpus.size() && i < 4; ++i) {
      where += (i ? "," : "") + n(cpus[i]);
      hw += " pu:" + n(cpus[i]);
    }
    add(where, phys, hw);

    std::vector<long> sockets, nodes;
    for (const auto& u : m_topo.sockets) sockets.push_back(u.id);
    for (const auto& u : m_topo.numa)
      if (!u.cpus.empty()) nodes.push_back(u.id);
    if (!sockets.empty())
      for (long s : std::set<long>{sockets.front(), sockets.back()}) {
        std::string l = logical("package", s);
        if (l.empty()) continue;  // no physical package id (the kernel said -1)
        add("socket:" + n(s), phys, "package:" + n(s) + x);
        add("package:" + n(s), restricted + " --no-smt --pi", "package:" + n(s)).no_smt = true;
        add("socket:" + n(s) + ".cpu:all", whole, "package:" + l + ".pu:all" + x);
        if (!w.has_cores) continue;
        std::vector<int> in;
        for (int c : w.cores)
          if (w.core_package[c] == n(s)) in.push_back(c);
        if (in.empty()) continue;
        add("socket:" + n(s) + ".core:0", whole, cores_of(in, 0, 1) + x);
        if (in.size() >= 2) {
          add("socket:" + n(s) + ".core:0-1", whole, cores_of(in, 0, 2) + x);
          add("socket:" + n(s) + ".core:1.cpu:0", whole, cores_of(in, 1, 1) + ".pu:0" + x);
        }
        add("socket:" + n(s) + ".core:all.cpu:0", whole, "package:" + l + ".core:all.pu:0" + x);
        add("socket:" + n(s) + ".cpu:0", whole, cores_of(in, 0, 1) + ".pu:0" + x);
        add("socket:" + n(s), whole, "package:" + l + " ~core:" + n(w.cores[0]) + x).exclude = "core:0";
        if (w.core_llc[in[0]].size() > 1)
          add("socket:" + n(s) + ".llc:0", whole, llc_loc(w.core_llc[in[0]]) + x);
      }
    if (!nodes.empty())
      for (long node : std::set<long>{nodes.front(), nodes.back()}) {
        std::string l = logical("numa", node);
        if (l.empty()) continue;
        add("node:" + n(node), phys, "numa:" + n(node) + x);
        if (!w.has_cores) {
          add("node:" + n(node) + ".cpu:0", whole, "numa:" + l + ".pu:0" + x);
          continue;
        }
        for (int c : w.cores)
          if (w.core_node[c] == n(node)) {
            add("node:" + n(node) + ".core:0", whole, "core:" + n(c) + x);
            add("numa:" + n(node) + ".cpu:0", whole, "core:" + n(c) + ".pu:0" + x);
            break;
          }
      }
    if (!w.has_cores) return;

    size_t cores = w.cores.size();
    REQUIRE(cores == m_topo.cores.size());
    add("core:0", whole, cores_of(w.cores, 0, 1) + x);
    add("core:0.cpu:0", whole, cores_of(w.cores, 0, 1) + ".pu:0" + x);
    add("core:0.cpu:all", whole, cores_of(w.cores, 0, 1) + ".pu:all" + x);
    add("core:" + n(cores - 1), whole, cores_of(w.cores, cores - 1, 1) + x);
    if (cores >= 2) add("core:0-1", whole, cores_of(w.cores, 0, 2) + x);
    if (cores >= 6) add("core:2-5", whole, cores_of(w.cores, 2, 4) + x);
    add("core:all.cpu:0", whole, "core:all.pu:0" + x);
    {
      std::vector<std::string> llcs;
      for (int c : w.cores)
        if (std::find(llcs.begin(), llcs.end(), w.core_llc[c]) == llcs.end()) llcs.push_back(w.core_llc[c]);
      if (llcs.size() == m_topo.llcs.size() && llcs[0].size() > 1) {
        add("llc:0", whole, llc_loc(llcs[0]) + x);
        add("llc:" + n(llcs.size() - 1), whole, llc_loc(llcs.back()) + x);
      }
    }

    // Orders, counts and slices work on the allowed cores. In the topology
    // restricted to A hwloc renumbers (and may reorder) them: ask hwloc for
    // the restricted index of the core holding one allowed CPU of each.
    std::vector<int> walk_allowed;
    std::vector<std::string> probes;
    for (int c : w.cores)
      if (w.allowed_cores.count(c)) {
        walk_allowed.push_back(c);
        probes.push_back("pu:" + n(w.core_allowed_cpu[c]));
      }
    auto ranks = hwloc_lines(m_root, restricted + " --pi -I core", probes);
    std::vector<int> allowed;  // restricted logical indexes, in walk order
    std::map<int, int> rank_of;
    for (size_t i = 0; i < ranks.size(); ++i) {
      REQUIRE(!ranks[i].empty());
      allowed.push_back(std::stoi(ranks[i]));
      rank_of[walk_allowed[i]] = allowed.back();
    }
    if (allowed.empty()) return;
    unsigned k = std::min<unsigned>(4, static_cast<unsigned>(allowed.size()));
    add("all", restricted + " --no-smt", cores_of(allowed, 0, k)).count = k;
    if (allowed.size() >= 2) {
      size_t half = (allowed.size() + 1) / 2;
      add("all", restricted, cores_of(allowed, 0, half)).slice = SliceRequest{false, 0, 2};
      add("all", restricted, cores_of(allowed, half, allowed.size() - half)).slice = SliceRequest{false, 1, 2};
    }
    // Scatter: the first allowed core of each node, nodes in walk order.
    std::string firsts;
    unsigned picked = 0;
    for (const std::string& node : w.node_order)
      for (size_t i = 0; i < w.cores.size(); ++i) {
        int c = w.cores[i];
        if (w.core_node[c] != node || !w.allowed_cores.count(c)) continue;
        firsts += " core:" + n(rank_of[c]) + ".pu:0";
        ++picked;
        break;
      }
    Query& q = add("all", restricted, firsts);
    q.order = Order::Scatter;
    q.count = picked;
  }

  void compare(const Query& q, const std::string& answer) {
    std::string label = m_name + ": affix '" + q.where + "'" + (q.no_smt ? " --no-smt" : "") +
                        (q.exclude ? " --exclude " + *q.exclude : "") +
                        (q.count ? " -n " + std::to_string(*q.count) : "") +
                        (q.order == Order::Scatter ? " --order scatter" : "") +
                        (q.slice ? " --slice " + std::to_string(q.slice->k) + "/" + std::to_string(q.slice->n) : "") +
                        " vs hwloc-calc " + q.options + " " + q.line;
    INFO(label);
    auto expected = parse_cpulist(answer, true);
    REQUIRE(expected);
    PlacementRequest r;
    r.where = q.where;
    r.no_smt = q.no_smt;
    r.count = q.count;
    r.order = q.order;
    r.exclude = q.exclude;
    r.slice = q.slice;
    auto no_env = [](const std::string&) { return std::optional<std::string>(); };
    ++m_compared;
    std::string got;
    try {
      got = format_cpulist(resolve(r, m_topo, m_allowed, no_env).cpus);
    } catch (const Error& e) {
      got = "error";
    }
    CHECK(got == (expected.value->empty() ? "error" : format_cpulist(*expected.value)));
  }

  std::string m_name, m_root;
  Topology m_topo;
  Allowed m_allowed;
  std::string m_a;
  std::vector<Query> m_queries;
  int m_compared = 0;
};

}  // namespace

TEST_CASE("resolver corpus: every capture agrees with hwloc-calc on at least 12 questions") {
  auto names = corpus_names();
  REQUIRE(names.size() == 26);
  for (const auto& name : names) {
    INFO(name);
    CorpusCheck check(name);
    CHECK(check.run_all() >= 12);
  }
}
