"""Drives `affix top` in a pseudo-terminal and reads its screen with pyte
(Debian's python3-pyte: run with /usr/bin/python3). Called by top_screen.sh.

  top_screen.py AFFIX live SPIN_PID [CAPTURE]
      `affix top -i 0.5` on a 30x100 terminal (TERM=screen-256color): the
      screen holds the CPU rows, SPIN_PID (a busy loop pinned on CPU 1) shows
      under CPU 1 with its TID, the screen has colours; keys (s, <, -, +,
      /, space, z, v: the picture view with CPU 1's box near 100%); then `q`: exit 0,
      the alternate screen left and the cursor visible again. CAPTURE: where
      to write the screen's text as it was before `q`.
  top_screen.py AFFIX nocolor
      NO_COLOR=1 `affix top -i 0.3 -n 3`: the screen has no colour, and it
      ends by itself after 3 frames, exit 0, the terminal restored.

  top_screen.py AFFIX signals
      SIGTERM, SIGHUP, SIGINT to a running screen: affix ends of the
      signal, the terminal restored first.

Prints "ok: ..." / "FAIL: ..." lines; exits 1 on a failure.
"""

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

import pyte

# TOP_SCREEN_SIZE=ROWSxCOLS: another size (the man page's picture is 22x80).
ROWS, COLS = (int(v) for v in os.environ.get("TOP_SCREEN_SIZE", "30x100").split("x"))
ALT_SCREEN = 1049 << 5  # pyte keeps private modes shifted by 5
failed = False


class Screen(pyte.Screen):
    """pyte's screen with SU and SD (CSI n S, CSI n T: scroll the lines
    between the margins up or down), which ncurses sends where the
    terminfo entry has them (indn, rin) and pyte does not know: without
    them, what ncurses believes it scrolled stays where it was."""

    def _scroll(self, count, up):
        top, bottom = (self.margins.top, self.margins.bottom) if self.margins else (0, self.lines - 1)
        saved = (self.cursor.x, self.cursor.y)
        for _ in range(max(count or 1, 1)):
            self.cursor.y = bottom if up else top
            self.index() if up else self.reverse_index()
        self.cursor.x, self.cursor.y = saved

    def scroll_up(self, count=None, *args, **kwargs):
        self._scroll(count, True)

    def scroll_down(self, count=None, *args, **kwargs):
        self._scroll(count, False)


class Stream(pyte.Stream):
    csi = dict(pyte.Stream.csi, S="scroll_up", T="scroll_down")


def check(name, ok, detail=""):
    global failed
    print(("ok: " if ok else "FAIL: ") + name)
    if not ok:
        failed = True
        if detail:
            print(detail)


def spawn(argv, env):
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        os.execve(argv[0], argv, env)
    return pid, fd


def pump(fd, stream, seconds):
    """Feeds what the child writes for up to `seconds`; False at its end."""
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return True
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            return True
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not data:
            return False
        stream.feed(data.decode("utf-8", "replace"))


