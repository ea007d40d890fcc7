// Placeholder until the command is written.
#include "commands.hpp"
#include "error.hpp"

namespace affix {

int command_pin(const Args&) {
  throw Error(ErrorKind::Usage, "'pin' is not implemented yet");
}

}  // namespace affix
