"""The designer on a large model: an edit touches only the items, tree rows and forms it names (counted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from designer.canvas.items import TableItem
from designer.canvas.wires import LinkItem
from designer.document import Document
from designer.window import MainWindow
from engine import authoring as au
from engine.edits import evolve, replace
from engine.model.schema import Model

SITES = ("br", "web")


def large_model(per_site: int) -> Model:
    """`per_site` tables on hq, each copied to br and web (a concat key and twelve copied columns)."""
    cols = [{"name": "REGION", "type": "CHAR(2)", "nullable": False},
            {"name": "NO", "type": "INTEGER", "nullable": False}]
    cols += [{"name": f"C{i}", "type": "VARCHAR(40)"} for i in range(12)]
    tables, mappings = [], []
    for t in range(per_site):
        tables.append({"server": "hq", "name": f"T{t}", "columns": cols, "primary_key": ["REGION", "NO"]})
        for site in SITES:
            tables.append({"server": site, "name": f"T{t}", "columns": [
                {"name": "K", "type": "VARCHAR(16)", "nullable": False}, *cols[2:]], "primary_key": ["K"]})
            mappings.append({"id": f"m{t}_{site}", "source": f"hq.T{t}", "target": f"{site}.T{t}", "columns": {
                "K": {"method": "concat", "inputs": ["REGION", "NO"], "sep": "-"},
                **{f"C{i}": f"C{i}" for i in range(12)}}})
    return Model.model_validate({"format": "mapwright/1", "name": "large", "servers": [
        {"id": "hq", "dbms": "oracle", "priority": 30}, {"id": "br", "dbms": "db2", "priority": 20},
        {"id": "web", "dbms": "postgresql", "priority": 10}], "tables": tables, "mappings": mappings})


@pytest.fixture
def big(qtbot: Any, tmp_path: Path) -> MainWindow:
    w = MainWindow(Document(large_model(40)), settings=QSettings(str(tmp_path / "s.ini"),
                                                                  QSettings.Format.IniFormat), ask=False)
    w.resize(1400, 900)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def snapshot(w: MainWindow) -> dict[str, set[int]]:
    """The identities of every table item and of each mapping's wires and nodes."""
    out = {"tables": {id(t) for t in w.scene.tables.values()}}
    out |= {m: {id(i) for i in items} for m, items in w.scene.mapping_items.items()}
    return out


def test_the_large_model_is_drawn_once_with_every_link(big: MainWindow) -> None:
    assert len(big.scene.tables) == 120
    assert len(big.scene.mapping_items) == 80
    assert sum(isinstance(i, LinkItem) for i in big.scene.decorations) == 80 * 15  # 12 copies + concat in, 2 out
    assert big.view.zoom_level() == 1.0  # too large to fit legibly: opened at 100%, not shrunk to dust


def test_a_mapping_edit_redraws_only_that_mapping(big: MainWindow) -> None:
    doc, model = big.document, big.document.model
    before = snapshot(big)
    looks = {k: t.looks_set for k, t in big.scene.tables.items()}
    rows = big.tree.rows_replaced
    mapping = model.mapping("m7_br")
    assert mapping is not None
    doc.apply(au.set_method(model, "m7_br", "C3", None), "Remove map of C3")
    after = snapshot(big)
    changed = {k for k in before if k != "tables" and before[k] != after.get(k)}
    assert changed == {"m7_br"}
    assert len(after["m7_br"]) == len(before["m7_br"]) - 1  # the C3 wire is gone
    assert after["tables"] == before["tables"]  # no table item was re-created
    touched = {k for k, t in big.scene.tables.items() if t.looks_set != looks[k]}
    assert touched <= {"br.T7"}  # at most its target (distribution-key badges, marks)
    assert big.tree.rows_replaced - rows == 1  # one tree row: the mapping's
    doc.undo_stack.undo()
    assert snapshot(big)["m7_br"] != after["m7_br"]
    assert len(snapshot(big)["m7_br"]) == len(before["m7_br"])
    assert {k for k in before if before[k] != snapshot(big).get(k)} == {"m7_br"}


def test_a_moved_table_moves_only_its_own_links(big: MainWindow) -> None:
    doc, model = big.document, big.document.model
    before = snapshot(big)
    # right of the br tables, below every table: in no other wire's way (those are re-routed, item 3)
    rects = {k: t.sceneBoundingRect() for k, t in big.scene.tables.items()}
    x = max(r.right() for k, r in rects.items() if k.startswith("br.")) + 100
    y = max(r.bottom() for r in rects.values()) + 1000
    doc.apply(au.move_table(model, "hq.T3", x, y), "Move table")
    after = snapshot(big)
    assert {k for k in before if k != "tables" and before[k] != after[k]} == {"m3_br", "m3_web"}
    table = big.scene.tables["hq.T3"]
    assert (table.pos().x(), table.pos().y()) == (x, y)
    def wire() -> LinkItem:
        return next(i for i in big.scene.mapping_items["m3_br"] if isinstance(i, LinkItem) and i.ref[1] == "C5")

    # the wire starts where the row now is, on the edge that faces its target (now to its left)
    assert big.scene.tables["br.T3"].pos().x() + 270 < table.pos().x()
    assert wire().path().pointAtPercent(0) == table.port("C5", "in")
    assert wire().path().pointAtPercent(1) == big.scene.tables["br.T3"].port("C5", "out")
    doc.undo_stack.undo()
    assert (table.pos().x(), table.pos().y()) != (x, y)
    assert wire().path().pointAtPercent(0) == table.port("C5", "out")  # back to the right edge
    assert {k for k in before if k != "tables" and after[k] != snapshot(big)[k]} == {"m3_br", "m3_web"}


