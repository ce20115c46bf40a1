"""A save of a model killed half-way leaves its temporary file; the next save of that file removes it, and
only it: not another writer's that still runs, not another file's, not a file of the user's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from engine.model import load_model, save_model
from engine.model.io import remove_stale_temporaries

#: A child that saves MODEL to TARGET and hangs just before the rename (killed there, or left running).
HANGING_SAVE = """
import os, sys, time
from engine.model import load_model, save_model
os.replace = lambda *_: (print("written", flush=True), time.sleep(600))
save_model(load_model(sys.argv[1]), sys.argv[2])
"""


def hanging_save(model: Path, target: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", HANGING_SAVE, str(model), str(target)],
                             stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None and child.stdout.readline() == "written\n"
    return child


def temporaries(folder: Path, pid: int) -> list[Path]:
    return sorted(folder.glob(f".*.{pid}.*.tmp"))


def test_the_next_save_removes_what_a_killed_save_left_and_only_that(examples: Path, tmp_path: Path) -> None:
    model_file = examples / "row_images" / "model.json"
    target = tmp_path / "model.json"
    save_model(load_model(model_file), target)
    original = target.read_bytes()

    killed = hanging_save(model_file, target)
    killed.kill()
    killed.wait(timeout=30)
    [leftover] = temporaries(tmp_path, killed.pid)
    assert leftover.name.startswith(".model.json.") and target.read_bytes() == original

    running = hanging_save(model_file, target)  # a writer that is still at work
    other = hanging_save(model_file, tmp_path / "other.json")  # a leftover of another file
    other.kill()
    other.wait(timeout=30)
    mine = [tmp_path / ".model.json.notes.tmp", tmp_path / f".model.json.{killed.pid}.tmp",
            tmp_path / "model.json.tmp"]
    for path in mine:
        path.write_text("the user's")
    old_kind, recent_old_kind = tmp_path / ".model.json.k3j_x9a2.tmp", tmp_path / ".model.json.p0q1r2s3.tmp"
    old_kind.write_text("{")  # left by a version that did not name the pid: an hour old, so gone
    recent_old_kind.write_text("{")
    os.utime(old_kind, (time.time() - 7200, time.time() - 7200))
    try:
        save_model(load_model(target), target)
        assert not leftover.exists() and not old_kind.exists() and recent_old_kind.exists()
        assert len(temporaries(tmp_path, running.pid)) == 1
        assert len(temporaries(tmp_path, other.pid)) == 1
        assert all(path.read_text() == "the user's" for path in mine)
        assert load_model(target) == load_model(model_file)
    finally:
        running.kill()
        running.wait(timeout=30)
    left = temporaries(tmp_path, running.pid)
    assert len(left) == 1 and remove_stale_temporaries(target) == left  # now its writer is gone too
    assert not left[0].exists()
