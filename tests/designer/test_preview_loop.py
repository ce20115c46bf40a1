"""The preview loop on the user's own model: sample data made in the Run panel (generated, sampled from a
database, a folder), F5 asking for data, the engine choice, Run again on Spark, and Spark started only when
wanted. Real dialogs driven by keys and clicks, the real generator, a fake runner where the run's own
process is not the point (the end-to-end loop is test_preview_loop_e2e.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QSettings, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog
from pytestqt.qtbot import QtBot

from designer.launcher import RunLauncher
from designer.launcher.datachoice import DataChoiceDialog
from designer.launcher.runner import RunRequest
from designer.launcher.sampledialog import SampleDialog
from designer.launcher.samplejob import running_jobs
from designer.launcher.settings import default_sample_dir, samples_folder
from designer.launcher.sourcedialog import SourceDialog
from designer.window import MainWindow

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"


class RecordingRunner(QObject):
    """Records each request and ends it at once with a succeeded manifest naming `run_engine`."""

    sig_stage = Signal(str, int, int)
    sig_log = Signal(str)
    sig_finished = Signal(str, str, str)

    def __init__(self, parent: QObject | None) -> None:
        super().__init__(parent)
        self.requests: list[RunRequest] = []

    def start(self, request: RunRequest) -> None:
        self.requests.append(request)
        QTimer.singleShot(1, self, lambda: self._end(request))

    def cancel(self) -> None:
        pass

    def is_running(self) -> bool:
        return False

    def _end(self, request: RunRequest) -> None:
        ran = "inprocess" if request.engine == "inprocess" else "spark"
        request.out_dir.mkdir(parents=True, exist_ok=True)
        (request.out_dir / "manifest.json").write_text(json.dumps({"status": "succeeded", "engine": "mapwright test",
                                                                     "run_engine": ran}))
        self.sig_finished.emit("succeeded", str(request.out_dir), "")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path) -> Iterator[QSettings]:
    QStandardPaths.setTestModeEnabled(True)
    yield QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    QStandardPaths.setTestModeEnabled(False)


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    """The row_images example as the user's model, saved with no sample data beside it."""
    (tmp_path / "m").mkdir()
    return Path(shutil.copy(EXAMPLES / "row_images" / "model.json", tmp_path / "m" / "shop.json"))


@pytest.fixture
def launcher(qtbot: QtBot, isolated: QSettings, model_file: Path) -> RunLauncher:
    panel = RunLauncher(lambda: model_file, RecordingRunner, settings=isolated)
    qtbot.addWidget(panel)
    panel.show()
    return panel


def runner_of(panel: RunLauncher) -> RecordingRunner:
    assert isinstance(panel.runner, RecordingRunner)
    return panel.runner


def open_dialog(qtbot: QtBot, panel: RunLauncher, button: Any) -> Any:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = panel.sources.dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def generate_through(qtbot: QtBot, dialog: SampleDialog, rows: int = 6, changes: int = 40) -> str:
    """Type small knobs into the dialog's fields (Tab between them) and press Enter; the folder written."""
    dialog.seed.setFocus()
    dialog.seed.selectAll()
    QTest.keyClicks(dialog.seed, "7")
    QTest.keyClick(dialog.seed, Qt.Key.Key_Tab)
    assert dialog.focusWidget() is dialog.rows
    dialog.rows.selectAll()
    QTest.keyClicks(dialog.rows, str(rows))
    QTest.keyClick(dialog.rows, Qt.Key.Key_Tab)
    assert dialog.focusWidget() is dialog.changes
    dialog.changes.selectAll()
    QTest.keyClicks(dialog.changes, str(changes))
    with qtbot.waitSignal(dialog.sig_generated, timeout=60_000) as generated:
        QTest.keyClick(dialog.changes, Qt.Key.Key_Return)
        assert dialog.is_running() or not dialog.isVisible()
    assert (dialog.seed.value(), dialog.rows.value(), dialog.changes.value()) == (7, rows, changes)
    return str(generated.args[0])


# --- Generate sample data…


