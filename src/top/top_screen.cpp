// The live screen of `affix top`, over ncurses as htop draws its own: the
// lines come from top_layout() (pure, tested on its own); this file only
// owns the terminal: it starts the screen, paints the lines, waits for keys
// between frames with a timeout (as htop's halfdelay), and leaves the
// terminal as it found it on q, after -n frames, on SIGINT, SIGTERM and
// SIGHUP (then dies of the signal, as a shell expects), and when an
// exception passes through.

#include "top_screen.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "error.hpp"
#include "text.hpp"
#include "top_layout.hpp"

// Last: its macros (move, erase, timeout, OK) would rename what the
// headers above declare.
#include <curses.h>

namespace affix {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) { g_signal = sig; }

constexpr int k_signals[] = {SIGINT, SIGTERM, SIGHUP};

// The screen from newterm() to endwin(), and the signal handlers: whatever
// way run_top_screen() leaves, the terminal is given back.
class Terminal {
public:
  Terminal() {
    std::setlocale(LC_CTYPE, "");  // UTF-8 names take their columns (ncursesw)
    m_screen = newterm(nullptr, stdout, stdin);
    if (!m_screen) {
      const char* term = std::getenv("TERM");
      throw Error(ErrorKind::Runtime, fmt::format("cannot start the screen on terminal type '{}'", printable(term ? term : "")),
                  "set TERM to the terminal's type (xterm-256color, linux, ...), or use 'affix top --once'");
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: the signal ends getch()'s wait
    for (size_t i = 0; i < std::size(k_signals); ++i) sigaction(k_signals[i], &sa, &m_old[i]);
  }
  ~Terminal() {
    curs_set(1);
    endwin();
    delscreen(m_screen);
    for (size_t i = 0; i < std::size(k_signals); ++i) sigaction(k_signals[i], &m_old[i], nullptr);
  }
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

private:
  SCREEN* m_screen = nullptr;
  struct sigaction m_old[std::size(k_signals)] {};
};

// Each style's attributes: colour pairs where the terminal has colours and
// NO_COLOR is not set, else bold and reverse video only.
class Painter {
public:
  explicit Painter(bool color) : m_color(color && has_colors()) {
    if (!m_color) return;
    start_color();
    // The terminal's own background where it has one (-1), else black.
    const short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
    init_pair(1, COLOR_BLACK, COLOR_CYAN);    // Title
    init_pair(2, COLOR_BLACK, COLOR_GREEN);   // Header
    init_pair(3, COLOR_CYAN, bg);             // Group
    init_pair(4, COLOR_GREEN, bg);            // User
    init_pair(5, COLOR_RED, bg);              // System
    init_pair(6, COLOR_YELLOW, bg);           // Irq
    init_pair(7, COLOR_MAGENTA, bg);          // Softirq
    init_pair(8, COLOR_YELLOW, bg);           // Mark
    init_pair(9, COLOR_BLUE, bg);             // Dim
    init_pair(10, COLOR_RED, bg);             // Warning
  }
  attr_t attr(TopStyle s) const {
    if (!m_color) {
      switch (s) {
        case TopStyle::Title: return A_REVERSE | A_BOLD;
        case TopStyle::Header: return A_REVERSE;
        case TopStyle::Group: case TopStyle::Mark: case TopStyle::Warning: return A_BOLD;
        default: return A_NORMAL;
      }
    }
    switch (s) {
      case TopStyle::Plain: return A_NORMAL;
      case TopStyle::Title: return COLOR_PAIR(1) | A_BOLD;
      case TopStyle::Header: return COLOR_PAIR(2);
      case TopStyle::Group: return COLOR_PAIR(3) | A_BOLD;
      case TopStyle::User: return COLOR_PAIR(4);
      case TopStyle::System: return COLOR_PAIR(5);
      case TopStyle::Irq: return COLOR_PAIR(6);
      case TopStyle::Softirq: return COLOR_PAIR(7);
      case TopStyle::Mark: return COLOR_PAIR(8) | A_BOLD;
      case TopStyle::Dim: return COLOR_PAIR(9);
      case TopStyle::Warning: return COLOR_PAIR(10) | A_BOLD;
    }
    return A_NORMAL;
  }
  void paint(const std::vector<TopLine>& lines) const {
    erase();
    for (size_t y = 0; y < lines.size(); ++y) {
      move(static_cast<int>(y), 0);
      for (const TopSpan& span : lines[y].spans) {
        attrset(attr(span.style));
        addstr(span.text.c_str());  // at the last cell of the last line ERR, nothing lost
      }
    }
    attrset(A_NORMAL);
    refresh();
  }

private:
  bool m_color;
};

bool no_color_env() {
  const char* v = std::getenv("NO_COLOR");
  return v && *v;
}

int translate_key(int ch) {
  switch (ch) {
    case KEY_ENTER: return '\n';
    case KEY_BACKSPACE: return 127;
    case KEY_LEFT: return '<';
    case KEY_RIGHT: return '>';
    default: return ch;
  }
}

}  // namespace

int run_top_screen(TopSource& source, const TopScreenOptions& options) {
  if (!::isatty(STDOUT_FILENO))
    throw Error(ErrorKind::Usage, "the live screen of 'affix top' needs a terminal: standard output is not one",
                "'affix top --once' prints one interval as text ('--once --json': JSON) for pipes and files");
  using Steady = std::chrono::steady_clock;
  const auto interval = std::chrono::duration_cast<Steady::duration>(
      std::chrono::duration<double>(options.interval > 0 ? options.interval : 1.0));

  g_signal = 0;
  int caught = 0;
  {
    Terminal terminal;
    Painter painter(options.color && !no_color_env());
    TopView view;
    TopFrame frame = source.next();
    unsigned drawn = 1;
    auto draw = [&] {
      size_t h = static_cast<size_t>(std::max(LINES, 0)), w = static_cast<size_t>(std::max(COLS, 0));
      painter.paint(top_layout(frame, view, w, h));
    };
    draw();
    auto deadline = Steady::now() + interval;
    while (!(options.frames && drawn >= options.frames)) {
      if (g_signal) break;
      auto now = Steady::now();
      if (now >= deadline) {
        if (!view.frozen) {
          frame = source.next();
          ++drawn;
          draw();
        }
        deadline = std::max(deadline + interval, Steady::now());
        continue;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
      timeout(static_cast<int>(std::clamp<long long>(left, 1, 1000)));
      int ch = getch();
      if (ch == ERR) {
        if (g_signal) break;
        // Standard input at its end (not a terminal) answers at once: wait
        // the time out instead of spinning.
        if (Steady::now() - now < std::chrono::milliseconds(1))
          std::this_thread::sleep_for(std::min<Steady::duration>(deadline - Steady::now(), std::chrono::milliseconds(50)));
        continue;
      }
      if (ch == KEY_RESIZE) {
        draw();
        continue;
      }
      handle_top_key(view, translate_key(ch),
                     top_shown_level(frame, view, static_cast<size_t>(COLS), static_cast<size_t>(LINES)),
                     top_levels(frame));
      if (view.quit) break;
      draw();
    }
    caught = g_signal;
  }
  if (caught) {
    // The terminal is back; end as the signal would have ended us.
    std::signal(caught, SIG_DFL);
    std::raise(caught);
  }
  return k_exit_ok;
}

}  // namespace affix
