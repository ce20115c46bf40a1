"""Keyboard editing in every editable grid and form of the designer (issue 37, item 1): Tab, Shift+Tab, Enter,
Escape and typing over a cell, as real key events delivered through the window (shortcuts first, as a keyboard
does). Each commit lands on the entity and row the user edits and is one named undo step; Escape keeps the value.
The columns grid has its own tests (test_grid_keyboard.py)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QDialog, QLineEdit, QWidget
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, send_keys, type_over, window_on

from designer.authoring.dialogs import ServerDialog, TableDialog
from designer.conflict_editor import SHADOW
from designer.window import MainWindow
from engine.model.methods import Column

MODEL: dict[str, Any] = copy.deepcopy(TWO_TABLES)
MODEL["tables"][1]["unique_indexes"] = [{"name": "UX_NAME", "columns": ["NAME"]}]
MODEL["mappings"] = [{"id": "fwd", "source": "hq.CUST", "target": "br.CUST",
                      "columns": {"KEY": "NO", "NAME": "NAME"}}]
MODEL["conflicts"] = [{"table": "br.CUST", "column_groups": [{"name": "g", "columns": ["NAME", "CODE"], "resolution": [
    {"method": "priority_group", "column": "CODE", "priorities": {}}]}]}]


def _focus() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None, "nothing has the keyboard focus"
    return widget


def _window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    w = window_on(qtbot, tmp_path, MODEL)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    return w


def _steps(w: MainWindow) -> list[str]:
    stack = w.document.undo_stack
    return [stack.text(i) for i in range(stack.count())]


def _mapped(w: MainWindow) -> dict[str, str]:
    """Mapping fwd's target columns and the source column each is mapped from (or its method)."""
    fwd = w.document.model.mapping("fwd")
    assert fwd is not None
    return {c: m.input if isinstance(m, Column) else m.method for c, m in fwd.columns.items()}


def test_mapping_grid_enter_tab_shift_tab_escape_and_typing_over(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path)
    w.side_tabs.setCurrentWidget(w.grid)
    view, model, proxy = w.grid.view, w.grid.model, w.grid.proxy
    rows = {key[1]: n for n, key in enumerate(model.rows)}
    view.setFocus()

    def at(column: str, cell: int) -> QModelIndex:
        return proxy.mapFromSource(model.index(rows[column], cell))

    view.setCurrentIndex(at("NAME", 3))  # NAME's inputs
    send_keys(view, Qt.Key.Key_F2)  # edits the cell (not the window's Rename)
    type_over("REGION", Qt.Key.Key_Backtab)  # commits, and goes back to NAME's method
    assert _mapped(w) == {"KEY": "NO", "NAME": "REGION"} and view.currentIndex() == at("NAME", 2)
    assert _steps(w) == ["Map NAME"]
    type_over("constant", Qt.Key.Key_Escape)  # Escape: the method stays
    assert _mapped(w) == {"KEY": "NO", "NAME": "REGION"} and len(_steps(w)) == 1
    view.setCurrentIndex(at("CODE", 3))  # typing over CODE's (empty) inputs maps it
    send_keys(view, "REGION")
    send_keys(view, Qt.Key.Key_Tab)  # commits
    assert _mapped(w) == {"KEY": "NO", "NAME": "REGION", "CODE": "REGION"}
    assert _steps(w) == ["Map NAME", "Map CODE"]
    view.setCurrentIndex(at("KEY", 3))
    send_keys(view, Qt.Key.Key_F2)
    type_over("NAME", Qt.Key.Key_Return)
    assert _mapped(w) == {"KEY": "NAME", "NAME": "REGION", "CODE": "REGION"}
    assert _steps(w) == ["Map NAME", "Map CODE", "Map KEY"] and view.currentIndex() == at("KEY", 3)


def _field(w: MainWindow, label: str) -> QLineEdit:
    field = w.inspector.fields[label]
    assert isinstance(field, QLineEdit)
    return field


def _click_into(qtbot: QtBot, field: QWidget) -> None:
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)  # type: ignore[no-untyped-call]
    qtbot.waitUntil(field.hasFocus)


