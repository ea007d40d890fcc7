// affix topo [--json] [--root DIR]: the machine, for people or as JSON.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "commands.hpp"
#include "devices.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "gpus.hpp"
#include "os.hpp"
#include "topo_output.hpp"
#include "topology.hpp"

namespace affix {

int command_topo(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Topo, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Topo).c_str(), stdout);
    return k_exit_ok;
  }
  SysRoot sysroot(cl.root.value_or("/"));
  Topology topo = read_topology(sysroot);
  topo.devices = list_devices(sysroot);
  topo.gpus = read_gpus(sysroot);
  topo.displays = read_displays(sysroot);
  for (const auto& warning : topo.warnings) print_warning(warning);
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
  Allowed allowed = read_allowed(sysroot, topo, linux_os());
  std::string out = cl.json ? topo_json(topo, allowed) : topo_text(topo, allowed);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return k_exit_ok;
}

}  // namespace affix
