"""Add mapping back (reverse), from the model tree's context menu opened with a right click: the new mapping is
named for its own direction, so the tree shows two mappings whose names start differently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, window_on


def test_the_mapping_back_made_from_the_tree_is_named_for_its_own_direction(qtbot: QtBot, tmp_path: Path) -> None:
    doc: dict[str, Any] = json.loads(json.dumps(TWO_TABLES))
    doc["mappings"] = [{"id": "hq_CUST_to_br_CUST", "source": "hq.CUST", "target": "br.CUST",
                        "columns": {"NAME": "NAME"}}]
    w = window_on(qtbot, tmp_path, doc)
    tree = w.tree
    index = tree.proxy.mapFromSource(tree.rows[("mapping", "hq_CUST_to_br_CUST")].index())
    tree.scrollTo(index)
    QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(index).center())
    assert tree.currentIndex() == index
    chosen: list[str] = []

    def choose() -> None:  # the context menu is open (modal): click its entry as a user does
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, choose)
            return
        action = next(a for a in menu.actions() if a.text() == "Add mapping back (reverse)")
        chosen.append(action.text())
        QTest.mouseClick(menu.windowHandle(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         menu.actionGeometry(action).center())

    QTimer.singleShot(50, choose)
    at = tree.viewport().mapTo(w, tree.visualRect(index).center())  # through the window, as a mouse does
    QTest.mouseClick(w.windowHandle(), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at)
    qtbot.waitUntil(lambda: len(w.document.model.mappings) == 2)
    assert chosen
    back = w.document.model.mapping("br_CUST_to_hq_CUST")
    assert back is not None and back.reverse == "hq_CUST_to_br_CUST"
    forward = w.document.model.mapping("hq_CUST_to_br_CUST")
    assert forward is not None and forward.reverse == "br_CUST_to_hq_CUST"
    shown = [tree.rows[("mapping", m.id)].text() for m in w.document.model.mappings]
    assert shown[1].startswith("br_CUST_to_hq_CUST  (br.CUST → hq.CUST)")
    assert not any(text.startswith("hq_CUST_to_br_CUST_") for text in shown)  # never `…_back`
