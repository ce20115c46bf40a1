"""A hostile probe of the run directory protocol (issue 35, part A), done for real: another user's symbolic link
where the lock file goes, a user's files inside a run directory, three processes publishing to one folder.

The refusals come before Spark starts, so the commands under test run in this process (`engine.cli.main`) or
as real processes, on real files, links and locks; nothing is mocked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import engine.run.rundir.publish as engine_publish
from engine.cli import main
from engine.run.rundir.publish import RunDirError, attempt_dir, lock_file
from engine.run.rundir.write import RunInfo, run_reference_to_dir, write_failed_run

PUBLISH_PY = Path(__file__).resolve().parents[2] / "engine" / "run" / "rundir" / "publish.py"
MAPWRIGHT = str(Path(sys.executable).parent / "mapwright")


def snapshot(folder: Path) -> dict[str, bytes | str | None]:
    """Every path under `folder` with its bytes (a link: its target; a folder: None), not following links."""
    out: dict[str, bytes | str | None] = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        out[key] = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None
    return out


@pytest.fixture
def good_run(examples: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(model, data, RUNDIR): a succeeded run of `ordering_conflict` at tmp_path/runs/run."""
    folder = examples / "ordering_conflict"
    status, out = run_reference_to_dir(folder / "model.json", folder / "data", tmp_path / "runs" / "run")
    assert status == "succeeded"
    return folder / "model.json", folder / "data", out


def run_cli(capsys: pytest.CaptureFixture[str], model: Path, data: Path, out: Path) -> tuple[int, str]:
    code = main(["run", str(model), "--data", str(data), "--out", str(out), "--master", "local[1]"])
    return code, capsys.readouterr().err


# -- 1. the lock file is never followed


