"""The run launcher: a fake runner for the panel's behaviour, the real `mapwright run` end to end."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QProcess, QSettings, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from designer.launcher import RunLauncher, RunProcess, RunRequest, run_command
from designer.launcher import settings as launcher_settings
from designer.launcher.events import DoneEvent, FinishedEvent, StageEvent, WorkerEvent, overall_percent, parse_event
from designer.launcher.settings import default_data_dir, default_out_dir
from resources import ROOT as RESOURCES
from resources import SAMPLE_MODEL

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
ROW_IMAGES = EXAMPLES / "row_images"
REAL_STAGES = [("start", 0, 1), ("spark", 1, 1), ("decode", 0, 4), ("decode", 1, 4), ("net_effect", 1, 4),
               ("net_effect", 2, 4), ("resolve", 2, 4), ("resolve", 3, 4), ("converge", 3, 4),
               ("converge", 4, 4), ("write", 4, 4)]


class FakeRunner(QObject):
    """Plays the real run's stage events on a timer; `hold_after` stops there until `cancel()`."""

    sig_stage = Signal(str, int, int)
    sig_log = Signal(str)
    sig_finished = Signal(str, str, str)

    def __init__(self, parent: QObject | None, outcome: tuple[str, str], hold_after: str | None) -> None:
        super().__init__(parent)
        self.outcome, self.hold_after = outcome, hold_after
        self.requests: list[RunRequest] = []
        self.cancelled = False
        self._pending: list[tuple[str, int, int]] = []
        self._timer = QTimer(self, interval=5)
        self._timer.timeout.connect(self._step)

    def start(self, request: RunRequest) -> None:
        self.requests.append(request)
        self.cancelled = False
        self._pending = list(REAL_STAGES)
        self.sig_log.emit("$ mapwright run (fake)")
        self._timer.start()

    def cancel(self) -> None:
        self.cancelled = True
        self._timer.stop()
        QTimer.singleShot(10, lambda: self._end("cancelled", "cancelled by signal SIGTERM"))

    def is_running(self) -> bool:
        return self._timer.isActive() or (bool(self.requests) and not self.cancelled and bool(self._pending))

    def _step(self) -> None:
        if not self._pending:
            self._timer.stop()
            self._end(*self.outcome)
            return
        stage, done, total = self._pending.pop(0)
        self.sig_stage.emit(stage, done, total)
        if stage == self.hold_after:
            self._timer.stop()

    def _end(self, status: str, reason: str) -> None:
        self._pending = []
        out = self.requests[-1].out_dir
        out.mkdir(parents=True)
        (out / "manifest.json").write_text(json.dumps({"status": status, "reason": reason}))
        self.sig_log.emit("mapwright: the fake's stderr")
        self.sig_finished.emit(status, str(self.requests[-1].out_dir), reason)


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path) -> Iterator[QSettings]:
    """Never the user's settings: default-scope QSettings go to tmp_path, and tests pass their own ini file."""
    QStandardPaths.setTestModeEnabled(True)
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(tmp_path / "qsettings"))
        QSettings.setPath(QSettings.Format.NativeFormat, scope, str(tmp_path / "qsettings"))
    yield QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    QStandardPaths.setTestModeEnabled(False)


@pytest.fixture
def model_a(tmp_path: Path) -> Path:
    (tmp_path / "a").mkdir()
    shutil.copy(ROW_IMAGES / "model.json", tmp_path / "a" / "model.json")
    shutil.copytree(ROW_IMAGES / "data", tmp_path / "a" / "data")
    return tmp_path / "a" / "model.json"


@pytest.fixture
def model_b(tmp_path: Path) -> Path:
    (tmp_path / "b").mkdir()
    return Path(shutil.copy(ROW_IMAGES / "model.json", tmp_path / "b" / "orders.json"))


Factory = Callable[..., tuple[RunLauncher, FakeRunner]]


@pytest.fixture
def fake_launcher(qtbot: QtBot, isolated_settings: QSettings, model_a: Path) -> Factory:
    def make(outcome: tuple[str, str] = ("succeeded", ""), hold_after: str | None = None,
             model: Callable[[], Path | None] = lambda: model_a) -> tuple[RunLauncher, FakeRunner]:
        launcher = RunLauncher(model, lambda parent: FakeRunner(parent, outcome, hold_after),
                               settings=isolated_settings)
        qtbot.addWidget(launcher)
        launcher.show()
        assert isinstance(launcher.runner, FakeRunner)
        return launcher, launcher.runner
    return make


