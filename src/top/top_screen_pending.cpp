// Until the live screen (top_screen.cpp, over ncurses) is merged: a
// terminal gets the batch frames too. top_screen.cpp replaces this file
// (delete it in the merge that adds top_screen.cpp).
#include "top_batch.hpp"
#include "top_screen.hpp"

namespace affix {

int run_top_screen(TopSource& source, const TopScreenOptions& options) { return run_top_batch(source, options); }

}  // namespace affix
