// Placeholder until the command is written.
#include "commands.hpp"
#include "error.hpp"

namespace affix {

int command_topo(const Args&) {
  throw Error(ErrorKind::Usage, "'topo' is not implemented yet");
}

}  // namespace affix
