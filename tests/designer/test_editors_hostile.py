"""A hostile user in the editors: undo of a removal, renames the conflict editor must follow, Find and the
Problems panel after edits, refusals said in one clear line (pytest-qt, on the bundled sample)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot
from windows import make_window, window_on

from designer.authoring import commands as cmd
from designer.conflict_editor import SHADOW
from designer.tree import REF
from designer.window import MainWindow
from engine.model import dump_model, save_model
from resources import SAMPLE_MODEL


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return make_window(qtbot, tmp_path, SAMPLE_MODEL)


def tree_lines(w: MainWindow) -> list[str]:
    """Every row of the model tree, indented by depth, in the order shown."""
    out: list[str] = []

    def walk(item: Any, depth: int) -> None:
        for r in range(item.rowCount()):
            child = item.child(r)
            out.append("  " * depth + child.text())
            walk(child, depth + 1)
    walk(w.tree.items.invisibleRootItem(), 0)
    return out


def test_undoing_a_table_removal_puts_its_mappings_back_in_their_places_in_the_tree(
        window: MainWindow, qtbot: QtBot, tmp_path: Path, unhandled: list[BaseException]) -> None:
    before, shown = dump_model(window.document.model), tree_lines(window)
    cmd.push(window.document, cmd.RemoveTable(window.document, "hq.CUSTOMER"))  # four mappings use it
    removed, shown_removed = dump_model(window.document.model), tree_lines(window)
    for _ in range(3):
        window.document.undo_stack.undo()
        assert dump_model(window.document.model) == before and tree_lines(window) == shown
        window.document.undo_stack.redo()
        assert dump_model(window.document.model) == removed and tree_lines(window) == shown_removed
    window.document.undo_stack.undo()
    save_model(window.document.model, tmp_path / "now.json")
    assert tree_lines(window) == tree_lines(make_window(qtbot, tmp_path, tmp_path / "now.json"))
    assert not unhandled


def group_names(w: MainWindow) -> list[str]:
    return [w.conflicts.groups.topLevelItem(i).text(0) for i in range(w.conflicts.groups.topLevelItemCount())]


def test_the_conflict_editor_follows_a_rename_of_its_table_and_its_undo(window: MainWindow) -> None:
    window.select(("table", "hq.CUSTOMER"))
    groups = group_names(window)
    assert "address_cg" in groups
    name = window.inspector.fields["name"]
    name.setText("CLIENT")  # type: ignore[attr-defined]
    name.editingFinished.emit()  # type: ignore[attr-defined]
    assert window.document.model.table("hq.CLIENT") is not None
    assert window.conflicts.table_key == "hq.CLIENT" and window.conflicts.isEnabled()
    assert window.conflicts.title.text() == "Conflict resolution on hq.CLIENT" and group_names(window) == groups
    window.conflicts.add_group("late_cg")  # edits the renamed table's settings
    assert "late_cg" in [g.name for g in window.document.model.conflicts_for("hq.CLIENT").column_groups]  # type: ignore[union-attr]
    window.document.undo_stack.undo()
    window.document.undo_stack.undo()
    assert window.conflicts.table_key == "hq.CUSTOMER" and group_names(window) == groups


def test_the_conflict_editor_follows_a_rename_of_its_tables_server(window: MainWindow) -> None:
    window.select(("table", "hq.CUSTOMER"))
    cmd.push(window.document, cmd.RenameServer(window.document, "hq", "head"))
    assert window.conflicts.table_key == "head.CUSTOMER" and "address_cg" in group_names(window)


def test_a_group_named_like_the_shadow_group_is_refused(window: MainWindow) -> None:
    window.select(("table", "hq.CUSTOMER"))
    before = dump_model(window.document.model)
    window.conflicts.add_group(SHADOW)
    assert dump_model(window.document.model) == before
    assert "shadow group" in window.conflicts.problem.text()
    assert group_names(window).count(SHADOW) == 1


def test_find_never_offers_what_an_edit_removed(window: MainWindow) -> None:
    dialog = window.show_find()
    dialog.edit.setText("CUSTOMER")
    labels = [dialog.results.item(i).text() for i in range(dialog.results.count())]
    assert "table hq.CUSTOMER" in labels
    dialog.results.setCurrentRow(labels.index("table web.CUSTOMER"))
    cmd.push(window.document, cmd.RemoveTable(window.document, "hq.CUSTOMER"))
    labels = [dialog.results.item(i).text() for i in range(dialog.results.count())]
    assert "table hq.CUSTOMER" not in labels
    assert dialog.results.currentItem().text() == "table web.CUSTOMER"  # the hit picked stays picked
    window.document.undo_stack.undo()
    assert "table hq.CUSTOMER" in [dialog.results.item(i).text() for i in range(dialog.results.count())]


def test_a_mapping_finding_selects_the_mapping_so_the_edit_menu_acts_on_it(window: MainWindow) -> None:
    cmd.push(window.document, cmd.SetWhere(window.document, "cust_hq_to_web", "NOPE = 1"))  # MP003
    window.select(("table", "hq.PRODUCT"))
    finding = next(f for f in window.problems.model.findings if f.location.mapping == "cust_hq_to_web")
    window.go_to(finding)
    assert window.inspector.ref == ("mapping", "cust_hq_to_web")
    assert window.current_ref == ("mapping", "cust_hq_to_web")  # Edit ▸ Remove removes the mapping, not hq.CUSTOMER
    edit_menu = window.menuBar().actions()[1].menu()
    next(a for a in edit_menu.actions() if a.text() == "Remove").trigger()
    assert window.document.model.mapping("cust_hq_to_web") is None
    assert window.document.model.table("hq.CUSTOMER") is not None


@pytest.mark.parametrize(("method", "text", "says"), [
    ("concat", "", "inputs: List should have at least 1 item"),
    ("expression", "", "sql: String should have at least 1 character"),
    ("expression", "(" * 30 + "1", "sql: the expression is nested too deeply"),
])
def test_a_grid_inputs_cell_the_model_refuses_says_why(window: MainWindow, method: str, text: str, says: str) -> None:
    grid = window.grid.model
    row = grid.rows.index(("cust_hq_to_web", "NAME"))
    assert grid.setData(grid.index(row, 2), method)
    before = dump_model(window.document.model)
    assert not grid.setData(grid.index(row, 3), text)
    assert dump_model(window.document.model) == before
    problem = window.grid.problem.text()
    assert problem.startswith("not applied: columns.NAME.") and says in problem, problem
    assert "validation error" not in problem


@pytest.mark.parametrize(("method", "field"), [("split", "index"), ("substring", "start"), ("substring", "length")])
@pytest.mark.parametrize("text", ["x", "1.5", "1e3", "<b>2</b>"])
def test_a_method_number_field_that_is_no_whole_number_says_so(window: MainWindow, method: str, field: str,
                                                               text: str) -> None:
    grid = window.grid.model
    assert grid.setData(grid.index(grid.rows.index(("cust_hq_to_web", "NAME")), 2), method)
    window.select(("method", "cust_hq_to_web", "NAME", ()))
    before = dump_model(window.document.model)
    line = window.inspector.fields[field]
    line.setText(text)  # type: ignore[attr-defined]
    line.editingFinished.emit()  # type: ignore[attr-defined]
    assert dump_model(window.document.model) == before
    assert window.inspector.error.text() == f"not applied: {field}: not a whole number: {text!r}"


def tree_mappings(w: MainWindow) -> list[str]:
    branch = w.tree.items.item(1)
    return [str(branch.child(r).data(REF)[1]) for r in range(branch.rowCount())]


def test_the_tree_keeps_the_models_mapping_order_when_a_removal_edits_other_mappings_reverse(
        qtbot: QtBot, tmp_path: Path) -> None:
    doc = json.loads(SAMPLE_MODEL.read_text())
    for mapping in doc["mappings"]:
        if mapping["id"] == "cust_web_to_hq":  # a second mapping, further down, whose reverse names it
            mapping["reverse"] = "cust_hq_to_branch"
    w = window_on(qtbot, tmp_path, doc)
    order = [m.id for m in w.document.model.mappings]
    assert tree_mappings(w) == order
    cmd.push(w.document, cmd.RemoveMapping(w.document, "cust_hq_to_branch"))  # edits two reverses, then removes
    assert tree_mappings(w) == [m.id for m in w.document.model.mappings] == [i for i in order
                                                                            if i != "cust_hq_to_branch"]
    w.document.undo_stack.undo()
    assert tree_mappings(w) == order
    w.document.undo_stack.redo()
    assert tree_mappings(w) == [m.id for m in w.document.model.mappings]


def test_renaming_a_table_of_a_server_whose_id_holds_a_dot_renames_that_table(qtbot: QtBot, tmp_path: Path) -> None:
    doc = {"format": "mapwright/1", "servers": [{"id": "a.b", "dbms": "sqlite"}],  # an older file's server id
           "tables": [{"server": "a.b", "name": "customer", "columns": [{"name": "ID", "type": "INTEGER"}]}]}
    w = window_on(qtbot, tmp_path, doc)
    selected: list[tuple[object, ...]] = []
    w.authoring.sig_select.connect(selected.append)
    assert w.authoring.rename(("table", "a.b.customer"), "client")
    assert [(t.server, t.name) for t in w.document.model.tables] == [("a.b", "client")]
    assert selected == [("table", "a.b.client")]
