#pragma once
// A recording FilesOs that behaves as the kernel's cgroup files do, enough
// for affix shield's plans (no test writes this machine's cgroups):
//   - a directory made under a cgroup is a cgroup: it gets cgroup.procs and,
//     where its parent's cgroup.subtree_control has cpuset (cgroup v2) or the
//     hierarchy is v1's cpuset, the cpuset files (empty lists, "member",
//     cpu_exclusive 0, ...); rmdir refuses one with tasks or children (EBUSY);
//   - "+cpuset"/"-cpuset" to a cgroup.subtree_control adds or drops the word;
//   - a PID written to a cgroup.procs moves that process there (`cgroup_of`),
//     EINVAL for those in `unmovable` (kernel threads bound to CPUs), ESRCH
//     for one that is not there;
//   - cpuset.cpus.partition reads what `verdict` says for that file where it
//     says something ("root invalid (...)"), else, as the kernel, "TYPE
//     invalid (Cpu list in cpuset.cpus not exclusive)" where a sibling
//     partition holds one of its CPUs, else what was written; a sibling's
//     cpuset.cpus written over a partition's CPUs makes that one invalid for
//     good (as 6.1 and 6.12 do), cpuset.cpus.exclusive over them is EINVAL;
//     in v1,
//     cpuset.cpus overlapping an exclusive sibling's, or cpu_exclusive 1
//     overlapping any sibling's, is EINVAL; effective lists follow;
//   - any write to a path in `refuse` fails with that errno; `fail_write_at`
//     fails the Nth write (1-based) of any kind with `fail_errno`;
// and every call that changes something is appended to `log`.

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "files_os.hpp"

namespace affix::test {

class FakeCgroupFs : public FilesOs {
public:
  std::map<std::string, std::string> files;  // path -> content
  std::set<std::string> dirs;
  std::map<pid_t, std::string> cgroup_of;    // process -> its cgroup directory
  std::set<pid_t> unmovable;
  std::map<std::string, std::string> verdict;
  std::map<std::string, int> refuse;
  int fail_write_at = 0;
  int fail_errno = EINVAL;
  int not_writable = 0;
  bool v1 = false;       // the cpuset hierarchy is cgroup v1's (files prefixed cpuset.)
  bool exclusive = true; // cgroup v2: this kernel has cpuset.cpus.exclusive
  std::vector<std::string> log;
  int writes = 0;

  // A cgroup root at `dir` (cgroup v2: its controllers; v1: its cpus and mems).
  void cgroup_root(const std::string& dir, const std::string& cpus, const std::string& mems) {
    dirs_above(dir);
    dirs.insert(dir);
    files[dir + "/cgroup.procs"] = "";
    if (v1) {
      for (auto& [name, value] : v1_files()) files[dir + "/cpuset." + name] = value;
      files[dir + "/cpuset.cpus"] = cpus + "\n";
      files[dir + "/cpuset.mems"] = mems + "\n";
      files[dir + "/cpuset.effective_cpus"] = cpus + "\n";
      files[dir + "/cpuset.cpu_exclusive"] = "1\n";
      files[dir + "/cpuset.sched_load_balance"] = "1\n";
    } else {
      files[dir + "/cgroup.controllers"] = "cpuset cpu io memory pids\n";
      files[dir + "/cgroup.subtree_control"] = "\n";
      files[dir + "/cpuset.cpus.effective"] = cpus + "\n";
      files[dir + "/cpuset.mems.effective"] = mems + "\n";
      if (exclusive) files[dir + "/cpuset.cpus.isolated"] = "\n";
    }
  }
  void file(const std::string& path, const std::string& content) {
    dirs_above(path);
    files[path] = content;
  }
  // The processes of a cgroup, ascending.
  std::vector<pid_t> procs(const std::string& dir) const {
    std::vector<pid_t> out;
    for (auto& [pid, cg] : cgroup_of)
      if (cg == dir) out.push_back(pid);
    return out;
  }

