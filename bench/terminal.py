"""Run a full-screen app in a real terminal and time what it paints.

Two drivers with one interface:

- `PtyApp` (default): the app gets a pseudo-terminal of a fixed size; a reader thread
  drains everything it writes and timestamps each chunk as it arrives. No polling, so
  the harness steals no CPU from the app it measures (it matters on 2 cores).
- `TmuxApp` (`--terminal tmux`): the app runs in a tmux pane (a full terminal emulator)
  and the screen is read with `capture-pane` every few milliseconds. Closer to a person's
  terminal, but the polling costs CPU and adds up to one poll interval of latency.

"Painted" means the bytes (pty) or the screen (tmux) first match a pattern, e.g. a fact's
id. "Repaint after a key" is the time from writing the key to the first output after it
(`first_after`) or to the last output before the app falls quiet (`settle`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Sequence
from pathlib import Path

KEYS_PTY = {"escape": b"\x1b", "enter": b"\r", "tab": b"\t", "backspace": b"\x7f"}
KEYS_TMUX = {"escape": "Escape", "enter": "Enter", "tab": "Tab", "backspace": "BSpace"}


def rss_mb(pid: int) -> float | None:
    """Resident memory of a process in MB (VmRSS), None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"^VmRSS:\s+(\d+)\s+kB", text, re.M)
    return int(m.group(1)) / 1024 if m else None