def test_dragging_a_table_redraws_its_links_as_it_goes(big: MainWindow) -> None:
    before = snapshot(big)
    item = big.scene.tables["br.T5"]
    item.setPos(item.pos().x() + 100, item.pos().y())  # what a drag does, step by step
    after = snapshot(big)
    assert {k for k in before if k != "tables" and before[k] != after[k]} == {"m5_br"}


def test_a_table_edit_touches_its_item_its_links_and_one_tree_row(big: MainWindow) -> None:
    doc, model = big.document, big.document.model
    before = snapshot(big)
    looks = {k: t.looks_set for k, t in big.scene.tables.items()}
    rows = big.tree.rows_replaced
    table = model.table("web.T9")
    assert table is not None
    doc.apply(replace(model, "table", table, evolve(table, columns=[
        c.model_dump(mode="python") | ({"type": "VARCHAR(80)"} if c.name == "C1" else {}) for c in table.columns])),
        "Widen C1")
    assert {k for k, t in big.scene.tables.items() if t.looks_set != looks[k]} == {"web.T9"}
    assert "VARCHAR(80)" in [r.type for r in big.scene.tables["web.T9"].look.rows]
    assert big.tree.rows_replaced - rows == 1
    after = snapshot(big)
    assert {k for k in before if k != "tables" and before[k] != after[k]} == set()  # rows did not move


def test_a_new_finding_marks_only_its_table(big: MainWindow) -> None:
    doc, model = big.document, big.document.model
    looks = {k: t.looks_set for k, t in big.scene.tables.items()}
    mapping = model.mapping("m2_web")
    assert mapping is not None
    doc.apply(replace(model, "mapping", mapping, evolve(mapping, where="NOT A COLUMN =")), "Bad where")
    marked = {k for k, t in big.scene.tables.items() if t.look.marks}
    assert marked == {"hq.T2"}  # MP003: the where clause reads the source table
    assert {k for k, t in big.scene.tables.items() if t.looks_set != looks[k]} == {"hq.T2"}


def test_the_tree_filter_and_the_inspector_stay_put(big: MainWindow, qtbot: Any) -> None:
    big.tree.filter_edit.setText("T17")
    shown = {big.tree.ref_at(i) for i in big.tree._all()}
    assert ("table", "hq.T17") in shown and ("table", "br.T17") in shown
    assert ("table", "hq.T16") not in shown
    big.tree.filter_edit.setText("")
    assert ("table", "hq.T16") in {big.tree.ref_at(i) for i in big.tree._all()}
    big.select(("table", "br.T4"))
    form = big.inspector.widget()
    doc, model = big.document, big.document.model
    doc.apply(au.move_table(model, "hq.T30", 10.0, 10.0), "Move table")
    assert big.inspector.widget() is form  # an edit elsewhere leaves the form (and what is typed in it) alone
    rebuilds = big.inspector.rebuilds
    doc.apply(au.toggle_dkey(model, "m4_br", "C0"), "Toggle distribution key C0")
    assert big.inspector.widget() is form  # an edit of what it shows updates its fields in place
    assert big.inspector.rebuilds == rebuilds


def test_zoomed_out_a_table_is_a_named_box_and_at_100_percent_its_rows(big: MainWindow,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    overview, full = TableItem._paint_overview, TableItem._paint_badges
    monkeypatch.setattr(TableItem, "_paint_overview", lambda self, *a: (calls.append("overview"), overview(self, *a)))
    monkeypatch.setattr(TableItem, "_paint_badges", lambda self, *a: (calls.append("rows"), full(self, *a)))
    big.view.fit()
    assert big.view.zoom_level() < 0.45
    big.view.viewport().repaint()
    assert "overview" in calls and "rows" not in calls
    calls.clear()
    big.view.resetTransform()
    big.view.centerOn(big.scene.tables["hq.T0"])
    big.scene.tables["hq.T0"].update()
    big.view.viewport().repaint()
    assert "rows" in calls and "overview" not in calls


def test_problems_are_not_reset_by_an_edit_that_leaves_them_alone(big: MainWindow) -> None:
    resets: list[int] = []
    big.problems.model.modelReset.connect(lambda: resets.append(1))
    doc, model = big.document, big.document.model
    doc.apply(au.move_table(model, "hq.T1", 5.0, 5.0), "Move table")
    assert resets == []
    mapping = model.mapping("m1_br")
    assert mapping is not None
    doc.apply(replace(model, "mapping", mapping, evolve(mapping, where="NOT A COLUMN =")), "Bad where")
    assert resets == [1] and big.problems.model.rowCount() >= 1


def test_the_problems_panel_filters_by_any_column(big: MainWindow) -> None:
    doc, model = big.document, big.document.model
    for mapping_id in ("m1_br", "m2_web"):
        mapping = model.mapping(mapping_id)
        assert mapping is not None
        doc.apply(replace(model, "mapping", mapping, evolve(mapping, where="NOT A COLUMN =")), "Bad where")
    proxy = big.problems.proxy
    assert proxy.rowCount() >= 2
    big.problems.filter_edit.setText("m2_WEB")
    shown = {proxy.index(r, 3).data() for r in range(proxy.rowCount())}
    assert shown == {"m2_web"}
    big.problems.filter_edit.setText("")
    assert {"m1_br", "m2_web"} <= {proxy.index(r, 3).data() for r in range(proxy.rowCount())}
