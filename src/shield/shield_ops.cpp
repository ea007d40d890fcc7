#include "shield_ops.hpp"

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "error.hpp"
#include "proc.hpp"
#include "shield_systemd.hpp"
#include "sysroot.hpp"
#include "text.hpp"

namespace affix {

namespace {

constexpr int k_move_passes = 10;

std::string parent_of(const std::string& path) { return path.substr(0, path.find_last_of('/')); }

CpuSet list_in(FilesOs& files, const std::string& path) {
  auto text = files.read(path);
  if (!text) return {};
  auto set = parse_cpulist(trim_space(*text), true);
  return set ? *set.value : CpuSet();
}

const char* write_hint(int err) {
  if (err == EACCES || err == EPERM) return "affix shield needs root (affix(1), PERMISSIONS)";
  if (err == ENOENT) return "the file is not there: the kernel lacks that cpuset feature, or the cgroup went away";
  return "the kernel refused the value; 'affix show --shield' shows the shields there are";
}

int run(ShieldOs& os, const std::vector<std::string>& argv) { return os.programs.run_program(argv); }

std::string status_text(int status) {
  return status < 0 ? errno_text(-status) : fmt::format("exit status {}", status);
}

// The v1 system cpuset, made with the CPUs no shield holds and the root's
// memory nodes, every movable task of the root moved in.
void make_system_set(ShieldOs& os, const Op& op, const std::vector<ShieldRecord>& others) {
  const std::string root = parent_of(op.path);
  const std::string prefix = os.files.exists(root + "/cpuset.cpus") ? "cpuset." : "";
  CpuSet cpus = list_in(os.files, root + "/" + prefix + "cpus");
  for (const auto& r : others) cpus -= r.cpus;
  auto mems = os.files.read(root + "/" + prefix + "mems");
  if (int err = os.files.write(op.path + "/" + prefix + "cpus", format_cpulist(cpus)); err != 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot write {} to {}: {}", format_cpulist(cpus),
                                                printable(op.path + "/" + prefix + "cpus"), errno_text(err)),
                write_hint(err));
  if (int err = os.files.write(op.path + "/" + prefix + "mems", std::string(trim_space(mems.value_or("")))); err != 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot write {} to {}: {}", printable(trim_space(mems.value_or(""))),
                                                printable(op.path + "/" + prefix + "mems"), errno_text(err)),
                write_hint(err));
  std::vector<pid_t> stayed;
  move_tasks(os.files, root, op.path, stayed);
}

}  // namespace

std::string controller_user(FilesOs& files, const std::string& subtree_control, const std::string& controller,
                            const std::vector<std::string>& going) {
  const std::string dir = parent_of(subtree_control);
  const std::string prefix = controller + ".";
  for (const auto& name : files.list(dir)) {
    const std::string child = dir + "/" + name;
    if (!files.exists(child + "/cgroup.procs")) continue;  // a file, not a cgroup
    if (std::find(going.begin(), going.end(), child) != going.end()) continue;
    if (lists_word(files.read(child + "/cgroup.subtree_control").value_or(""), controller))
      return fmt::format("{} gives {} to its own cgroups", printable(child), controller);
    for (const char* file : {"cpus", "mems", "cpus.exclusive"}) {
      auto text = files.read(child + "/" + prefix + file);
      if (text && !trim_space(*text).empty())
        return fmt::format("{} has its own {}{} ({})", printable(child), prefix, file, printable(trim_space(*text)));
    }
    auto partition = files.read(child + "/" + prefix + "cpus.partition");
    if (partition && !trim_space(*partition).empty() && trim_space(*partition) != "member")
      return fmt::format("{} is a partition ({})", printable(child), printable(trim_space(*partition)));
  }
  return {};
}

bool lists_word(std::string_view text, std::string_view word) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
    if (i > start && text.substr(start, i - start) == word) return true;
  }
  return false;
}

