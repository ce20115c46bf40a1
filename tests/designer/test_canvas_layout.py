"""The canvas on the bundled sample, laid out automatically: a reverse mapping is drawn right to left
between the facing edges of its tables, and no method node stands under a table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from windows import make_window

from designer.canvas.items import LinkItem, MethodItem
from designer.window import MainWindow
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
