#!/usr/bin/env python3
"""Latency of the lane screen: from a scan's Enter to its line on the screen.

    lane_latency.py REGISTER_CLI SOCKET [--scans N] [--code CODE] [--name TEXT]

Starts `REGISTER_CLI --socket SOCKET lane` on a pseudo-terminal of 80x24, as a lane terminal
would run it, and keeps a model of that terminal's screen from the bytes the program writes
(cursor moves, clears, text: all the lane's frames use). Each scan types CODE and Enter at once,
as a keyboard-wedge scanner does, and the time runs until the screen shows the new line: the
bar's item count reaching the scan's number. Before that, the same is measured for a baseline
that has nothing of registerd in it: `cat` on a pseudo-terminal, a line typed and its echo read
back. Prints percentiles of both in milliseconds and the last line
`result scans=N p50_ms=X p90_ms=X p99_ms=X max_ms=X baseline_p99_ms=X`.
"""
import os
import pty
import re
import select
import struct
import sys
import termios
import fcntl
import time

WIDTH, HEIGHT = 80, 24


class Screen:
    """The screen a terminal shows, fed the bytes a program writes: CSI row;col H moves the
    cursor, CSI 2 J clears, other CSI and private sequences change nothing visible here, and
    text is written from the cursor (one column per character)."""

    def __init__(self):
        self.rows = [[" "] * WIDTH for _ in range(HEIGHT)]
        self.row = 0
        self.column = 0
        self.pending = ""

    def feed(self, data):
        text = self.pending + data.decode("utf-8", "replace")
        self.pending = ""
        index = 0
        while index < len(text):
            character = text[index]
            if character == "\x1b":
                match = re.match(r"\x1b\[([?0-9;]*)([@-~])", text[index:])
                if not match:
                    if len(text) - index < 32:
                        self.pending = text[index:]
                        return
                    index += 1
                    continue
                parameters, final = match.group(1), match.group(2)
                if final == "H" and not parameters.startswith("?"):
                    parts = [int(p) if p else 1 for p in parameters.split(";")] if parameters else [1, 1]
                    self.row, self.column = parts[0] - 1, (parts[1] if len(parts) > 1 else 1) - 1
                elif final == "J" and parameters == "2":
                    self.rows = [[" "] * WIDTH for _ in range(HEIGHT)]
                index += len(match.group(0))
                continue
            if character == "\r":
                self.column = 0
            elif character == "\n":
                self.row = min(HEIGHT - 1, self.row + 1)
            elif character >= " ":
                if 0 <= self.row < HEIGHT and 0 <= self.column < WIDTH:
                    self.rows[self.row][self.column] = character
                self.column += 1
            index += 1

    def text(self, row):
        return "".join(self.rows[row])


def spawn(argv):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", HEIGHT, WIDTH, 0, 0))
    return pid, fd


def read_until(fd, screen, condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        left = deadline - time.monotonic()
        if left <= 0:
            raise SystemExit("timed out; the screen:\n" + "\n".join(screen.text(r) for r in range(HEIGHT)))
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            screen.feed(os.read(fd, 65536))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def baseline(count):
    """A line through a pseudo-terminal and back (`cat` echoing it): what any terminal program
    costs on this machine before it does anything."""
    pid, fd = spawn(["cat"])
    times = []
    received = b""
    for index in range(count):
        line = b"%08d\r" % index
        start = time.monotonic()
        os.write(fd, line)
        expected = b"%08d" % index
        while received.count(expected) < 2:  # the terminal's echo, then cat's copy
            ready, _, _ = select.select([fd], [], [], 5)
            if not ready:
                raise SystemExit("cat did not answer")
            received += os.read(fd, 65536)
        times.append((time.monotonic() - start) * 1000)
        received = b""
    os.kill(pid, 15)
    os.waitpid(pid, 0)
    return times


def main():
    arguments = sys.argv[1:]
    if len(arguments) < 2:
        raise SystemExit(__doc__)
    cli, socket = arguments[0], arguments[1]
    options = dict(zip(arguments[2::2], arguments[3::2]))
    scans = int(options.get("--scans", "300"))
    code = options.get("--code", "20000011")
    base = baseline(scans)
    os.environ["NO_COLOR"] = "1"
    pid, fd = spawn([cli, "--socket", socket, "lane"])
    screen = Screen()
    read_until(fd, screen, lambda: "online" in screen.text(19) or "online" in screen.text(20))
    times = []
    count_pattern = re.compile(r"(\d+) items?\s*$")

    def count():
        match = count_pattern.search(screen.text(0))
        return int(match.group(1)) if match else 0

    # Ring up on an order of its own: park what may be open, so the count starts from 0.
    start_count = count()
    for index in range(1, scans + 1):
        start = time.monotonic()
        os.write(fd, (code + "\r").encode())
        read_until(fd, screen, lambda: count() >= start_count + index)
        times.append((time.monotonic() - start) * 1000)
        if start_count + index >= 450:  # an order holds 500 lines: void it and go on
            os.write(fd, b"ay")
            read_until(fd, screen, lambda: count() == 0)
            start_count = -index
    os.write(fd, b"\x03")
    os.waitpid(pid, 0)
    line = lambda name, values: print(
        "%-28s p50 %6.2f  p90 %6.2f  p99 %6.2f  max %6.2f ms" % (
            name, percentile(values, 0.5), percentile(values, 0.9), percentile(values, 0.99), max(values)))
    line("pty echo (cat), baseline", base)
    line("scan Enter -> line on screen", times)
    print("result scans=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f baseline_p99_ms=%.2f" % (
        scans, percentile(times, 0.5), percentile(times, 0.9), percentile(times, 0.99), max(times),
        percentile(base, 0.99)))


if __name__ == "__main__":
    main()