std::vector<pid_t> parse_pids(std::string_view text) {
  std::vector<pid_t> out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    if (auto pid = parse_pid(trim_space(text.substr(0, nl)))) out.push_back(*pid);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

size_t move_tasks(FilesOs& files, const std::string& from, const std::string& to, std::vector<pid_t>& stayed) {
  size_t moved = 0;
  for (int pass = 0; pass < k_move_passes; ++pass) {
    size_t this_pass = 0;
    stayed.clear();
    for (pid_t pid : parse_pids(files.read(from + "/cgroup.procs").value_or(""))) {
      int err = files.write(to + "/cgroup.procs", std::to_string(pid));
      if (err == 0) ++this_pass;
      else if (err != ESRCH) stayed.push_back(pid);
    }
    moved += this_pass;
    if (this_pass == 0) break;
  }
  return moved;
}

void read_before(FilesOs& f, Op& op) {
  switch (op.kind) {
    case OpKind::Write:
    case OpKind::Shared:
      op.before = f.read(op.path).value_or("");
      return;
    case OpKind::Exclusive:
    case OpKind::SystemTake:
    case OpKind::SystemMems:
      op.before = std::string(trim_space(f.read(op.path).value_or("")));
      return;
    default:
      return;
  }
}

void make_op(ShieldOs& os, const Op& op, const std::vector<ShieldRecord>& others) {
  FilesOs& f = os.files;
  switch (op.kind) {
    case OpKind::Mkdir:
      if (int err = f.make_dir(op.path); err != 0)
        throw Error(ErrorKind::Runtime, fmt::format("cannot make {}: {}", printable(op.path), errno_text(err)),
                    err == EEXIST ? "a cgroup of that name is there already, which affix shield did not make "
                                    "(no record of it): give another --name, or remove it"
                                  : write_hint(err));
      return;
    case OpKind::SystemSet:
      if (int err = f.make_dir(op.path); err != 0)
        throw Error(ErrorKind::Runtime, fmt::format("cannot make {}: {}", printable(op.path), errno_text(err)),
                    write_hint(err));
      make_system_set(os, op, others);
      return;
    case OpKind::Write:
    case OpKind::Shared:
      break;
    case OpKind::Controller:
      if (int err = f.write(op.path, "+" + op.value); err != 0)
        throw Error(ErrorKind::Runtime, fmt::format("cannot write +{} to {}: {}", op.value, printable(op.path), errno_text(err)),
                    write_hint(err));
      return;
    case OpKind::Exclusive:
    case OpKind::SystemTake:
    case OpKind::SystemMems: {
      auto parsed = parse_cpulist(op.before, true);
      CpuSet now = parsed ? *parsed.value : CpuSet(), change = *parse_cpulist(op.value, true).value;
      CpuSet next = op.kind == OpKind::Exclusive ? now | change : now - change;
      if (int err = f.write(op.path, format_cpulist(next)); err != 0)
        throw Error(ErrorKind::Runtime, fmt::format("cannot write {} to {}: {}", format_cpulist(next), printable(op.path),
                                                    errno_text(err)),
                    write_hint(err));
      return;
    }
    case OpKind::Unit: {
      if (int err = f.replace(op.path, op.value); err != 0)
        throw Error(ErrorKind::Runtime, fmt::format("cannot write {}: {}", printable(op.path), errno_text(err)),
                    write_hint(err));
      int status = run(os, systemctl("daemon-reload"));
      if (status != 0)
        throw Error(ErrorKind::Runtime, fmt::format("'systemctl daemon-reload' failed: {}", status_text(status)),
                    "'journalctl -u init.scope' says what systemd made of the unit");
      return;
    }
    case OpKind::Start: {
      int status = run(os, systemctl("start", op.path));
      if (status != 0)
        throw Error(ErrorKind::Runtime, fmt::format("'systemctl start {}' failed: {}", printable(op.path), status_text(status)),
                    "'systemctl status UNIT' says why");
      if (!f.exists(op.value + "/cpuset.cpus.exclusive"))
        throw Error(ErrorKind::Runtime,
                    fmt::format("systemd started {}, but {} has no cpuset.cpus.exclusive", printable(op.path),
                                printable(op.value)),
                    "systemd did not turn the cpuset controller on for the slice; its AllowedCPUs= needs systemd 244 or later");
      return;
    }
    case OpKind::Irq:
      return;  // moved together, by shield_apply.cpp (all or nothing)
  }
  if (int err = f.write(op.path, op.value); err != 0)
    throw Error(ErrorKind::Runtime,
                fmt::format("cannot write {} to {}: {}", printable(op.value), printable(op.path), errno_text(err)),
                err == EINVAL ? "the kernel refused it: in cgroup v1 an exclusive cpuset may not share a CPU with a "
                                "sibling, nor a cpuset take CPUs its parent lacks; 'affix show --shield' lists the shields"
                              : write_hint(err));
}

std::string undo_op(ShieldOs& os, const Op& op, bool last_shield, std::vector<std::string>& notes) {
  FilesOs& f = os.files;
  auto failed = [](const std::string& what, int err) { return fmt::format("{} ({})", what, errno_text(err)); };
  auto failed_run = [](const std::string& what, int status) { return fmt::format("{} ({})", what, status_text(status)); };
  switch (op.kind) {
    case OpKind::Mkdir:
    case OpKind::SystemSet: {
      if (op.kind == OpKind::SystemSet && !last_shield) return {};
      if (!f.exists(op.path)) return {};
      std::vector<pid_t> stayed;
      std::string to = !op.value.empty() && f.exists(op.value) ? op.value : parent_of(op.path);
      size_t moved = move_tasks(f, op.path, to, stayed);
      if (moved > 0 && op.kind == OpKind::Mkdir)
        notes.push_back(fmt::format("{} still in {} moved out to the rest of the machine",
                                    plural(moved, "process", "processes"), printable(op.path)));
      if (int err = f.remove_dir(op.path); err != 0 && err != ENOENT)
        return failed(fmt::format("{} stays", printable(op.path)), err);
      return {};
    }
    case OpKind::Write:
    case OpKind::Shared: {
      if (op.kind == OpKind::Shared && !last_shield) return {};
      if (!f.exists(op.path)) return {};
      std::string back = op.before.empty() ? std::string("\n") : op.before;
      if (int err = f.write(op.path, back); err != 0)
        return failed(fmt::format("{} stays {}", printable(op.path), printable(op.value)), err);
      return {};
    }
    case OpKind::Controller:
      if (!last_shield) return {};
      // Turning it off would delete the cpuset of every cgroup made since
      // that set its own (their programs would get every CPU, silently).
      if (std::string user = controller_user(f, op.path, op.value); !user.empty()) {
        notes.push_back(fmt::format("{} stays on in {}: {}", op.value, printable(op.path), user));
        return {};
      }
      if (int err = f.write(op.path, "-" + op.value); err != 0)
        return failed(fmt::format("{} keeps +{}", printable(op.path), op.value), err);
      return {};
    case OpKind::Exclusive:
    case OpKind::SystemTake:
    case OpKind::SystemMems: {
      if (!f.exists(op.path)) return {};
      // Only what the change changed: CPUs added that were not there, or
      // taken that were.
      CpuSet now = list_in(f, op.path), change = *parse_cpulist(op.value, true).value;
      auto was = parse_cpulist(op.before, true);
      CpuSet before = was ? *was.value : CpuSet();
      CpuSet back = op.kind == OpKind::Exclusive ? now - (change - before) : now | (change & before);
      if (back == now) return {};
      if (int err = f.write(op.path, back.empty() ? std::string("\n") : format_cpulist(back)); err != 0)
        return failed(fmt::format("{} stays {}", printable(op.path), format_cpulist(now)), err);
      return {};
    }
    case OpKind::Irq: {
      auto irq = parse_decimal(op.path, k_max_id);
      auto was = parse_cpulist(op.before, true), set = parse_cpulist(op.value, true);
      if (!irq || !was || !set) return {};
      auto now = os.irqs.affinity(static_cast<unsigned>(*irq));
      if (!now || !(*now == *set.value)) {
        if (now && !(*now == *was.value))
          notes.push_back(fmt::format("IRQ {} was moved by someone else since (now CPUs {}): left as it is", *irq,
                                      format_cpulist(*now)));
        return {};
      }
      if (int err = os.irqs.set_affinity(static_cast<unsigned>(*irq), *was.value); err != 0)
        return failed(fmt::format("IRQ {} stays on {}", *irq, op.value), err);
      return {};
    }
    case OpKind::Unit: {
      int err = f.remove_file(op.path);
      if (err != 0 && err != ENOENT) return failed(fmt::format("{} stays", printable(op.path)), err);
      int status = run(os, systemctl("daemon-reload"));
      if (status != 0) return failed_run("systemd still knows the unit: 'systemctl daemon-reload' failed", status);
      return {};
    }
    case OpKind::Start: {
      // Stopping a slice kills what runs in it: its processes (in the
      // slice's cgroup, or a scope's below it) join the rest of the machine
      // first, the root cgroup.
      if (!op.value.empty() && f.exists(op.value)) {
        const std::string root = op.value.substr(0, op.value.find("/affix.slice"));
        std::vector<std::string> dirs{op.value};
        for (size_t i = 0; i < dirs.size(); ++i)
          for (const auto& name : f.list(dirs[i]))
            if (f.exists(dirs[i] + "/" + name + "/cgroup.procs")) dirs.push_back(dirs[i] + "/" + name);
        size_t moved = 0;
        std::vector<pid_t> stayed;
        for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) moved += move_tasks(f, *it, root, stayed);
        if (moved > 0)
          notes.push_back(fmt::format("{} still in {} moved out to the rest of the machine",
                                      plural(moved, "process", "processes"), printable(op.value)));
      }
      int status = run(os, systemctl("stop", op.path));
      if (status != 0) return failed_run(fmt::format("{} stays started: 'systemctl stop' failed", printable(op.path)), status);
      return {};
    }
  }
  return {};
}

}  // namespace affix
