#pragma once
// A recording ChildOs: programs run (systemctl) with the status each gets,
// a held child that a test releases with an exec error or not, and the
// status its wait returns. `on_release` lets a test act while the command
// "runs" (read the shield then, or leave processes behind in it).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "os.hpp"

namespace affix::test {

class FakeChildOs : public ChildOs {
public:
  std::vector<std::vector<std::string>> programs;  // run_program's argv, in order
  std::map<std::string, int> program_status;        // "systemctl start" -> status (default 0)
  std::vector<std::string> started;                 // the argv of the held child, joined with spaces
  std::vector<std::string> calls;                   // "hold", "start", "release", "abandon", "wait"
  pid_t child = 4321;
  int exec_error = 0;
  int exit_status = 0;
  pid_t self = 4000;
  std::function<void()> on_release;
  // Called for each program before its status is looked up (a fake
  // systemd makes or removes a slice's cgroups here); nullopt: no say.
  std::function<std::optional<int>(const std::vector<std::string>&)> on_program;

  void hold_signals() override { calls.push_back("hold"); }
  pid_t start_held(const std::vector<std::string>& argv) override {
    calls.push_back("start");
    std::string joined;
    for (const auto& a : argv) joined += (joined.empty() ? "" : " ") + a;
    started.push_back(joined);
    return child;
  }
  int release(pid_t) override {
    calls.push_back("release");
    if (on_release) on_release();
    return exec_error;
  }
  void abandon(pid_t) override { calls.push_back("abandon"); }
  int wait_passing_signals(pid_t) override {
    calls.push_back("wait");
    return exit_status;
  }
  void pass_signals(pid_t) override { calls.push_back("pass"); }
  void stop_passing_signals() override { calls.push_back("stop passing"); }
  std::optional<int> try_wait(pid_t) override {
    calls.push_back("try wait");
    return exit_status;
  }
  int run_program(const std::vector<std::string>& argv) override {
    programs.push_back(argv);
    if (on_program)
      if (auto st = on_program(argv)) return *st;
    std::string key = argv.size() > 1 ? argv[0] + " " + argv[1] : argv[0];
    auto it = program_status.find(key);
    return it == program_status.end() ? 0 : it->second;
  }
  pid_t own_pid() override { return self; }
};

}  // namespace affix::test
