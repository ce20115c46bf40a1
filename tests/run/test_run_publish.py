"""Run directories are precious (docs/contract.md §6): what a run may write, the swap, the lock, recovery.

In-process and fast, on the pure-Python reference; tests/faults/ kills real `mapwright run` processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from test_run_rundir import LINES, write_inputs

import engine.run.rundir.publish as publish
from engine.run.rundir.layout import is_run_directory
from engine.run.rundir.publish import (
    RunDirBusy,
    RunDirError,
    attempt_dir,
    claim,
    lock_file,
    out_dir_problem,
)
from engine.run.rundir.write import run_reference_to_dir
from engine.run.semantics.reference import RunCancelled


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` with its bytes (None for a folder): equal snapshots, byte for byte."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def cancel_at_resolve(stage: str) -> None:
    if stage == "resolve":
        raise RunCancelled("stopped by the user")


@pytest.fixture
def good_run(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(model, data, RUNDIR) with a succeeded run in RUNDIR."""
    model_path, data = write_inputs(tmp_path, LINES)
    status, out = run_reference_to_dir(model_path, data, tmp_path / "run")
    assert status == "succeeded"
    return model_path, data, out


@pytest.mark.parametrize(("content", "says"), [
    ({"manifest.json": "{}", "important.txt": "keep me"}, "does not name the engine mapwright"),
    ({"manifest.json": '{"engine": "otherwright 1.0", "status": "succeeded"}'}, "does not name the engine"),
    ({"manifest.json": '["mapwright"]'}, "does not name the engine"),
    ({"notes.txt": "mine"}, "no manifest.json"),
])
def test_a_folder_that_is_not_a_run_directory_is_refused_and_left_as_it_is(
        tmp_path: Path, content: dict[str, str], says: str) -> None:
    model_path, data = write_inputs(tmp_path, LINES)
    folder = tmp_path / "v"
    folder.mkdir()
    for name, text in content.items():
        (folder / name).write_text(text)
    before = snapshot(tmp_path)
    with pytest.raises(RunDirError, match=says):
        run_reference_to_dir(model_path, data, folder)
    assert snapshot(tmp_path) == before  # nothing written beside it either: not even a lock file
    assert not is_run_directory(folder)


def test_a_file_a_symlink_and_a_foreign_attempt_folder_are_refused(tmp_path: Path, good_run: Any) -> None:
    model_path, data, out = good_run
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(out)
    assert "is a file" in str(out_dir_problem(tmp_path / "file"))
    assert "symbolic link" in str(out_dir_problem(tmp_path / "link"))
    attempt_dir(out).mkdir()
    (attempt_dir(out) / "mine.txt").write_text("mine")
    before = snapshot(tmp_path)
    with pytest.raises(RunDirError, match=r"run\.attempt: is not empty"):
        run_reference_to_dir(model_path, data, out)
    assert snapshot(tmp_path) == before


def test_what_counts_as_a_run_directory(tmp_path: Path, good_run: Any) -> None:
    _, _, out = good_run
    assert is_run_directory(out)
    assert json.loads((out / "manifest.json").read_text())["engine"].startswith("mapwright ")
    assert not is_run_directory(tmp_path / "absent") and not is_run_directory(out / "manifest.json")
    (tmp_path / "empty").mkdir()
    assert out_dir_problem(tmp_path / "empty") is None and out_dir_problem(tmp_path / "absent") is None
    assert out_dir_problem(out) is None


def test_a_failed_run_over_a_succeeded_one_keeps_it_and_writes_beside_it(tmp_path: Path, good_run: Any) -> None:
    model_path, data, out = good_run
    before = snapshot(out)
    (data / "schedule.json").write_text("not json")
    status, folder = run_reference_to_dir(model_path, data, out)
    assert (status, folder) == ("failed", attempt_dir(out)) and folder.name == "run.attempt"
    assert snapshot(out) == before
    assert json.loads((folder / "manifest.json").read_text())["status"] == "failed"
    (data / "schedule.json").unlink()
    status, folder = run_reference_to_dir(model_path, data, out, cancel_at_resolve)
    assert (status, folder) == ("cancelled", attempt_dir(out)) and snapshot(out) == before
    assert json.loads((folder / "manifest.json").read_text())["reason"] == "stopped by the user"
    # a run that succeeds replaces the old run and removes the attempt, which no longer says anything true
    status, folder = run_reference_to_dir(model_path, data, out)
    assert (status, folder) == ("succeeded", out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]


