#pragma once
// The live screen of `affix top` (top_screen.cpp, over ncurses): draws the
// frames a TopSource gives, every `interval` seconds, until `q` (or
// `frames` frames), and leaves the terminal as it was.

#include "top_frame.hpp"

namespace affix {

struct TopScreenOptions {
  double interval = 1.0;  // seconds between frames (-i)
  bool color = true;      // false where NO_COLOR is set or output is not a terminal
  unsigned frames = 0;    // -n N: frames to draw, then leave; 0 = until q
};

// Returns the exit status; throws affix::Error where the terminal cannot be used.
int run_top_screen(TopSource& source, const TopScreenOptions& options);

}  // namespace affix
