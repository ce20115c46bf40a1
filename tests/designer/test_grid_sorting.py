"""The mapping grid sorted and searched on a model of many mappings: it shows what a grid just made on the
same model shows, sorted by Python (equal cells in the model's order), after every edit, undo and redo; a
sort keeps the selection; an edit works out again only its mapping's rows (counted, never timed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from many_tables import grid_expected, grid_shown, many_tables, selected_keys
from PySide6.QtCore import QItemSelectionModel, Qt

from designer.authoring import commands as cmd
from designer.authoring import grid as grid_module
from designer.authoring.grid import INPUTS, METHOD, MappingGrid
from designer.document import Document
from engine import authoring as au
from engine.model.schema import Model

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder


@pytest.fixture
def grid(qtbot: Any) -> MappingGrid:
    g = MappingGrid(Document(many_tables()))
    g.resize(900, 600)
    qtbot.addWidget(g)
    g.show()
    return g


def as_fresh(grid: MappingGrid, qtbot: Any) -> None:
    fresh = MappingGrid(grid.model.document)
    qtbot.addWidget(fresh)
    assert grid_shown(grid) == grid_expected(grid, fresh)


@pytest.mark.parametrize("column", range(4))
@pytest.mark.parametrize("order", [ASC, DESC])
def test_a_header_click_sorts_every_row_stably(grid: MappingGrid, qtbot: Any, column: int,
                                               order: Qt.SortOrder) -> None:
    grid.view.sortByColumn(column, order)
    assert grid.view.horizontalHeader().sortIndicatorSection() == column
    assert len(grid_shown(grid)) == grid.model.rowCount() > 100
    as_fresh(grid, qtbot)
    grid.view.sortByColumn(-1, ASC)  # back to the model's order
    model = grid.model.document.model
    in_model_order = [(m.id, c) for m in model.mappings for c in _columns(model, m.id)]
    assert [tuple(r[:2]) for r in grid_shown(grid)] == in_model_order


def _columns(model: Model, mapping_id: str) -> list[str]:
    mapping = model.mapping(mapping_id)
    assert mapping is not None
    target = model.table(mapping.target)
    names = target.column_names() if target else []
    return names + [c for c in mapping.columns if c not in names]


def test_ties_keep_the_models_order_in_both_directions(grid: MappingGrid) -> None:
    for order in (ASC, DESC):
        grid.view.sortByColumn(METHOD, order)
        shown = grid_shown(grid)
        concat = [(r[0], r[1]) for r in shown if r[2] == "concat"]
        assert concat == [(m.id, "K") for m in grid.model.document.model.mappings]  # all equal: the model's order
        methods = [r[2] for r in shown]
        assert methods == sorted(methods, reverse=order == DESC)


EDITS: dict[str, Callable[[Document], cmd.AuthoringCommand]] = {
    # a method changed: its row moves when the grid is sorted by method
    "method removed": lambda d: cmd.SetMethod(d, "m3_br", "C1", None),
    "method set": lambda d: cmd.AuthoringCommand(d, au.insert_method(d.model, "m5_web", "C4", "trim"), "Trim"),
    "inputs changed": lambda d: cmd.AuthoringCommand(
        d, au.set_method_fields(d.model, "m1_br", "K", (), inputs=["NO", "REGION"]), "Inputs"),
    # rows added or removed
    "column added": lambda d: cmd.AddColumn(d, "br.T2", "AAA", "INTEGER", position=0),
    "column removed": lambda d: cmd.RemoveColumn(d, "web.T4", "C3"),
    "mapping removed": lambda d: cmd.RemoveMapping(d, "m0_web"),
    "mapping renamed": lambda d: cmd.RenameMapping(d, "m6_br", "a_first"),
    "new mapping": lambda d: cmd.NewMapping(d, "hq.T1", "web.T2", "m_new"),
    "table renamed": lambda d: cmd.RenameTable(d, "hq.T7", "Z7"),
    "tables deleted": lambda d: cmd.AuthoringCommand(d, au.delete_tables(d.model, ["br.T1", "hq.T9"]), "Delete"),
    "server renamed": lambda d: cmd.RenameServer(d, "web", "a_web"),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("column", [METHOD, INPUTS, 0])
def test_a_sorted_and_searched_grid_follows_edits_undo_and_redo(grid: MappingGrid, qtbot: Any, edit: str,
                                                                column: int) -> None:
    document = grid.model.document
    grid.view.sortByColumn(column, DESC if column == METHOD else ASC)
    grid.search.setText("T")  # keeps most rows: hides the copies of C0 ("C0", "column", "C0")
    as_fresh(grid, qtbot)
    assert cmd.push(document, EDITS[edit](document))
    as_fresh(grid, qtbot)
    document.undo_stack.undo()
    as_fresh(grid, qtbot)
    document.undo_stack.redo()
    as_fresh(grid, qtbot)
    grid.search.setText("")
    as_fresh(grid, qtbot)


def test_the_search_ignores_case_and_finds_any_cell(grid: MappingGrid, qtbot: Any) -> None:
    grid.search.setText("UPPER")
    shown = grid_shown(grid)
    assert shown and all(r[2] == "upper" for r in shown)
    grid.search.setText("c3 || '5")
    assert {r[0] for r in grid_shown(grid)} == {"m5_br"}
    document = grid.model.document
    assert cmd.push(document, cmd.AuthoringCommand(
        document, au.set_method_fields(document.model, "m1_br", "C3", (), sql="C3 || '5'"), "Edit"))
    assert {r[0] for r in grid_shown(grid)} == {"m1_br", "m5_br"}  # a row that now matches appears
    as_fresh(grid, qtbot)


def test_a_sort_keeps_the_selected_rows(grid: MappingGrid) -> None:
    model = grid.model
    picked = {("m4_web", "C1"), ("m9_br", "K")}
    selection = grid.view.selectionModel()
    for key in picked:
        index = grid.proxy.mapFromSource(model.index(model.rows.index(key), 0))
        selection.select(index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
    for column, order in ((INPUTS, DESC), (METHOD, ASC), (-1, ASC)):
        grid.view.sortByColumn(column, order)
        assert selected_keys(grid) == picked


def test_an_edit_works_out_only_its_mappings_rows(grid: MappingGrid, monkeypatch: pytest.MonkeyPatch) -> None:
    document = grid.model.document
    grid.view.sortByColumn(INPUTS, ASC)  # every row's cells worked out
    made: list[tuple[str, str]] = []
    cells = grid_module._cells

    def counted(mapping_id: str, column: str, method: Any) -> grid_module.Cells:
        made.append((mapping_id, column))
        return cells(mapping_id, column, method)
    monkeypatch.setattr(grid_module, "_cells", counted)
    lookups: list[str] = []
    mapping = Model.mapping
    monkeypatch.setattr(Model, "mapping", lambda self, key: (lookups.append(key), mapping(self, key))[1])
    grid.view.sortByColumn(METHOD, DESC)
    grid.model.index(0, 0).data()
    assert made == [] and lookups == []  # a sort and a cell read the rows' kept texts
    assert cmd.push(document, cmd.SetMethod(document, "m2_web", "C0", None))
    grid.view.sortByColumn(INPUTS, DESC)
    assert {m for m, _c in made} == {"m2_web"}
    assert len(made) == len([r for r in grid.model.rows if r[0] == "m2_web"])