# -- the panel, with a fake runner


def test_progress_advances_and_shows_the_stage_name(qtbot: QtBot, fake_launcher: Factory, model_a: Path) -> None:
    launcher, fake = fake_launcher()
    assert launcher.data_edit.text() == str(model_a.parent / "data")  # a data/ folder beside the model
    assert Path(launcher.out_edit.text()).parent == model_a.parent / "runs"
    assert Path(launcher.out_edit.text()).name.startswith("model-")
    seen: list[tuple[str, int, str]] = []
    fake.sig_stage.connect(lambda stage, *_: seen.append((stage, launcher.progress.value(), launcher.progress.text())))
    out = launcher.out_edit.text()
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=5_000) as finished:
        qtbot.mouseClick(launcher.run_button, Qt.MouseButton.LeftButton)
        assert not launcher.run_button.isEnabled() and launcher.cancel_button.isEnabled()
        assert not launcher.master_combo.isEnabled()
    assert finished.args == ["succeeded", out]
    assert fake.requests == [RunRequest(model_a, model_a.parent / "data", Path(out), "local[*]", "auto")]
    values = [value for _, value, _ in seen]
    assert values == sorted(values) and values[0] == 0 and values[-1] == 95
    assert [stage for stage, _, _ in seen] == [s for s, _, _ in REAL_STAGES]
    assert all(text.startswith(stage) for stage, _, text in seen)
    assert launcher.progress.value() == 100 and "succeeded" in launcher.progress.text()
    assert "Succeeded" in launcher.status_label.text() and out in launcher.status_label.text()
    log = launcher.log_view.toPlainText()
    assert "stage resolve (3/4)" in log and "the fake's stderr" in log
    assert launcher.run_button.isEnabled() and not launcher.cancel_button.isEnabled()
    assert launcher.out_edit.text() != out  # a fresh folder for the next run


def test_cancel_reports_cancelled_and_enables_run_again(qtbot: QtBot, fake_launcher: Factory) -> None:
    launcher, fake = fake_launcher(hold_after="spark")
    with qtbot.waitSignal(fake.sig_stage, check_params_cb=lambda stage, *_: stage == "spark", timeout=5_000):
        launcher.run_button.click()
    assert launcher.cancel_button.isEnabled() and launcher.is_running()
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=5_000) as finished:
        qtbot.mouseClick(launcher.cancel_button, Qt.MouseButton.LeftButton)
        assert not launcher.cancel_button.isEnabled() and "Cancelling" in launcher.status_label.text()
    assert fake.cancelled and finished.args[0] == "cancelled"
    assert "cancelled" in launcher.status_label.text().lower()
    assert "cancelled" in launcher.progress.text()
    assert launcher.run_button.isEnabled() and not launcher.cancel_button.isEnabled()
    assert not launcher.is_running() and launcher.master_combo.isEnabled()


def test_a_failure_shows_its_reason(qtbot: QtBot, fake_launcher: Factory) -> None:
    reason = "the model has 2 validation error(s); see `mapwright validate`"
    launcher, _ = fake_launcher(outcome=("failed", reason))
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=5_000) as finished:
        launcher.run_button.click()
    assert finished.args[0] == "failed"
    assert reason in launcher.status_label.text() and "Failed" in launcher.status_label.text()
    assert reason in launcher.log_view.toPlainText()
    assert launcher.run_button.isEnabled()


def pick_engine(launcher: RunLauncher, choice: str) -> None:
    """Choose an engine as the user does (the combo's `activated`)."""
    index = launcher.engine_combo.findData(choice)
    assert index >= 0, choice
    launcher.engine_combo.setCurrentIndex(index)
    launcher.engine_combo.activated.emit(index)


