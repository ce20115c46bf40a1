"""The run -> inspect loop as a user meets it: F5, unsaved edits, browsers, rejects, convergence, sample data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSettings, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from designer.browser import ConflictBrowser
from designer.launcher.runner import RunRequest
from designer.launcher.settings import SAMPLE_DATA
from designer.window import MainWindow
from engine.run.rundir.write import conflicts_arrow
from resources import SAMPLE_MODEL

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"


class QuickRunner(QObject):
    """Writes a succeeded run's manifest (and the given records) as soon as it is started."""

    sig_stage = Signal(str, int, int)
    sig_log = Signal(str)
    sig_finished = Signal(str, str, str)

    def __init__(self, parent: QObject | None) -> None:
        super().__init__(parent)
        self.requests: list[RunRequest] = []

    def start(self, request: RunRequest) -> None:
        self.requests.append(request)
        QTimer.singleShot(5, lambda: self._end(request))

    def cancel(self) -> None:
        pass

    def _end(self, request: RunRequest) -> None:
        write_run(request.out_dir)
        self.sig_finished.emit("succeeded", str(request.out_dir), "")


def write_run(out: Path, rejects: list[dict[str, Any]] = (), convergence: list[dict[str, Any]] = (),  # type: ignore[assignment]
              model_path: str = "m.json") -> Path:
    """A whole run directory (every file of the contract, counts that agree) with these rejects and convergence."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables" / "s").mkdir(parents=True)
    pq.write_table(pa.table({"ID": pa.array([], pa.int64())}), out / "tables" / "s" / "T.parquet")
    counts = dict.fromkeys(("filtered", "deliveries", "applied", "resolved", "queued", "conflicts"), 0)
    counts.update(records=len(rejects), rejects=len(rejects))
    (out / "manifest.json").write_text(json.dumps({"status": "succeeded", "engine": "mapwright test",
                                                   "model": {"path": model_path}, "counts": counts}))
    (out / "rejects.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rejects))
    for name in ("conflicts.jsonl", "error_queue.jsonl"):
        (out / name).write_text("")
    pq.write_table(conflicts_arrow([]), out / "conflicts.parquet")
    (out / "convergence.json").write_text(json.dumps({"mappings": list(convergence)}))
    return out


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))
    QStandardPaths.setTestModeEnabled(True)
    yield
    QStandardPaths.setTestModeEnabled(False)


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    (tmp_path / "m").mkdir()
    shutil.copy(EXAMPLES / "row_images" / "model.json", tmp_path / "m" / "model.json")
    shutil.copytree(EXAMPLES / "row_images" / "data", tmp_path / "m" / "data")
    return tmp_path / "m" / "model.json"


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, model_file: Path) -> MainWindow:
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=False,
                   runner_factory=QuickRunner)
    w.open_path(model_file)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def runner(w: MainWindow) -> QuickRunner:
    r = w.launcher.runner
    assert isinstance(r, QuickRunner)
    return r


def delete_later_now() -> None:
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


# --- the conflict browser window -----------------------------------------------------------------


def test_a_browser_can_be_opened_again_after_one_was_closed(window: MainWindow, tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    first = window.open_run(run)
    assert first.summary is None and first.loading()  # read off the GUI thread: shown when the read is done
    first.close()  # deletes itself (WA_DeleteOnClose)
    delete_later_now()
    second = window.open_run(run)  # raised RuntimeError: ... ConflictBrowser already deleted
    assert second.isVisible() and window.browsers == [second]


def test_closing_the_designer_closes_the_run_windows_it_opened(window: MainWindow, tmp_path: Path) -> None:
    """Left open, they kept the application running with no designer (and the last one's close quit it)."""
    runs = [window.open_run(write_run(tmp_path / name)) for name in ("a", "b")]
    outside = ConflictBrowser()  # a browser the window did not open is not the window's to close
    outside.show()
    assert all(b.isVisible() for b in runs)
    assert window.close()
    assert not any(b.isVisible() for b in runs)
    delete_later_now()
    assert window.browsers == [] and outside.isVisible()
    outside.close()


def test_selecting_a_long_reject_does_not_widen_the_browser(qtbot: QtBot, tmp_path: Path) -> None:
    raw = '{"op": "I", "row": {"NOTE": "' + "x" * 3400 + '"}}'
    run = write_run(tmp_path / "run", rejects=[{"file": "changes/a.jsonl", "line": 7, "reason": "bad", "raw": raw}])
    browser = ConflictBrowser()
    qtbot.addWidget(browser)
    browser.resize(1100, 750)
    browser.show()
    qtbot.waitExposed(browser)
    browser.open_run(run)
    page = browser.rejects_page
    browser.tabs.setCurrentWidget(page)
    page.view.selectRow(0)
    qtbot.wait(50)
    assert browser.width() <= 1100
    assert browser.minimumSizeHint().width() < 1100
    text = page.description.text()
    assert "…" in text and len(text) < 1000 and "3,4" in text  # elided, and says how long the line is
    assert raw in page.description.toolTip() or raw[:500] in page.description.toolTip()


# --- F5 and unsaved edits ------------------------------------------------------------------------


def press_f5(window: MainWindow, qtbot: QtBot) -> None:
    window.activateWindow()
    window.run_action.trigger()


def test_f5_runs_the_model_and_the_run_tab_stays_reachable(window: MainWindow, qtbot: QtBot) -> None:
    assert window.run_action.shortcut().toString() == "F5"
    press_f5(window, qtbot)
    qtbot.waitUntil(lambda: len(runner(window).requests) == 1)
    assert window.bottom_tabs.currentWidget() is window.run_page and window.run_page.widget() is window.launcher
    assert runner(window).requests[0].model == window.document.path
    assert window.show_run_tab_action.isEnabled()  # View the Run tab without running
    qtbot.waitUntil(lambda: not window.launcher.is_running())


def dirty_it(window: MainWindow) -> None:
    from engine.edits import set_setting

    window.document.apply(set_setting(window.document.model, "name", "edited"), "Rename")
    assert window.document.dirty


def test_running_with_unsaved_edits_asks_and_save_and_run_saves_first(window: MainWindow, qtbot: QtBot,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    dirty_it(window)
    asked: list[str] = []

    def answer(*args: Any, **_: Any) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Save

    monkeypatch.setattr(QMessageBox, "question", answer)
    window.ask = True
    window.run_action.trigger()
    qtbot.waitUntil(lambda: len(runner(window).requests) == 1)
    assert asked and "unsaved" in asked[0]
    assert not window.document.dirty
    assert json.loads(window.document.path.read_text())["name"] == "edited"  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: not window.launcher.is_running())


def test_running_with_unsaved_edits_and_cancel_runs_nothing(window: MainWindow, qtbot: QtBot,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    dirty_it(window)
    before = window.document.path.read_text()  # type: ignore[union-attr]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Cancel)
    window.ask = True
    window.launcher.run_button.click()  # the Run button asks too, not only F5
    qtbot.wait(50)
    assert runner(window).requests == [] and window.document.dirty
    assert window.document.path.read_text() == before  # type: ignore[union-attr]


# --- Save As and the sample data ------------------------------------------------------------------


@pytest.fixture
def sample_window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=False,
                   runner_factory=QuickRunner)
    w.open_path(SAMPLE_MODEL)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_save_as_carries_the_sample_data_over(sample_window: MainWindow, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    launcher = sample_window.launcher
    assert Path(launcher.data_edit.text()) == SAMPLE_DATA
    target = tmp_path / "mine" / "orders.json"
    target.parent.mkdir()
    monkeypatch.setattr("designer.window.QFileDialog.getSaveFileName", lambda *a, **k: (str(target), ""))
    assert sample_window.save_as()
    assert sample_window.document.path == target
    assert Path(launcher.data_edit.text()) == SAMPLE_DATA  # was "": only a tooltip said why Run was disabled
    assert launcher.run_button.isEnabled()
    # and it is remembered for the new file
    sample_window.open_path(target)
    assert Path(sample_window.launcher.data_edit.text()) == SAMPLE_DATA


def test_why_run_is_disabled_is_shown_in_words_not_only_in_a_tooltip(sample_window: MainWindow) -> None:
    launcher = sample_window.launcher
    sample_window.show_launcher()
    assert not launcher.blocker_label.isVisibleTo(launcher)
    launcher.data_edit.setText("")
    assert not launcher.run_button.isEnabled()
    assert launcher.blocker_label.isVisibleTo(launcher)
    assert "choose the sample data folder" in launcher.blocker_label.text()


def test_the_launcher_says_the_bundled_sample_data_is_faulty_on_purpose(sample_window: MainWindow,
                                                                        model_file: Path) -> None:
    launcher = sample_window.launcher
    assert launcher.sample_note.isVisibleTo(launcher)
    assert "on purpose" in launcher.sample_note.text() and "rejects" in launcher.sample_note.text()
    launcher.data_edit.setText(str(model_file.parent / "data"))
    assert not launcher.sample_note.isVisibleTo(launcher)


def test_a_run_on_the_sample_data_says_its_rejects_are_expected(sample_window: MainWindow, qtbot: QtBot) -> None:
    sample_window.run_action.trigger()
    qtbot.waitUntil(lambda: len(sample_window.browsers) == 1)
    browser = sample_window.browsers[0]
    qtbot.waitUntil(lambda: browser.summary is not None)  # read off the GUI thread
    assert not browser.sample_note.isHidden()
    assert "on purpose" in browser.sample_note.text()
    assert "expected" in browser.banner.text()


def test_a_run_of_the_sample_model_opened_later_says_so_and_another_does_not(qtbot: QtBot, tmp_path: Path) -> None:
    browser = ConflictBrowser()
    qtbot.addWidget(browser)
    reject = [{"file": "changes/x.jsonl", "line": 1, "reason": "bad JSON", "raw": "{"}]
    browser.open_run(write_run(tmp_path / "a", rejects=reject, model_path=str(SAMPLE_MODEL)))
    assert not browser.sample_note.isHidden()
    browser.open_run(write_run(tmp_path / "b", rejects=reject, model_path=str(tmp_path / "mine.json")))
    assert browser.sample_note.isHidden()
    assert "expected" not in browser.banner.text()


# --- convergence examples ---------------------------------------------------------------------------


def test_convergence_says_the_keys_listed_are_examples(qtbot: QtBot, tmp_path: Path) -> None:
    examples = [{"dkey": {"ID": i}, "source": {"ID": i, "X": 1}, "target": {"ID": i, "X": 2}} for i in range(20)]
    mappings = [{"mapping": "hq_to_web", "compared": 900, "diverged": 103, "examples": examples},
                {"mapping": "few", "compared": 9, "diverged": 2, "examples": examples[:2]},
                {"mapping": "fine", "compared": 9, "diverged": 0, "examples": []}]
    browser = ConflictBrowser()
    qtbot.addWidget(browser)
    browser.open_run(write_run(tmp_path / "run", convergence=mappings))
    page = browser.convergence_page
    captions = {}
    for row in range(3):
        page.view.selectRow(row)
        name = page.view.model().index(row, 0).data()
        captions[name] = page.examples_caption.text()
    assert "20 example keys of the 103" in captions["hq_to_web"]
    assert captions["few"].startswith("All 2 keys")
    assert "converged" in captions["fine"]
