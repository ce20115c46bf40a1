"""The canvas on the bundled sample, laid out automatically: a reverse mapping is drawn right to left
between the facing edges of its tables, no method node stands under a table, and none hides another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from windows import make_window

from designer.canvas.wires import LinkItem, MethodItem
from designer.window import MainWindow
from engine import authoring as au
from resources import SAMPLE_MODEL


@pytest.fixture
def sample(qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))
    return make_window(qtbot, tmp_path, SAMPLE_MODEL)


def test_no_method_node_stands_under_a_table(sample: MainWindow) -> None:
    scene = sample.scene
    assert not scene.model.layout  # the automatic layout
    nodes = [i for items in scene.mapping_items.values() for i in items if isinstance(i, MethodItem)]
    assert len(nodes) >= 15  # concat, split, cast, trim, upper, constant, system, expression
    under = [(node.label, key) for node in nodes for key, table in scene.tables.items()
             if node.sceneBoundingRect().intersects(table.sceneBoundingRect())]
    assert under == []


def nodes_of(window: MainWindow) -> dict[tuple[object, ...], MethodItem]:
    return {node.ref: node for items in window.scene.mapping_items.values() for node in items
            if isinstance(node, MethodItem)}


def overlapping(nodes: list[MethodItem]) -> list[tuple[str, str]]:
    return [(a.label, b.label) for i, a in enumerate(nodes) for b in nodes[i + 1:]
            if a.sceneBoundingRect().intersects(b.sceneBoundingRect())]


def test_no_method_node_hides_another(sample: MainWindow) -> None:
    nodes = nodes_of(sample)
    # two mappings into one column: a constant from each site into hq.ORDERS.ORIGIN, commit_ts into RECEIVED_AT
    origin = [n for (mapping, column, _), n in nodes.items() if column == "ORIGIN"]
    assert sorted(n.label for n in origin) == ["constant 'BRANCH'", "constant 'WEB'"]
    assert overlapping(list(nodes.values())) == []
    for node in origin:  # each still wired to its own row, in the gap beside its target
        wire = next(i for i in sample.scene.mapping_items[node.ref[0]]
                    if isinstance(i, LinkItem) and i.ref[1] == "ORIGIN")
        assert wire.path().pointAtPercent(1) == sample.scene.tables["hq.ORDERS"].port("ORIGIN", "out")


def test_a_redrawn_mapping_stands_clear_of_the_others_and_moves_none(sample: MainWindow) -> None:
    doc = sample.document
    before = {ref: node.scenePos() for ref, node in nodes_of(sample).items()}
    # a third constant into ORIGIN, from the mapping whose node had the spot the others want
    doc.apply(au.set_method(doc.model, "orders_branch_to_hq", "ORIGIN", {"method": "constant", "value": "B2"}),
              "Set ORIGIN")
    after = nodes_of(sample)
    assert {ref: after[ref].scenePos() for ref in before if ref[0] != "orders_branch_to_hq"} == \
        {ref: pos for ref, pos in before.items() if ref[0] != "orders_branch_to_hq"}
    assert overlapping(list(after.values())) == []
    assert after[("orders_branch_to_hq", "ORIGIN", ())].label == "constant 'B2'"


def test_a_reverse_mapping_joins_the_facing_edges_of_its_tables(sample: MainWindow) -> None:
    scene = sample.scene
    mapping = scene.model.mapping("cust_branch_to_hq")
    assert mapping is not None
    source, target = scene.tables[mapping.source], scene.tables[mapping.target]
    assert target.sceneBoundingRect().right() < source.sceneBoundingRect().left()  # drawn right to left
    wires = [i for i in scene.mapping_items[mapping.id] if isinstance(i, LinkItem)]
    copied = next(w for w in wires if w.ref[1] == "NAME")
    assert copied.path().pointAtPercent(0) == source.port("NAME", "in")  # leaves the source's left edge
    assert copied.path().pointAtPercent(1) == target.port("NAME", "out")  # enters the target's right edge
    gap = (target.port("NAME", "out").x(), source.port("NAME", "in").x())
    for wire in wires:  # the whole wire stays between the two tables' edges: it crosses neither
        assert gap[0] <= wire.path().boundingRect().left() and wire.path().boundingRect().right() <= gap[1]
    forward = [i for i in scene.mapping_items["cust_hq_to_branch"] if isinstance(i, LinkItem)]
    assert next(w for w in forward if w.ref[1] == "NAME").path().pointAtPercent(0) == target.port("NAME", "out")
