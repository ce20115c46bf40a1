"""`mapwright run --engine auto|inprocess|spark`: the in-process engine writes the run directory a Spark run
writes, through the same protocol (lock, staging, attempt manifests, cancel), and `auto` keeps every run
that names a master on Spark."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from engine.runner import AUTO_INPROCESS_BYTES, RunUsageError, choose_engine

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS / "fixtures" / "examples"
sys.path.insert(0, str(TESTS / "run"))
sys.path.insert(0, str(TESTS / "spark"))

from sparkkit import rundir_doc  # noqa: E402
from test_run_examples import check_against  # noqa: E402

MAPWRIGHT = [sys.executable, "-m", "engine.cli"]


def mapwright(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MAPWRIGHT, *args], capture_output=True, text=True, timeout=timeout, check=False)


def manifest(rundir: Path) -> dict[str, Any]:
    return json.loads((rundir / "manifest.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", ["ordering_conflict", "row_images"])
def test_an_in_process_run_gives_the_contract_examples_expected_results(tmp_path: Path, name: str) -> None:
    folder = EXAMPLES / name
    res = mapwright("run", str(folder / "model.json"), "--data", str(folder / "data"), "--out", str(tmp_path / "run"),
                    "--engine", "inprocess")
    assert res.returncode == 0, res.stderr
    doc = manifest(tmp_path / "run")
    assert doc["status"] == "succeeded" and doc["run_engine"] == "inprocess"
    assert doc["master"] is None and doc["spark_version"] is None
    finished = json.loads(res.stdout.splitlines()[-1])
    assert finished["event"] == "finished" and finished["engine"] == "inprocess"
    from engine.summary import read_run

    summary = read_run(tmp_path / "run")
    assert summary.status == "succeeded"
    expected = json.loads((folder / "expected.json").read_text())
    import pyarrow.parquet as pq

    tables = {f"{p.parent.name}.{p.stem}": pq.read_table(p).to_pylist()
              for p in (tmp_path / "run" / "tables").glob("*/*.parquet")}
    conflicts = [json.loads(line) for line in (tmp_path / "run" / "conflicts.jsonl").read_text().splitlines()]
    convergence = json.loads((tmp_path / "run" / "convergence.json").read_text())["mappings"]
    check_against(expected, tables, conflicts, doc["counts"]["queued"], doc["counts"]["rejects"],
                  {m["mapping"]: m["diverged"] for m in convergence})


def test_auto_runs_small_samples_in_process_and_a_named_master_on_spark(tmp_path: Path) -> None:
    data = EXAMPLES / "row_images" / "data"
    assert choose_engine("auto", None, data) == ("inprocess", None)
    assert choose_engine("auto", "local[2]", data) == ("spark", "local[2]")
    assert choose_engine("spark", None, data) == ("spark", "local[*]")
    assert choose_engine("inprocess", None, data) == ("inprocess", None)
    big = tmp_path / "big"
    (big / "changes").mkdir(parents=True)
    with (big / "changes" / "day.jsonl").open("wb") as fh:
        fh.truncate(AUTO_INPROCESS_BYTES + 1)  # a sparse file: its size is what auto reads
    assert choose_engine("auto", None, big) == ("spark", "local[*]")
    with pytest.raises(RunUsageError, match="--master is for Spark runs"):
        choose_engine("inprocess", "local[2]", data)


def test_in_process_with_a_master_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    folder = EXAMPLES / "row_images"
    res = mapwright("run", str(folder / "model.json"), "--data", str(folder / "data"), "--out", str(tmp_path / "run"),
                    "--engine", "inprocess", "--master", "local[2]")
    assert res.returncode == 2 and "--master is for Spark runs" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "run").exists()


def test_a_failed_in_process_run_over_a_good_one_leaves_it_and_writes_the_attempt(tmp_path: Path) -> None:
    folder = EXAMPLES / "row_images"
    out = tmp_path / "run"
    assert mapwright("run", str(folder / "model.json"), "--data", str(folder / "data"), "--out", str(out),
                     "--engine", "inprocess").returncode == 0
    before = rundir_doc(out)
    bad = tmp_path / "data"
    (bad / "changes").mkdir(parents=True)
    (bad / "schedule.json").write_text("{not json")
    res = mapwright("run", str(folder / "model.json"), "--data", str(bad), "--out", str(out), "--engine", "inprocess")
    assert res.returncode == 2 and "schedule.json" in res.stderr and "Traceback" not in res.stderr
    assert rundir_doc(out) == before
    attempt = manifest(tmp_path / "run.attempt")
    assert attempt["status"] == "failed" and attempt["run_engine"] == "inprocess"


CATASTROPHIC = json.loads((TESTS / "fixtures" / "backtracking" / "model.json").read_text())
"""A mapping whose where clause `S rlike '^(a+)+$'` backtracks for minutes on a long almost-match."""

RECORD = {"site": "a", "txn": "t1", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "I"}


def start_backtracking_run(tmp_path: Path, stderr: int) -> tuple[subprocess.Popen[str], Path]:
    """An in-process run of `CATASTROPHIC` on one change, started and followed until it is inside the regex."""
    (tmp_path / "model.json").write_text(json.dumps(CATASTROPHIC))
    changes = tmp_path / "data" / "changes"
    changes.mkdir(parents=True)
    (changes / "day.jsonl").write_text(json.dumps({**RECORD, "after": {"ID": 1, "S": "a" * 40 + "!"}}) + "\n")
    out = tmp_path / "run"
    proc = subprocess.Popen([*MAPWRIGHT, "run", str(tmp_path / "model.json"), "--data", str(tmp_path / "data"),
                             "--out", str(out), "--engine", "inprocess"], stdout=subprocess.PIPE, stderr=stderr,
                            text=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # wait until the run is inside its stages
        if '"stage": "net_effect"' in line:
            break
    return proc, out


def test_cancel_stops_an_in_process_run_within_a_second_even_inside_a_regex(tmp_path: Path) -> None:
    """Python's `re` holds the interpreter for a whole match: the run works in a child process that a cancel
    kills, so `(a+)+` on a long string no longer keeps it for minutes."""
    proc, out = start_backtracking_run(tmp_path, subprocess.PIPE)
    time.sleep(0.5)
    asked = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=20)
    assert time.monotonic() - asked < 1.5
    assert proc.returncode == 1
    assert manifest(out)["status"] == "cancelled"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name not in ("model.json", "data", "run")]
    assert leftovers == [] or all(name.startswith(".run.") for name in leftovers)
    assert _children_of(proc.pid) == []


def _children_of(pid: int) -> list[int]:
    """Processes whose parent is `pid` (Linux's /proc), after a moment for the kernel to reap them."""
    time.sleep(0.2)
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def test_a_killed_in_process_run_leaves_no_child_and_the_next_run_recovers(tmp_path: Path) -> None:
    proc, out = start_backtracking_run(tmp_path, subprocess.DEVNULL)
    children = _children_of(proc.pid)
    assert len(children) == 1  # the forked run, inside the regex
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 5
    while Path(f"/proc/{children[0]}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{children[0]}").exists() or "Z" in Path(f"/proc/{children[0]}/stat").read_text().split()[2]
    (tmp_path / "data" / "changes" / "day.jsonl").write_text(json.dumps({**RECORD, "after": {"ID": 1, "S": "aaaa"}})
                                                             + "\n")
    res = mapwright("run", str(tmp_path / "model.json"), "--data", str(tmp_path / "data"), "--out", str(out),
                    "--engine", "inprocess")
    assert res.returncode == 0, res.stderr
    assert manifest(out)["counts"]["applied"] == 1