def test_a_link_where_the_lock_goes_is_refused_and_nothing_is_written_through_it(good_run: tuple[Path, Path, Path],
                                                                                tmp_path: Path) -> None:
    """Another user made `.run.mapwright-lock` a link to a file of ours: `mapwright run` wrote its pid into it."""
    model, data, out = good_run
    victim = tmp_path / "victim.txt"
    victim.write_text("my own file\n")
    lock_file(out).symlink_to(victim)
    before = snapshot(tmp_path)
    res = subprocess.run([MAPWRIGHT, "run", str(model), "--data", str(data), "--out", str(out), "--master",
                          "local[1]"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and str(lock_file(out)) in res.stderr and "symbolic link" in res.stderr
    assert victim.read_text() == "my own file\n" and snapshot(tmp_path) == before
    # in process too, for each kind of lock file that is not a run's: a dangling link, a pipe, a folder
    for make in (lambda p: p.symlink_to(tmp_path / "absent"), os.mkfifo, Path.mkdir):
        if lock_file(out).is_dir() and not lock_file(out).is_symlink():
            lock_file(out).rmdir()
        else:
            lock_file(out).unlink()
        make(lock_file(out))
        before = snapshot(tmp_path)
        with pytest.raises(RunDirError, match="mapwright-lock: (is a symbolic link|is not a regular file)"):
            run_reference_to_dir(model, data, out)
        assert snapshot(tmp_path) == before


def test_a_lock_file_with_another_name_is_not_written(good_run: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """A hard link to a file of ours, made where the lock goes, would have the run write through it."""
    model, data, out = good_run
    victim = tmp_path / "victim.txt"
    victim.write_text("my own file\n")
    os.link(victim, lock_file(out))
    with pytest.raises(RunDirError, match="has other names"):
        run_reference_to_dir(model, data, out)
    assert victim.read_text() == "my own file\n"


# -- 2. a run replaces what a run wrote, and nothing else


@pytest.mark.parametrize("case", ["thesis beside a manifest", "failed run and a thesis", "NOTES.md in a good run",
                                  "a link in tables", "a pipe in a good run", "notes in the attempt"])
def test_a_run_directory_holding_anything_else_is_refused_byte_for_byte(
        good_run: tuple[Path, Path, Path], examples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        case: str) -> None:
    """`run --out` over a folder holding a run's manifest.json and the user's thesis.txt deleted thesis.txt;
    so did a failing run over a `failed` manifest, and a run over a good run the user added NOTES.md to."""
    model, data, out = good_run
    stranger = {"thesis beside a manifest": out / "thesis.txt", "failed run and a thesis": out / "thesis.txt",
                "NOTES.md in a good run": out / "NOTES.md",
                "a link in tables": min((out / "tables").iterdir()) / "X.parquet",
                "a pipe in a good run": out / "conflicts.jsonl", "notes in the attempt": attempt_dir(out) / "notes.txt"}
    where = stranger[case]
    if case == "thesis beside a manifest":
        for path in out.iterdir():
            if path.name != "manifest.json":
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    if case == "failed run and a thesis":  # and a model that fails validation: the run would fail again
        out, model = tmp_path / "failed", examples / "dkey_rules.json"
        write_failed_run(out, "failed", "an earlier failure", RunInfo("0" * 64))
        where = out / "thesis.txt"
    if case == "a link in tables":
        where.symlink_to(tmp_path / "elsewhere.parquet")
    elif case == "a pipe in a good run":
        where.unlink()
        os.mkfifo(where)
    else:
        where.parent.mkdir(exist_ok=True)
        if case == "notes in the attempt":
            (where.parent / "manifest.json").write_text(json.dumps({"engine": "mapwright 0.1.0", "status": "failed"}))
        where.write_text("the only copy")
    before = snapshot(tmp_path)
    code, err = run_cli(capsys, model, data, out)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith(f"mapwright: {where}: is ") and "no run writes" in err
    assert snapshot(tmp_path) == before  # nothing written, beside it either: not even a lock file


def test_what_a_run_wrote_is_replaced_and_a_file_browser_s_cache_with_it(good_run: tuple[Path, Path, Path]) -> None:
    """A table an earlier model had, and the `.DS_Store` Finder leaves in every folder it shows: not the user's."""
    model, data, out = good_run
    (out / "tables" / "gone").mkdir()
    (out / "tables" / "gone" / "OLD.parquet").write_bytes(b"a table of an earlier model")
    (out / ".DS_Store").write_bytes(b"Finder")
    assert run_reference_to_dir(model, data, out) == ("succeeded", out)
    assert not (out / "tables" / "gone").exists() and not (out / ".DS_Store").exists()


def test_a_file_added_while_the_run_runs_is_not_deleted(good_run: tuple[Path, Path, Path],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked again before the swap, and after it: a file added in between is swapped back with its run."""
    model, data, out = good_run
    notes = out / "NOTES.md"

    def add_notes(stage: str) -> None:
        if stage == "resolve":
            notes.write_text("written while the run ran")

    with pytest.raises(RunDirError, match="NOTES.md: is a file that no run writes"):
        run_reference_to_dir(model, data, out, add_notes)
    assert notes.read_text() == "written while the run ran"
    assert sorted(p.name for p in out.parent.iterdir()) == ["run"]
    notes.unlink()
    before = snapshot(out)
    swap = engine_publish.exchange

    def written_at_the_last_instant(a: Path, b: Path) -> None:  # the user writes just before the swap
        if not notes.exists():
            notes.write_text("written at the last instant")
        swap(a, b)

    monkeypatch.setattr(engine_publish, "exchange", written_at_the_last_instant)
    with pytest.raises(RunDirError, match="NOTES.md: is a file that no run writes"):
        run_reference_to_dir(model, data, out)
    assert snapshot(out) == {**before, "NOTES.md": b"written at the last instant"}
    assert sorted(p.name for p in out.parent.iterdir()) == ["run"]


# -- 14. the message comes from the lock


RACER = """
import importlib.util, json, os, random, sys, time
from pathlib import Path
def load(name, path):  # the protocol's files alone (standard library only), not all of engine.run
    spec = importlib.util.spec_from_file_location(name, path)
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
layout = Path(sys.argv[1]).with_name("layout.py")
if layout.exists():
    load("engine.run.rundir.layout", layout)
publish = load("publish", sys.argv[1])
out, until = Path(sys.argv[2]), float(sys.argv[3])
counts, others = {"published": 0, "busy": 0}, []
def fill(tmp):
    for name in ("conflicts.jsonl", "rejects.jsonl", "error_queue.jsonl"):
        (tmp / name).write_text(str(os.getpid()) * 500)
    (tmp / "manifest.json").write_text(json.dumps({"engine": "mapwright test", "status": "succeeded"}))
    if random.random() < 0.05:  # now and then a run long enough that the others are told it is busy
        time.sleep(0.3)
while time.time() < until:
    try:
        with publish.claim(out):
            publish.publish(out, fill)
        counts["published"] += 1
    except publish.RunDirBusy as exc:
        counts["busy"] += 1
        assert "another run is writing it (process " in str(exc), exc
    except publish.RunDirError as exc:
        others.append(str(exc))
print(json.dumps({**counts, "others": others[:3], "other": len(others)}))
"""


def race(publish_py: Path, out: Path, seconds: float) -> list[dict[str, object]]:
    """Three processes publishing to `out` over and over for `seconds`; what each was told."""
    until = time.time() + 1.0 + seconds  # the start-up of all three first
    procs = [subprocess.Popen([sys.executable, "-c", RACER, str(publish_py), str(out), str(until)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 0, stderr
        results.append(json.loads(stdout))
    return results


def test_three_runs_racing_for_one_folder_are_told_it_is_busy_never_to_move_a_folder_away(tmp_path: Path) -> None:
    """194 attempts of three processes publishing for 40 s were told `.rd2.mapwright-new is in the way... move it
    away`: following the advice would have moved a live run's staging folder."""
    out = tmp_path / "rd2"
    results = race(PUBLISH_PY, out, seconds=3.5)
    assert [r["others"] for r in results] == [[], [], []], results
    assert sum(int(str(r["published"])) for r in results) > 10 and sum(int(str(r["busy"])) for r in results) > 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rd2"]
    assert json.loads((out / "manifest.json").read_text())["status"] == "succeeded"