  std::optional<std::string> read(const std::string& path) override {
    if (path.size() > 13 && path.compare(path.size() - 13, 13, "/cgroup.procs") == 0 && dirs.count(parent(path))) {
      std::string out;
      for (pid_t p : procs(parent(path))) out += std::to_string(p) + "\n";
      return out;
    }
    auto v = verdict.find(path);
    if (v != verdict.end() && files.count(path) && files[path] != "member\n") return v->second + "\n";
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  }
  bool exists(const std::string& path) override { return files.count(path) || dirs.count(path); }
  std::vector<std::string> list(const std::string& path) override {
    std::set<std::string> out;
    auto add = [&](const std::string& p) {
      if (p.size() > path.size() + 1 && p.compare(0, path.size() + 1, path + "/") == 0) {
        std::string rest = p.substr(path.size() + 1);
        out.insert(rest.substr(0, rest.find('/')));
      }
    };
    for (auto& [p, c] : files) add(p);
    for (auto& d : dirs) add(d);
    return {out.begin(), out.end()};
  }
  int write(const std::string& path, std::string_view text) override {
    log.push_back("write " + path + " " + std::string(text));
    if (int err = failing(path)) return err;
    if (!files.count(path)) return ENOENT;
    std::string value(text);
    const std::string name = path.substr(path.find_last_of('/') + 1);
    if (name == "cgroup.procs") {
      auto pid = std::stoi(value);
      if (!cgroup_of.count(pid)) return ESRCH;
      if (unmovable.count(pid)) return EINVAL;
      cgroup_of[pid] = parent(path);
      return 0;
    }
    if (name == "cgroup.subtree_control") {
      std::string word = value.substr(1);
      std::string& now = files[path];
      bool has = now.find(word) != std::string::npos;
      if (value[0] == '+' && !has) now = word + "\n";
      if (value[0] == '-' && has) now = "\n";
      return 0;
    }
    if (value.empty() || value.back() != '\n') value += "\n";
    const std::string dir = parent(path);
    if (v1 && (name == "cpuset.cpus" || (name == "cpuset.cpu_exclusive" && value == "1\n"))) {
      bool mine_exclusive = name == "cpuset.cpu_exclusive" || files[dir + "/cpuset.cpu_exclusive"] == "1\n";
      CpuSet mine = cpus_of(name == "cpuset.cpus" ? value : files[dir + "/cpuset.cpus"]);
      for (const auto& sib : siblings(dir))
        if ((mine_exclusive || files[sib + "/cpuset.cpu_exclusive"] == "1\n") && mine.intersects(cpus_of(files[sib + "/cpuset.cpus"])))
          return EINVAL;
    }
    if (!v1 && name == "cpuset.cpus.exclusive") {
      CpuSet mine = cpus_of(value);
      for (const auto& sib : siblings(dir)) {
        auto p = read(sib + "/cpuset.cpus.partition");
        bool part = p && (*p == "root\n" || *p == "isolated\n");
        if (mine.intersects(cpus_of(files[sib + "/cpuset.cpus.exclusive"])) || (part && mine.intersects(cpus_of(files[sib + "/cpuset.cpus"]))))
          return EINVAL;
      }
    }
    if (!v1 && name == "cpuset.cpus")  // a sibling partition on these CPUs: invalid, and it stays so
      for (const auto& sib : siblings(dir)) {
        auto p = read(sib + "/cpuset.cpus.partition");
        if (p && (*p == "root\n" || *p == "isolated\n") && cpus_of(value).intersects(cpus_of(files[sib + "/cpuset.cpus"])))
          files[sib + "/cpuset.cpus.partition"] = p->substr(0, p->size() - 1) + " invalid (Cpu list in cpuset.cpus not exclusive)\n";
      }
    files[path] = value;
    if (name == "cpuset.cpus") files[dir + (v1 ? "/cpuset.effective_cpus" : "/cpuset.cpus.effective")] = value;
    if (!v1 && name == "cpuset.cpus.partition" && value != "member\n") {
      CpuSet mine = cpus_of(files[dir + "/cpuset.cpus"]);
      for (const auto& sib : siblings(dir)) {
        auto p = read(sib + "/cpuset.cpus.partition");
        if (p && (*p == "root\n" || *p == "isolated\n") && mine.intersects(cpus_of(files[sib + "/cpuset.cpus"])))
          files[path] = value.substr(0, value.size() - 1) + " invalid (Cpu list in cpuset.cpus not exclusive)\n";
      }
    }
    return 0;
  }
  int create(const std::string& path, std::string_view text) override {
    log.push_back("create " + path);
    if (files.count(path)) return EEXIST;
    if (!dirs.count(parent(path))) return ENOENT;
    files[path] = std::string(text);
    return 0;
  }
  int replace(const std::string& path, std::string_view text) override {
    log.push_back("replace " + path);
    if (int err = failing(path)) return err;
    if (!dirs.count(parent(path))) return ENOENT;
    files[path] = std::string(text);
    return 0;
  }
  int append(const std::string& path, std::string_view text) override {
    if (!dirs.count(parent(path))) return ENOENT;
    files[path] += std::string(text);
    return 0;
  }
  int remove_file(const std::string& path) override {
    log.push_back("remove " + path);
    return files.erase(path) ? 0 : ENOENT;
  }
  int make_dir(const std::string& path) override {
    log.push_back("mkdir " + path);
    if (int err = failing(path)) return err;
    if (exists(path)) return EEXIST;
    std::string up = parent(path);
    if (!dirs.count(up)) return ENOENT;
    dirs.insert(path);
    if (!files.count(up + "/cgroup.procs")) return 0;  // a plain directory
    files[path + "/cgroup.procs"] = "";
    if (v1) {
      for (auto& [name, value] : v1_files()) files[path + "/cpuset." + name] = value;
    } else if (files[up + "/cgroup.subtree_control"].find("cpuset") != std::string::npos) {
      files[path + "/cgroup.subtree_control"] = "\n";
      files[path + "/cpuset.cpus"] = "\n";
      files[path + "/cpuset.mems"] = "\n";
      files[path + "/cpuset.cpus.partition"] = "member\n";
      files[path + "/cpuset.cpus.effective"] = "\n";
      if (exclusive) files[path + "/cpuset.cpus.exclusive"] = "\n";
    } else {
      files[path + "/cgroup.subtree_control"] = "\n";
    }
    return 0;
  }
  int make_dirs(const std::string& path) override {
    dirs_above(path + "/x");
    return 0;
  }
  int remove_dir(const std::string& path) override {
    log.push_back("rmdir " + path);
    if (!dirs.count(path)) return ENOENT;
    for (auto& d : dirs)
      if (d.size() > path.size() && d.compare(0, path.size() + 1, path + "/") == 0) return EBUSY;
    if (!procs(path).empty()) return EBUSY;
    dirs.erase(path);
    for (auto it = files.begin(); it != files.end();)
      it = it->first.compare(0, path.size() + 1, path + "/") == 0 ? files.erase(it) : std::next(it);
    return 0;
  }
  int writable(const std::string&) override { return not_writable; }

private:
  static CpuSet cpus_of(const std::string& text) {
    auto set = parse_cpulist(text, true);
    return set ? *set.value : CpuSet();
  }
  std::vector<std::string> siblings(const std::string& dir) const {
    std::vector<std::string> out;
    std::string up = parent(dir);
    for (const auto& d : dirs)
      if (d != dir && parent(d) == up && files.count(d + "/cgroup.procs")) out.push_back(d);
    return out;
  }
  static std::string parent(const std::string& path) { return path.substr(0, path.find_last_of('/')); }
  void dirs_above(const std::string& path) {
    for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
      dirs.insert(path.substr(0, slash));
  }
  static std::vector<std::pair<std::string, std::string>> v1_files() {
    return {{"cpus", "\n"}, {"mems", "\n"}, {"effective_cpus", "\n"}, {"cpu_exclusive", "0\n"},
            {"mem_exclusive", "0\n"}, {"sched_load_balance", "1\n"}};
  }
  int failing(const std::string& path) {
    ++writes;
    if (fail_write_at > 0 && writes == fail_write_at) return fail_errno;
    auto r = refuse.find(path);
    return r == refuse.end() ? 0 : r->second;
  }
};

}  // namespace affix::test
