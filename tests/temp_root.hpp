#pragma once
// A hand-made root directory for tests (sys/..., proc/...), removed at the end.

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <stdexcept>
#include <string>

namespace affix::test {

class TempRoot {
public:
  TempRoot() {
    char templ[] = "/tmp/affix-root-XXXXXX";
    if (!::mkdtemp(templ)) throw std::runtime_error("mkdtemp failed");
    m_path = templ;
  }
  ~TempRoot() { std::system(("rm -rf '" + m_path + "'").c_str()); }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::string& path() const { return m_path; }

  // Writes ROOT/rel, creating its directories.
  void write(const std::string& rel, const std::string& content) const {
    std::string full = m_path + "/" + rel;
    for (size_t i = m_path.size() + 1; i < full.size(); ++i)
      if (full[i] == '/') ::mkdir(full.substr(0, i).c_str(), 0755);
    std::ofstream(full) << content;
  }
  void mkdir(const std::string& rel) const { write(rel + "/.keep", ""); }
  // Removes ROOT/rel (a file or a whole directory).
  void remove(const std::string& rel) const { std::system(("rm -rf '" + m_path + "/" + rel + "'").c_str()); }

  // A simple machine: `cpus` CPUs, `smt` threads per core (siblings are
  // consecutive), one socket, one node 0, one shared L3, all online.
  void simple_machine(unsigned cpus, unsigned smt) const {
    std::string last = std::to_string(cpus - 1);
    write("sys/devices/system/cpu/online", "0-" + last + "\n");
    write("sys/devices/system/cpu/possible", "0-" + last + "\n");
    write("sys/devices/system/cpu/present", "0-" + last + "\n");
    for (unsigned c = 0; c < cpus; ++c) {
      std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(c);
      unsigned first = c - c % smt;
      write(dir + "/topology/physical_package_id", "0\n");
      write(dir + "/topology/core_id", std::to_string(c / smt) + "\n");
      write(dir + "/topology/die_id", "0\n");
      write(dir + "/topology/thread_siblings_list",
            smt == 1 ? std::to_string(c) + "\n" : std::to_string(first) + "-" + std::to_string(first + smt - 1) + "\n");
      write(dir + "/topology/core_siblings_list", "0-" + last + "\n");
      write(dir + "/cache/index0/level", "1\n");
      write(dir + "/cache/index0/type", "Data\n");
      write(dir + "/cache/index0/shared_cpu_list", std::to_string(c) + "\n");
      write(dir + "/cache/index3/level", "3\n");
      write(dir + "/cache/index3/type", "Unified\n");
      write(dir + "/cache/index3/shared_cpu_list", "0-" + last + "\n");
    }
    write("sys/devices/system/node/node0/cpulist", "0-" + last + "\n");
    write("sys/devices/system/node/node0/meminfo",
          "Node 0 MemTotal:       16384000 kB\nNode 0 MemFree:         8192000 kB\nNode 0 MemUsed: 1 kB\n");
    write("sys/devices/system/node/node0/distance", "10\n");
  }

private:
  std::string m_path;
};

}  // namespace affix::test