def test_an_invalid_master_shows_an_inline_error_and_disables_run(fake_launcher: Factory) -> None:
    launcher, fake = fake_launcher()
    assert launcher.run_button.isEnabled() and launcher.master_error.isHidden()
    assert launcher.engine_choice.choice() == "auto" and launcher.master_combo.isHidden()  # Auto needs no master
    pick_engine(launcher, "spark-local")
    launcher.master_combo.setEditText("yarn")
    assert not launcher.master_error.isHidden() and "unknown master" in launcher.master_error.text()
    assert not launcher.run_button.isEnabled()
    launcher.run_button.click()
    launcher.start_run()
    assert fake.requests == []
    for url in ("local[3]", "local[*]"):
        launcher.master_combo.setEditText(url)
        assert launcher.master_error.isHidden() and launcher.run_button.isEnabled(), url
    launcher.master_combo.setEditText("sc://127.0.0.1:15002")  # a cluster is the other choice's
    assert not launcher.run_button.isEnabled() and "choose Spark cluster" in launcher.master_error.text()
    assert [launcher.master_combo.itemText(i) for i in range(launcher.master_combo.count())] == [
        "local[2]", "local[*]"]
    pick_engine(launcher, "spark-cluster")
    assert launcher.master_combo.isHidden() and not launcher.cluster_edit.isHidden()
    assert not launcher.run_button.isEnabled() and "cluster's URL" in launcher.master_error.text()
    for url in ("spark://127.0.0.1:7077", "sc://127.0.0.1:15002"):
        launcher.cluster_edit.setText(url)
        assert launcher.master_error.isHidden() and launcher.run_button.isEnabled(), url
    launcher.cluster_edit.setText("local[2]")
    assert not launcher.run_button.isEnabled() and "choose Spark local" in launcher.master_error.text()


def test_a_missing_data_folder_disables_run(fake_launcher: Factory, tmp_path: Path) -> None:
    launcher, _ = fake_launcher()
    launcher.data_edit.setText(str(tmp_path / "nowhere"))
    assert not launcher.run_button.isEnabled() and "no such folder" in launcher.data_error.text()
    launcher.data_edit.setText("")
    assert not launcher.run_button.isEnabled() and "sample data" in launcher.run_button.toolTip()


def test_the_run_button_s_tooltip_shows_typed_text_as_it_is(fake_launcher: Factory) -> None:
    """The tooltip says why Run is off, quoting what was typed: Qt reads a tooltip that looks like markup as
    rich text (and would load `<img src=...>`)."""
    launcher, _ = fake_launcher()
    pick_engine(launcher, "spark-local")
    launcher.master_combo.setEditText("<img src=/etc/passwd><b>bold</b>")
    tip = launcher.run_button.toolTip()
    assert not launcher.run_button.isEnabled() and "&lt;b&gt;bold&lt;/b&gt;" in tip
    assert "<b>" not in tip and "<img" not in tip


def test_no_model_no_run(fake_launcher: Factory) -> None:
    launcher, _ = fake_launcher(model=lambda: None)
    assert not launcher.run_button.isEnabled() and "model" in launcher.run_button.toolTip()


def test_choices_are_remembered_per_model(fake_launcher: Factory, model_a: Path, model_b: Path,
                                          tmp_path: Path, isolated_settings: QSettings) -> None:
    current = {"model": model_a}
    launcher, _ = fake_launcher(model=lambda: current["model"])
    other_data = tmp_path / "other-data"
    other_data.mkdir()
    pick_engine(launcher, "spark-local")
    launcher.master_combo.setEditText("local[3]")
    launcher.data_edit.setText(str(other_data))

    current["model"] = model_b
    launcher.model_changed()
    assert launcher.engine_choice.choice() == "auto" and launcher.data_edit.text() == ""
    assert launcher.master_combo.currentText() == "local[*]"
    assert Path(launcher.out_edit.text()).name.startswith("orders-")
    pick_engine(launcher, "spark-cluster")
    launcher.cluster_edit.setText("sc://127.0.0.1:15002")

    current["model"] = model_a
    launcher.model_changed()
    assert launcher.engine_choice.choice() == "spark-local" and launcher.master_combo.currentText() == "local[3]"
    assert launcher.data_edit.text() == str(other_data)
    current["model"] = model_b
    launcher.model_changed()
    assert launcher.engine_choice.choice() == "spark-cluster"
    assert launcher.cluster_edit.text() == "sc://127.0.0.1:15002"

    launcher.cluster_edit.setText("nonsense")  # an invalid master is never remembered
    again = RunLauncher(lambda: model_b, settings=QSettings(isolated_settings.fileName(), QSettings.Format.IniFormat))
    assert again.engine_choice.choice() == "spark-cluster" and again.cluster_edit.text() == "sc://127.0.0.1:15002"
    assert again.engine_choice.run_master() == "sc://127.0.0.1:15002" and again.engine_choice.run_engine() == "spark"
    again.deleteLater()


