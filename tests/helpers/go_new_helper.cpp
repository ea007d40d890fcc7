// go_new_helper: a "Go 1.25.0" program (go_buildinfo_helper.hpp), whose
// runtime follows a change of its CPU list by itself (GOMAXPROCS's
// automatic updates), no DefaultGODEBUG in its build lines.
#define GO_BUILDINFO_BYTES "\x08" "go1.25.0" "\x00"
#include "go_buildinfo_helper.hpp"
