#include "shield_record.hpp"

#include <fmt/format.h>

#include "text.hpp"

namespace affix {

namespace {

constexpr const char* k_magic = "affix-shield-record\t1";

struct KindName {
  OpKind kind;
  const char* name;
};
constexpr KindName k_kinds[] = {
    {OpKind::Mkdir, "mkdir"},          {OpKind::Write, "write"},           {OpKind::Controller, "controller"},
    {OpKind::Shared, "shared"},        {OpKind::Irq, "irq"},               {OpKind::Exclusive, "exclusive"},
    {OpKind::SystemSet, "system-set"}, {OpKind::SystemTake, "system-take"}, {OpKind::SystemMems, "system-mems"},
    {OpKind::Unit, "unit"},            {OpKind::Start, "start"},
};

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == '\t') {
      out.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string record_path(const std::string& name) { return std::string(k_record_dir) + "/" + name; }

const char* layout_name(ShieldLayout layout) {
  switch (layout) {
    case ShieldLayout::Cgroup2: return "cgroup2";
    case ShieldLayout::Systemd: return "systemd";
    case ShieldLayout::Cgroup1: return "cgroup1";
  }
  return "?";
}

std::optional<ShieldLayout> parse_layout(std::string_view text) {
  for (auto l : {ShieldLayout::Cgroup2, ShieldLayout::Systemd, ShieldLayout::Cgroup1})
    if (text == layout_name(l)) return l;
  return std::nullopt;
}

const char* op_kind_name(OpKind kind) {
  for (const auto& k : k_kinds)
    if (k.kind == kind) return k.name;
  return "?";
}

bool op_shared(OpKind kind) {
  return kind == OpKind::Controller || kind == OpKind::Shared || kind == OpKind::SystemSet;
}

std::string record_escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c < 0x20 || c >= 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  return out;
}

std::optional<std::string> record_unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) return std::nullopt;
    char c = s[++i];
    if (c == '\\') out += '\\';
    else if (c == 't') out += '\t';
    else if (c == 'n') out += '\n';
    else if (c == 'x' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string record_header(const ShieldRecord& r) {
  std::string out = std::string(k_magic) + "\n";
  out += "name\t" + record_escape(r.name) + "\n";
  out += fmt::format("layout\t{}\n", layout_name(r.layout));
  out += "cgroup\t" + record_escape(r.cgroup) + "\n";
  if (!r.unit.empty()) out += "unit\t" + record_escape(r.unit) + "\n";
  out += fmt::format("cpus\t{}\nmems\t{}\n", format_cpulist(r.cpus), format_cpulist(r.mems));
  out += fmt::format("mode\t{}\nirqs\t{}\nmade\t{}\n", r.isolated ? "isolated" : "root", r.irqs ? "yes" : "no", r.made);
  return out;
}

std::string op_line(const Op& op) {
  return fmt::format("op\t{}\t{}\t{}\t{}\n", op_kind_name(op.kind), record_escape(op.path), record_escape(op.value),
                     record_escape(op.before));
}

std::string launcher_line(pid_t launcher, unsigned long long start, pid_t command) {
  return fmt::format("launcher\t{}\t{}\t{}\n", launcher, start, command);
}

std::string record_text(const ShieldRecord& r) {
  std::string out = record_header(r);
  if (r.launcher > 0) out += launcher_line(r.launcher, r.launcher_start, r.command);
  for (const auto& op : r.ops) out += op_line(op);
  return out;
}

std::optional<ShieldRecord> parse_record(std::string_view text, std::string& why) {
  ShieldRecord r;
  size_t line_no = 0;
  bool seen_magic = false, seen_name = false;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (line.empty()) continue;
    auto bad = [&](const std::string& what) {
      why = fmt::format("line {}: {}", line_no, what);
      return std::nullopt;
    };
    if (!seen_magic) {
      if (line != k_magic) return bad("not an affix shield record");
      seen_magic = true;
      continue;
    }
    auto f = fields(line);
    std::vector<std::string> v;
    for (size_t i = 1; i < f.size(); ++i) {
      auto u = record_unescape(f[i]);
      if (!u) return bad("a value is not escaped as affix writes it");
      v.push_back(std::move(*u));
    }
    auto key = f[0];
    auto need = [&](size_t n) { return v.size() == n; };
    if (key == "name" && need(1)) {
      r.name = v[0];
      seen_name = true;
    } else if (key == "layout" && need(1)) {
      auto l = parse_layout(v[0]);
      if (!l) return bad(fmt::format("unknown layout '{}'", printable(v[0])));
      r.layout = *l;
    } else if (key == "cgroup" && need(1)) {
      r.cgroup = v[0];
    } else if (key == "unit" && need(1)) {
      r.unit = v[0];
    } else if ((key == "cpus" || key == "mems") && need(1)) {
      auto set = parse_cpulist(v[0], true);
      if (!set) return bad(fmt::format("{} is not a list", key));
      (key == "cpus" ? r.cpus : r.mems) = *set.value;
    } else if (key == "mode" && need(1) && (v[0] == "root" || v[0] == "isolated")) {
      r.isolated = v[0] == "isolated";
    } else if (key == "irqs" && need(1) && (v[0] == "yes" || v[0] == "no")) {
      r.irqs = v[0] == "yes";
    } else if (key == "made" && need(1) && parse_decimal(v[0], ~0ull)) {
      r.made = *parse_decimal(v[0], ~0ull);
    } else if (key == "launcher" && need(3)) {
      auto pid = parse_decimal(v[0], 1u << 22);
      auto start = parse_decimal(v[1], ~0ull);
      auto command = parse_decimal(v[2], 1u << 22);
      if (!pid || !start || !command) return bad("a launcher line needs a PID, a start time and a PID");
      r.launcher = static_cast<pid_t>(*pid);
      r.launcher_start = *start;
      r.command = static_cast<pid_t>(*command);
    } else if (key == "op" && need(4)) {
      std::optional<OpKind> kind;
      for (const auto& k : k_kinds)
        if (v[0] == k.name) kind = k.kind;
      if (!kind) return bad(fmt::format("unknown change '{}'", printable(v[0])));
      r.ops.push_back(Op{*kind, v[1], v[2], v[3]});
    } else {
      return bad(fmt::format("unknown line '{}'", printable(std::string(key))));
    }
  }
  if (!seen_magic) {
    why = "empty";
    return std::nullopt;
  }
  if (!seen_name || r.name.empty()) {
    why = "no name";
    return std::nullopt;
  }
  return r;
}

}  // namespace affix
