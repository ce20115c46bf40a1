"""Faults, done for real: real `mapwright run` processes killed (SIGTERM, SIGKILL) at start-up, mid-run and
while publishing, re-runs over a good run that fail, a full disk (a small tmpfs, mounted as root), two runs
on one --out, and an --out that is not a run directory (docs/contract.md §6, "Run directories are precious").

The good run each test starts from is written by the pure-Python reference (fast); the runs under test are
real `mapwright run` processes on Spark (local[1], the contract's smallest examples).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.run.rundir import layout, publish
from engine.run.rundir.publish import attempt_dir
from engine.run.rundir.write import run_reference_to_dir

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"
PUBLISH_PY = Path(__file__).resolve().parents[2] / "engine" / "run" / "rundir" / "publish.py"


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` with its bytes (None for a folder): equal snapshots, byte for byte."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def start(model: Path, data: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([MAPWRIGHT, "run", str(model), "--data", str(data), "--out", str(out),
                             "--master", "local[1]"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def mw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=300)


def wait_for_stage(proc: subprocess.Popen[str], stage: str) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        if json.loads(line).get("stage") == stage:
            return
    raise AssertionError(f"the run ended before stage {stage!r}: {proc.stderr.read() if proc.stderr else ''}")


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (the JVM that Spark launches, and anything it starts)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def gone(pids: set[int], within_s: float = 10.0) -> bool:
    """True once none of `pids` runs (a zombie counts as gone)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        alive = set()
        for pid in pids:
            with contextlib.suppress(OSError):
                if (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.add(pid)
        if not alive:
            return True
        time.sleep(0.1)
    return False


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture
def good_run(examples: Path, tmp_path: Path) -> Path:
    """A succeeded run of `ordering_conflict` at tmp_path/runs/run."""
    folder = examples / "ordering_conflict"
    status, out = run_reference_to_dir(folder / "model.json", folder / "data", tmp_path / "runs" / "run")
    assert status == "succeeded"
    return out


def last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


# -- what --out may be


@pytest.mark.parametrize("kind", ["empty manifest", "other files", "file"])
def test_an_out_that_is_not_a_run_directory_is_exit_2_and_left_byte_for_byte(
        examples: Path, tmp_path: Path, kind: str) -> None:
    """`mkdir v; echo {} > v/manifest.json; cp important.txt v/; mapwright run bad.json --out v` lost v."""
    out = tmp_path / "v"
    if kind == "file":
        out.write_text("a file the user keeps")
    else:
        out.mkdir()
        (out / "important.txt").write_text("the only copy")
        if kind == "empty manifest":
            (out / "manifest.json").write_text("{}\n")
    before = snapshot(tmp_path)
    for model in ("dkey_rules.json", "row_images/model.json"):  # a model that fails validation, a good one
        res = mw("run", str(examples / model), "--data", str(examples / "row_images" / "data"), "--out", str(out),
                 "--master", "local[1]")
        assert res.returncode == 2, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"mapwright: {out}: "), res.stderr
        assert "not a Mapwright run directory" in res.stderr or "is a file" in res.stderr
        assert res.stdout == ""  # checked before anything else runs
        assert snapshot(tmp_path) == before


# -- re-runs over a good run


def test_a_run_that_fails_validation_over_a_good_run_keeps_it(examples: Path, good_run: Path) -> None:
    before = snapshot(good_run)
    res = mw("run", str(examples / "dkey_rules.json"), "--data", str(examples / "row_images" / "data"),
             "--out", str(good_run), "--master", "local[1]")
    assert res.returncode == 1
    assert snapshot(good_run) == before
    manifest = attempt_dir(good_run) / "manifest.json"
    assert json.loads(manifest.read_text())["status"] == "failed"
    assert str(manifest) in last_line(res.stderr) and "unchanged" in last_line(res.stderr)
    finished = json.loads(res.stdout.strip().splitlines()[-1])
    assert (finished["status"], finished["manifest"], finished["out"]) == ("failed", str(manifest), str(good_run))
    assert hidden(good_run.parent) == []


@pytest.mark.parametrize("rundir", ["absent", "a good run"])
def test_user_folders_named_like_leftovers_survive_a_run_that_fails_validation(examples: Path, tmp_path: Path,
                                                                              rundir: str) -> None:
    """The tester's cases o1 and o2: a run on `results` whose model failed validation deleted
    `.results.20260105.old/notes.txt` and `.results.backup_1.partial/`, and with `results` absent it first
    moved the backup's `results/` into place (then refused it as not a run directory)."""
    out = tmp_path / "runs" / "run"
    if rundir == "a good run":
        folder = examples / "ordering_conflict"
        assert run_reference_to_dir(folder / "model.json", folder / "data", out)[0] == "succeeded"
    theirs = {".run.20260105.old/notes.txt": "a dated backup", ".run.20260105.old/run/report.txt": "mine",
              ".run.backup_1.partial/x.txt": "mine"}
    for rel, text in theirs.items():
        (out.parent / rel).parent.mkdir(parents=True, exist_ok=True)
        (out.parent / rel).write_text(text)
    before = snapshot(out.parent)
    res = mw("run", str(examples / "dkey_rules.json"), "--data", str(examples / "row_images" / "data"),
             "--out", str(out), "--master", "local[1]")
    assert res.returncode == 1, res.stderr  # the validation failure, not a refused RUNDIR (exit 2)
    after = snapshot(out.parent)
    assert {k: v for k, v in after.items() if k.startswith(".")} == {k: v for k, v in before.items()
                                                                     if k.startswith(".")}
    assert hidden(out.parent) == [".run.20260105.old", ".run.backup_1.partial"]
    written = out if rundir == "absent" else attempt_dir(out)
    assert json.loads((written / "manifest.json").read_text())["status"] == "failed"


