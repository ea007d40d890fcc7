// docs/errors.md against the code: every `Error(ErrorKind::KIND, MESSAGE
// [, HINT])` in src/*/*.cpp whose MESSAGE is a string literal (or the format
// string of fmt::format) has its line in docs/errors.md:
//
//   - **KIND** (exit N; run: 125) `MESSAGE` — hint: `HINT` | hint: TEXT
//
// with the exit status the kind gives (app.cpp), and the code's own hint
// where it has one. Messages built elsewhere (spec errors with a caret) are
// documented by hand and not checked here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Site {
  std::string file;
  std::string kind;
  std::optional<std::string> message;  // nullopt: computed
  std::optional<std::string> hint;
};

std::string read_all(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void skip_space(const std::string& s, size_t& i) {
  while (i < s.size()) {
    if (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
      ++i;
    } else if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else {
      break;
    }
  }
}

// Adjacent string literals at i, joined (escapes kept as written except \" and \\).
std::optional<std::string> literals(const std::string& s, size_t& i) {
  std::optional<std::string> out;
  while (true) {
    size_t j = i;
    skip_space(s, j);
    if (j >= s.size() || s[j] != '"') return out;
    ++j;
    std::string lit;
    while (j < s.size() && s[j] != '"') {
      if (s[j] == '\\' && j + 1 < s.size()) {
        char c = s[j + 1];
        lit += (c == '"' || c == '\\' || c == '\'') ? std::string(1, c) : std::string{'\\', c};
        j += 2;
        continue;
      }
      lit += s[j++];
    }
    i = j + 1;
    out = out.value_or("") + lit;
  }
}

// The argument starting at i: a literal, fmt::format("...", ...), or other.
// Leaves i after the argument (at the ',' or ')' that ends it).
std::optional<std::string> argument(const std::string& s, size_t& i) {
  skip_space(s, i);
  std::optional<std::string> text;
  if (s.compare(i, 12, "fmt::format(") == 0) {
    size_t j = i + 12;
    text = literals(s, j);
  } else if (i < s.size() && s[i] == '"') {
    size_t j = i;
    text = literals(s, j);
  }
  int depth = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {
      size_t j = i;
      literals(s, j);
      i = j;
      continue;
    }
    if (c == '\'') {  // a char literal
      i += s[i + 1] == '\\' ? 4 : 3;
      continue;
    }
    if (c == '(' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == ']') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
    ++i;
  }
  return text;
}

std::vector<Site> error_sites() {
  std::vector<Site> out;
  for (auto& entry : fs::recursive_directory_iterator(fs::path(AFFIX_SOURCE_DIR) / "src")) {
    if (entry.path().extension() != ".cpp") continue;
    std::string s = read_all(entry.path());
    const std::string key = "Error(ErrorKind::";
    for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + 1)) {
      size_t i = at + key.size();
      size_t comma = s.find(',', i);
      Site site;
      site.file = entry.path().filename().string();
      site.kind = s.substr(i, comma - i);
      i = comma + 1;
      site.message = argument(s, i);
      if (i < s.size() && s[i] == ',') {
        ++i;
        site.hint = argument(s, i);
      }
      out.push_back(site);
    }
  }
  return out;
}

std::string status_of(const std::string& kind) {
  return kind == "Runtime" ? "(exit 1; run: 125)" : "(exit 2; run: 125)";
}

}  // namespace

TEST_CASE("the scanner finds error sites with their messages and hints") {
  auto sites = error_sites();
  CHECK(sites.size() >= 40);
  bool seen = false;
  for (auto& s : sites)
    if (s.message && *s.message == "cannot bind to CPUs {}: {}") {
      seen = true;
      CHECK(s.kind == "Runtime");
      CHECK(s.file == "launch.cpp");
    }
  CHECK(seen);
}

TEST_CASE("docs/errors.md lists every error message with its exit status and hint") {
  std::string doc = read_all(fs::path(AFFIX_SOURCE_DIR) / "docs" / "errors.md");
  REQUIRE(!doc.empty());
  for (auto& site : error_sites()) {
    if (!site.message) continue;
    INFO(site.file << ": " << site.kind << " `" << *site.message << "`");
    size_t at = doc.find("`" + *site.message + "`");
    CHECK(at != std::string::npos);
    if (at == std::string::npos) continue;
    size_t line_start = doc.rfind('\n', at) + 1;
    size_t line_end = doc.find('\n', at);
    std::string line = doc.substr(line_start, line_end - line_start);
    CHECK(line.rfind("- **" + site.kind + "** " + status_of(site.kind) + " `", 0) == 0);
    if (site.hint && !site.hint->empty())
      CHECK(line.find("hint: `" + *site.hint + "`") != std::string::npos);
    else
      CHECK(line.find(" — hint: ") != std::string::npos);
  }
}
