// exec_lookup: what execvp would find, for run --dry-run's exit status.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "exec_lookup.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::TempRoot;

TEST_CASE("exec_lookup: names with a slash are the file itself") {
  TempRoot r;
  r.write("bin/tool", "#!/bin/sh\n");
  ::chmod((r.path() + "/bin/tool").c_str(), 0755);
  r.write("bin/data", "x\n");
  ::chmod((r.path() + "/bin/data").c_str(), 0644);
  CHECK(exec_lookup(r.path() + "/bin/tool", nullptr) == 0);
  CHECK(exec_lookup(r.path() + "/bin/data", nullptr) == EACCES);
  CHECK(exec_lookup(r.path() + "/bin", nullptr) == EACCES);  // a directory
  CHECK(exec_lookup(r.path() + "/bin/none", nullptr) == ENOENT);
  CHECK(exec_lookup(r.path() + "/bin/tool/x", nullptr) == ENOTDIR);
  CHECK(exec_lookup("", nullptr) == ENOENT);
}

TEST_CASE("exec_lookup: PATH is searched in order; a file that cannot run ends in EACCES") {
  TempRoot r;
  r.write("a/data", "x\n");
  ::chmod((r.path() + "/a/data").c_str(), 0644);
  r.write("b/data", "#!/bin/sh\n");
  ::chmod((r.path() + "/b/data").c_str(), 0755);
  r.mkdir("c/dir");
  std::string a = r.path() + "/a", b = r.path() + "/b", c = r.path() + "/c";
  CHECK(exec_lookup("data", (a + ":" + b).c_str()) == 0);      // found executable after a refusal
  CHECK(exec_lookup("data", a.c_str()) == EACCES);             // only the one that cannot run
  CHECK(exec_lookup("dir", c.c_str()) == EACCES);              // a directory named like it
  CHECK(exec_lookup("nothing", (a + ":" + b).c_str()) == ENOENT);
  CHECK(exec_lookup("sh", nullptr) == 0);                       // glibc's default /bin:/usr/bin
  CHECK(exec_lookup("sh", "") == ENOENT);                       // PATH="": the current directory only
}
