"""Wires that do not lie (issue 37): a wire whose curve would run behind a third table goes round it, a
mapping's wires and its reverse's run apart, and a moved table re-routes the wires it stood in the way of."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainterPath
from windows import make_window

from designer.canvas import routing
from designer.canvas.items import HEADER, ROW, WIDTH, TableItem
from designer.canvas.wires import LinkItem
from designer.window import MainWindow
from engine import authoring as au
from engine.model.methods import Column
from resources import SAMPLE_MODEL


def flat(path: QPainterPath) -> list[QPointF]:
    """The points of a drawn path, its curves flattened as Qt paints them."""
    return [QPointF(p) for polygon in path.toSubpathPolygons() for p in polygon]


def body(table: TableItem) -> QRectF:
    """The rectangle a table is painted in, in scene coordinates."""
    return table.mapRectToScene(QRectF(0, 0, WIDTH, HEADER + ROW * len(table.look.rows)))


def test_a_route_goes_round_a_table_in_the_way_and_a_clear_wire_keeps_its_curve() -> None:
    start, end = QPointF(270, 100), QPointF(1040, 110)  # right edge of one table, left edge of another
    obstacle = QRectF(520, 0, 270, 300)  # a table of the column between, on the wire's rows
    assert routing.crosses(flat(routing.curve(start, end)), [obstacle])  # the plain curve runs behind it
    for leftward, (a, b) in ((False, (start, end)), (True, (end, start))):
        points = routing.route(a, b, [obstacle], leftward)
        assert points is not None and points[0] == a and points[-1] == b
        assert not routing.crosses(flat(routing.rounded(points)), [obstacle])
    # a table beside the wire's way, not in it: no route, the plain curve
    assert routing.route(start, end, [QRectF(520, 400, 270, 300)]) is None
    assert routing.route(start, end, []) is None
    link = LinkItem("m", "C", start, end, "tip")
    link.set_route(routing.route(start, end, []))
    assert link.path() == routing.curve(start, end, False, link.bulge)


@pytest.fixture
def sample(qtbot: Any, tmp_path: Path) -> MainWindow:
    return make_window(qtbot, tmp_path, SAMPLE_MODEL)


def wires(window: MainWindow, mapping: str) -> list[LinkItem]:
    return [i for i in window.scene.mapping_items[mapping] if isinstance(i, LinkItem)]


def test_on_the_sample_no_hq_web_wire_runs_behind_a_branch_table(sample: MainWindow) -> None:
    scene = sample.scene
    branch = [body(t) for key, t in scene.tables.items() if key.startswith("branch.")]
    between = [m.id for m in scene.model.mappings if {m.source.split(".")[0], m.target.split(".")[0]} == {"hq", "web"}]
    assert len(between) == 5
    routed = 0
    for mapping in between:
        for wire in wires(sample, mapping):
            assert not routing.crosses(flat(wire.path()), branch), wire.ref
            routed += wire.route is not None
    assert routed >= 10  # their curves would have: they go round


def test_a_mapping_and_its_reverse_never_draw_one_wire_over_the_other(sample: MainWindow) -> None:
    scene = sample.scene
    pairs = 0
    for mapping in scene.model.mappings:
        back = scene.model.mapping(mapping.reverse or "")
        if back is None:
            continue
        for column, method in mapping.columns.items():
            reverse = back.columns.get(method.input) if isinstance(method, Column) else None
            if not isinstance(reverse, Column) or reverse.input != column:
                continue
            there = next(w for w in wires(sample, mapping.id) if w.ref[1] == column).path()
            again = next(w for w in wires(sample, back.id) if w.ref[1] == method.input).path()
            pairs += 1
            for t in (0.3, 0.5, 0.7):  # the same stretch, walked from either end
                gap = there.pointAtPercent(t) - again.pointAtPercent(1 - t)
                assert abs(gap.x()) + abs(gap.y()) > 1.5, (mapping.id, column, t)
    assert pairs >= 10


def test_a_table_moved_out_of_the_way_straightens_the_wires_round_it_in_place(sample: MainWindow) -> None:
    doc, scene = sample.document, sample.scene
    around = [w for w in wires(sample, "cust_hq_to_web") if w.route is not None]
    assert around and all("branch.CUSTOMER" in w.obstacles for w in around)
    before = wires(sample, "cust_hq_to_web")
    far = body(scene.tables["web.ORDERS"]).bottom() + 2000
    doc.apply(au.move_table(doc.model, "branch.CUSTOMER", 0.0, far), "Move table")
    assert wires(sample, "cust_hq_to_web") == before  # the same items (not redrawn), re-routed in place
    assert [w.ref for w in around if w.route is not None] == []
    doc.undo_stack.undo()  # back in the way: round it again
    assert all(w.route is not None for w in around)
    branch = body(scene.tables["branch.CUSTOMER"])
    assert not any(routing.crosses(flat(w.path()), [branch]) for w in around)


@pytest.mark.parametrize(("between", "routed"), [(3, True), (30, False)])
def test_a_wire_goes_round_a_few_tables_and_keeps_its_curve_through_a_crowd(qtbot: Any, tmp_path: Path,
                                                                             between: int, routed: bool) -> None:
    """Beyond `MAX_OBSTACLES` tables in its way a wire is not routed: routing round a crowd that large cost
    minutes on a 1,200-table model, which is seen in the overview anyway."""
    from windows import window_on

    cols = [{"name": "ID", "type": "INTEGER", "nullable": False}]
    tables = [{"server": "a", "name": "S", "columns": cols, "primary_key": ["ID"]},
              {"server": "c", "name": "T", "columns": cols, "primary_key": ["ID"]}]
    tables += [{"server": "b", "name": f"B{i}", "columns": cols} for i in range(between)]
    layout = {"a.S": [0, 0], "c.T": [1200, 0]}
    layout |= {f"b.B{i}": [450 + 60 * (i % 3), -300 + 40 * (i // 3) if between > 3 else 0] for i in range(between)}
    doc = {"format": "mapwright/1", "servers": [{"id": s, "dbms": "oracle"} for s in "abc"], "tables": tables,
           "mappings": [{"id": "m", "source": "a.S", "target": "c.T", "columns": {"ID": "ID"}}], "layout": layout}
    w = window_on(qtbot, tmp_path, doc)
    [link] = [i for i in w.scene.mapping_items["m"] if isinstance(i, LinkItem)]
    assert (link.route is not None) is routed