def cpu_ticks(pid: int) -> int | None:
    """User + system CPU time of a process (all its threads), in clock ticks."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def wait_idle(pid: int, *, window: float = 0.5, max_ticks: int = 2, timeout: float = 20.0) -> bool:
    """Wait until the process used at most `max_ticks` of CPU over `window` seconds.

    Quiet output is not enough: an app may work in a background thread (loading its
    store, computing verdicts) without painting, and that work would be timed as the
    next key's latency.
    """
    deadline = time.perf_counter() + timeout
    last = cpu_ticks(pid)
    while time.perf_counter() < deadline:
        time.sleep(window)
        now = cpu_ticks(pid)
        if now is None or last is None:
            return False
        if now - last <= max_ticks:
            return True
        last = now
    return False


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


class _Screen:
    """Timestamped output events, shared by the reader (producer) and the harness.

    Stream mode (pty): each event is a chunk of bytes the app wrote; `buf` is all of them.
    Snapshot mode (tmux): each event is the whole screen after a change.
    """

    def __init__(self, *, snapshots: bool = False) -> None:
        self.events: list[tuple[float, int]] = []  # (arrival time, end offset in `buf`)
        self.shots: list[bytes] = []  # snapshot mode: the screen after each event
        self.buf = bytearray()
        self.snapshots = snapshots
        self.cond = threading.Condition()
        self.closed = False

    def add(self, t: float, data: bytes) -> None:
        with self.cond:
            if self.snapshots:
                self.shots.append(data)
                self.buf = bytearray(data)
            else:
                self.buf += data
            self.events.append((t, len(self.buf)))
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def mark(self) -> int:
        with self.cond:
            return len(self.events)

    def _content(self, i: int, mark: int) -> bytes:
        """What event i brought: its chunk (stream) or its screen (snapshot).

        A chunk is extended back a little, so an id split over two writes is still
        found, but never before `mark` (output from before the key does not count).
        """
        if self.snapshots:
            return self.shots[i]
        begin = self.events[i - 1][1] if i else 0
        floor = self.events[mark - 1][1] if mark else 0
        return bytes(self.buf[max(floor, begin - 64) : self.events[i][1]])

    def _wait(self, i: int, deadline: float) -> bool:
        """Wait (holding the condition) until event i exists; False on timeout or close."""
        while len(self.events) <= i:
            left = deadline - time.perf_counter()
            if left <= 0 or self.closed:
                return False
            self.cond.wait(left)
        return True

    def wait_for(
        self, pattern: re.Pattern[bytes], timeout: float, mark: int = 0, since: float = 0.0
    ) -> float | None:
        """Arrival time of the first output after `mark` (and not before `since`) that
        matches `pattern`."""
        deadline = time.perf_counter() + timeout
        i = mark
        with self.cond:
            while self._wait(i, deadline):
                if self.events[i][0] >= since and pattern.search(self._content(i, mark)):
                    return self.events[i][0]
                i += 1
        return None

    def changed_ids(
        self, pattern: re.Pattern[bytes], mark: int, timeout: float, since: float = 0.0
    ) -> float | None:
        """Arrival time of the first output after `mark` that paints ids matching `pattern`
        (stream), or after which the ids on screen differ from those at `mark` (snapshot)."""
        if not self.snapshots:
            return self.wait_for(pattern, timeout, mark, since)
        deadline = time.perf_counter() + timeout
        with self.cond:
            before = pattern.findall(self.shots[mark - 1]) if mark else []
            i = mark
            while self._wait(i, deadline):
                if self.events[i][0] >= since and pattern.findall(self.shots[i]) != before:
                    return self.events[i][0]
                i += 1
        return None

    def first_after(self, mark: int, timeout: float, since: float = 0.0) -> float | None:
        """Arrival time of the first output after `mark` that arrived at `since` or later
        (a chunk read between taking the mark and sending a key was not caused by it)."""
        deadline = time.perf_counter() + timeout
        i = mark
        with self.cond:
            while self._wait(i, deadline):
                if self.events[i][0] >= since:
                    return self.events[i][0]
                i += 1
        return None

    def settle(self, mark: int, quiet: float, timeout: float) -> float | None:
        """Time of the last output after `mark` once nothing arrives for `quiet` seconds."""
        deadline = time.perf_counter() + timeout
        with self.cond:
            while True:
                last = self.events[-1][0] if len(self.events) > mark else None
                now = time.perf_counter()
                if last is not None and now - last >= quiet:
                    return last
                if now >= deadline or self.closed:
                    return last
                wake = (last + quiet) if last is not None else deadline
                self.cond.wait(max(0.001, min(wake, deadline) - now))


class PtyApp:
    """An app on a pseudo-terminal of `cols`×`rows`; start time taken just before spawn."""

    def __init__(
        self, cmd: Sequence[str], *, env: dict[str, str], cwd: str | os.PathLike[str],
        cols: int = 120, rows: int = 36,
    ) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.screen = _Screen()
        self._master = master
        env = {**env, "TERM": "xterm-256color", "COLORTERM": "truecolor",
               "COLUMNS": str(cols), "LINES": str(rows)}
        self.t_start = time.perf_counter()
        self.proc = subprocess.Popen(
            list(cmd), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
            start_new_session=True, close_fds=True,
        )
        os.close(slave)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self._master], [], [], 0.5)
            except (OSError, ValueError):
                break
            if not ready:
                if self.proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(self._master, 1 << 16)
            except OSError:
                break
            if not data:
                break
            self.screen.add(time.perf_counter(), data)
        self.screen.close()

    def send(self, key: str) -> float:
        os.write(self._master, KEYS_PTY.get(key, key.encode()))
        return time.perf_counter()

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self._master)
        self._thread.join(timeout=2)


class TmuxApp:
    """An app in a tmux pane on a private server (`-L`), read with `capture-pane`."""

    _count = 0
    _server = False

    def __init__(
        self, cmd: Sequence[str], *, env: dict[str, str], cwd: str | os.PathLike[str],
        cols: int = 120, rows: int = 36, poll: float = 0.005,
    ) -> None:
        TmuxApp._count += 1
        self.socket = f"mem-review-bench-{os.getpid()}"
        self.name = f"app{TmuxApp._count}"
        self.screen = _Screen(snapshots=True)
        self._poll = poll
        self._stop = threading.Event()
        if not TmuxApp._server:  # start the server outside the timing, once per run
            self._tmux("new-session", "-d", "-s", "keeper", "sleep", "86400")
            self._tmux("set-option", "-g", "default-terminal", "tmux-256color", check=False)
            TmuxApp._server = True
        assigns = [f"{k}={v}" for k, v in env.items()] + ["COLORTERM=truecolor"]
        self.t_start = time.perf_counter()
        self._tmux("new-session", "-d", "-s", self.name, "-x", str(cols), "-y", str(rows),
                   "-c", str(cwd), "env", "-i", *assigns, *cmd)
        self.pid = int(self._tmux("display-message", "-p", "-t", self.name, "#{pane_pid}"))
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _tmux(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                             text=True, check=False)
        if check and out.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {out.stderr.strip()}")
        return out.stdout.strip()

    def _watch(self) -> None:
        last = b""
        while not self._stop.is_set():
            out = subprocess.run(
                ["tmux", "-L", self.socket, "capture-pane", "-p", "-e", "-t", self.name],
                capture_output=True, check=False,
            )
            t = time.perf_counter()
            if out.returncode != 0:
                break
            if out.stdout != last:
                last = out.stdout
                self.screen.add(t, last)
            time.sleep(self._poll)
        self.screen.close()

    def send(self, key: str) -> float:
        if key in KEYS_TMUX:
            self._tmux("send-keys", "-t", self.name, KEYS_TMUX[key])
        else:
            self._tmux("send-keys", "-t", self.name, "-l", key)
        return time.perf_counter()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._tmux("kill-session", "-t", self.name, check=False)

    @classmethod
    def shutdown(cls) -> None:
        """Stop this run's private tmux server (only ours: its socket is named by our pid)."""
        if cls._server:
            subprocess.run(["tmux", "-L", f"mem-review-bench-{os.getpid()}", "kill-server"],
                           capture_output=True, check=False)
            cls._server = False