def test_generate_proposes_a_folder_beside_the_model_and_becomes_the_data(qtbot: QtBot, launcher: RunLauncher,
                                                                         model_file: Path) -> None:
    assert launcher.data_edit.text() == "" and not launcher.run_button.isEnabled()
    dialog = open_dialog(qtbot, launcher, launcher.generate_button)
    assert isinstance(dialog, SampleDialog) and dialog.isVisible()
    assert Path(dialog.out_edit.text()) == model_file.parent / "shop-data"
    folder = generate_through(qtbot, dialog)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert folder == str(model_file.parent / "shop-data")
    assert launcher.data_edit.text() == folder and launcher.run_button.isEnabled()
    assert (Path(folder) / "changes").is_dir() and any((Path(folder) / "snapshots").rglob("*.*"))
    assert default_sample_dir(model_file) == Path(folder)  # generated again into the generator's own folder
    (model_file.parent / "other-data").mkdir()
    (model_file.parent / "other-data" / "mine.txt").write_text("the user's")
    assert default_sample_dir(model_file.parent / "other.json") == model_file.parent / "other-data-2"
    unsaved = default_sample_dir(None)  # a model never saved: the application's data location
    assert unsaved.parent == samples_folder() and unsaved.name.startswith("untitled-")
    qtbot.waitUntil(lambda: running_jobs() == 0)


