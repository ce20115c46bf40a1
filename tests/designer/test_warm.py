"""Warm previews: one Spark worker kept alive by the window, serving every run, stopped with the window."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QStandardPaths
from pytestqt.qtbot import QtBot

from designer.launcher import RunLauncher, RunRequest
from designer.launcher.warm import PreviewRunner, WarmSession, warm_master, worker_command
from designer.window import MainWindow
from engine.worker import RunOrder, Worker, parse_order

ROOT = Path(__file__).resolve().parents[2]
ROW_IMAGES = ROOT / "tests" / "fixtures" / "examples" / "row_images"
START_S = 240  # Spark's start on a loaded 2-core machine


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[QSettings]:
    QStandardPaths.setTestModeEnabled(True)
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(tmp_path / "qsettings"))
        QSettings.setPath(QSettings.Format.NativeFormat, scope, str(tmp_path / "qsettings"))
    yield QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    QStandardPaths.setTestModeEnabled(False)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    (tmp_path / "m").mkdir()
    shutil.copytree(ROW_IMAGES / "data", tmp_path / "m" / "data")
    return Path(shutil.copy(ROW_IMAGES / "model.json", tmp_path / "m" / "model.json"))


def descendants(pid: int) -> set[int]:
    """Every live process under `pid` (the worker's JVM and Python workers), read from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        current = todo.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                children = {int(c) for c in (task / "children").read_text().split()}
            except OSError:
                continue
            todo.extend(children - found)
            found |= children
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def run_and_wait(qtbot: QtBot, launcher: RunLauncher, out: Path, timeout_s: float = 300) -> tuple[list[str], float]:
    launcher.out_edit.setText(str(out))
    began = time.monotonic()
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=int(timeout_s * 1000)) as finished:
        launcher.start_run()
    return list(finished.args), time.monotonic() - began


# -- pieces without Spark


def test_the_worker_reads_orders_as_json_lines() -> None:
    line = json.dumps({"run": {"model": "m.json", "data": "d", "out": "o", "master": "local[2]"}})
    assert parse_order(line) == RunOrder(Path("m.json"), Path("d"), Path("o"), "local[2]")
    assert parse_order('{"cancel": true}') == "cancel" and parse_order('{"stop": true}') == "stop"
    assert parse_order("  \n") is None
    for bad, message in (("[1]", "JSON object"), ("nope", "not a JSON line"), ('{"run": {"model": "m"}}', "'data'"),
                         ('{"walk": 1}', "expected")):
        with pytest.raises(ValueError, match=message):
            parse_order(bad)


def test_a_cancel_reaches_the_queued_run_and_never_the_next() -> None:
    worker = Worker("local[1]")
    run = json.dumps({"run": {"model": "m.json", "data": "d", "out": "o", "master": "local[1]"}})
    seen: list[bool] = []

    def lines() -> Iterator[str]:
        yield '{"cancel": true}\n'  # while idle: a no-op
        yield run + "\n"
        seen.extend(event.is_set() for event in worker._live)  # before EOF
    worker.read(lines())
    first = worker.orders.get_nowait()
    assert seen == [False] and first is not None and first[0].out == Path("o")
    assert worker.orders.get_nowait() is None and first[1].is_set()  # EOF: stop, cancelling what was queued
    worker = Worker("local[1]")
    worker.read(io.StringIO(f'{run}\n{run}\n{{"cancel": true}}\nnot json\n{{"stop": true}}\n{run}\n'))
    queued = [worker.orders.get_nowait() for _ in range(3)]
    assert [item[1].is_set() for item in queued[:2] if item] == [True, True] and queued[2] is None
    assert worker.orders.empty()  # nothing after `stop` is read


def test_the_warm_session_runs_on_the_chosen_local_master_else_the_default() -> None:
    assert warm_master("local[1]", "local[*]") == "local[1]"
    assert warm_master("sc://127.0.0.1:15002", "local[*]") == "local[*]"
    assert warm_master("bogus", "local[2]") == "local[2]"
    command = worker_command("local[2]", "/py", parent=42)
    assert command == ["/py", "-m", "engine.worker", "--master", "local[2]", "--parent", "42"]


def test_a_worker_refuses_a_cluster_master_in_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "engine.worker", "--master", "spark://127.0.0.1:7077"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert "warm session runs on local[N]" in done.stderr


def test_without_a_ready_warm_session_a_run_falls_back_to_its_own_process(qtbot: QtBot, tmp_path: Path) -> None:
    warm = WarmSession("local[2]")  # never started: stopped
    runner = PreviewRunner(None, warm)
    logged: list[str] = []
    runner.sig_log.connect(logged.append)
    with qtbot.waitSignal(runner.sig_finished, timeout=60_000) as finished:
        runner.start(RunRequest(ROW_IMAGES / "model.json", tmp_path / "nowhere", tmp_path / "run", "local[2]"))
        assert runner.is_running() and not runner.warm_run
    assert finished.args[0] == "failed" and "no such folder" in finished.args[2]
    assert logged[0] == "the warm Spark session is stopped: this run starts its own Spark"
    assert logged[1].startswith("$ mapwright run ") and not runner.is_running()


