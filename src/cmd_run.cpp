// Placeholder until the command is written.
#include "commands.hpp"
#include "error.hpp"

namespace affix {

int command_run(const Args&) {
  throw Error(ErrorKind::Usage, "'run' is not implemented yet");
}

}  // namespace affix