def test_properties_forms_enter_tab_and_escape(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path)
    w.select(("server", "br"))
    _click_into(qtbot, _field(w, "priority"))
    type_over("30", Qt.Key.Key_Tab)  # commits, and the next field has the focus
    server = w.document.model.server("br")
    assert server is not None and server.priority == 30 and _steps(w) == ["Edit server br"]
    assert _focus() is _field(w, "float format")
    type_over("ieee", Qt.Key.Key_Escape)  # Escape: the value shown comes back, nothing is applied
    assert _field(w, "float format").text() == ""
    send_keys(_focus(), Qt.Key.Key_Backtab)  # and leaving the field commits nothing
    server = w.document.model.server("br")
    assert server is not None and server.float_format is None and len(_steps(w)) == 1

    w.select(("column", "br.CUST", "CODE"))
    _click_into(qtbot, _field(w, "type"))
    type_over("CHAR(4)", Qt.Key.Key_Return)
    table = w.document.model.table("br.CUST")
    assert table is not None and [c.type for c in table.columns] == ["VARCHAR(16)", "VARCHAR(40)", "CHAR(4)"]
    assert len(_steps(w)) == 2 and _focus() is _field(w, "type")
    send_keys(_focus(), Qt.Key.Key_Tab)
    assert isinstance(_focus(), QCheckBox)  # NOT NULL, then the default
    send_keys(_focus(), Qt.Key.Key_Tab)
    assert _focus() is _field(w, "default")
    type_over("XYZ", Qt.Key.Key_Escape)
    send_keys(_focus(), Qt.Key.Key_Return)
    table = w.document.model.table("br.CUST")
    assert table is not None and table.columns[2].default is None and len(_steps(w)) == 2

    w.select(("table", "br.CUST"))  # a rename builds the form again: the field the user tabbed to keeps the focus
    _click_into(qtbot, _field(w, "name"))
    type_over("CLIENT", Qt.Key.Key_Tab)
    assert w.document.model.table("br.CLIENT") is not None and len(_steps(w)) == 3
    assert w.inspector.ref == ("table", "br.CLIENT")
    focus = _focus()
    assert w.inspector.columns is not None and focus is w.inspector.columns.view  # the next row of the form
    assert _steps(w) == ["Edit server br", "Edit table", "Rename table br.CUST"]
    _click_into(qtbot, _field(w, "name"))  # Enter renames again, and the name field (a new one) keeps the focus
    type_over("CLIENTS", Qt.Key.Key_Return)
    assert w.inspector.ref == ("table", "br.CLIENTS") and _focus() is _field(w, "name")
    assert _field(w, "name").text() == "CLIENTS" and len(_steps(w)) == 4


def test_conflict_editor_priorities_compare_list_and_combos(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path)
    w.select(("table", "br.CUST"))
    w.side_tabs.setCurrentIndex(1)
    editor = w.conflicts
    group = editor.groups.topLevelItem(0)  # g, whose chain is one priority_group step
    assert group is not None
    editor.groups.setCurrentItem(group)
    editor.chain.setCurrentRow(0)
    table = editor.priorities
    table.setFocus()
    table.setCurrentCell(0, 0)
    send_keys(table, "gold")  # typing over the empty row's value
    send_keys(table, Qt.Key.Key_Tab)  # on to its priority
    type_over("1", Qt.Key.Key_Tab)  # the row is whole: applied, and on to the next row
    send_keys(_focus(), "silver")
    send_keys(_focus(), Qt.Key.Key_Tab)
    type_over("2", Qt.Key.Key_Return)

    def chain() -> Any:
        entry = w.document.model.conflicts_for("br.CUST")
        assert entry is not None
        return entry.column_groups[0].resolution[0]
    assert chain().priorities == {"gold": 1, "silver": 2}
    assert _steps(w) == ["Edit conflict resolution"] * 2
    table.setCurrentCell(0, 1)
    send_keys(table, Qt.Key.Key_F2)  # edits the cell (it was the window's Rename shortcut)
    type_over("9", Qt.Key.Key_Escape)
    assert chain().priorities == {"gold": 1, "silver": 2} and table.model().index(0, 1).data() == "1"
    send_keys(table, Qt.Key.Key_F2)
    type_over("5", Qt.Key.Key_Return)
    assert chain().priorities == {"gold": 5, "silver": 2} and len(_steps(w)) == 3

    compare = editor.compare  # Space toggles the current column; the next one is one Down away
    compare.setFocus()
    compare.setCurrentRow(0)
    send_keys(compare, Qt.Key.Key_Space)
    send_keys(compare, Qt.Key.Key_Down)
    send_keys(compare, Qt.Key.Key_Space)
    entry = w.document.model.conflicts_for("br.CUST")
    assert entry is not None and entry.compare_old == {"KEY": False, "NAME": False} and len(_steps(w)) == 5

    unique = editor.uniques.itemAt(0, editor.uniques.ItemRole.FieldRole).widget()  # type: ignore[union-attr]
    assert isinstance(unique, QComboBox)
    unique.setFocus()
    send_keys(unique, Qt.Key.Key_Down)  # each key picks the next resolution: one edit each, the focus stays
    send_keys(_focus(), Qt.Key.Key_Down)
    entry = w.document.model.conflicts_for("br.CUST")
    assert entry is not None and [(u.index, u.resolution) for u in entry.unique] == [("UX_NAME", "append_sequence")]
    assert len(_steps(w)) == 7

    scope = editor.policies["scope"]
    scope.setFocus()
    send_keys(scope, Qt.Key.Key_Down)
    entry = w.document.model.conflicts_for("br.CUST")
    assert entry is not None and entry.scope == "transaction" and _focus() is scope and len(_steps(w)) == 8

    editor.groups.setFocus()  # a column moved to another group (its context menu) is still the current item
    code = editor.groups.findItems("CODE", Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive)[0]
    editor.groups.setCurrentItem(code)
    editor.move_column("CODE", SHADOW)
    current = editor.groups.currentItem()
    assert current is not None and current.text(0) == "CODE" and current.parent().text(0) == SHADOW
    send_keys(editor.groups, Qt.Key.Key_Up)
    current = editor.groups.currentItem()
    assert current is not None and current.text(0) == "KEY" and len(_steps(w)) == 9