def test_a_cluster_remembered_as_the_master_comes_back_as_spark_cluster(model_a: Path,
                                                                        isolated_settings: QSettings) -> None:
    """Choices saved before the engine choice: a cluster master is Spark cluster, a local one Auto."""
    from designer.launcher.settings import LauncherSettings, _key

    isolated_settings.setValue(f"{_key(model_a)}/master", "spark://10.0.0.1:7077")
    isolated_settings.setValue(f"{_key(model_a)}/dataDir", "")
    choices = LauncherSettings(isolated_settings).load(model_a)
    assert (choices.engine, choices.cluster, choices.master) == ("spark-cluster", "spark://10.0.0.1:7077", "local[*]")
    isolated_settings.setValue(f"{_key(model_a)}/master", "local[3]")
    choices = LauncherSettings(isolated_settings).load(model_a)
    assert (choices.engine, choices.master) == ("auto", "local[3]")


def test_run_reloads_the_choices_when_the_model_changed_unannounced(fake_launcher: Factory, model_a: Path,
                                                                     model_b: Path) -> None:
    current = {"model": model_a}
    launcher, fake = fake_launcher(model=lambda: current["model"])
    assert launcher.run_button.isEnabled()
    current["model"] = model_b
    launcher.start_run()
    assert fake.requests == [] and "press Run again" in launcher.status_label.text()
    assert launcher.data_edit.text() == "" and not launcher.run_button.isEnabled()  # model B's choices


def test_the_bundled_sample_runs_on_its_bundled_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(launcher_settings, "SAMPLE_DATA", tmp_path)
    assert default_data_dir(SAMPLE_MODEL) == str(tmp_path)
    out = default_out_dir(SAMPLE_MODEL)
    assert RESOURCES not in out.parents and out.name.startswith("orders-")


def test_browse_fills_the_folders(monkeypatch: pytest.MonkeyPatch, fake_launcher: Factory, tmp_path: Path) -> None:
    launcher, _ = fake_launcher()
    chosen = tmp_path / "chosen"
    (chosen / "something").mkdir(parents=True)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *args: str(chosen))
    launcher.data_browse.click()
    assert launcher.data_edit.text() == str(chosen)
    launcher.out_browse.click()  # not empty and not a run: the run goes in a new folder inside
    out = Path(launcher.out_edit.text())
    assert out.parent == chosen and out.name.startswith("model-")


# -- the events and the process, without Spark


def test_progress_lines_parse_into_events() -> None:
    assert parse_event('{"event": "stage", "stage": "decode", "done": 1, "total": 4}') == StageEvent("decode", 1, 4)
    assert parse_event('{"event": "finished", "status": "failed", "out": "/r", "reason": "no"}') == \
        FinishedEvent("failed", "/r", "no")
    assert parse_event('{"event": "finished", "status": "succeeded", "out": "/r", "counts": {}}') == \
        FinishedEvent("succeeded", "/r", "")
    for other in ("WARN something", "{not json", "[1]", '{"event": "stage"}', ""):
        assert parse_event(other) is None
    percents = [overall_percent(*stage) for stage in REAL_STAGES]
    assert percents == sorted(percents) and percents[0] == 0 and percents[-1] < 100


def test_worker_lines_parse_into_events() -> None:
    """The warm worker's own lines go through the same reader: its state, with what to say of it, and a run's end
    (a code that is not an integer counts as 1)."""
    ready = '{"event": "worker", "state": "ready", "spark_version": "4.0.1", "master": "local[2]", "seconds": 3.2}'
    assert parse_event(ready) == WorkerEvent("ready", "Spark 4.0.1 on local[2], started in 3.2 s")
    assert parse_event('{"event": "worker", "state": "stopped", "reason": "parent gone"}') == \
        WorkerEvent("stopped", "parent gone")
    assert parse_event('{"event": "done", "code": 2, "error": "bad model"}') == DoneEvent(2, "bad model")
    assert parse_event('{"event": "done", "code": "x"}') == DoneEvent(1, "")


def test_the_command_runs_the_engine_cli_with_this_python(tmp_path: Path) -> None:
    request = RunRequest(Path("m.json"), Path("data"), Path("out"), "local[1]")
    command = run_command(request, "/py")
    assert command[:4] == ["/py", "-m", "engine.cli", "run"]
    assert command[4:] == [str(Path("m.json").absolute()), "--data", str(Path("data").absolute()),
                           "--out", str(Path("out").absolute()), "--engine", "spark", "--master", "local[1]"]


def test_an_in_process_or_auto_run_names_no_master(tmp_path: Path) -> None:
    """`--master` would put an auto run on Spark, and is refused with an in-process one."""
    for engine in ("inprocess", "auto"):
        command = run_command(RunRequest(Path("m.json"), Path("data"), Path("out"), "local[1]", engine), "/py")
        assert command[-2:] == ["--engine", engine] and "--master" not in command


