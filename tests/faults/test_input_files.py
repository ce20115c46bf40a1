"""A hostile probe of a run's input (issue 35, part A), done for real: FIFOs, devices, links to /dev/zero and
broken links where the model, schedule.json, a snapshot or a changes file goes, and master URLs Spark refuses.

Every input is read only as a regular file, with a size bound, by both engines, and Spark is never given a
file that is not one: each case is an input error naming the file, never a blocked run, a run that read
/dev/zero until the kernel killed it, or one that passed a snapshot over and succeeded without its rows.
The reference cases run in a real process under a memory limit and an alarm (the code before this fix
blocked on a FIFO and read /dev/zero into memory); the Spark cases share the tests' one session.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.model.io import load_model
from engine.run.input.files import InputError
from engine.run.input.schedule import MAX_SCHEDULE_BYTES, ScheduleError

EXAMPLE = "ordering_conflict"  # a schedule, three CSV snapshots (A, B, C) and a changes file


def fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def link_to(target: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.unlink(missing_ok=True)
        path.symlink_to(target)
    return make


def a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


CASES: dict[str, tuple[str, Callable[[Path], None], str]] = {
    # name: (the input it replaces, how, what the error says of it)
    "schedule is a FIFO": ("data/schedule.json", fifo, "is a named pipe (FIFO), not a regular file"),
    "schedule links to /dev/zero": ("data/schedule.json", link_to("/dev/zero"), "is a character device"),
    "schedule is a broken link": ("data/schedule.json", link_to("/nowhere/schedule.json"),
                                  "is a symbolic link to /nowhere/schedule.json, which does not exist"),
    "snapshot is a FIFO": ("data/snapshots/B/T.csv", fifo, "is a named pipe (FIFO), not a regular file"),
    "snapshot is a broken link": ("data/snapshots/B/T.csv", link_to("/nowhere/T.csv"), "which does not exist"),
    "snapshot links to a device": ("data/snapshots/B/T.csv", link_to("/dev/null"), "is a character device"),
    "snapshot is a folder": ("data/snapshots/B/T.csv", a_folder, "is a folder, not a file"),
    "changes file is a FIFO": ("data/changes/changes.jsonl", fifo, "is a named pipe (FIFO), not a regular file"),
    "schedule beyond the bound": ("data/schedule.json", lambda path: os.truncate(path, MAX_SCHEDULE_BYTES + 1),
                                  "is larger than a run reads from one file"),  # sparse: no disk, never read
}


def hostile_copy(examples: Path, root: Path, case: str) -> tuple[Path, Path]:
    """A copy of the example (model, data) with the case's input replaced."""
    folder = root / case.replace(" ", "_").replace("/", "_")
    shutil.copytree(examples / EXAMPLE, folder)
    rel, make, _ = CASES[case]
    make(folder / rel)
    return folder / "model.json", folder / "data"


REFERENCE = """
import json, resource, signal, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # /dev/zero read whole: a MemoryError, not the OOM killer
def blocked(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, blocked)
from engine.model.io import ModelLoadError
from engine.run.rundir.write import run_reference_to_dir
results = {}
for name, model, data, out in json.loads(sys.argv[1]):
    signal.alarm(20)
    try:
        status, folder = run_reference_to_dir(Path(model), Path(data), Path(out))
        results[name] = [status, json.loads((folder / "manifest.json").read_text()).get("reason")]
    except TimeoutError:
        results[name] = ["blocked", None]
    except MemoryError:
        results[name] = ["out of memory", None]
    except ModelLoadError as exc:
        results[name] = ["refused", str(exc)]
    finally:
        signal.alarm(0)
print(json.dumps(results))
"""


def test_the_reference_reads_only_regular_files(examples: Path, tmp_path: Path) -> None:
    runs = []
    for case in CASES:
        model, data = hostile_copy(examples, tmp_path, case)
        runs.append((case, str(model), str(data), str(tmp_path / "runs" / case.replace(" ", "_").replace("/", "_"))))
    fifo_model = tmp_path / "model_fifo" / "model.json"
    fifo_model.parent.mkdir()
    os.mkfifo(fifo_model)
    runs.append(("model is a FIFO", str(fifo_model), runs[0][2], str(tmp_path / "runs" / "model")))
    res = subprocess.run([sys.executable, "-c", REFERENCE, json.dumps(runs)], capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    results = json.loads(res.stdout)
    for case, (rel, _, says) in CASES.items():
        path = tmp_path / case.replace(" ", "_").replace("/", "_") / rel
        status, reason = results[case]
        assert status == "failed" and reason.startswith(f"{path}: ") and says in reason, (case, status, reason)
    status, reason = results["model is a FIFO"]
    assert status == "refused" and reason.startswith(f"{fifo_model}: is a named pipe (FIFO)"), (status, reason)


@contextmanager
def alarm(seconds: int) -> Iterator[None]:
    """A blocked open or read (a FIFO without a writer) ends in TimeoutError instead of hanging the tests."""
    def blocked(*_: Any) -> None:
        raise TimeoutError("blocked on a file")
    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_spark_is_never_given_a_file_that_is_not_regular(spark: Any, examples: Path, tmp_path: Path) -> None:
    """Refused on the driver, before Spark reads (a snapshot the reference passed over, Spark did too)."""
    from engine.spark.lines import read_lines
    from engine.spark.pipeline import run_spark

    for case in ("schedule is a FIFO", "snapshot is a FIFO", "snapshot is a broken link", "snapshot links to a device",
                 "snapshot is a folder"):
        model_path, data = hostile_copy(examples, tmp_path, case)
        rel, _, says = CASES[case]
        out = tmp_path / "out" / case.replace(" ", "_")
        out.mkdir(parents=True)
        with alarm(30), pytest.raises((InputError, ScheduleError)) as caught:
            run_spark(spark, load_model(model_path), data, out)
        assert str(caught.value).startswith(f"{model_path.parent / rel}: ") and says in str(caught.value), case
        assert list(out.iterdir()) == []
    with pytest.raises(InputError, match="is a named pipe"):  # and the reader's own check, whoever lists files
        read_lines(spark, [str(tmp_path / "snapshot_is_a_FIFO" / "data" / "snapshots" / "B" / "T.csv")])


@pytest.mark.parametrize("master", ["local[0]", "local[-1]", "local[00]", "local[99999]", "local[٣]",
                                    "spark://localhost:70000", "sc://localhost:0", "local[2]\n"])
def test_every_master_is_checked_before_spark_starts(examples: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str], master: str) -> None:
    """`run --master 'local[0]'` ended in a Py4JJavaError with exit 1 (`local[-1]` had a clean exit 2)."""
    folder = examples / EXAMPLE
    code = main(["run", str(folder / "model.json"), "--data", str(folder / "data"), "--out", str(tmp_path / "run"),
                 "--master", master])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "master" in err, err
    assert not (tmp_path / "run").exists()