def test_a_failed_run_over_a_failed_one_replaces_it(tmp_path: Path) -> None:
    model_path, data = write_inputs(tmp_path, LINES)
    run_reference_to_dir(model_path, data, tmp_path / "run", cancel_at_resolve)
    (data / "schedule.json").write_text("not json")
    status, folder = run_reference_to_dir(model_path, data, tmp_path / "run")
    assert (status, folder) == ("failed", tmp_path / "run")
    assert json.loads((folder / "manifest.json").read_text())["status"] == "failed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]


def test_a_full_disk_while_writing_keeps_the_succeeded_run(tmp_path: Path, good_run: Any, monkeypatch: Any) -> None:
    import engine.run.rundir.write as rundir

    model_path, data, out = good_run
    before = snapshot(out)

    def full(*_args: Any, **_kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rundir, "conflicts_arrow", full)
    with pytest.raises(OSError):
        run_reference_to_dir(model_path, data, out)
    assert snapshot(out) == before
    assert "No space left" in json.loads((attempt_dir(out) / "manifest.json").read_text())["reason"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run", "run.attempt"]


KILLED = """
import os, shutil, sys
from pathlib import Path
from engine.run.rundir import publish
out, when = Path(sys.argv[1]), sys.argv[2]
def die(*_, **__):
    os._exit(9)  # as SIGKILL does: no `finally` runs, the lock file and the folders the run made stay
def fill(tmp):
    (tmp / "rejects.jsonl").write_text("half written")
    if when in ("filling", "filling the attempt"):
        die()
    (tmp / "manifest.json").write_text('{"engine": "mapwright test", "status": "succeeded"}')
if when == "between the two renames":
    def unsupported(*_):
        raise publish.ExchangeUnsupported(22, "exchange switched off")
    def rename_then_die(a, b, rename=os.rename):
        rename(a, b)
        die()
    publish.exchange, os.rename = unsupported, rename_then_die
if when == "removing the old run":
    shutil.rmtree = die
with publish.claim(out):
    publish.publish(publish.attempt_dir(out) if when == "filling the attempt" else out, fill)
"""
KILL_POINTS = ["filling", "filling the attempt", "between the two renames", "removing the old run"]


def killed_run(out: Path, when: str) -> None:
    """A run on `out` killed at `when`, by the code under test: the leftovers are the real ones."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-c", KILLED, str(out), when], env=env, capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 9, res.stderr


def look_alikes(folder: Path, out: Path) -> list[str]:
    """User folders beside `out` whose names look like a run's leftovers, and are not: none may be touched."""
    names = {".run.mapwright-newer": {"tables/x": "x"}, ".runs.mapwright-new": {"x": "x"},
             ".other.mapwright-old": {"x": "x"}, ".run.toolong99.partial": {"x": "x"}, "run.mapwright-new": {"x": "x"},
             ".run.20260105.old": {"notes.txt": "a dated backup"},  # the tester's cases
             ".run.backup_1.partial": {"x.txt": "mine"}, ".run.20260106.old": {"run/report.txt": "mine"}}
    for name, files in names.items():
        for rel, text in files.items():
            (folder / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / name / rel).write_text(text)
    shutil.copytree(out, folder / ".run.abcd_123.partial")  # a whole run, copied by the user (mode 0755)
    shutil.copytree(out, folder / ".run.x1y2z3w4.old" / "run")  # a backup of the run, nothing else in it
    kept = Path(tempfile.mkdtemp(prefix=".run.", suffix=".old", dir=folder))  # mkdtemp-made, with a note
    shutil.copytree(out, kept / "run")
    (kept / "notes.txt").write_text("mine")
    return [*names, ".run.abcd_123.partial", ".run.x1y2z3w4.old", kept.name]


@pytest.mark.parametrize("when", KILL_POINTS)
def test_leftovers_of_a_killed_run_are_removed_and_only_those(tmp_path: Path, good_run: Any, when: str) -> None:
    _, _, out = good_run
    before = snapshot(out)
    others = look_alikes(tmp_path, out)
    theirs = snapshot(tmp_path)
    killed_run(out, when)
    left = {p.name for p in tmp_path.iterdir()} - {"data", "model.json", "run", *others}
    assert ".run.mapwright-lock" in left and len(left) > 1, left  # what the kill left: the lock and a folder
    with claim(out):
        assert (tmp_path / ".run.mapwright-lock").read_text() == f"{os.getpid()}\n"
    assert {p.name for p in tmp_path.iterdir()} == {"data", "model.json", "run", *others}
    assert {k: v for k, v in snapshot(tmp_path).items() if k.split("/")[0] in others} == \
        {k: v for k, v in theirs.items() if k.split("/")[0] in others}  # byte for byte
    if when == "removing the old run":  # the new run was in place when the kill came
        assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "rejects.jsonl"]
    else:
        assert snapshot(out) == before