def test_unusable_input_fails_with_the_cli_s_one_line(qtbot: QtBot, tmp_path: Path) -> None:
    runner = RunProcess()
    request = RunRequest(ROW_IMAGES / "model.json", tmp_path / "nowhere", tmp_path / "run", "local[1]")
    logged: list[str] = []
    runner.sig_log.connect(logged.append)
    with qtbot.waitSignal(runner.sig_finished, timeout=60_000) as finished:
        runner.start(request)
        assert runner.is_running()
        with pytest.raises(RuntimeError):
            runner.start(request)
    status, out, reason = finished.args
    assert status == "failed" and out == str(tmp_path / "run") and "no such folder" in reason
    assert not reason.startswith("mapwright:") and not runner.is_running()
    assert logged[0].startswith("$ mapwright run ") and any("no such folder" in line for line in logged)


def test_a_run_cancelled_before_it_started_is_cancelled(qtbot: QtBot, tmp_path: Path) -> None:
    runner = RunProcess()
    with qtbot.waitSignal(runner.sig_finished, timeout=60_000) as finished:
        runner.start(RunRequest(ROW_IMAGES / "model.json", ROW_IMAGES / "data", tmp_path / "run", "local[1]"))
        qtbot.waitUntil(lambda: runner._process is not None and runner._process.processId() > 0)
        runner.cancel()
    assert finished.args == ["cancelled", str(tmp_path / "run"), "cancelled before the run started"]


def test_a_designer_started_with_sigint_ignored_still_cancels_a_starting_run(qtbot: QtBot, tmp_path: Path) -> None:
    """A shell starts a background job with SIGINT ignored, and an ignored signal survives exec: the run's
    process must start with SIGINT as a fresh process has it, so a cancel that reaches it while Python
    starts ends it at once, not when the grace runs out."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        runner = RunProcess(grace_ms=20_000)
        with qtbot.waitSignal(runner.sig_finished, timeout=60_000) as finished:
            runner.start(RunRequest(ROW_IMAGES / "model.json", ROW_IMAGES / "data", tmp_path / "run", "local[1]"))
            assert runner._process is not None and runner._process.waitForStarted(10_000)  # exec'd: Python starts
            started = time.monotonic()
            runner.cancel()
        assert finished.args == ["cancelled", str(tmp_path / "run"), "cancelled before the run started"]
        assert time.monotonic() - started < 5
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_cancel_before_the_exec_is_sent_once_the_run_s_process_runs(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the fork and the exec the child runs Qt's code with the designer's signal handlers: a signal
    sent then is caught there and lost. A cancel that comes that early is sent once the process runs."""
    sent: list[QProcess.ProcessState] = []
    real_kill = os.kill
    runner = RunProcess(grace_ms=20_000)

    def kill(pid: int, sig: int) -> None:
        assert runner._process is not None
        sent.append(runner._process.state())
        real_kill(pid, sig)

    monkeypatch.setattr(os, "kill", kill)
    with qtbot.waitSignal(runner.sig_finished, timeout=60_000) as finished:
        runner.start(RunRequest(ROW_IMAGES / "model.json", ROW_IMAGES / "data", tmp_path / "run", "local[1]"))
        assert runner._process is not None and runner._process.state() == QProcess.ProcessState.Starting
        runner.cancel()
        assert sent == []
    assert sent == [QProcess.ProcessState.Running]
    assert finished.args[0] == "cancelled" and finished.args[2] != "killed after the grace period"


def test_a_run_that_ignores_cancel_is_killed_after_the_grace(qtbot: QtBot, tmp_path: Path) -> None:
    runner = RunProcess(grace_ms=300, cancel_signal=signal.SIGSTOP)  # a stopped process cannot stop itself
    with qtbot.waitSignal(runner.sig_finished, timeout=60_000) as finished:
        runner.start(RunRequest(ROW_IMAGES / "model.json", ROW_IMAGES / "data", tmp_path / "run", "local[1]"))
        qtbot.waitUntil(lambda: runner._process is not None and runner._process.processId() > 0)
        runner.cancel()
    assert finished.args == ["cancelled", str(tmp_path / "run"), "killed after the grace period"]


# -- the real run, end to end


