"""The benchmark's memory sampler: it finds every descendant process and counts their resident memory."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from benchmarks.memory import MB, Sampler, descendants, rss

HOLD = 80  # MB the grandchild keeps resident


def test_descendants_and_their_memory_count_in_the_whole_run_not_in_python() -> None:
    script = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
              f"\"b = bytearray({HOLD} * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('ready', flush=True); "
              "import time; time.sleep(30)\"])")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    tree: list[int] = []
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        tree = descendants(os.getpid())
        assert child.pid in tree and len(tree) >= 2  # the child and its own child
        grandchild = max(tree, key=rss)
        assert rss(grandchild) >= HOLD * MB
        with Sampler(interval_s=0.05) as sampler, sampler.phase("held") as peaks:
            time.sleep(0.2)
        assert peaks.run - peaks.driver >= HOLD * MB  # not a JVM: counted in the whole run only
        assert peaks.python == peaks.driver >= rss(os.getpid()) // 2
    finally:
        for pid in reversed(tree):  # the grandchild first, so it is not left behind as an orphan
            if pid != child.pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        child.kill()
        child.wait()