@pytest.mark.parametrize("legacy", [False, True])
def test_a_run_killed_between_the_two_renames_is_put_back(tmp_path: Path, good_run: Any, legacy: bool) -> None:
    """Where exchange is not supported, RUNDIR is missing for an instant; the next run restores it. Legacy:
    what the protocol before this one left at that instant, made with its own calls (mkdtemp)."""
    _, _, out = good_run
    before = snapshot(out)
    if legacy:
        new = Path(tempfile.mkdtemp(prefix=".run.", suffix=".partial", dir=tmp_path))
        for part in out.iterdir():  # the new run, complete but never reported
            (shutil.copytree if part.is_dir() else shutil.copy)(part, new / part.name)
        out.rename(Path(tempfile.mkdtemp(prefix=".run.", suffix=".old", dir=tmp_path)) / "run")
    else:
        killed_run(out, "between the two renames")
    assert not out.exists()
    with claim(out):
        assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]


def test_what_the_earlier_protocol_left_half_done_stays(tmp_path: Path, good_run: Any) -> None:
    """Its folders carry no record: one is taken only when it holds exactly a whole run. A staged run it was
    still filling, or an old copy half removed, cannot be told from a user's folder, and is left hidden."""
    _, _, out = good_run
    filling = Path(tempfile.mkdtemp(prefix=".run.", suffix=".partial", dir=tmp_path))
    (filling / "tables").mkdir()
    half = Path(tempfile.mkdtemp(prefix=".run.", suffix=".old", dir=tmp_path))
    (half / "run" / "tables").mkdir(parents=True)
    theirs = snapshot(tmp_path)
    with claim(out):
        pass
    assert snapshot(tmp_path) == theirs


def test_user_folders_named_like_leftovers_survive_runs_that_succeed_and_fail(tmp_path: Path,
                                                                             good_run: Any) -> None:
    """`.results.20260105.old/notes.txt` and `.results.backup_1.partial/` were deleted by any run on
    `results`, even one whose input failed (tester's report, case o1)."""
    model_path, data, out = good_run
    others = look_alikes(tmp_path, out)
    theirs = snapshot(tmp_path)
    assert run_reference_to_dir(model_path, data, out)[0] == "succeeded"
    (data / "schedule.json").write_text("not json")
    assert run_reference_to_dir(model_path, data, out) == ("failed", attempt_dir(out))
    assert {p.name for p in tmp_path.iterdir()} == {"data", "model.json", "run", "run.attempt", *others}
    assert {k: v for k, v in snapshot(tmp_path).items() if k.split("/")[0] in others} == \
        {k: v for k, v in theirs.items() if k.split("/")[0] in others}


@pytest.mark.parametrize("backup", ["other files", "a whole run", "a whole run, mkdtemp-made, and a note"])
def test_a_users_backup_is_never_moved_into_place(tmp_path: Path, good_run: Any, backup: str) -> None:
    """With RUNDIR missing, `.results.20260105.old/results` was renamed to RUNDIR, and the rest of the
    backup deleted (tester's report, case o2)."""
    model_path, data, out = good_run
    if backup == "other files":
        folder = tmp_path / ".run.20260105.old"
        (folder / "run").mkdir(parents=True)
        (folder / "run" / "report.txt").write_text("mine")
        shutil.rmtree(out)
    elif backup == "a whole run":
        folder = tmp_path / ".run.20260105.old"
        folder.mkdir()
        out.rename(folder / "run")
    else:
        folder = Path(tempfile.mkdtemp(prefix=".run.", suffix=".old", dir=tmp_path))
        out.rename(folder / "run")
    (folder / "notes.txt").write_text("a dated backup") if backup != "a whole run" else None
    theirs = snapshot(folder)
    assert run_reference_to_dir(model_path, data, out) == ("succeeded", out)
    assert snapshot(folder) == theirs
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["data", "model.json", "run", folder.name])