def test_sigterm_during_start_up_cancels_within_two_seconds(examples: Path, good_run: Path) -> None:
    """It took 9 s: the main thread sat in pyspark's import and the JVM's launch before it saw the flag."""
    before = snapshot(good_run)
    folder = examples / "ordering_conflict"
    proc = start(folder / "model.json", folder / "data", good_run)
    wait_for_stage(proc, "start")
    time.sleep(1.5)  # importing pyspark, launching the JVM
    children = descendants(proc.pid)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    rest, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == 1, err
    assert took < 2.0, f"cancelling took {took:.1f} s"
    assert json.loads(rest.strip().splitlines()[-1])["status"] == "cancelled"
    assert snapshot(good_run) == before
    assert json.loads((attempt_dir(good_run) / "manifest.json").read_text())["status"] == "cancelled"
    assert "cancelled" in last_line(err) and str(attempt_dir(good_run) / "manifest.json") in last_line(err)
    assert "Traceback" not in err
    assert gone(children), "the JVM outlived the cancelled run"
    assert hidden(good_run.parent) == []


@pytest.mark.slow
def test_sigterm_mid_run_keeps_the_good_run_and_a_second_run_is_refused(examples: Path, good_run: Path) -> None:
    before = snapshot(good_run)
    folder = examples / "ordering_conflict"
    first = start(folder / "model.json", folder / "data", good_run)
    wait_for_stage(first, "decode")
    second = mw("run", str(folder / "model.json"), "--data", str(folder / "data"), "--out", str(good_run),
                "--master", "local[1]")
    assert second.returncode == 2
    assert second.stderr.strip().splitlines() == [last_line(second.stderr)]
    assert f"process {first.pid}" in second.stderr and "another run" in second.stderr
    time.sleep(1.0)  # inside a Spark job
    first.send_signal(signal.SIGTERM)
    rest, err = first.communicate(timeout=120)
    assert first.returncode == 1, err
    assert json.loads(rest.strip().splitlines()[-1])["status"] == "cancelled"
    assert snapshot(good_run) == before
    assert json.loads((attempt_dir(good_run) / "manifest.json").read_text())["status"] == "cancelled"
    assert str(attempt_dir(good_run) / "manifest.json") in last_line(err)
    assert hidden(good_run.parent) == []


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["start", "decode"])
def test_sigkill_keeps_the_good_run_and_the_next_run_cleans_up(examples: Path, good_run: Path,
                                                                 stage: str) -> None:
    before = snapshot(good_run)
    folder = examples / "ordering_conflict"
    proc = start(folder / "model.json", folder / "data", good_run)
    wait_for_stage(proc, stage)
    time.sleep(1.0)
    children = descendants(proc.pid)
    proc.kill()
    proc.communicate(timeout=60)
    assert snapshot(good_run) == before
    assert gone(children), "the JVM outlived the killed run"
    # the lock (released by the kernel, left on disk) and, once Spark writes, the staged run it was filling
    left = hidden(good_run.parent)
    assert left == [".run.mapwright-lock"] if stage == "start" else \
        left in ([".run.mapwright-lock"], [".run.mapwright-lock", ".run.mapwright-new"])
    nxt = mw("run", str(examples / "dkey_rules.json"), "--data", str(folder / "data"), "--out", str(good_run),
             "--master", "local[1]")
    assert nxt.returncode == 1  # not "busy": the dead run's lock is free
    assert snapshot(good_run) == before
    assert hidden(good_run.parent) == []


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs (the test runs as root, as `make test` does here); unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0755", "tmpfs", str(disk)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.fail(f"cannot mount a small tmpfs for the full-disk test (needs root): {res.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.slow
def test_a_full_disk_keeps_the_good_run(examples: Path, small_disk: Path) -> None:
    folder = examples / "ordering_conflict"
    status, good = run_reference_to_dir(folder / "model.json", folder / "data", small_disk / "run")
    assert status == "succeeded"
    before = snapshot(good)
    vfs = os.statvfs(small_disk)
    free = vfs.f_bavail * vfs.f_frsize
    (small_disk / "filler").write_bytes(b"\0" * (free - 3 * 4096))  # the lock, one file of the run, a manifest
    res = mw("run", str(folder / "model.json"), "--data", str(folder / "data"), "--out", str(good),
             "--master", "local[1]")
    assert res.returncode == 1, res.stderr
    assert snapshot(good) == before
    manifest = json.loads((attempt_dir(good) / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "No space left on device" in manifest["reason"]
    assert "No space left on device" in last_line(res.stderr) and "unchanged" in last_line(res.stderr)
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "run", "run.attempt"]


@pytest.mark.parametrize(("text", "line"), [
    ("An error occurred while calling o1037.save.\n: org.apache.spark.SparkException: [TASK_WRITE_FAILED] Task "
     "failed while writing rows to file:/x. SQLSTATE: 58030\n\tat a.b(C.scala:1)\nCaused by: org.apache.hadoop.fs."
     "FSError: java.io.IOException: No space left on device\n\tat d.e(F.java:2)\nCaused by: java.io.IOException: "
     "No space left on device\n\tat g.h(I.java:3)",
     "cannot write the run directory: No space left on device"),
    ("An error occurred while calling o1037.save.\n: org.apache.spark.SparkException: Job aborted.\n\tat a.b(C.sc"
     "ala:1)\nCaused by: java.io.IOException: No space left on device\n\tat g.h(I.java:3)",
     "cannot write the run directory: No space left on device"),  # the job's commit, not a task, ran out
    ("An error occurred while calling o12.collectToPython.\n: org.apache.spark.SparkException: Job aborted.\n\tat "
     "a.b(C.scala:1)\nCaused by: java.io.FileNotFoundException: /d/changes/a.jsonl (No such file or directory)",
     "java.io.FileNotFoundException: /d/changes/a.jsonl (No such file or directory)"),  # a read: its root cause
])
def test_a_spark_failure_is_one_line_naming_its_root_cause(text: str, line: str) -> None:
    from engine.runner import spark_failure

    assert spark_failure(RuntimeError(text)) == line


# -- the publish instant


CHILD = """
import importlib.util, json, os, sys, time
from pathlib import Path
def load(name, path):  # the protocol's two files alone (standard library only), not all of engine.run
    spec = importlib.util.spec_from_file_location(name, path)
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
layout = load("engine.run.rundir.layout", Path(sys.argv[1]).with_name("layout.py"))
publish = load("publish", sys.argv[1])
out, how = Path(sys.argv[2]), sys.argv[3]
rename, swap = os.rename, publish.exchange
def slow_rename(a, b):  # stretch the time between steps, so that kills land between them often
    rename(a, b)
    time.sleep(0.002)
def slow_exchange(a, b):
    swap(a, b)
    time.sleep(0.002)
os.rename, publish.exchange = slow_rename, slow_exchange
if how == "renames":
    def unsupported(*_):
        raise publish.ExchangeUnsupported(22, "exchange switched off")
    publish.exchange = unsupported
n = json.loads((out / "manifest.json").read_text())["n"]
PARTS = [name for name in layout.RUN_FILES if name != "manifest.json"]
print("ready", flush=True)
while True:
    n += 1
    def fill(tmp, n=n):
        for part in PARTS:
            (tmp / part).write_text(str(n) * 2000)
        (tmp / "manifest.json").write_text(json.dumps({"engine": "mapwright test", "status": "succeeded", "n": n}))
    with publish.claim(out):
        publish.publish(out, fill)
"""


def check_whole(out: Path) -> int:
    """RUNDIR holds one whole run (its manifest and every part of the same generation); returns it."""
    n = json.loads((out / "manifest.json").read_text())["n"]
    assert sorted(p.name for p in out.iterdir()) == sorted(layout.RUN_FILES)
    assert all((out / part).read_text() == str(n) * 2000 for part in layout.RUN_FILES if part != "manifest.json")
    return int(n)


@pytest.mark.parametrize(("how", "times"), [("exchange", 50), ("renames", 30)])
def test_sigkill_while_publishing_never_leaves_neither(tmp_path: Path, how: str, times: int) -> None:
    """A child publishes over and over and is SIGKILLed at a random instant, `times` times. With exchange,
    RUNDIR holds a whole run at every instant; with two renames, once the next run has recovered it."""
    out = tmp_path / "run"
    out.mkdir()
    for part in layout.RUN_FILES:
        (out / part).write_text("0" * 2000)
    (out / "manifest.json").write_text(json.dumps({"engine": "mapwright test", "status": "succeeded", "n": 0}))
    rng = random.Random(7)
    generations, interrupted, missing = [0], 0, 0
    for _ in range(times):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(PUBLISH_PY), str(out), how],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.04))
        child.kill()
        child.wait(timeout=30)
        if how == "exchange":
            check_whole(out)
        missing += not out.exists()
        interrupted += any(p.name != ".run.mapwright-lock" for p in tmp_path.iterdir() if p.name.startswith("."))
        with publish.claim(out):  # what the next run on RUNDIR does first
            pass
        generations.append(check_whole(out))
        assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    assert generations == sorted(generations) and generations[-1] > times  # it did publish, and never went back
    assert interrupted > 0  # some kills fell inside a publish, not only between two
    assert missing == 0 if how == "exchange" else missing > 0  # the renames' window was hit, and recovered
