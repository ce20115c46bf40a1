"""The designer's main window as the GUI tests open it: private settings, a model, shown and exposed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from designer.window import MainWindow


def make_window(qtbot: QtBot, tmp_path: Path, model: Path, ask: bool = False) -> MainWindow:
    """A window on `model`, 1400 x 900, with its settings in `tmp_path` (never the user's). `ask`: the window
    may show dialogs (the test answers them)."""
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=ask)
    w.open_path(model)
    w.resize(1400, 900)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def window_on(qtbot: QtBot, tmp_path: Path, doc: dict[str, Any], name: str = "model.json") -> MainWindow:
    """A window (`make_window`) on the model `doc`, written to `tmp_path/name` first."""
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return make_window(qtbot, tmp_path, path)


def send_keys(widget: QWidget, keys: str | Qt.Key) -> None:
    """Keys as the system delivers them: to `widget`'s window, which gives them to its focus widget, shortcuts
    first (sent straight to a widget, keys skip the shortcuts, and Return never reaches a cell editor)."""
    window = widget.window().windowHandle()
    for key in ([keys] if isinstance(keys, Qt.Key) else keys):
        QTest.keyClick(window, key)  # type: ignore[arg-type]  # a character is a key too
    QApplication.processEvents()


def type_over(text: str, key: Qt.Key) -> None:
    """Select what the focused line editor holds, type `text` over it, then press `key`."""
    line = QApplication.focusWidget()
    assert isinstance(line, QLineEdit), f"no line editor has the focus ({line!r})"
    line.selectAll()
    send_keys(line, text)
    send_keys(line, key)


def row_point(w: MainWindow, table: str, column: str) -> QPoint:
    """Where `table`'s row of `column` is drawn, in the canvas's viewport."""
    item = w.scene.tables[table]
    centre = item.mapToScene(item.row_rect(column).center())
    return w.view.mapFromScene(centre)


TWO_TABLES = {
    "format": "mapwright/1", "name": "two",
    "servers": [{"id": "hq", "dbms": "oracle", "priority": 20}, {"id": "br", "dbms": "postgresql", "priority": 10}],
    "tables": [
        {"server": "hq", "name": "CUST", "columns": [
            {"name": "REGION", "type": "CHAR(2)", "nullable": False},
            {"name": "NO", "type": "INTEGER", "nullable": False},
            {"name": "NAME", "type": "VARCHAR(40)"}], "primary_key": ["REGION", "NO"]},
        {"server": "br", "name": "CUST", "columns": [
            {"name": "KEY", "type": "VARCHAR(16)", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"},
            {"name": "CODE", "type": "CHAR(3)", "nullable": False}], "primary_key": ["KEY"]}],
    "layout": {"hq.CUST": [0, 0], "br.CUST": [500, 0]},
}
"""Two servers' CUST tables, unmapped: the model the window and canvas tests draw and edit."""