@pytest.mark.parametrize("name", [".run.mapwright-new", ".run.mapwright-old", ".run.attempt.mapwright-new"])
def test_a_user_folder_under_a_name_the_run_works_under_is_refused_untouched(tmp_path: Path, good_run: Any,
                                                                            name: str) -> None:
    """Only a name a run recorded in its lock file is a leftover: a stale lock that does not record it (a
    kill before the run made anything) proves nothing either. Refused before the lock, as a foreign RUNDIR."""
    model_path, data, out = good_run
    (tmp_path / name).mkdir()
    (tmp_path / name / "mine.txt").write_text("the only copy")
    (tmp_path / ".run.mapwright-lock").write_text("12345\n")
    before = snapshot(tmp_path)
    assert f"{tmp_path / name}: is in the way" in str(out_dir_problem(out))
    with pytest.raises(RunDirError, match="is not a leftover of a Mapwright run; move it away"):
        run_reference_to_dir(model_path, data, out)
    assert snapshot(tmp_path) == before


def test_a_folder_made_under_the_runs_name_while_it_runs_is_left(tmp_path: Path, good_run: Any) -> None:
    model_path, data, out = good_run
    before = snapshot(out)
    mine = tmp_path / ".run.mapwright-new"

    def make_it(stage: str) -> None:
        if stage == "resolve":
            mine.mkdir()
            (mine / "mine.txt").write_text("the only copy")

    with pytest.raises(RunDirError, match="is not a leftover of a Mapwright run"):
        run_reference_to_dir(model_path, data, out, make_it)
    assert (mine / "mine.txt").read_text() == "the only copy" and snapshot(out) == before
    assert not lock_file(out).exists()


def test_without_exchange_two_renames_publish_the_same(tmp_path: Path, good_run: Any, monkeypatch: Any) -> None:
    model_path, data, out = good_run

    def unsupported(*_args: Any) -> None:
        raise publish.ExchangeUnsupported(22, "not here")

    monkeypatch.setattr(publish, "exchange", unsupported)
    marker = out / "tables" / "gone" / "T.parquet"  # a file of the old run that the new one does not write
    marker.parent.mkdir()
    marker.write_text("old run")
    status, folder = run_reference_to_dir(model_path, data, out)
    assert (status, folder) == ("succeeded", out) and not marker.parent.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]


def test_exchange_swaps_two_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_text("a")
    (tmp_path / "b").mkdir()
    publish.exchange(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "b" / "x").read_text() == "a" and not any((tmp_path / "a").iterdir())


HOLD = """
import sys, time
from pathlib import Path
from engine.run.rundir.publish import claim
with claim(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_run_on_one_rundir_is_refused_naming_the_first(tmp_path: Path, good_run: Any) -> None:
    model_path, data, out = good_run
    before = snapshot(out)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(RunDirBusy, match=rf"another run is writing it \(process {holder.pid}\)"):
            run_reference_to_dir(model_path, data, out)
        assert snapshot(out) == before
    finally:
        holder.communicate("", timeout=30)
    assert not lock_file(out).exists()  # the holder removed it on its way out
    assert run_reference_to_dir(model_path, data, out)[0] == "succeeded"


def test_a_lock_left_by_a_killed_run_does_not_block(tmp_path: Path, good_run: Any) -> None:
    model_path, data, out = good_run
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    holder.kill()
    holder.wait(timeout=30)
    assert lock_file(out).read_text() == f"{holder.pid}\n"
    assert run_reference_to_dir(model_path, data, out)[0] == "succeeded"
    assert not lock_file(out).exists()


def test_a_folder_that_became_foreign_during_the_run_is_not_swapped_out(tmp_path: Path, good_run: Any) -> None:
    model_path, data, out = good_run

    def replaced_meanwhile(stage: str) -> None:
        if stage == "resolve":
            (out / "manifest.json").write_text("{}")  # the user put something else there
            (out / "theirs.txt").write_text("theirs")

    with pytest.raises(RunDirError, match="not a Mapwright run directory"):
        run_reference_to_dir(model_path, data, out, replaced_meanwhile)
    assert (out / "theirs.txt").read_text() == "theirs" and (out / "manifest.json").read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]


def test_leftovers_that_cannot_be_removed_are_one_clear_error(tmp_path: Path, good_run: Any,
                                                               monkeypatch: Any) -> None:
    _, _, out = good_run
    killed_run(out, "filling")

    def refuse(path: Path) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    with monkeypatch.context() as patched:
        patched.setattr(publish, "remove_path", refuse)
        with pytest.raises(RunDirError, match=r"cannot clean up what an earlier killed run left \(Permission "
                                              "denied"), claim(out):
            pass
    assert (tmp_path / ".run.mapwright-new").is_dir()
    assert '".run.mapwright-new"' in lock_file(out).read_text()  # still recorded, the lock released: the next
    with claim(out):                                             # run removes it
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]
