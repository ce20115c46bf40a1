"""Keyboard editing in the table's columns grid lands on the row the user edits (issue 37, item 1).

The user's sequence: Add column, type a name, Tab, type a type, Enter. Each commit is a document edit; the grid
once reset itself on every edit, so Tab moved from a reset (current-less) view to the first row and the type
was written over the primary-key column."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, send_keys, type_over, window_on


def test_add_column_name_tab_type_enter_edits_the_new_row(qtbot: QtBot, tmp_path: Path) -> None:
    w = window_on(qtbot, tmp_path, TWO_TABLES)
    w.select(("table", "br.CUST"))
    grid = w.inspector.columns
    assert grid is not None
    grid.view.selectRow(1)  # NAME: the new column goes after it
    buttons = {b.text(): b for b in grid.findChildren(QPushButton)}
    qtbot.mouseClick(buttons["Add column"], Qt.MouseButton.LeftButton)
    QApplication.processEvents()
    type_over("LABEL", Qt.Key.Key_Tab)
    type_over("VARCHAR2(80)", Qt.Key.Key_Return)
    table = w.document.model.table("br.CUST")
    assert table is not None
    types = {c.name: c.type for c in table.columns}
    assert table.column_names() == ["KEY", "NAME", "LABEL", "CODE"]
    assert types == {"KEY": "VARCHAR(16)", "NAME": "VARCHAR(40)", "LABEL": "VARCHAR2(80)", "CODE": "CHAR(3)"}
    assert "LABEL" in w.document.undo_stack.undoText()


def test_shift_tab_escape_and_typing_over_a_cell_in_the_columns_grid(qtbot: QtBot, tmp_path: Path) -> None:
    w = window_on(qtbot, tmp_path, TWO_TABLES)
    w.select(("table", "br.CUST"))
    grid = w.inspector.columns
    assert grid is not None
    view = grid.view
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    view.setFocus()
    view.setCurrentIndex(grid.model.index(2, 1))  # CODE's type
    send_keys(view, Qt.Key.Key_F2)  # F2 edits the cell (it was the window's Rename shortcut)
    type_over("CHAR(4)", Qt.Key.Key_Backtab)  # commits, and goes back to CODE's name
    assert view.currentIndex().row() == 2 and view.currentIndex().column() == 0
    type_over("COUNTRY", Qt.Key.Key_Escape)  # Escape: the name stays
    table = w.document.model.table("br.CUST")
    assert table is not None and table.column_names() == ["KEY", "NAME", "CODE"]
    assert table.columns[2].type == "CHAR(4)" and table.columns[0].type == "VARCHAR(16)"
    view.setCurrentIndex(grid.model.index(1, 1))  # typing over NAME's type starts an editor with what is typed
    send_keys(view, "TEXT")
    send_keys(view, Qt.Key.Key_Return)
    table = w.document.model.table("br.CUST")
    assert table is not None and table.columns[1].type == "TEXT"
    assert [c.type for c in table.columns] == ["VARCHAR(16)", "TEXT", "CHAR(4)"]
