"""The benchmark's memory sampler: it finds every descendant process and counts their resident memory."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from benchmarks.memory import MB, Sampler, _exe, _parent, descendants, is_jvm, kind, rss

HOLD = 80  # MB the grandchild keeps resident


def test_descendants_and_their_memory_count_in_the_whole_run_not_in_python() -> None:
    script = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
              f"\"b = bytearray({HOLD} * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('ready', flush=True); "
              "import time; time.sleep(30)\"])")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    tree: list[int] = []
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        everyone = descendants(os.getpid())  # with a Spark session an earlier test started, if any
        tree = descendants(child.pid)
        assert child.pid in everyone and len(tree) == 1 and tree[0] in everyone  # the child and its own child
        grandchild = tree[0]
        assert rss(grandchild) >= HOLD * MB
        jvms = sum(rss(pid) for pid in everyone if is_jvm(pid))
        with Sampler(interval_s=0.05) as sampler, sampler.phase("held") as peaks:
            time.sleep(0.2)
        assert peaks.run - peaks.driver >= HOLD * MB  # not a JVM: counted in the whole run only
        assert peaks.python >= rss(os.getpid()) // 2
        assert abs((peaks.driver - peaks.python) - jvms) <= max(jvms // 5, MB)  # the driver adds the JVMs only
    finally:
        for pid in tree:  # the grandchild first, so it is not left behind as an orphan
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        child.kill()
        child.wait()


def test_a_jvms_child_counts_once_it_runs_its_own_program() -> None:
    java = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
    assert kind(True, java, False, sys.executable) == "jvm"
    assert kind(False, java, True, java) is None  # spawned, not yet exec'd: the JVM's own pages
    assert kind(False, "/usr/bin/chmod", True, java) == "other"
    assert kind(False, sys.executable, False, sys.executable) == "other"  # a forked Python worker is its own


def test_a_process_knows_its_parent_and_program() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert _parent(child.pid) == os.getpid()
        assert _exe(child.pid) == os.path.realpath(sys.executable)
    finally:
        child.kill()
        child.wait()
