"""Peak memory of a benchmark, sampled from /proc (Linux): the driver (this Python process and the JVM it
started) and the whole run (this process and every descendant: the JVM, Spark's Python workers).

`Sampler` reads the resident set size (RSS) of those processes every `interval_s` seconds in a thread;
`phase(name)` collects the peaks seen while a phase runs. Sampling can miss a spike shorter than the
interval; the figures are peaks of the sums at each sample, not sums of each process's own peak.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MB = 1024 * 1024


def rss(pid: int) -> int:
    """Resident bytes of `pid` (0 when it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def is_jvm(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "java"
    except OSError:
        return False


def _exe(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def kind(comm_is_java: bool, exe: str | None, parent_is_jvm: bool, parent_exe: str | None) -> str | None:
    """How a descendant counts: `jvm`, `other`, or None for a JVM's child that has not yet run its own
    program (the JVM spawns `chmod` and the like with `posix_spawn`: until the child execs, it shares the
    JVM's address space, and its resident size reads as the JVM's; counting it once more doubled a
    benchmark's whole-run peak). Its name is the spawning thread's, not `java`, so the name alone misses it."""
    if comm_is_java:
        return "jvm"
    if parent_is_jvm and exe is not None and exe == parent_exe:
        return None
    return "other"


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid`, from /proc/PID/task/*/children."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{parent}/task").iterdir():
                with contextlib.suppress(OSError):
                    children = [int(c) for c in (task / "children").read_text().split()]
                    found.extend(children)
                    todo.extend(children)
    return found


@dataclass
class Peaks:
    """Peak RSS in bytes during a phase: Python alone, the driver (Python + JVM), the whole run."""

    python: int = 0
    driver: int = 0
    run: int = 0
    python_at_start: int = 0

    def take(self, python: int, jvm: int, others: int) -> None:
        self.python = max(self.python, python)
        self.driver = max(self.driver, python + jvm)
        self.run = max(self.run, python + jvm + others)

    def as_dict(self) -> dict[str, float]:
        return {"python_mb": round(self.python / MB, 1), "driver_mb": round(self.driver / MB, 1),
                "run_mb": round(self.run / MB, 1), "python_at_start_mb": round(self.python_at_start / MB, 1)}


class Sampler:
    """Samples this process tree's memory in a daemon thread; peaks overall and per phase."""

    def __init__(self, interval_s: float = 0.1) -> None:
        self.interval_s = interval_s
        self.overall = Peaks()
        self.phases: dict[str, Peaks] = {}
        self._current: Peaks | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="memory-sampler", daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        me = os.getpid()
        python, jvm, others = rss(me), 0, 0
        for pid in descendants(me):
            parent = _parent(pid)
            counted = kind(is_jvm(pid), _exe(pid), parent is not None and is_jvm(parent),
                           _exe(parent) if parent is not None else None)
            if counted == "jvm":
                jvm += rss(pid)
            elif counted == "other":
                others += rss(pid)
        with self._lock:
            self.overall.take(python, jvm, others)
            if self._current is not None:
                self._current.take(python, jvm, others)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[Peaks]:
        """Collect the peaks while the body runs (sampled at its start and end too)."""
        peaks = Peaks(python_at_start=rss(os.getpid()))
        with self._lock:
            self._current = self.phases[name] = peaks
        self.sample()
        try:
            yield peaks
        finally:
            self.sample()
            with self._lock:
                self._current = None
