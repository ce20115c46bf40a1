"""An undo step of many edits (a server renamed with its tables, a server removed, every table selected and
deleted, tables moved together) is validated once and redrawn once: each scope checked once, the automatic
layout computed once, the selection said once; and what is drawn and found is what a fresh window would show
(pytest-qt, offscreen). Counted, never timed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from windows import window_on

from designer.canvas.items import TableItem
from designer.canvas.scene import MappingScene
from designer.canvas.wires import LinkItem
from designer.window import MainWindow
from engine.model import Model
from engine.model.io import dump_model
from engine.rules import Validator, validate

PAIRS = 30


def pairs_model(pairs: int = PAIRS) -> dict[str, Any]:
    """`pairs` tables on src, each copied to dst by a mapping; no saved layout (every table placed automatically)."""
    cols = [{"name": "ID", "type": "INTEGER", "nullable": False}] + [{"name": f"C{j}", "type": "VARCHAR(40)"}
                                                                      for j in range(4)]
    return {"format": "mapwright/1", "name": "pairs",
            "servers": [{"id": "src", "dbms": "oracle", "priority": 20}, {"id": "dst", "dbms": "postgresql",
                                                                           "priority": 10}],
            "tables": [{"server": s, "name": f"T{i:02d}", "columns": cols, "primary_key": ["ID"]}
                       for i in range(pairs) for s in ("src", "dst")],
            "mappings": [{"id": f"m{i:02d}", "source": f"src.T{i:02d}", "target": f"dst.T{i:02d}",
                          "columns": {c["name"]: c["name"] for c in cols}, "distribution_key": ["ID"]}
                         for i in range(pairs)]}


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    return window_on(qtbot, tmp_path, pairs_model(), "pairs.json")


class Counts:
    """How often the work an edit could repeat per item is done: layouts computed, batches validated, scopes
    checked (each scope once per batch)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.layouts = 0
        self.batches = 0
        self.checked: list[Any] = []
        layout, apply_all, check = MappingScene.auto_positions, Validator.apply_all, Validator._check

        def counted_layout(scene: MappingScene) -> Any:
            self.layouts += 1
            return layout(scene)

        def counted_batch(validator: Validator, edits: Any) -> Any:
            self.batches += 1
            return apply_all(validator, edits)

        def counted_check(validator: Validator, scope: Any) -> None:
            self.checked.append(scope)
            check(validator, scope)
        monkeypatch.setattr(MappingScene, "auto_positions", counted_layout)
        monkeypatch.setattr(Validator, "apply_all", counted_batch)
        monkeypatch.setattr(Validator, "_check", counted_check)

    def reset(self) -> None:
        self.layouts, self.batches, self.checked = 0, 0, []

    def once(self) -> bool:
        return self.layouts <= 1 and self.batches == 1 and len(self.checked) == len(set(self.checked))


def as_fresh(w: MainWindow) -> None:
    """What the canvas draws and the document finds is what a new window on the same model would show."""
    model = w.document.model
    items = w.scene.items()
    assert sorted(i.key for i in items if isinstance(i, TableItem)) == sorted(t.key for t in model.tables)
    assert {i.ref for i in items if isinstance(i, LinkItem)} == {(m.id, c) for m in model.mappings for c in m.columns}
    auto = MappingScene.auto_positions(w.scene)
    for key, item in w.scene.tables.items():
        saved = model.layout.get(key)
        assert (item.pos().x(), item.pos().y()) == (tuple(saved) if saved else (auto[key].x(), auto[key].y()))
    fresh = Model.model_validate(json.loads(dump_model(model)))
    assert sorted(w.document.findings()) == sorted(validate(fresh))


def undone_once(window: MainWindow, counts: Counts, original: str) -> None:
    """Undo the step: validated and laid out once, the model exactly as before, drawn as a fresh window would."""
    counts.reset()
    window.document.undo_stack.undo()
    assert counts.once()
    assert dump_model(window.document.model) == original
    as_fresh(window)


def test_a_server_renamed_with_its_tables_is_validated_and_laid_out_once(window: MainWindow,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    counts = Counts(monkeypatch)
    original = dump_model(window.document.model)
    assert window.authoring.rename(("server", "src"), "SRC2")
    assert len(window.document.undo_stack.command(0).edits) > PAIRS  # one step of many edits
    assert counts.once()
    assert sorted(window.scene.tables) == sorted(t.key for t in window.document.model.tables)
    assert "SRC2.T07" in window.scene.tables and "src.T07" not in window.scene.tables
    as_fresh(window)
    undone_once(window, counts, original)


def test_a_server_removed_with_its_tables_and_back_is_validated_and_laid_out_once(
        window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = Counts(monkeypatch)
    assert window.authoring.remove_server("dst")
    assert counts.once()
    assert not window.scene.mapping_items and len(window.scene.tables) == PAIRS
    as_fresh(window)
    counts.reset()
    window.document.undo_stack.undo()
    assert counts.once()
    assert len(window.scene.tables) == 2 * PAIRS and len(window.scene.mapping_items) == PAIRS
    as_fresh(window)


def test_select_all_says_the_selection_once(window: MainWindow) -> None:
    said: list[tuple[Any, ...]] = []
    window.scene.sig_selected.connect(said.append)
    for item in window.scene.tables.values():  # what Edit > Select all does
        item.setSelected(True)
    assert said == [("table", "src.T00"), ()]  # one table, then several: not once per table added
    said.clear()
    window.scene.tables["src.T03"].setSelected(False)  # still several
    assert said == []
    window.scene.clearSelection()
    window.scene.tables["dst.T05"].setSelected(True)
    assert said == [(), ("table", "dst.T05")]


def test_every_table_selected_and_deleted_is_one_step_and_its_undo_one_redraw(
        window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = Counts(monkeypatch)
    original = dump_model(window.document.model)
    for item in window.scene.tables.values():
        item.setSelected(True)
    window.controller.delete_selection()
    assert counts.once()
    assert window.document.undo_stack.count() == 1
    assert not window.document.model.tables and not window.scene.tables and not window.scene.mapping_items
    as_fresh(window)
    undone_once(window, counts, original)


def test_tables_moved_together_are_one_layout_edit(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = Counts(monkeypatch)
    moves = [(key, 10.0 * i, 7.0 * i) for i, key in enumerate(sorted(window.scene.tables))]
    window.controller.move_tables(moves)
    stack = window.document.undo_stack
    assert stack.text(0) == f"Move {len(moves)} tables" and len(stack.command(0).edits) == 1
    assert window.document.model.layout == {key: [round(x), round(y)] for key, x, y in moves}
    assert counts.layouts == 0
    as_fresh(window)
    counts.reset()
    stack.undo()
    assert counts.layouts == 1  # every table back to its automatic place: the layout computed once
    assert window.document.model.layout == {}
    as_fresh(window)
    window.controller.move_tables(moves[:1], "Nudge")
    assert stack.text(0) == "Nudge"


def test_auto_layout_is_one_layout_edit_and_its_undo_restores_the_file(window: MainWindow) -> None:
    """View > Auto layout wrote one copy of the layout per table into one undo step (a thousand tables, a
    thousand layouts); it is one edit, and undo gives the model back exactly."""
    before = dump_model(window.document.model)
    window.auto_layout()
    stack = window.document.undo_stack
    assert stack.text(stack.index() - 1) == "Auto layout" and len(stack.command(stack.index() - 1).edits) == 1
    assert set(window.document.model.layout) == set(window.scene.tables)
    stack.undo()
    assert dump_model(window.document.model) == before
