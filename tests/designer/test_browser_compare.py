"""The conflict browser's Compare with…: the shown run against another run directory, off the GUI thread,
shown as `mapwright diff` prints it."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

import designer.browser.compare as compare_module
from designer.browser import ConflictBrowser
from engine.run.rundir.write import run_reference_to_dir
from engine.rundiff import diff_runs, render_diff


def _priority_20_run(examples: Path, folder: Path) -> Path:
    """The ordering example with server A's priority 20 (below B's): at C, A's late change loses to B's."""
    shutil.copytree(examples / "ordering_conflict" / "data", folder / "data")
    model = json.loads((examples / "ordering_conflict" / "model.json").read_text())
    next(s for s in model["servers"] if s["id"] == "A")["priority"] = 20
    (folder / "model.json").write_text(json.dumps(model))
    status, out = run_reference_to_dir(folder / "model.json", folder / "data", folder / "run")
    assert status == "succeeded"
    return out


def test_compare_with_shows_the_diff_of_another_run(browser: ConflictBrowser, ordering_run: Path, examples: Path,
                                                   tmp_path: Path, qtbot: QtBot,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    comparer = browser.comparer
    assert not comparer.action.isEnabled() and not comparer.button.isEnabled()  # no run shown yet
    browser.open_run(ordering_run)
    assert comparer.button.isEnabled()
    other = _priority_20_run(examples, tmp_path)
    starts: list[str] = []
    answers = [str(other), str(tmp_path)]  # then a folder that is no run directory

    def ask(_parent: Any, _caption: str, start: str = "", *_: Any, **__: Any) -> str:
        starts.append(start)
        return answers[len(starts) - 1]
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(ask))
    threads: list[str] = []

    def recorded(a: Path, b: Path) -> Any:
        threads.append(threading.current_thread().name)
        return diff_runs(a, b)
    monkeypatch.setattr(compare_module, "diff_runs", recorded)

    browser.activateWindow()
    qtbot.waitActive(browser)
    with qtbot.waitSignal(comparer.sig_compared, timeout=10_000) as done:
        QTest.keyClick(browser.windowHandle(), Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    text = done.args[0]
    assert starts == [str(ordering_run.absolute().parent)]
    assert threads == ["mapwright-diff-runs"]  # never the GUI thread
    assert text == render_diff(diff_runs(ordering_run, other))  # what `mapwright diff` prints
    assert "C.T remote" in text and "    ID=1: X 5 -> 7" in text
    dialog = comparer.dialog
    assert dialog is not None and dialog.isVisible() and dialog.text.toPlainText() == text
    assert not comparer.comparing()

    with qtbot.waitSignal(comparer.sig_compared, timeout=10_000) as done:
        qtbot.mouseClick(comparer.button, Qt.MouseButton.LeftButton)
    assert done.args[0] == f"Cannot compare: {tmp_path}: not a run directory (no manifest.json)"
    assert dialog.text.toPlainText() == done.args[0]

    browser.open_run(tmp_path / "absent")  # a folder that cannot be opened: nothing to compare
    assert not comparer.action.isEnabled() and not comparer.button.isEnabled()
