// The pictures' layout and painters (src/draw): collapsing, every CPU's
// element once, the cells the layout gives, the text painter's characters,
// XML escaping, and the locale's character set.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>

#include "ascii_painter.hpp"
#include "corpus.hpp"
#include "draw_layout.hpp"
#include "machine_tree.hpp"
#include "svg_painter.hpp"
#include "topo_builder.hpp"
#include "topology.hpp"

using namespace affix;

namespace {

void walk(const Box& b, const std::function<void(const Box&)>& f) {
  f(b);
  for (const Box& c : b.children) walk(c, f);
}

std::multiset<std::string> ids_of(const Box& root) {
  std::multiset<std::string> ids;
  walk(root, [&](const Box& b) {
    if (!b.id.empty()) ids.insert(b.id);
  });
  return ids;
}

}  // namespace

TEST_CASE("xml_text escapes markup and what XML 1.0 does not allow", "[draw]") {
  CHECK(xml_text("a<b&\"c'd>") == "a&lt;b&amp;&quot;c&apos;d&gt;");
  CHECK(xml_text(std::string("x\x01y\x1b", 4)) == "x\\x01y\\e");
  CHECK(xml_text("\xff") == "\\xff");                  // not UTF-8
  CHECK(xml_text("\xef\xbf\xbe") == "\\uFFFE");        // U+FFFE
  CHECK(xml_text("caf\xc3\xa9") == "caf\xc3\xa9");     // UTF-8 kept
}

