// go_old_helper: a "Go 1.22.1" program (go_buildinfo_helper.hpp), whose
// runtime sizes GOMAXPROCS once, at its start.
#define GO_BUILDINFO_BYTES "\x08" "go1.22.1" "\x00"
#include "go_buildinfo_helper.hpp"
