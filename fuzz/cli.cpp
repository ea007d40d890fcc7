// Fuzz target: affix's command lines. The input is split at NUL bytes into
// arguments and given to `affix explain` (which reads this machine and
// changes nothing) and to the run form with --dry-run forced (which never
// execs). Every outcome must be a result or an affix::Error: never another
// exception (app.cpp would call it an internal error), never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "commands.hpp"
#include "error.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Results go nowhere; libFuzzer reports on stderr.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  affix::Args args;
  std::string word;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(word);
      word.clear();
      if (args.size() > 64) return 0;
    } else {
      word += static_cast<char>(data[i]);
    }
  }
  args.push_back(word);
  for (auto& a : args)
    if (a == "--root" || a.rfind("--root=", 0) == 0) return 0;  // this machine only
  try {
    affix::command_explain(args);
  } catch (const affix::Error& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  affix::Args run{"--dry-run"};
  run.insert(run.end(), args.begin(), args.end());
  try {
    affix::command_run(run);
  } catch (const affix::Error& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
