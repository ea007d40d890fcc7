// affix topo [--json | --svg [FILE] | --ascii] [--root DIR]: the machine,
// for people, as JSON, or as a picture (affix(1), PICTURES).
#include <cstdio>
#include <string>

#include "ascii_painter.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "error.hpp"
#include "machine_tree.hpp"
#include "os.hpp"
#include "picture_output.hpp"
#include "svg_painter.hpp"
#include "topo_output.hpp"
#include "topology.hpp"

namespace affix {

int command_topo(const Args& args) {
  CommandLine cl = parse_command_line(CommandKind::Topo, args);
  if (cl.help) {
    std::fputs(command_help(CommandKind::Topo).c_str(), stdout);
    return k_exit_ok;
  }
  check_picture_options(cl);
  SysRoot sysroot(cl.root.value_or("/"));
  Topology topo = read_drawn_machine(sysroot);
  if (cl.svg) {
    Picture pic = machine_picture(topo);
    write_picture(*cl.svg, picture_svg(pic, "affix topo"));
    if (svg_to_stdout(cl)) return k_exit_ok;
  }
  std::string out;
  if (cl.ascii) {
    Picture pic = machine_picture(topo);
    out = picture_ascii(pic, locale_is_utf8() ? Charset::Utf8 : Charset::Ascii);
  } else {
    Allowed allowed = read_allowed(sysroot, topo, linux_os());
    out = cl.json ? topo_json(topo, allowed) : topo_text(topo, allowed);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return k_exit_ok;
}

}  // namespace affix