def wait_exit(pid, fd, stream, seconds):
    """The child's exit status after draining its output; None if it runs on."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pump(fd, stream, 0.1)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            pump(fd, stream, 0.2)
            return status
    return None


def lines(screen):
    return [line.rstrip() for line in screen.display]


def row(screen, label):
    for line in lines(screen):
        if line.lstrip().startswith(label + " "):
            return line
    return None


def colours(screen):
    n = 0
    for y in range(screen.lines):
        for ch in screen.buffer[y].values():
            if ch.fg != "default" or ch.bg != "default":
                n += 1
    return n


def env_for(extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    # screen-256color: 256 colours and the alternate screen, as xterm's, but
    # no REP (repeat the last character), which xterm's terminfo has, ncurses
    # uses to draw runs of spaces, and pyte does not know (it would leave
    # the old characters where the spaces go).
    env["TERM"] = "screen-256color"
    env.update(extra)
    return env


def live(affix, spin_pid, capture):
    screen = Screen(COLS, ROWS)
    stream = Stream(screen)
    pid, fd = spawn([affix, "top", "-i", "0.5"], env_for({}))
    tag = "%s/%s " % (spin_pid, spin_pid)
    seen = False
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not seen:
        if not pump(fd, stream, 0.5):
            break
        cpu1 = row(screen, "CPU 1")
        seen = cpu1 is not None and tag in cpu1
    text = "\n".join(lines(screen))
    check("the screen holds the CPU rows", row(screen, "CPU 0") is not None and row(screen, "CPU 1") is not None,
          text)
    check("the busy loop pinned on CPU 1 is in CPU 1's row with its TID", seen, text)
    cpu0 = row(screen, "CPU 0") or ""
    check("the busy loop is not in CPU 0's row", tag not in cpu0, text)
    check("the screen is in the alternate screen while it runs", ALT_SCREEN in screen.mode)
    check("the cursor is hidden while it runs", screen.cursor.hidden)
    check("the screen has colours (TERM=screen-256color, no NO_COLOR)", colours(screen) > 0)
    if capture:
        with open(capture, "w") as f:
            f.write("\n".join(lines(screen)).rstrip("\n") + "\n")

    # A frame may come in several reads: read until the terminal is quiet.
    def settle():
        while select.select([fd], [], [], 0.25)[0]:
            if not pump(fd, stream, 0.05):
                return

    # Keys, through ncurses: each changes the title line.
    def after(keys, want, seconds=3):
        os.write(fd, keys)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pump(fd, stream, 0.1)
            if want in screen.display[0]:
                settle()
                return True
        return False

    check("s sorts by migrations", after(b"s", "sort MIGR/s"), screen.display[0])
    check("< sorts back by CPU%", after(b"<", "sort CPU%"), screen.display[0])
    # The levels are those of draw's tree (the package outside the node
    # here): four - end at its outermost box.
    check("- (4 times) collapses the CPU rows to the package", after(b"----", "collapsed to 1 socket "),
          screen.display[0])
    check("+ (4 times) expands them again", after(b"++++", "CPU rows"), screen.display[0])
    check("/ filters by name", after(b"/sh\r", "filter 'sh'"), screen.display[0])
    def only_sh():
        procs = [l for l in lines(screen)[4:] if l[:8].strip().isdigit()]
        return bool(procs) and all("sh" in l[8:25] for l in procs)

    # (The frame may come late, in pieces, on a loaded machine: wait for
    # it; a filter that does not filter never gets there.)
    end = time.monotonic() + 4
    while time.monotonic() < end and not only_sh():
        pump(fd, stream, 0.1)
    check("the filter leaves the processes whose name has 'sh'", only_sh(), "\n".join(lines(screen)))
    check("space freezes", after(b" ", "FROZEN"), screen.display[0])
    check("z thaws", after(b"z", "CPU rows") and "FROZEN" not in screen.display[0], screen.display[0])
    # v: the picture view, draw's boxes with each CPU's busy %; the busy
    # loop's CPU 1 near 100%; v again: the rows.
    def picture_has_cpus():
        text = "\n".join(lines(screen))
        return "|CPU 0" in text and "|CPU 1" in text and "|Machine (2 CPUs" in text

    check("v shows the picture of the CPUs", after(b"v", "picture of CPUs"), "\n".join(lines(screen)))
    end = time.monotonic() + 4
    while time.monotonic() < end and not picture_has_cpus():
        pump(fd, stream, 0.1)
    check("the picture has the machine's box and a box for CPU 0 and CPU 1", picture_has_cpus(),
          "\n".join(lines(screen)))
    busy1 = False
    end = time.monotonic() + 4
    while time.monotonic() < end and not busy1:
        pump(fd, stream, 0.1)
        text = lines(screen)
        for i, l in enumerate(text[:-1]):
            at = l.find("|CPU 1")
            if at >= 0:
                below = text[i + 1][at + 1:at + 6].strip().rstrip("|").strip()
                busy1 = below.endswith("%") and below[:-1].isdigit() and int(below[:-1]) >= 90
    check("CPU 1's box says the busy loop's busy % (90% or more)", busy1, "\n".join(lines(screen)))
    check("v again: the CPU rows", after(b"v", "CPU rows"), screen.display[0])
    # A bigger terminal: the screen is laid out again to its size (SIGWINCH).
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS + 10, COLS + 20, 0, 0))
    screen.resize(ROWS + 10, COLS + 20)
    end = time.monotonic() + 3
    while time.monotonic() < end and not screen.display[ROWS + 9].startswith("h keys"):
        pump(fd, stream, 0.1)
    check("a resized terminal gets a screen of its size", screen.display[ROWS + 9].startswith("h keys"),
          "\n".join(lines(screen)))
    os.write(fd, b"q")
    status = wait_exit(pid, fd, stream, 5)
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    check("q ends it with exit 0", status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          "status %r" % (status,))
    check("q leaves the alternate screen", ALT_SCREEN not in screen.mode)
    check("q shows the cursor again", not screen.cursor.hidden)


def nocolor(affix):
    screen = Screen(COLS, ROWS)
    stream = Stream(screen)
    pid, fd = spawn([affix, "top", "-i", "0.3", "-n", "3"], env_for({"NO_COLOR": "1"}))
    max_colours = 0
    had_rows = False
    end = time.monotonic() + 10
    status = None
    while time.monotonic() < end:
        alive = pump(fd, stream, 0.1)
        max_colours = max(max_colours, colours(screen))
        had_rows = had_rows or row(screen, "CPU 1") is not None
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or not alive:
            if not done:
                _, status = os.waitpid(pid, 0)
            break
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    check("NO_COLOR=1: the CPU rows were drawn", had_rows)
    check("NO_COLOR=1: no cell had a colour", max_colours == 0, "%d cells with colours" % max_colours)
    check("-n 3 ends it by itself with exit 0",
          status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "status %r" % (status,))
    check("-n 3 leaves the alternate screen", ALT_SCREEN not in screen.mode)


def signalled(affix, sig):
    name = signal.Signals(sig).name
    screen = Screen(COLS, ROWS)
    stream = Stream(screen)
    pid, fd = spawn([affix, "top", "-i", "0.3"], env_for({}))
    end = time.monotonic() + 10
    while time.monotonic() < end and row(screen, "CPU 1") is None:
        if not pump(fd, stream, 0.2):
            break
    drawn = row(screen, "CPU 1") is not None and ALT_SCREEN in screen.mode
    os.kill(pid, sig)
    status = wait_exit(pid, fd, stream, 5)
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    check("%s: the screen was drawn before it" % name, drawn)
    check("%s: affix ends of the signal" % name,
          status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == sig, "status %r" % (status,))
    check("%s: the alternate screen left" % name, ALT_SCREEN not in screen.mode)
    check("%s: the cursor shown again" % name, not screen.cursor.hidden)


def main():
    affix, mode = sys.argv[1], sys.argv[2]
    if mode == "live":
        live(affix, int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else None)
    elif mode == "signals":
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signalled(affix, sig)
    else:
        nocolor(affix)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
