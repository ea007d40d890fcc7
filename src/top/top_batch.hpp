#pragma once
// `affix top` where standard output is no terminal (a pipe, a file, as
// `top -b`): every interval the frame as --once's text, a blank line
// between, until -n N frames (or SIGINT/SIGTERM, which end it at once).

#include "top_screen.hpp"

namespace affix {

// Takes the starting point, then prints `options.frames` frames (0: until
// killed). Throws Error(Runtime) where standard output cannot be written.
int run_top_batch(TopSource& source, const TopScreenOptions& options);

// Sleeps `seconds` (the time between two frames).
void top_sleep(double seconds);

}  // namespace affix
