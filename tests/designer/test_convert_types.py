"""Issue 37, item 8: "Convert types to <DBMS>" from the canvas's real context menu (a right click on the
table's header, then a click on the entry) gives the table its server's types as one undo step, and TY006
goes; Ctrl+Z, typed as a keyboard does, brings both back."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, window_on

from designer.canvas.items import HEADER
from designer.window import MainWindow


def _model() -> dict[str, Any]:
    """TWO_TABLES with Oracle's types on the PostgreSQL table br.CUST."""
    doc = copy.deepcopy(TWO_TABLES)
    br = doc["tables"][1]
    br["columns"] += [{"name": "NOTE", "type": "VARCHAR2(80)"}, {"name": "PRICE", "type": "NUMBER(10,2)"}]
    return doc


def _header_point(w: MainWindow, key: str) -> QPoint:
    """Where `key`'s header is drawn, in the window's coordinates."""
    item = w.scene.tables[key]
    in_view = w.view.mapFromScene(item.mapToScene(QPointF(20, HEADER / 2)))
    return w.view.viewport().mapTo(w, in_view)


def _right_click_and_choose(qtbot: QtBot, w: MainWindow, at: QPoint, entry: str) -> list[str]:
    """Right-click at `at` through the window (as a mouse does: Qt makes the context menu event), then click
    `entry` of the popup menu that opens (none: "" closes it); returns the menu's entries, marking the disabled."""
    seen: list[str] = []

    def choose() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, choose)
            return
        seen.extend(f"{a.text()}{'' if a.isEnabled() else ' (disabled)'}" for a in menu.actions() if a.text())
        action = next((a for a in menu.actions() if entry and a.text() == entry), None)
        if action is None:
            menu.close()
            return
        QTest.mouseClick(menu.windowHandle(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         menu.actionGeometry(action).center())

    QTimer.singleShot(50, choose)
    QTest.mouseClick(w.windowHandle(), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None and bool(seen), timeout=5000)
    return seen


def _ty006(w: MainWindow) -> list[str]:
    return sorted(f"{f.location.table}.{f.location.column}" for f in w.document.findings() if f.code == "TY006")


def _types(w: MainWindow, key: str) -> list[str]:
    table = w.document.model.table(key)
    assert table is not None
    return [c.type for c in table.columns]


def test_convert_types_from_the_canvas_menu_is_one_undo_step(qtbot: QtBot, tmp_path: Path) -> None:
    w = window_on(qtbot, tmp_path, _model())
    assert _ty006(w) == ["br.CUST.NOTE", "br.CUST.PRICE"]
    stack = w.document.undo_stack
    steps = stack.count()

    seen = _right_click_and_choose(qtbot, w, _header_point(w, "br.CUST"), "Convert types to postgresql")
    assert "Convert types to postgresql" in seen, seen
    qtbot.waitUntil(lambda: stack.count() == steps + 1, timeout=5000)
    assert stack.undoText() == "Convert types of br.CUST to postgresql"
    assert _types(w, "br.CUST") == ["VARCHAR(16)", "VARCHAR(40)", "CHAR(3)", "VARCHAR(80)", "DECIMAL(10,2)"]
    assert _ty006(w) == []

    # nothing left to convert: the entry is there, disabled; the Oracle table's own types need nothing either
    assert "Convert types to postgresql (disabled)" in _right_click_and_choose(
        qtbot, w, _header_point(w, "br.CUST"), "")
    assert "Convert types to oracle (disabled)" in _right_click_and_choose(qtbot, w, _header_point(w, "hq.CUST"), "")
    assert stack.count() == steps + 1

    w.activateWindow()  # the menus had the keyboard
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=5000)
    w.view.setFocus()
    QTest.keyClick(w.windowHandle(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: stack.count() == steps + 1 and stack.index() == steps, timeout=5000)
    assert _types(w, "br.CUST")[3:] == ["VARCHAR2(80)", "NUMBER(10,2)"]
    assert _ty006(w) == ["br.CUST.NOTE", "br.CUST.PRICE"]