def _answer(qtbot: QtBot, answer: Any) -> list[str]:
    """Answer the next modal dialog with `answer(dialog)` once it shows; what it did is appended to the list."""
    done: list[str] = []

    def drive() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QDialog) or not dialog.isActiveWindow():
            QTimer.singleShot(10, drive)
            return
        try:
            answer(dialog)
        except BaseException:
            dialog.reject()  # a check failed: the modal loop ends, and the test fails
            raise
        done.append(type(dialog).__name__)
    QTimer.singleShot(0, drive)
    return done


def test_add_server_and_add_table_dialogs_tab_enter_and_escape(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path)
    w.authoring.ask = True  # the dialogs show (modal); the keys below answer them

    def add_server(dialog: QDialog) -> None:
        assert isinstance(dialog, ServerDialog) and _focus() is dialog.id
        send_keys(dialog, "eu")
        send_keys(dialog, Qt.Key.Key_Tab)  # the fields in the order shown: id, DBMS, priority, float format
        assert _focus() is dialog.dbms
        send_keys(dialog, Qt.Key.Key_Tab)
        assert _focus() is dialog.priority
        send_keys(dialog, "5")
        send_keys(dialog, Qt.Key.Key_Tab)
        assert _focus() is dialog.float_format
        send_keys(dialog, Qt.Key.Key_Backtab)
        assert _focus() is dialog.priority
        send_keys(dialog, Qt.Key.Key_Return)  # Enter accepts
    done = _answer(qtbot, add_server)
    assert w.authoring.add_server() and done == ["ServerDialog"]
    server = w.document.model.server("eu")
    assert server is not None and server.priority == 5 and server.dbms == "oracle" and len(_steps(w)) == 1

    def cancel(dialog: QDialog) -> None:
        send_keys(dialog, "xx")
        send_keys(dialog, Qt.Key.Key_Escape)  # Escape cancels
    done = _answer(qtbot, cancel)
    assert not w.authoring.add_server() and done == ["ServerDialog"] and w.document.model.server("xx") is None

    def add_table(dialog: QDialog) -> None:
        assert isinstance(dialog, TableDialog)
        assert _focus() is dialog.server
        send_keys(dialog, Qt.Key.Key_Tab)
        assert _focus() is dialog.name
        send_keys(dialog, "BAD NAME")
        send_keys(dialog, Qt.Key.Key_Return)  # refused: OK is off, the dialog stays
        assert dialog.isVisible() and "space" in dialog.problem_label.text()
        dialog.name.selectAll()
        send_keys(dialog, "ORDERS")
        send_keys(dialog, Qt.Key.Key_Tab)
        assert _focus() is dialog.with_id
        send_keys(dialog, Qt.Key.Key_Space)
        send_keys(dialog, Qt.Key.Key_Return)
    done = _answer(qtbot, add_table)
    assert w.authoring.add_table("br") and done == ["TableDialog"]
    table = w.document.model.table("br.ORDERS")
    assert table is not None and table.column_names() == ["ID"] and table.primary_key == ["ID"]
    assert len(_steps(w)) == 2 and "ORDERS" in _steps(w)[1]


def test_find_box_arrows_enter_and_escape(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path)
    find = w.show_find()
    qtbot.waitUntil(find.isActiveWindow)
    assert _focus() is find.edit
    send_keys(find, "name")  # br.CUST.NAME, hq.CUST.NAME
    assert find.results.count() == 2 and find.results.currentRow() == 0
    send_keys(find, Qt.Key.Key_Down)
    send_keys(find, Qt.Key.Key_Return)  # goes to the second hit; the window stays open
    assert w.inspector.ref == ("column", "hq.CUST", "NAME") and find.isVisible()
    send_keys(find, Qt.Key.Key_Escape)
    assert not find.isVisible() and len(_steps(w)) == 0


def test_problems_panel_enter_goes_to_the_finding(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path)
    panel = w.problems
    w.select(("table", "hq.CUST"))
    table = panel.table
    table.setFocus()
    codes = [panel.proxy.index(row, 1).data() for row in range(panel.proxy.rowCount())]
    table.setCurrentIndex(panel.proxy.index(codes.index("NL001"), 0))
    send_keys(table, Qt.Key.Key_Return)  # Enter goes there, as a double-click does
    assert w.inspector.ref == ("mapping", "fwd") and w.current_ref == ("mapping", "fwd")
    table.setCurrentIndex(panel.proxy.index(codes.index("CR004"), 0))
    send_keys(table, Qt.Key.Key_Enter)
    assert w.conflicts.table_key == "br.CUST" and w.side_tabs.currentIndex() == 1 and len(_steps(w)) == 0
