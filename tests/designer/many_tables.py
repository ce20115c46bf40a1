"""A model of many tables for the tests of the views that must update only what an edit names: `per_site`
tables on hq, each copied to br and web by mappings of varied methods (a concat key, copies, a constant, an
expression, an upper), with conflict settings and saved positions on some; helpers that read what the
model tree and the mapping grid show."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItem

from designer.authoring.grid import MappingGrid
from designer.tree import REF, ModelTree
from engine.model.schema import Model

SITES = ("br", "web")


def many_tables(per_site: int = 12) -> Model:
    cols = [{"name": "REGION", "type": "CHAR(2)", "nullable": False},
            {"name": "NO", "type": "INTEGER", "nullable": False}]
    cols += [{"name": f"C{i}", "type": "VARCHAR(40)"} for i in range(5)]
    tables: list[dict[str, Any]] = []
    mappings: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    layout: dict[str, list[int]] = {}
    for t in range(per_site):
        tables.append({"server": "hq", "name": f"T{t}", "columns": cols, "primary_key": ["REGION", "NO"]})
        for n, site in enumerate(SITES):
            tables.append({"server": site, "name": f"T{t}", "columns": [
                {"name": "K", "type": "VARCHAR(16)", "nullable": False}, *cols[2:]], "primary_key": ["K"]})
            columns: dict[str, Any] = {"K": {"method": "concat", "inputs": ["REGION", "NO"], "sep": "-"},
                                       "C0": "C0", "C1": {"method": "upper", "input": "C1"}}
            if (t + n) % 3 == 0:
                columns["C2"] = {"method": "constant", "value": f"v{t % 4}"}
            if (t + n) % 4 == 1:
                columns["C3"] = {"method": "expression", "sql": f"C3 || '{t}'"}
            mappings.append({"id": f"m{t}_{site}", "source": f"hq.T{t}", "target": f"{site}.T{t}",
                             "columns": columns})
            if t % 2 == 0:
                conflicts.append({"table": f"{site}.T{t}", "column_groups": [
                    {"name": "g", "columns": ["C0", "C1"], "resolution": [{"method": "site_priority"}]}]})
        if t % 3 == 0:
            layout[f"hq.T{t}"] = [0, 200 * t]
    return Model.model_validate({"format": "mapwright/1", "name": "many", "servers": [
        {"id": "hq", "dbms": "oracle", "priority": 30}, {"id": "br", "dbms": "db2", "priority": 20},
        {"id": "web", "dbms": "postgresql", "priority": 10}], "tables": tables, "mappings": mappings,
        "conflicts": conflicts, "layout": layout})


def tree_lines(tree: ModelTree) -> list[Any]:
    """Every row of the tree, in order: its text, its ref and its children's rows."""
    def under(item: QStandardItem) -> list[Any]:
        return [(item.child(r).text(), tuple(item.child(r).data(REF)), under(item.child(r)))
                for r in range(item.rowCount())]
    return under(tree.items.invisibleRootItem())


def grid_shown(grid: MappingGrid) -> list[list[str]]:
    """The grid's cells as the view shows them (searched and sorted)."""
    proxy = grid.proxy
    return [[proxy.index(r, c).data() for c in range(proxy.columnCount())] for r in range(proxy.rowCount())]


def grid_expected(grid: MappingGrid, fresh: MappingGrid) -> list[list[str]]:
    """What `grid` should show: `fresh` (a grid just made on the same document) searched for `grid`'s text and
    sorted as `grid` is, by Python: equal cells keep the model's order, in either direction."""
    model = fresh.model
    rows = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]
    needle = grid.search.text().casefold()
    rows = [r for r in rows if any(needle in cell.casefold() for cell in r)]
    column, order = grid.model.sorted_by
    if column >= 0:
        rows = sorted(rows, key=lambda r: r[column], reverse=order == Qt.SortOrder.DescendingOrder)
    return rows


def selected_keys(grid: MappingGrid) -> set[tuple[str, str]]:
    """The (mapping, column) of every row selected in the grid's view."""
    rows = {grid.proxy.mapToSource(i).row() for i in grid.view.selectionModel().selectedIndexes()}
    return {grid.model.rows[r] for r in rows if r >= 0}

