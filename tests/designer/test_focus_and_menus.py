"""The Delete key (Edit ▸ Delete) acts on the selection of the view that has the keyboard focus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.window import MainWindow
from resources import SAMPLE_MODEL


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return make_window(qtbot, tmp_path, Path(shutil.copy(SAMPLE_MODEL, tmp_path / "orders.json")))


def select_on_canvas(w: MainWindow, key: str) -> None:
    w.scene.clearSelection()
    w.scene.tables[key].setSelected(True)  # as a click on its header does; Properties shows it
    QApplication.processEvents()


def tables(w: MainWindow) -> set[str]:
    return {t.key for t in w.document.model.tables}


def test_delete_in_the_columns_grid_leaves_the_canvas_selection(window: MainWindow, qtbot: QtBot) -> None:
    select_on_canvas(window, "hq.CUSTOMER")
    assert window.inspector.columns is not None and window.inspector.columns.key == "hq.CUSTOMER"
    view = window.inspector.columns.view
    view.setFocus()
    view.selectRow(4)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert "hq.CUSTOMER" in tables(window) and not window.document.dirty


def test_delete_in_the_mapping_grid_does_nothing(window: MainWindow, qtbot: QtBot) -> None:
    select_on_canvas(window, "hq.CUSTOMER")
    window.side_tabs.setCurrentWidget(window.grid)
    window.grid.view.setFocus()
    window.grid.view.selectRow(0)
    qtbot.keyClick(window.grid.view, Qt.Key.Key_Delete)
    assert not window.document.dirty


def test_delete_in_the_tree_removes_the_tree_s_item(window: MainWindow, qtbot: QtBot) -> None:
    select_on_canvas(window, "hq.CUSTOMER")
    window.tree.setFocus()
    window.tree.select_ref(("table", "web.PRODUCT"))
    qtbot.keyClick(window.tree, Qt.Key.Key_Down)  # moving with the arrow keys does not select on the canvas
    qtbot.keyClick(window.tree, Qt.Key.Key_Up)
    assert window.tree.ref_at(window.tree.currentIndex()) == ("table", "web.PRODUCT")
    before = tables(window)
    qtbot.keyClick(window.tree, Qt.Key.Key_Delete)
    assert before - tables(window) == {"web.PRODUCT"}


def test_delete_on_the_canvas_removes_the_canvas_selection(window: MainWindow, qtbot: QtBot) -> None:
    select_on_canvas(window, "hq.CUSTOMER")
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_Delete)
    assert "hq.CUSTOMER" not in tables(window)
