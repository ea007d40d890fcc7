#include "picture_output.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "ascii_painter.hpp"
#include "devices.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "files_os.hpp"
#include "gpus.hpp"
#include "text.hpp"

namespace affix {

namespace {

[[noreturn]] void cannot_write(const std::string& file, int err) {
  throw Error(ErrorKind::Runtime, fmt::format("cannot write the picture to {}: {}", printable(file), errno_text(err)),
              "the picture is written to FILE.part beside FILE, then renamed over it: the directory must be writable, and FILE no directory");
}

std::string absolute_path(const std::string& file) {
  std::error_code ec;
  auto p = std::filesystem::absolute(file, ec);
  return ec ? file : p.string();
}

}  // namespace

Topology read_drawn_machine(const SysRoot& root) {
  Topology topo = read_topology(root);
  for (const auto& warning : topo.warnings) print_warning(warning);
  read_drawn_devices(root, topo);
  return topo;
}

void read_drawn_devices(const SysRoot& root, Topology& topo) {
  topo.devices = list_devices(root);
  topo.gpus = read_gpus(root);
  topo.displays = read_displays(root);
  std::vector<std::string> told;
  for (const Device& d : topo.devices)
    for (const auto& warning : d.warnings) {
      print_warning(warning);
      told.push_back(warning);
    }
  for (const Gpu& g : topo.gpus)  // what only the GPUs' own files say (their locality is a device's)
    for (const auto& warning : g.device.warnings)
      if (std::find(told.begin(), told.end(), warning) == told.end()) {
        print_warning(warning);
        told.push_back(warning);
      }
}

bool svg_to_stdout(const CommandLine& cl) { return cl.svg && (cl.svg->empty() || *cl.svg == "-"); }

void check_picture_options(const CommandLine& cl) {
  if (cl.ascii && cl.json) throw Error(ErrorKind::Usage, "--ascii and --json cannot be used together");
  if (svg_to_stdout(cl) && (cl.json || cl.ascii))
    throw Error(ErrorKind::Usage, "--svg without a FILE writes the picture to standard output: it does not go with --json or --ascii",
                "give it a FILE: 'affix topo --svg machine.svg --json' writes the picture there and the JSON to standard output");
}

void write_picture(const std::string& file, const std::string& text) {
  if (file.empty() || file == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw Error(ErrorKind::Runtime, "cannot write the picture to standard output");
    return;
  }
  LinuxFilesOs files{SysRoot("/")};
  if (int err = files.replace(absolute_path(file), text)) cannot_write(file, err);
}

void check_picture_file(const std::string& file) {
  if (file.empty() || file == "-") return;
  LinuxFilesOs files{SysRoot("/")};
  std::string part = absolute_path(file) + ".part";
  if (int err = files.append(part, "")) cannot_write(file, err);
  files.remove_file(part);
}

bool locale_is_utf8() {
  return charset_of([](const char* name) -> std::optional<std::string> {
           const char* v = std::getenv(name);
           return v ? std::optional<std::string>(v) : std::nullopt;
         }) == Charset::Utf8;
}

}  // namespace affix