@pytest.fixture
def real_launcher(qtbot: QtBot, isolated_settings: QSettings, tmp_path: Path) -> Iterator[RunLauncher]:
    if not ROW_IMAGES.is_dir():
        pytest.fail(f"the contract examples are missing: {EXAMPLES}")
    launcher = RunLauncher(lambda: ROW_IMAGES / "model.json", settings=isolated_settings)
    qtbot.addWidget(launcher)
    launcher.show()
    assert launcher.data_edit.text() == str(ROW_IMAGES / "data")
    pick_engine(launcher, "spark-local")
    launcher.master_combo.setEditText("local[1]")
    launcher.out_edit.setText(str(tmp_path / "run"))  # never beside the shared example
    yield launcher
    if launcher.is_running():  # a failed assertion must not leave Spark behind
        with qtbot.waitSignal(launcher.sig_run_finished, timeout=60_000):
            launcher.runner.cancel()


@pytest.mark.slow
def test_a_real_run_succeeds_end_to_end(qtbot: QtBot, real_launcher: RunLauncher, tmp_path: Path) -> None:
    stages: list[str] = []
    real_launcher.runner.sig_stage.connect(lambda stage, *_: stages.append(stage))
    began = time.monotonic()
    with qtbot.waitSignal(real_launcher.sig_run_finished, timeout=180_000) as finished:
        real_launcher.run_button.click()
    print(f"real run: {time.monotonic() - began:.1f} s")
    assert finished.args == ["succeeded", str(tmp_path / "run")], real_launcher.log_view.toPlainText()
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["status"] == "succeeded"
    assert stages[:2] == ["start", "spark"] and "resolve" in stages and stages[-1] == "write"
    assert real_launcher.progress.value() == 100 and "Succeeded" in real_launcher.status_label.text()
    assert "stage converge" in real_launcher.log_view.toPlainText()


@pytest.mark.slow
def test_a_real_run_cancels_promptly(qtbot: QtBot, real_launcher: RunLauncher, tmp_path: Path) -> None:
    with qtbot.waitSignal(real_launcher.runner.sig_stage, check_params_cb=lambda stage, *_: stage == "spark",
                          timeout=180_000):
        real_launcher.run_button.click()
    began = time.monotonic()
    with qtbot.waitSignal(real_launcher.sig_run_finished, timeout=10_000) as finished:
        real_launcher.cancel_button.click()
    print(f"cancel took {time.monotonic() - began:.1f} s")
    assert finished.args[0] == "cancelled", real_launcher.log_view.toPlainText()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "cancelled"
    assert "Cancelled" in real_launcher.status_label.text() and real_launcher.run_button.isEnabled()


def test_a_failed_run_over_a_good_run_says_where_the_reason_is(qtbot: QtBot, isolated_settings: QSettings,
                                                               tmp_path: Path) -> None:
    """The real `mapwright run` (a model that fails validation: no Spark) over a succeeded run: the run is
    kept, and the status and the log name RUNDIR.attempt/manifest.json."""
    from engine.run.rundir.write import run_reference_to_dir

    status, good = run_reference_to_dir(ROW_IMAGES / "model.json", ROW_IMAGES / "data", tmp_path / "run")
    assert status == "succeeded"
    before = (good / "manifest.json").read_bytes()
    launcher = RunLauncher(lambda: EXAMPLES / "dkey_rules.json", settings=isolated_settings)
    qtbot.addWidget(launcher)
    launcher.data_edit.setText(str(ROW_IMAGES / "data"))
    launcher.master_combo.setEditText("local[1]")
    launcher.out_edit.setText(str(good))
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=60_000) as finished:
        launcher.run_button.click()
    attempt = tmp_path / "run.attempt"
    assert finished.args == ["failed", str(attempt)], launcher.log_view.toPlainText()
    assert (good / "manifest.json").read_bytes() == before
    status_text = launcher.status_label.text()
    assert "validation error" in status_text and str(attempt / "manifest.json") in status_text
    assert f"the earlier run in {good} is kept" in status_text
    assert str(attempt / "manifest.json") in launcher.log_view.toPlainText().splitlines()[-1]


def test_an_output_folder_that_is_not_a_run_directory_disables_run(fake_launcher: Factory, tmp_path: Path) -> None:
    launcher, fake = fake_launcher()
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / "manifest.json").write_text("{}")
    launcher.out_edit.setText(str(folder))
    assert not launcher.run_button.isEnabled() and not launcher.out_error.isHidden()
    assert "not a Mapwright run directory" in launcher.out_error.text()
    launcher.start_run()
    assert fake.requests == []
    launcher.out_edit.setText(str(tmp_path / "new-run"))
    assert launcher.run_button.isEnabled() and launcher.out_error.isHidden()
