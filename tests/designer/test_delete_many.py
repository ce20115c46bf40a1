"""Deleting many tables at once (the canvas's selection, `engine.authoring.delete_tables`): the same model as
deleting them one by one, one undo step whose undo gives the file back exactly, and views that show what
fresh ones would after the delete, its undo and its redo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from many_tables import grid_expected, grid_shown, many_tables, tree_lines
from PySide6.QtCore import QSettings, Qt

from designer.authoring.grid import METHOD, MappingGrid
from designer.canvas.wires import LinkItem
from designer.document import Document
from designer.tree import ModelTree
from designer.window import MainWindow
from engine import authoring as au
from engine.edits import Edit, chain
from engine.model.io import dump_model
from engine.model.schema import Model


def applied(model: Model, edits: list[Edit]) -> None:
    for edit in edits:
        edit.apply(model)


def undone(model: Model, edits: list[Edit]) -> None:
    for edit in reversed(edits):
        edit.inverted().apply(model)


def without(model: Model, keys: list[str]) -> str:
    """The model file with the tables `keys` gone, and with them the mappings, conflict settings and positions
    that name them: what deleting them must leave."""
    data = json.loads(dump_model(model))
    data["tables"] = [t for t in data["tables"] if f"{t['server']}.{t['name']}" not in keys]
    data["mappings"] = [m for m in data.get("mappings", []) if m["source"] not in keys and m["target"] not in keys]
    data["conflicts"] = [c for c in data.get("conflicts", []) if c["table"] not in keys]
    data["layout"] = {k: v for k, v in data.get("layout", {}).items() if k not in keys}
    return dump_model(Model.model_validate({k: v for k, v in data.items() if v or k in ("format", "name")}))


@pytest.mark.parametrize("pick", ["every third", "all", "one server's", "hq only", "none there"])
def test_deleting_tables_at_once_takes_what_names_them_and_undoes_exactly(pick: str) -> None:
    model = many_tables()
    keys = {"every third": [t.key for t in model.tables][::3], "all": [t.key for t in model.tables],
            "one server's": [t.key for t in model.tables if t.server == "web"],
            "hq only": [f"hq.T{t}" for t in range(0, 12, 5)], "none there": ["hq.NOPE"]}[pick]
    original, expected = dump_model(model), without(model, keys)
    edits = au.delete_tables(model, keys)
    assert dump_model(model) == original  # built, not applied
    applied(model, edits)
    assert dump_model(model) == expected
    undone(model, edits)
    assert dump_model(model) == original  # everything back in its place
    one_by_one = chain(model, *[lambda m, k=k: au.delete_table(m, k) for k in reversed(keys)])  # type: ignore[misc]
    applied(model, one_by_one)
    assert dump_model(model) == expected
    undone(model, one_by_one)
    assert dump_model(model) == original


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    w = MainWindow(Document(many_tables()), settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   ask=False)
    w.resize(1400, 900)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def views_as_fresh(w: MainWindow, qtbot: Any) -> None:
    tree, grid = ModelTree(w.document), MappingGrid(w.document)
    qtbot.addWidget(tree)
    qtbot.addWidget(grid)
    assert tree_lines(w.tree) == tree_lines(tree)
    assert grid_shown(w.grid) == grid_expected(w.grid, grid)


def test_the_canvas_deletes_its_selected_tables_and_maps_as_one_step(window: MainWindow, qtbot: Any) -> None:
    document = window.document
    original = dump_model(document.model)
    keys = sorted(k for k in window.scene.tables if k.endswith(("T1", "T4", "T8")) or k.startswith("br.T1"))
    for key in keys:
        window.scene.tables[key].setSelected(True)
    link = next(i for i in window.scene.mapping_items["m2_web"] if isinstance(i, LinkItem) and i.ref[1] == "C0")
    link.setSelected(True)  # a column map of a mapping that stays
    mapping_id, column = link.ref
    window.grid.view.sortByColumn(METHOD, Qt.SortOrder.DescendingOrder)
    window.controller.delete_selection()
    assert document.undo_stack.count() == 1
    model = document.model
    assert not {t.key for t in model.tables} & set(keys)
    assert not [m for m in model.mappings if m.source in keys or m.target in keys]
    mapping = model.mapping(mapping_id)
    assert mapping is not None and column not in mapping.columns
    assert set(window.scene.tables) == {t.key for t in model.tables}
    views_as_fresh(window, qtbot)
    deleted = dump_model(model)
    document.undo_stack.undo()
    assert dump_model(document.model) == original
    views_as_fresh(window, qtbot)
    document.undo_stack.redo()
    assert dump_model(document.model) == deleted
    views_as_fresh(window, qtbot)
