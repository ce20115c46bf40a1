"""The conflict editor's gestures change the model only when they change something: no chain button acts
without a column group, nothing switches resolution on by itself, no undo step changes nothing; the priority
map refuses a value given twice and waits for a row being typed (pytest-qt, on the bundled sample)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QMenu, QTreeWidgetItem
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.conflict_editor import SHADOW, ConflictEditor
from designer.window import MainWindow
from engine.model import dump_model
from resources import SAMPLE_MODEL


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return make_window(qtbot, tmp_path, SAMPLE_MODEL)


def pick_group(editor: ConflictEditor, name: str) -> None:
    for i in range(editor.groups.topLevelItemCount()):
        if editor.groups.topLevelItem(i).text(0) == name:
            editor.groups.setCurrentItem(editor.groups.topLevelItem(i))
            return
    raise AssertionError(f"no group {name}")


def test_add_on_a_table_without_conflict_resolution_neither_adds_nor_switches_it_on(window: MainWindow) -> None:
    window.select(("table", "hq.PRODUCT"))
    editor = window.conflicts
    assert window.document.model.conflicts_for("hq.PRODUCT") is None and not editor.enabled.isChecked()
    assert not editor.chain_buttons["add"].isEnabled()  # no column group to add a method to
    editor.add_method("overwrite")  # the button's own slot, whatever its state
    assert window.document.model.conflicts_for("hq.PRODUCT") is None
    assert not editor.enabled.isChecked() and window.document.undo_stack.count() == 0


def test_the_checkbox_still_switches_resolution_on_and_off(window: MainWindow) -> None:
    window.select(("table", "hq.PRODUCT"))
    window.conflicts.enabled.setChecked(True)
    assert window.document.model.conflicts_for("hq.PRODUCT") is not None
    window.conflicts.enabled.setChecked(False)
    assert window.document.model.conflicts_for("hq.PRODUCT") is None
    assert window.document.undo_stack.count() == 2


GESTURES: list[tuple[str, Callable[[ConflictEditor], None]]] = [
    ("add a method", lambda e: e.add_method("overwrite")),
    ("remove a method", lambda e: e.remove_method()),
    ("move a method", lambda e: e.move_method(1)),
    ("pick a designated column", lambda e: e.set_designated("NAME")),
    ("clear the designated column", lambda e: e.set_designated("")),
    ("remove the group", lambda e: e.remove_current_group()),
    ("move a column into its own group", lambda e: e.move_column("NAME", "contact_cg")),
    ("move a column into the shadow group it is in", lambda e: e.move_column("CUST_NO", SHADOW)),
    ("move a column into a group the table lacks", lambda e: e.move_column("NAME", "gone_cg")),
    ("set a policy to what it is", lambda e: e._update(scope="row")),
]


@pytest.mark.parametrize(("what", "gesture"), GESTURES, ids=[g[0] for g in GESTURES])
def test_with_the_shadow_group_picked_a_gesture_that_changes_nothing_pushes_nothing(
        window: MainWindow, what: str, gesture: Callable[[ConflictEditor], None]) -> None:
    window.select(("table", "hq.CUSTOMER"))
    editor = window.conflicts
    pick_group(editor, SHADOW)
    assert not any(b.isEnabled() for b in editor.chain_buttons.values())
    assert not editor.designated.isEnabled() and not editor.remove_group_button.isEnabled()
    before = dump_model(window.document.model)
    gesture(editor)
    assert dump_model(window.document.model) == before
    assert window.document.undo_stack.count() == 0 and not window.document.dirty, what


def test_with_a_group_picked_the_chain_buttons_act(window: MainWindow) -> None:
    window.select(("table", "hq.CUSTOMER"))
    editor = window.conflicts
    pick_group(editor, "contact_cg")
    assert editor.chain_buttons["add"].isEnabled() and editor.remove_group_button.isEnabled()
    steps = len(editor._group().resolution)
    editor.add_method("overwrite")
    assert len(editor._group().resolution) == steps + 1 and window.document.undo_stack.count() == 1


def status_map(window: MainWindow) -> ConflictEditor:
    window.select(("table", "hq.ORDERS"))
    editor = window.conflicts
    pick_group(editor, "status_cg")
    editor.chain.setCurrentRow(0)  # its priority_group step
    return editor


def priorities(window: MainWindow) -> dict[str, int | float] | None:
    return window.document.model.conflicts_for("hq.ORDERS").column_groups[0].resolution[0].priorities  # type: ignore[union-attr]


def test_a_value_given_twice_in_the_priority_map_is_refused(window: MainWindow) -> None:
    editor = status_map(window)
    before = dict(priorities(window) or {})
    first = editor.priorities.item(0, 0).text()
    blank = editor.priorities.rowCount() - 1
    editor.priorities.item(blank, 1).setText("5")
    editor.priorities.item(blank, 0).setText(first)  # the same value as row 1, with another priority
    assert priorities(window) == before and not window.document.dirty
    assert editor.problem.text() == (f"not applied: the value {first!r} is in rows 1 and {blank + 1}: "
                                     "give each value one priority")


def test_a_row_being_typed_is_incomplete_not_an_error(window: MainWindow) -> None:
    editor = status_map(window)
    before = dict(priorities(window) or {})
    blank = editor.priorities.rowCount() - 1
    editor.priorities.item(blank, 0).setText("returned")  # its value first, then its priority
    assert editor.problem.text() == "" and "'returned' has no priority yet" in editor.pending.text()
    assert priorities(window) == before and not window.document.dirty
    editor.priorities.item(blank, 1).setText("7")
    assert priorities(window) == {**before, "returned": 7}
    assert editor.pending.text() == "" and editor.problem.text() == ""


def groups_of(window: MainWindow, table: str) -> dict[str, list[str]]:
    found = window.document.model.conflicts_for(table)
    assert found is not None
    return {g.name: list(g.columns) for g in found.column_groups}


def tree_item(editor: ConflictEditor, group: str, column: str | None = None) -> QTreeWidgetItem:
    for i in range(editor.groups.topLevelItemCount()):
        top = editor.groups.topLevelItem(i)
        if top.text(0) != group:
            continue
        if column is None:
            return top
        for j in range(top.childCount()):
            if top.child(j).text(0) == column:
                return top.child(j)
    raise AssertionError(f"no {group} {column}")


def test_a_column_dropped_on_another_group_moves_there_and_undo_takes_it_back(window: MainWindow) -> None:
    """The group tree's own drop handler: a drop event on the target group's row, with the tree's drag data."""
    window.select(("table", "branch.CUSTOMER"))
    editor, tree = window.conflicts, window.conflicts.groups
    email = tree_item(editor, "contact_cg", "EMAIL")
    tree.setCurrentItem(email)
    target = tree.visualItemRect(tree_item(editor, "address_cg")).center()
    drop = QDropEvent(QPointF(target), Qt.DropAction.MoveAction, tree.mimeData([email]),
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    tree.dropEvent(drop)  # what Qt calls at the end of the drag (a synthesized drag has no source to enter with)
    assert "EMAIL" in groups_of(window, "branch.CUSTOMER")["address_cg"]
    assert "EMAIL" not in groups_of(window, "branch.CUSTOMER")["contact_cg"]
    window.document.undo_stack.undo()
    assert "EMAIL" in groups_of(window, "branch.CUSTOMER")["contact_cg"]


def test_a_columns_context_menu_moves_it_to_the_group_picked(window: MainWindow, qtbot: QtBot) -> None:
    window.select(("table", "branch.CUSTOMER"))
    editor, tree = window.conflicts, window.conflicts.groups
    phone = tree.visualItemRect(tree_item(editor, "contact_cg", "PHONE")).center()

    def pick() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        move = next(a.menu() for a in menu.actions() if a.menu() is not None)
        next(a for a in move.actions() if a.text().replace("&", "") == "points_cg").trigger()
        menu.close()

    QTimer.singleShot(50, pick)
    tree.customContextMenuRequested.emit(phone)
    qtbot.waitUntil(lambda: "PHONE" in groups_of(window, "branch.CUSTOMER")["points_cg"], timeout=3000)
