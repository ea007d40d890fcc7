// Placeholder until the command is written.
#include "commands.hpp"
#include "error.hpp"

namespace affix {

int command_explain(const Args&) {
  throw Error(ErrorKind::Usage, "'explain' is not implemented yet");
}

}  // namespace affix
