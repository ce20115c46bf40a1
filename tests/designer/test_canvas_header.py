"""A table node's header: a name too long for its room is elided with "…" left of the findings dot and the
DBMS label (never drawn under them), a short one is shown whole, and the tooltip over the header shows the
whole name as plain text (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFont
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from windows import TWO_TABLES, window_on

from designer.canvas.items import DOT_RADIUS, WIDTH, ColumnRow, TableItem, TableLook, font_metrics, header_fonts
from designer.labels import plain_tip

LONG = "hq.CUSTOMER_ACCOUNT_HISTORY_ARCHIVE_2024_Q4"


def item(key: str, dbms: str = "oracle", marked: bool = False) -> TableItem:
    look = TableLook(key, dbms, [ColumnRow("ID", "INTEGER", True, True, False)])
    if marked:
        look.marks = {None: ("error", "TB001: no primary key")}
    return TableItem(look)


def fonts(qapp: Any) -> list[QFont]:
    big = QFont(QApplication.font())
    big.setPointSizeF(16.0)
    return [QApplication.font(), big]


@pytest.mark.parametrize("marked", [False, True])
@pytest.mark.parametrize("dbms", ["oracle", "postgresql"])
def test_a_long_name_is_elided_to_the_room_left_of_the_dot_and_the_label(qapp: Any, marked: bool,
                                                                         dbms: str) -> None:
    for base in fonts(qapp):
        header = item(LONG, dbms, marked).header(base)
        bold, small = header_fonts(base)
        assert header.name.endswith("…") and LONG.startswith(header.name[:-1])
        assert font_metrics(bold).horizontalAdvance(header.name) <= header.name_rect.width()
        assert header.name_rect.left() > 0
        assert header.name_rect.right() < header.dbms_rect.left()  # never under the DBMS label
        if marked:
            assert header.name_rect.right() < header.dot.x() - DOT_RADIUS  # nor under the findings dot
        assert header.dot.x() + DOT_RADIUS < header.dbms_rect.left()  # the dot beside the label, not on it
        assert font_metrics(small).horizontalAdvance(dbms) <= header.dbms_rect.width()
        assert header.dbms_rect.right() <= WIDTH


@pytest.mark.parametrize("marked", [False, True])
def test_a_short_name_is_shown_whole(qapp: Any, marked: bool) -> None:
    for key in ("hq.CUST", "<b>hq</b>.T"):
        assert item(key, "postgresql", marked).header().name == key


def test_the_header_s_tooltip_shows_the_whole_name_as_plain_text(qapp: Any) -> None:
    long = item(LONG, marked=True)
    assert long.tip_at(None) == f"{LONG} (oracle)\nTB001: no primary key"
    hostile = item("<b>hq</b>.<img src=x>" + "X" * 60)
    tip = hostile.tip_at(None)
    assert tip == plain_tip(f"<b>hq</b>.<img src=x>{'X' * 60} (oracle)") and "&lt;img src=x&gt;" in tip
    assert item("hq.CUST").tip_at("ID") == ""  # a row without findings: no tooltip


def test_hovering_the_header_of_a_long_named_table_shows_its_name(qtbot: Any, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))
    doc = {**TWO_TABLES, "tables": [{**TWO_TABLES["tables"][0], "name": LONG.partition(".")[2]},
                                    TWO_TABLES["tables"][1]],
           "layout": {LONG: [0, 0], "br.CUST": [500, 0]}}
    w = window_on(qtbot, tmp_path, doc)
    node = w.scene.tables[LONG]
    w.view.resetTransform()
    w.view.centerOn(node)
    header = node.header(w.view.font())
    assert header.name.endswith("…")
    viewport = w.view.viewport()
    QTest.mouseMove(viewport, w.view.mapFromScene(node.mapToScene(QPointF(20, 40))))  # a row first
    QTest.mouseMove(viewport, w.view.mapFromScene(node.mapToScene(QPointF(20, 10))))  # then the header
    assert node.toolTip().startswith(f"{LONG} (oracle)")
