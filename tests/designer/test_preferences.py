"""Issue 37 item 10: Help ▸ Keyboard shortcuts lists the window's actions' shortcuts; Edit ▸ Preferences keeps
its values in the window's settings, and they are used (the autosave timer, the Run tab's engine)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, send_keys, window_on

from designer.helpmenu import ShortcutsDialog
from designer.launcher.settings import INPROCESS, PREFERENCES
from designer.preferences import PreferencesDialog


def test_shortcuts_dialog_lists_the_actions(qtbot: QtBot, tmp_path: Path) -> None:
    w = window_on(qtbot, tmp_path, TWO_TABLES)
    w.shortcuts_action.trigger()
    dialog = w.findChild(ShortcutsDialog)
    assert dialog is not None and dialog.isVisible()
    shown = dialog.shown()
    save = QKeySequence(QKeySequence.StandardKey.Save).toString(QKeySequence.SequenceFormat.NativeText)
    assert shown["File ▸ Save"] == save == "Ctrl+S"
    assert shown["Edit ▸ Rename…"] == "F2"
    assert shown["Run ▸ Run on sample data"] == "F5"
    assert shown["View ▸ Auto layout"] == "Ctrl+L"
    w.run_action.setShortcut(QKeySequence("F9"))  # read from the actions: never stale
    w.shortcuts_action.trigger()
    assert dialog.shown()["Run ▸ Run on sample data"] == "F9"
    assert w.findChildren(ShortcutsDialog) == [dialog]


def test_preferences_are_kept_and_used(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MAPWRIGHT_RUNS_DIR", "MAPWRIGHT_DRIVER_MEMORY"):  # set, then removed: restored after the test
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    w = window_on(qtbot, tmp_path, TWO_TABLES)
    assert w.autosaver.periodic.interval() == 60_000
    w.preferences_action.trigger()
    dialog = w.findChild(PreferencesDialog)
    assert dialog is not None
    qtbot.waitExposed(dialog)
    dialog.master.setFocus()
    send_keys(dialog.master, "local[x]")  # refused: said on one line naming the field, OK stays off
    assert dialog.problem_label.text().startswith("Spark master:")
    send_keys(dialog.master, Qt.Key.Key_Return)
    assert dialog.isVisible()
    dialog.master.selectAll()
    send_keys(dialog.master, "local[2]")
    dialog.engine.setFocus()
    send_keys(dialog.engine, Qt.Key.Key_Down)  # Auto -> In process
    runs = tmp_path / "all-runs"
    dialog.runs.setFocus()
    send_keys(dialog.runs, str(runs))
    dialog.autosave.setFocus()
    dialog.autosave.selectAll()
    send_keys(dialog.autosave, "15")
    send_keys(dialog.autosave, Qt.Key.Key_Return)  # Enter: OK
    QApplication.processEvents()
    assert w.findChild(PreferencesDialog) is None  # accepted and closed (deleted on close)
    assert w.settings.value(f"{PREFERENCES}/autosaveSeconds") == "15"
    assert w.settings.value(f"{PREFERENCES}/engine") == INPROCESS
    assert w.autosaver.periodic.interval() == 15_000  # at once, on the open model's autosaver
    # a model never run here gets the preferred engine and master; its runs go to the preferred folder
    other = tmp_path / "other.json"
    other.write_text((tmp_path / "model.json").read_text())
    assert w.open_path(other)
    assert w.autosaver.periodic.interval() == 15_000  # and on the next model's
    assert w.launcher.engine_choice.choice() == INPROCESS
    assert w.launcher.engine_choice.local_master() == "local[2]"
    assert Path(w.launcher.out_edit.text()).parent == runs
