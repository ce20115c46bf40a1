"""`mapwright run` as a user (or the designer) drives it: its own process, progress lines, cancel, failures."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.spark import classarchive

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"


def mw(*args: str, env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=timeout, env=env)


def events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_run_writes_the_run_directory_and_reports_progress(examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = mw("run", str(examples / "row_images" / "model.json"), "--data", str(examples / "row_images" / "data"),
             "--out", str(out), "--master", "local[2]")
    assert res.returncode == 0, res.stderr
    stream = events(res.stdout)
    stages = [e["stage"] for e in stream if e["event"] == "stage"]
    assert stages[:2] == ["start", "spark"] and "resolve" in stages and stages[-1] == "write"
    assert all(set(e) >= {"stage", "done", "total"} for e in stream if e["event"] == "stage")
    assert stream[-1]["event"] == "finished" and stream[-1]["status"] == "succeeded"
    manifest = json.loads((out / "manifest.json").read_text())
    counts = manifest["counts"]
    assert manifest["status"] == "succeeded" and manifest["master"] == "local[2]"
    assert manifest["spark_version"].startswith(("3.", "4."))
    assert set(manifest["stages"]) == {"decode", "net_effect", "resolve", "converge"}
    assert counts["deliveries"] == counts["applied"] + counts["resolved"] + counts["queued"]
    for name in ("conflicts.jsonl", "conflicts.parquet", "error_queue.jsonl", "rejects.jsonl", "convergence.json",
                 "tables/dst/ITEM.parquet", "tables/src/ITEM.parquet"):
        assert (out / name).exists(), name
    summary = mw("conflicts", str(out), "--format", "json")
    assert summary.returncode == 0
    assert json.loads(summary.stdout)["convergence"] == [{"mapping": "src_to_dst", "compared": 5, "diverged": 0}]
    text = mw("conflicts", str(out))
    assert "src_to_dst" in text.stdout and "converged" in text.stdout


def test_malformed_records_are_rejected_and_the_run_goes_on(examples: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(examples / "row_images" / "data", data)
    with (data / "changes" / "src.jsonl").open("a") as fh:
        fh.write("{not json\n")
        fh.write(json.dumps({"site": "src", "txn": "x", "seq": 1, "commit_ts": "2026-01-05T12:00:00Z",
                             "table": "NOPE", "op": "I", "after": {"ID": 1}}) + "\n")
        fh.write(json.dumps({"site": "src", "txn": "y", "seq": 1, "commit_ts": "yesterday",
                             "table": "ITEM", "op": "I", "after": {"ID": 2}}) + "\n")
    out = tmp_path / "run"
    res = mw("run", str(examples / "row_images" / "model.json"), "--data", str(data), "--out", str(out),
             "--master", "local[1]")
    assert res.returncode == 0, res.stderr
    rejects = [json.loads(line) for line in (out / "rejects.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rejects] == [18, 19, 20]
    assert all(r["reason"] and r["file"].endswith("src.jsonl") for r in rejects)
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["records"] == 20 and counts["rejects"] == 3


@pytest.mark.parametrize(("args", "says"), [
    (["--data", "/nonexistent/data"], "no such folder"),
    (["--master", "spark://127.0.0.1:1"], "cannot reach the Spark master"),
    (["--master", "sc://127.0.0.1:1"], "cannot reach the Spark master"),
    (["--master", "yarn"], "unknown master"),
])
def test_unusable_input_gives_exit_2_and_one_line(examples: Path, tmp_path: Path, args: list[str], says: str) -> None:
    base = {"--data": str(examples / "row_images" / "data"), "--out": str(tmp_path / "run"), "--master": "local[1]"}
    base.update(dict(zip(args[::2], args[1::2], strict=True)))
    res = mw("run", str(examples / "row_images" / "model.json"), *[x for kv in base.items() for x in kv])
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in res.stderr


def test_missing_java_is_a_clear_error(examples: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)
    res = mw("run", str(examples / "row_images" / "model.json"), "--data", str(examples / "row_images" / "data"),
             "--out", str(tmp_path / "run"), "--master", "local[1]", env=env)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [res.stderr.strip()]
    assert "Java 17" in res.stderr and "not found" in res.stderr


def test_a_model_with_errors_does_not_run(examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = mw("run", str(examples / "dkey_rules.json"), "--data", str(examples / "row_images" / "data"),
             "--out", str(out), "--master", "local[1]")
    assert res.returncode == 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "validation error" in manifest["reason"]
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]


def test_a_bad_schedule_fails_with_its_reason(examples: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(examples / "ordering_conflict" / "data", data)
    (data / "schedule.json").write_text('{"links": [{"from": "A", "to": "B", "delay_s": "soon"}]}')
    out = tmp_path / "run"
    res = mw("run", str(examples / "ordering_conflict" / "model.json"), "--data", str(data), "--out", str(out),
             "--master", "local[1]")
    assert res.returncode == 2
    assert "schedule.json" in res.stderr.strip().splitlines()[-1]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "schedule.json" in manifest["reason"]
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]


@pytest.mark.parametrize("when", ["spark", "decode"])
def test_sigterm_cancels_and_leaves_only_a_cancelled_manifest(examples: Path, tmp_path: Path, when: str) -> None:
    """Cancelled between stages, or in the middle of a Spark job (where py4j is waiting on the JVM)."""
    out = tmp_path / "run"
    proc = subprocess.Popen([MAPWRIGHT, "run", str(examples / "ordering_conflict" / "model.json"), "--data",
                             str(examples / "ordering_conflict" / "data"), "--out", str(out), "--master", "local[1]"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if json.loads(line).get("stage") == when:
            break
    if when == "decode":
        time.sleep(1.0)  # well inside the first Spark job
    proc.send_signal(signal.SIGTERM)
    rest, _ = proc.communicate(timeout=120)  # noqa: F841
    assert proc.returncode == 1
    assert events(rest)[-1]["status"] == "cancelled"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "cancelled" and "SIGTERM" in manifest["reason"]
    assert "Traceback" not in _
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]


def test_conflicts_on_something_that_is_not_a_run(tmp_path: Path) -> None:
    res = mw("conflicts", str(tmp_path))
    assert res.returncode == 2 and "not a run directory" in res.stderr


def _descendants(pid: int) -> list[int]:
    """Every process below `pid`, from each process's parent in /proc/PID/stat (the kernel's `children`
    lists are documented as unreliable while the children run: CI once found no JVM under a running run)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        out += children
        todo += children
    return out


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the JVM's command line from /proc (Linux)")
@pytest.mark.parametrize("padding", [0, 5 << 20, 129 << 20], ids=["small", "medium", "large"])
def test_the_runs_jvm_compiles_for_the_size_of_its_input_and_maps_the_class_archive(
        examples: Path, tmp_path: Path, padding: int) -> None:
    """A `mapwright run` process starts its JVM for the run it serves: C1 only up to 128 MiB of input, which
    ends before C2's code would pay, huge methods compiled past 4 MiB; both tiers for a larger input. Either
    way it maps Spark's class archive (which `make test` records, and this records if it has not)."""
    archive = classarchive.build()
    assert archive is not None and archive.is_file()
    data = tmp_path / "data"
    shutil.copytree(examples / "ordering_conflict" / "data", data)
    if padding:  # input bytes count every file the run is given (a sparse file: its size, no blocks)
        with (data / "padding.txt").open("wb") as fh:
            fh.truncate(padding)
    proc = subprocess.Popen([MAPWRIGHT, "run", str(examples / "ordering_conflict" / "model.json"), "--data",
                             str(data), "--out", str(tmp_path / "run"), "--master", "local[1]"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # the session is up: its JVM is running
            if json.loads(line).get("stage") == "spark":
                break
        java = [cmd for pid in _descendants(proc.pid) for cmd in [_cmdline(pid)] if "SparkSubmit" in cmd]
        assert len(java) == 1, java
        assert ("-XX:TieredStopAtLevel=1" in java[0]) is (padding < 128 << 20)
        assert "-XX:+UseParallelGC" in java[0]
        assert ("-XX:-DontCompileHugeMethods" in java[0]) is (padding > 0)  # a larger run compiles huge methods
        jvm = next(pid for pid in _descendants(proc.pid) if "SparkSubmit" in _cmdline(pid))
        mapped = sum(int(end, 16) - int(start, 16) for line in Path(f"/proc/{jvm}/maps").read_text().splitlines()
                     if line.endswith(str(archive)) for start, end in [line.split()[0].split("-")])
        assert mapped > archive.stat().st_size // 2  # its classes mapped: an archive HotSpot rejects maps none
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