def test_escape_closes_the_dialog_without_a_change(qtbot: QtBot, launcher: RunLauncher, model_file: Path) -> None:
    dialog = open_dialog(qtbot, launcher, launcher.generate_button)
    dialog.rows.setFocus()
    QTest.keyClicks(dialog.rows, "9")
    QTest.keyClick(dialog.rows, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and running_jobs() == 0
    assert launcher.data_edit.text() == "" and not (model_file.parent / "shop-data").exists()


def test_an_outage_that_does_not_parse_is_said_and_nothing_runs(qtbot: QtBot, launcher: RunLauncher) -> None:
    dialog = open_dialog(qtbot, launcher, launcher.generate_button)
    dialog.outages.setFocus()
    QTest.keyClicks(dialog.outages, "hq:12:30-12:50, br:9:00")
    QTest.keyClick(dialog.outages, Qt.Key.Key_Return)
    assert dialog.isVisible() and not dialog.is_running()
    assert "br:9:00" in dialog.status.text() and "SITE:HH:MM-HH:MM" in dialog.status.text()
    dialog.outages.setText("hq:12:30-12:50")
    assert [(o.site, o.start.hour, o.end.minute) for o in dialog.options().outages] == [("hq", 12, 50)]
    dialog.reject()


def test_stop_stops_a_generation_under_way_and_the_data_stays_as_it_was(qtbot: QtBot,
                                                                        launcher: RunLauncher) -> None:
    dialog = open_dialog(qtbot, launcher, launcher.generate_button)
    dialog.rows.setValue(2_000_000)
    dialog.changes.setValue(50_000_000)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    assert dialog.is_running() and dialog.stop_button.isEnabled() and not dialog.rows.isEnabled()
    with qtbot.waitSignal(dialog.progress.valueChanged, timeout=30_000):
        pass  # under way
    qtbot.mouseClick(dialog.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.is_running(), timeout=30_000)
    assert dialog.isVisible() and "Stopped" in dialog.status.text() and dialog.start_button.isEnabled()
    assert launcher.data_edit.text() == ""
    out = Path(dialog.out_edit.text())
    assert not out.exists() or not any(out.iterdir())
    qtbot.waitUntil(lambda: running_jobs() == 0)
    dialog.reject()


# --- Sample from database…


def test_sample_from_database_reads_the_server_s_rows_then_generates(qtbot: QtBot, launcher: RunLauncher,
                                                                     isolated: QSettings, tmp_path: Path) -> None:
    model = json.loads((EXAMPLES / "row_images" / "model.json").read_text())
    table = model["tables"][0]
    db = tmp_path / "live.db"
    with sqlite3.connect(db) as connection:
        columns = ", ".join(f'"{c["name"]}" {c["type"]}' for c in table["columns"])
        connection.execute(f'CREATE TABLE "{table["name"]}" ({columns})')
        connection.executemany(f'INSERT INTO "{table["name"]}" VALUES (?, ?, ?)', [(1, 5, "live-one"),
                                                                                   (2, 7, "live-two")])
    dialog = open_dialog(qtbot, launcher, launcher.database_button)
    assert isinstance(dialog, SourceDialog)
    assert dialog.server.currentText() == table["server"]
    QTest.keyClick(dialog.url, Qt.Key.Key_Escape)  # Escape: nothing remembered, nothing made
    assert not dialog.isVisible() and launcher.data_edit.text() == ""

    dialog = open_dialog(qtbot, launcher, launcher.database_button)
    dialog.url.setFocus()
    QTest.keyClicks(dialog.url, f"sqlite:///{db}")
    QTest.keyClick(dialog.url, Qt.Key.Key_Tab)
    assert dialog.focusWidget() is dialog.password and dialog.password.echoMode() == dialog.password.EchoMode.Password
    with qtbot.waitSignal(dialog.sig_generated, timeout=60_000) as generated:
        QTest.keyClick(dialog.password, Qt.Key.Key_Return)
    assert launcher.data_edit.text() == generated.args[0] and Path(generated.args[0]).is_dir()
    snapshot = (Path(generated.args[0]) / "snapshots" / "src" / "ITEM.csv").read_text()
    assert "live-one" in snapshot and "live-two" in snapshot  # the database's rows, not made-up ones
    assert isolated.value("import/url") == f"sqlite:///{db}"  # the import dialog's remembered URL
    assert not dialog.isVisible()  # no notes to read: closed
    qtbot.waitUntil(lambda: running_jobs() == 0)


# --- F5 with no data


@pytest.fixture
def window(qtbot: QtBot, isolated: QSettings, model_file: Path) -> MainWindow:
    w = MainWindow(settings=isolated, ask=False, runner_factory=RecordingRunner)
    assert w.open_path(model_file)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def press_f5(qtbot: QtBot, w: MainWindow) -> DataChoiceDialog:
    w.run_action.trigger()
    dialog = w.launcher.sources.dialog
    assert isinstance(dialog, DataChoiceDialog)
    qtbot.waitExposed(dialog)
    return dialog


def test_f5_with_no_data_asks_escape_runs_nothing_and_enter_generates_then_runs(qtbot: QtBot,
                                                                                window: MainWindow) -> None:
    launcher = window.launcher
    chooser = press_f5(qtbot, window)
    assert [b.text() for b in chooser.choice_buttons.values()] == [
        "Generate sample data…", "Sample from database…", "Use a folder…"]
    QTest.keyClick(chooser, Qt.Key.Key_Escape)
    assert not chooser.isVisible()
    assert runner_of(launcher).requests == []

    chooser = press_f5(qtbot, window)
    QTest.keyClick(chooser, Qt.Key.Key_Return)  # Generate is the default
    dialog = launcher.sources.dialog
    assert isinstance(dialog, SampleDialog)
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=60_000):
        generate_through(qtbot, dialog)
    request = runner_of(launcher).requests[0]
    assert str(request.data_dir) == launcher.data_edit.text() and request.engine == "auto"
    qtbot.waitUntil(lambda: running_jobs() == 0)


def test_f5_on_a_folder_that_is_gone_asks_and_use_a_folder_runs_on_the_one_chosen(
        qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    launcher = window.launcher
    launcher.data_edit.setText(str(tmp_path / "gone"))
    chooser = press_f5(qtbot, window)
    chosen = shutil.copytree(EXAMPLES / "row_images" / "data", tmp_path / "chosen")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *args: str(chosen))
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=10_000):
        qtbot.mouseClick(chooser.choice_buttons["folder"], Qt.MouseButton.LeftButton)
    assert [r.data_dir for r in runner_of(launcher).requests] == [chosen]
    window.run_action.trigger()  # with data, F5 runs at once
    qtbot.waitUntil(lambda: len(runner_of(launcher).requests) == 2)


