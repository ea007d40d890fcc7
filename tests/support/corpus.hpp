#pragma once
// The captured machines for tests: build/corpora/NAME is a root directory
// (sys/, proc/) to pass as --root / SysRoot; the oracle files describe what
// hwloc and lscpu say about it.

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace affix::test {

inline std::string corpus_root(const std::string& name) {
  return std::string(AFFIX_CORPORA_DIR) + "/" + name;
}

inline std::vector<std::string> corpus_names() {
  std::vector<std::string> out;
  if (DIR* d = opendir(AFFIX_CORPORA_DIR)) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.emplace_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// oracle/NAME.KIND, e.g. KIND = "hwloc.tsv", "queries.tsv", "lscpu.tsv".
inline std::string oracle_path(const std::string& name, const std::string& kind) {
  return std::string(AFFIX_ORACLE_DIR) + "/" + name + "." + kind;
}

// Rows of a tab-separated oracle file, comment lines (#...) skipped.
inline std::vector<std::vector<std::string>> read_tsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::string col;
    std::istringstream ls(line);
    while (std::getline(ls, col, '\t')) cols.push_back(col);
    if (!line.empty() && line.back() == '\t') cols.emplace_back();
    rows.push_back(cols);
  }
  return rows;
}

}  // namespace affix::test