@pytest.mark.slow
def test_a_worker_dies_with_its_parent_and_takes_spark_along(tmp_path: Path) -> None:
    """A crashed designer leaves nothing behind: the worker, mid-start, and the JVM it launches go too."""
    parent = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time\n"
         f"p = subprocess.Popen({worker_command('local[1]', sys.executable)[:-2]!r}, stdin=subprocess.PIPE, "
         "stdout=subprocess.PIPE)\n"
         "print(p.pid, flush=True)\n"
         "print(p.stdout.readline().decode().strip(), flush=True)\n"
         "time.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    assert json.loads(parent.stdout.readline())["state"] == "starting"
    deadline = time.monotonic() + 60
    while not descendants(worker) and time.monotonic() < deadline:  # the JVM being launched
        time.sleep(0.05)
    spark = descendants(worker)
    assert spark, "the worker launched no JVM"
    parent.send_signal(signal.SIGKILL)  # the designer crashes: its stdin pipe stays open in no one's hands...
    parent.wait()
    deadline = time.monotonic() + 10
    while any(alive(p) for p in (worker, *spark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in (worker, *spark) if alive(p)], "the worker or its JVM outlived the designer"


# -- the window, with real Spark


@pytest.mark.slow
def test_the_window_keeps_one_spark_warm_serves_runs_survives_a_cancel_and_stops_it_on_close(
        qtbot: QtBot, isolated_settings: QSettings, model: Path, tmp_path: Path) -> None:
    """One warm session through a window's life: it starts when Spark local is picked (not with the window),
    serves a run, cancels the next within a second and stays usable, refuses a folder that is no run
    directory in one line, serves another run in the same worker, and stops with the window, JVM and all.
    (One test, one Spark start: on a 2-core machine each start costs half a minute.)"""
    window = MainWindow(settings=isolated_settings, ask=False, warm=True)
    qtbot.addWidget(window)
    window.show()
    warm = window.warm_session
    assert warm is not None
    states: list[str] = []
    warm.sig_state.connect(lambda state, _detail: states.append(state))
    assert window.open_path(model)
    qtbot.wait(50)
    assert warm.state == "stopped" and window.spark_status.text() == "Spark: not started"
    combo = window.launcher.engine_combo
    combo.setCurrentIndex(combo.findData("spark-local"))
    combo.activated.emit(combo.currentIndex())  # the user's pick starts Spark
    assert warm.state == "starting"
    qtbot.waitUntil(lambda: warm.state == "ready", timeout=START_S * 1000)
    assert window.spark_status.text() == "Spark: ready" and "Spark 4" in window.spark_status.toolTip()
    pid = warm.pid
    spark = descendants(pid)
    assert pid > 0 and spark
    launcher = window.launcher
    assert launcher.data_edit.text() == str(model.parent / "data")

    busy_seen: list[str] = []
    launcher.runner.sig_stage.connect(lambda *_: busy_seen.append(window.spark_status.text()))
    args, seconds = run_and_wait(qtbot, launcher, tmp_path / "first")
    assert args == ["succeeded", str(tmp_path / "first")], launcher.log_view.toPlainText()
    assert json.loads((tmp_path / "first" / "manifest.json").read_text())["status"] == "succeeded"
    assert "in the warm Spark session" in launcher.log_view.toPlainText()
    qtbot.waitUntil(lambda: warm.state == "ready", timeout=30_000)  # free again
    assert "Spark: busy" in busy_seen and window.spark_status.text() == "Spark: ready"
    assert states[0] == "starting" and states.count("busy") == 1

    # cancel: the run stops within a second, and the same worker goes on
    launcher.out_edit.setText(str(tmp_path / "cancelled"))
    with qtbot.waitSignal(launcher.runner.sig_stage, check_params_cb=lambda stage, *_: stage == "decode",
                          timeout=60_000):
        launcher.run_button.click()
    assert isinstance(launcher.runner, PreviewRunner) and launcher.runner.warm_run
    began = time.monotonic()
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=20_000) as finished:
        launcher.cancel_button.click()
    took = time.monotonic() - began
    print(f"warm cancel took {took:.2f} s")
    assert finished.args == ["cancelled", str(tmp_path / "cancelled")], launcher.log_view.toPlainText()
    assert json.loads((tmp_path / "cancelled" / "manifest.json").read_text())["status"] == "cancelled"
    assert took < 2, f"cancel took {took:.1f} s"
    assert warm.pid == pid and launcher.run_button.isEnabled()
    qtbot.waitUntil(lambda: warm.state == "ready", timeout=60_000)  # the cancelled jobs drained

    # an unusable run directory is the CLI's one line, and the session stays up
    (tmp_path / "notarun").mkdir()
    (tmp_path / "notarun" / "precious.txt").write_text("keep")
    launcher.out_edit.setText(str(tmp_path / "notarun"))
    assert not launcher.run_button.isEnabled()  # the launcher itself refuses it first
    with qtbot.waitSignal(launcher.runner.sig_finished, timeout=30_000) as refused:
        launcher.runner.start(RunRequest(model, model.parent / "data", tmp_path / "notarun",
                                         launcher.master_combo.currentText()))
        assert launcher.runner.warm_run
    assert refused.args[0] == "failed" and "is not a Mapwright run directory" in refused.args[2]
    assert not refused.args[2].startswith("mapwright:") and warm.pid == pid
    assert (tmp_path / "notarun" / "precious.txt").read_text() == "keep"

    args, again = run_and_wait(qtbot, launcher, tmp_path / "second")
    assert args == ["succeeded", str(tmp_path / "second")], launcher.log_view.toPlainText()
    print(f"warm runs: {seconds:.1f} s, {again:.1f} s")
    qtbot.waitUntil(lambda: warm.state == "ready", timeout=30_000)
    assert warm.pid == pid  # the same worker served every run
    assert (tmp_path / "first" / "tables").is_dir() and (tmp_path / "second" / "conflicts.jsonl").is_file()

    window.close()
    qtbot.waitUntil(lambda: warm.state == "stopped", timeout=30_000)
    assert window.spark_status.text() == "Spark: stopped"
    deadline = time.monotonic() + 15
    while any(alive(p) for p in (pid, *spark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in (pid, *spark) if alive(p)], "Spark outlived the window"


def test_a_runner_gone_with_its_launcher_no_longer_hears_the_window_s_session(qtbot: QtBot) -> None:
    """Opening another model replaces the launcher and its runner; the warm session lives on."""
    warm = WarmSession("local[2]")
    heard: list[object] = []
    runner = PreviewRunner(None, warm)
    runner.sig_finished.connect(lambda *args: heard.append(args))
    runner.deleteLater()
    qtbot.waitUntil(lambda: warm.receivers("2sig_finished(QString,QString,QString)") == 0, timeout=5_000)
    warm.sig_finished.emit("succeeded", "/x", "")  # no runner left to crash
    warm.sig_stage.emit("decode", 0, 4)
    assert heard == []


BACKTRACKING = json.loads((ROOT / "tests" / "fixtures" / "backtracking" / "model.json").read_text())


def test_in_process_previews_run_in_the_in_process_worker_and_cancel_at_once(qtbot: QtBot, tmp_path: Path) -> None:
    """The designer's in-process worker (no Spark) serves in-process runs; a cancel stops one within a second,
    even inside a regular expression that would backtrack for minutes, and the worker serves the next."""
    runner = PreviewRunner(None, None, inprocess=True)
    worker = runner.inprocess
    assert worker is not None and not worker.spark
    qtbot.waitUntil(lambda: worker.state == "ready", timeout=60_000)
    logged: list[str] = []
    runner.sig_log.connect(logged.append)
    try:
        with qtbot.waitSignal(runner.sig_finished, timeout=60_000) as finished:
            runner.start(RunRequest(ROW_IMAGES / "model.json", ROW_IMAGES / "data", tmp_path / "run", "local[*]",
                                    "inprocess"))
            assert runner.warm_run
        assert finished.args[0] == "succeeded", finished.args
        assert json.loads((tmp_path / "run" / "manifest.json").read_text())["run_engine"] == "inprocess"
        assert "the in-process engine" in logged[0]
        (tmp_path / "model.json").write_text(json.dumps(BACKTRACKING))
        changes = tmp_path / "data" / "changes"
        changes.mkdir(parents=True)
        (changes / "day.jsonl").write_text(json.dumps(
            {"site": "a", "txn": "t1", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "I",
             "after": {"ID": 1, "S": "a" * 40 + "!"}}) + "\n")
        stages: list[str] = []
        runner.sig_stage.connect(lambda stage, *_: stages.append(stage))
        runner.start(RunRequest(tmp_path / "model.json", tmp_path / "data", tmp_path / "slow", "local[*]", "auto"))
        qtbot.waitUntil(lambda: "net_effect" in stages, timeout=30_000)
        qtbot.wait(300)  # inside the regex by now
        with qtbot.waitSignal(runner.sig_finished, timeout=5_000) as cancelled:
            asked = time.monotonic()
            runner.cancel()
        assert time.monotonic() - asked < 1.5
        assert cancelled.args[0] == "cancelled"
        assert json.loads((tmp_path / "slow" / "manifest.json").read_text())["status"] == "cancelled"
        qtbot.waitUntil(lambda: worker.state == "ready", timeout=10_000)
        assert worker.pid != 0  # the same worker, ready for the next preview
    finally:
        worker.wait_stopped()