# --- the engine choice, Run again on Spark, and Spark only when wanted


def test_each_engine_choice_is_its_request_and_run_again_on_spark_is_one_click(
        qtbot: QtBot, launcher: RunLauncher, tmp_path: Path) -> None:
    launcher.data_edit.setText(str(EXAMPLES / "row_images" / "data"))
    wanted: list[str] = []
    launcher.sig_spark_wanted.connect(wanted.append)
    launcher.engine_combo.setFocus()
    for key, engine in ((Qt.Key.Key_Down, "inprocess"), (Qt.Key.Key_Down, "spark"), (Qt.Key.Key_Up, "inprocess")):
        QTest.keyClick(launcher.engine_combo, key)  # the user's pick: `activated`
        launcher.out_edit.setText(str(tmp_path / f"run-{len(runner_of(launcher).requests)}"))
        with qtbot.waitSignal(launcher.sig_run_finished, timeout=5_000):
            qtbot.mouseClick(launcher.run_button, Qt.MouseButton.LeftButton)
        assert runner_of(launcher).requests[-1].engine == engine
    assert wanted == ["local[*]", "local[*]"]  # picked, then its run: In process never asks for Spark
    assert launcher.last_engine == "inprocess" and "Succeeded in process" in launcher.status_label.text()
    assert launcher.spark_again_button.isVisible() and launcher.spark_again_button.isEnabled()
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=5_000):
        qtbot.mouseClick(launcher.spark_again_button, Qt.MouseButton.LeftButton)
    last = runner_of(launcher).requests[-1]
    assert (last.engine, last.master) == ("spark", "local[*]") and wanted[-1] == "local[*]"
    assert "Succeeded on Spark" in launcher.status_label.text() and not launcher.spark_again_button.isVisible()
    assert launcher.engine_choice.choice() == "spark-local"  # and remembered for the model


def test_the_window_starts_spark_only_when_a_spark_engine_is_picked(qtbot: QtBot, isolated: QSettings,
                                                                    model_file: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from designer.launcher.warm import WarmSession

    started: list[str] = []
    monkeypatch.setattr(WarmSession, "start", lambda self: started.append(self.master) if self.spark else None)
    w = MainWindow(settings=isolated, ask=False, warm=True)
    qtbot.addWidget(w)
    assert w.open_path(model_file)
    w.show()
    qtbot.wait(20)  # the window's queued start-up calls
    assert started == [] and w.spark_status.text() == "Spark: not started"
    combo = w.launcher.engine_combo
    for choice in ("inprocess", "auto"):
        combo.setCurrentIndex(combo.findData(choice))
        combo.activated.emit(combo.currentIndex())
    assert started == []
    w.launcher.master_combo.setEditText("local[2]")
    combo.setCurrentIndex(combo.findData("spark-local"))
    combo.activated.emit(combo.currentIndex())
    assert started == ["local[2]"]
    w.close()


def test_the_conflict_browser_shows_an_in_process_run(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    from engine.runner import run

    example = EXAMPLES / "ordering_conflict"
    out = tmp_path / "inprocess-run"
    assert run(example / "model.json", example / "data", out, engine="inprocess", cancel=threading.Event()) == 0
    assert json.loads((out / "manifest.json").read_text())["run_engine"] == "inprocess"
    browser = window.open_run(out)
    with qtbot.waitSignal(browser.sig_run_opened, timeout=10_000):
        pass
    expected = json.loads((example / "expected.json").read_text())["conflicts"]
    shown = [browser.conflicts.record(r) for r in range(browser.conflicts.rowCount())]
    assert sorted((c["site"], c["origin"], c["method"], c["outcome"]) for c in shown) == sorted(
        (c["site"], c["origin"], c["method"], c["outcome"]) for c in expected)
    assert "succeeded — 2 conflicts" in browser.banner.text()
    info = browser.overview.info_labels
    assert (info["Ran"].text(), info["Master"].text(), info["Spark"].text()) == ("inprocess", "—", "—")
    browser.close()
    QApplication.processEvents()
