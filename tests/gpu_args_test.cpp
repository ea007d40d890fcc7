// --gpu and --ranks on the command line (affix(1), GPU option, Explain
// options): their values, where they are taken, and every mistake's words.
#include <catch2/catch.hpp>

#include "command_line.hpp"
#include "error.hpp"
#include "gpu_args.hpp"

using namespace affix;

namespace {

std::string error_of(CommandKind kind, const Args& args) {
  try {
    parse_command_line(kind, args);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return std::string(e.what()) + " | " + e.hint();
  }
  return "no error";
}

std::string indices(const GpuRequest& g) {
  std::string out;
  for (unsigned i : g.indices) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out;
}

}  // namespace

TEST_CASE("--gpu: closest, a number, a list and ranges in the order given") {
  GpuRequest g = parse_gpu_option("closest");
  CHECK(g.closest);
  CHECK(g.indices.empty());
  CHECK(g.text == "closest");
  g = parse_gpu_option("2");
  CHECK_FALSE(g.closest);
  CHECK(indices(g) == "2");
  CHECK(indices(parse_gpu_option("3,0")) == "3,0");
  CHECK(indices(parse_gpu_option("4-7,0")) == "4,5,6,7,0");
  CHECK(parse_gpu_option("0,2").text == "0,2");
}

TEST_CASE("--gpu: every bad value in the same words") {
  for (const char* bad : {"", "close", "-1", "1,", ",1", "01", "3-1", "1-", "a,b", "0x1", "1 2"})
    CHECK(error_of(CommandKind::Run, {"--gpu", bad, "all", "true"}) ==
          std::string("invalid --gpu '") + bad +
              "': expected closest, a GPU number or a list of them (0,2) | --gpu closest, --gpu 1, --gpu 0,2 or "
              "--gpu 4-7: the numbers are gpuN's ('affix topo' lists them)");
  CHECK(error_of(CommandKind::Explain, {"--gpu=0,1,0", "all"}) ==
        "invalid --gpu '0,1,0': gpu0 is given twice | name each GPU once: the ranks share the GPUs of the list by "
        "themselves");
  CHECK(error_of(CommandKind::Run, {"all", "--gpu"}) ==
        "option '--gpu' needs a value | usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]; see 'affix run --help'");
  CHECK(error_of(CommandKind::Run, {"--gpu", "0", "--gpu", "1", "all", "true"}).rfind("option '--gpu' given twice |", 0) ==
        0);
}

TEST_CASE("--gpu is run's, explain's and pin's; --ranks explain's") {
  CommandLine cl = parse_command_line(CommandKind::Run, {"--slice", "rank", "--gpu", "closest", "all", "--", "./train"});
  REQUIRE(cl.request.gpu);
  CHECK(cl.request.gpu->closest);
  CHECK(cl.rest == Args{"./train"});
  // After WHERE, --gpu is still affix's; the command starts at the first word that is not.
  cl = parse_command_line(CommandKind::Run, {"all", "--gpu", "1", "./train", "--gpu", "2"});
  CHECK(indices(*cl.request.gpu) == "1");
  CHECK(cl.rest == Args{"./train", "--gpu", "2"});
  cl = parse_command_line(CommandKind::Explain, {"all", "--gpu", "closest", "--ranks", "8", "--json"});
  CHECK(cl.ranks == 8u);
  cl = parse_command_line(CommandKind::Pin, {"--check", "--gpu", "closest", "all", "42"});
  CHECK(cl.request.gpu);
  CHECK(error_of(CommandKind::Run, {"--ranks", "2", "all", "true"}).rfind("unknown option '--ranks' for 'run' | ", 0) ==
        0);
  CHECK(error_of(CommandKind::Topo, {"--gpu", "0"}) ==
        "unknown option '--gpu' for 'topo' | usage: affix topo [--json | --svg [FILE] | --ascii] [--root DIR]; see 'affix topo --help'");
}

TEST_CASE("--ranks: 1 to 1024") {
  CHECK(parse_ranks_option("1") == 1u);
  CHECK(parse_ranks_option("1024") == 1024u);
  for (const char* bad : {"0", "1025", "-2", "x", ""})
    CHECK(error_of(CommandKind::Explain, {"all", "--gpu", "closest", "--ranks", bad}) ==
          std::string("invalid --ranks '") + bad +
              "': expected a whole number of ranks from 1 to 1024 | --ranks 8 maps eight local ranks");
}

TEST_CASE("help texts: --gpu for run, explain and pin; --ranks for explain") {
  for (CommandKind k : {CommandKind::Run, CommandKind::Explain, CommandKind::Pin})
    CHECK(command_help(k).find("  --gpu closest|N|LIST   one GPU for this local rank") != std::string::npos);
  CHECK(command_help(CommandKind::Explain).find("  --ranks N              with --slice rank or --gpu") !=
        std::string::npos);
  CHECK(command_help(CommandKind::Run).find("--ranks") == std::string::npos);
}
