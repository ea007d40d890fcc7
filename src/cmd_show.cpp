// Placeholder until the command is written.
#include "commands.hpp"
#include "error.hpp"

namespace affix {

int command_show(const Args&) {
  throw Error(ErrorKind::Usage, "'show' is not implemented yet");
}

}  // namespace affix