TEST_CASE("charset_of: UTF-8 where LC_ALL, else LC_CTYPE, else LANG says so", "[draw]") {
  auto env = [](std::map<std::string, std::string> m) {
    return [m](const char* n) -> std::optional<std::string> {
      auto it = m.find(n);
      return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  CHECK(charset_of(env({{"LANG", "en_US.UTF-8"}})) == Charset::Utf8);
  CHECK(charset_of(env({{"LANG", "en_US.UTF-8"}, {"LC_ALL", "C"}})) == Charset::Ascii);
  CHECK(charset_of(env({{"LC_CTYPE", "de_DE.utf8"}, {"LANG", "C"}})) == Charset::Utf8);
  CHECK(charset_of(env({})) == Charset::Ascii);
}

TEST_CASE("every captured machine: each CPU, core, node and package once; runs collapse with their CPUs", "[draw]") {
  for (const std::string& name : test::corpus_names()) {
    INFO(name);
    Topology topo = read_topology(SysRoot(test::corpus_root(name)));
    Picture pic = machine_picture(topo);
    auto ids = ids_of(pic.root);
    for (const auto& id : ids) CHECK(ids.count(id) == 1);
    topo.possible.for_each([&](unsigned c) { CHECK(ids.count("cpu-" + std::to_string(c)) == 1); });
    for (const NodeInfo& n : topo.nodes) CHECK(ids.count("node-" + std::to_string(n.node)) == 1);
    for (const Unit& u : topo.cores) CHECK(ids.count("core-" + std::to_string(u.id)) == 1);
    for (const Unit& u : topo.sockets) CHECK(ids.count("package-" + std::to_string(u.id)) == 1);
    walk(pic.root, [&](const Box& b) {
      if (b.kind != BoxKind::Collapsed) return;
      CpuSet inside;
      walk(b, [&](const Box& k) {
        if (k.kind == BoxKind::Cpu) {
          CHECK(k.hidden);
          inside |= k.cpus;
        }
      });
      CHECK(inside == b.cpus);
      CHECK(b.children.size() >= 2);
    });
  }
}

TEST_CASE("collapse: more than 4 children and more than 16 CPUs; first two, the last, one run", "[draw]") {
  test::TopoSpec spec;
  spec.sockets = 8;
  spec.cores_per_node = 4;
  Topology big = test::build(spec);  // 8 packages x 4 CPUs = 32
  Picture pic = machine_picture(big);
  std::vector<std::string> shown;
  for (const Box& c : pic.root.children) shown.push_back(c.kind == BoxKind::Collapsed ? c.lines.front() : c.id);
  CHECK(shown == std::vector<std::string>{"package-0", "package-1", "5 x package", "package-7"});
  REQUIRE(pic.collapsed.size() == 1);
  CHECK(pic.collapsed[0] == "5 x package (package-2 to package-6): CPUs 8-27");

  spec.sockets = 4;  // 16 CPUs: readable, kept whole
  Picture small = machine_picture(test::build(spec));
  CHECK(small.collapsed.empty());
  CHECK(small.root.children.size() == 4);
}

TEST_CASE("collapse keeps a marked child of another shape drawn", "[draw]") {
  test::TopoSpec spec;
  spec.sockets = 8;
  spec.cores_per_node = 4;
  Topology big = test::build(spec);
  Overlay o;
  for (unsigned c : big.sockets[4].cpus.members()) o.mark_cpu(c, Mark::Chosen, "chosen");
  Picture pic = machine_picture(big, o);
  std::vector<std::string> shown;
  for (const Box& c : pic.root.children) shown.push_back(c.kind == BoxKind::Collapsed ? c.lines.front() : c.id);
  CHECK(shown == std::vector<std::string>{"package-0", "package-1", "2 x package", "package-4", "2 x package", "package-7"});
}

TEST_CASE("layout: a box holds its label and its children, siblings do not overlap", "[draw]") {
  test::TopoSpec spec;
  spec.sockets = 2;
  spec.cores_per_node = 2;
  spec.smt = 2;
  Picture pic = machine_picture(test::build(spec));
  layout(pic.root);
  walk(pic.root, [&](const Box& b) {
    int label = 0;
    for (const auto& l : b.lines) label = std::max(label, static_cast<int>(label_cells(l)));
    CHECK(b.w >= label + 2);
    for (size_t i = 0; i < b.children.size(); ++i) {
      const Box& c = b.children[i];
      CHECK(c.x > b.x);
      CHECK(c.y > b.y + static_cast<int>(b.lines.size()) - 1);
      CHECK(c.x + c.w < b.x + b.w);
      CHECK(c.y + c.h < b.y + b.h);
      for (size_t j = i + 1; j < b.children.size(); ++j) {
        const Box& d = b.children[j];
        bool apart = c.x + c.w <= d.x || d.x + d.w <= c.x || c.y + c.h <= d.y || d.y + d.h <= c.y;
        CHECK(apart);
      }
    }
    if (b.kind == BoxKind::Core)  // a core's CPUs in one row
      for (const Box& c : b.children) CHECK(c.y == b.children.front().y);
  });
}

TEST_CASE("picture_ascii: the marks as signs on the top border, in + - | without UTF-8", "[draw]") {
  test::TopoSpec spec;
  spec.cores_per_node = 2;
  Topology topo = test::build(spec);
  Overlay o;
  o.mark_cpu(1, Mark::Chosen);
  o.mark_cpu(0, Mark::Dropped, "dropped: smt");
  o.caption.push_back("what was drawn");
  Picture pic = machine_picture(topo, o);
  std::string text = picture_ascii(pic, Charset::Ascii);
  CHECK(text.find("| | | | +x----+ | | +*----+ | | |") != std::string::npos);
  CHECK(text.find("Signs on a box's top border: * chosen  x dropped\nwhat was drawn\n") != std::string::npos);
  CHECK(text.find("\xe2\x94") == std::string::npos);  // no box-drawing character
  Picture again = machine_picture(topo, o);
  CHECK(picture_ascii(again, Charset::Utf8).find("\xe2\x94\x8c") != std::string::npos);  // U+250C
}

TEST_CASE("picture_svg: ids, classes, a title each, a legend of the marks used", "[draw]") {
  test::TopoSpec spec;
  spec.cores_per_node = 2;
  Overlay o;
  o.mark_cpu(1, Mark::Chosen, "chosen");
  o.mark_node(0, Mark::Memory, "memory: bind");
  Picture pic = machine_picture(test::build(spec), o);
  std::string svg = picture_svg(pic, "affix <test>");
  CHECK(svg.find("<title>affix &lt;test&gt;</title>") != std::string::npos);
  CHECK(svg.find("<g id=\"cpu-1\" class=\"cpu chosen\"><title>") != std::string::npos);
  CHECK(svg.find("fill=\"#0072B2\"") != std::string::npos);
  CHECK(std::regex_search(svg, std::regex("<g id=\"node-0\" class=\"node memory\"><title>node 0[^<]*memory: bind</title>")));
  CHECK(svg.find("class=\"legend-chosen\"") != std::string::npos);
  CHECK(svg.find("class=\"legend-memory\"") != std::string::npos);
  CHECK(svg.find("class=\"legend-ran\"") == std::string::npos);
}
