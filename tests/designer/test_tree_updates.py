"""The model tree on a model of many tables: after every edit, undo and redo it shows what a tree just made on
the same model shows, and it touched only the rows of what the edits name: every other row is the same item
as before (counted, never timed). Expanded rows and the current row survive."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from many_tables import many_tables, tree_lines

from designer.authoring import commands as cmd
from designer.document import Document
from designer.tree import ModelTree
from engine import authoring as au
from engine.edits import chain

Build = Callable[[Document], cmd.AuthoringCommand]


@pytest.fixture
def tree(qtbot: Any) -> ModelTree:
    t = ModelTree(Document(many_tables()))
    t.resize(400, 800)
    qtbot.addWidget(t)
    t.show()
    return t


def as_fresh(tree: ModelTree, qtbot: Any) -> None:
    fresh = ModelTree(tree.document)
    qtbot.addWidget(fresh)
    assert tree_lines(tree) == tree_lines(fresh)


# edit -> (what it builds, the rows it may touch: refs of servers, tables and mappings)
EDITS: dict[str, tuple[Build, set[tuple[str, str]]]] = {
    "method removed": (lambda d: cmd.SetMethod(d, "m3_br", "C1", None), {("mapping", "m3_br")}),
    "column added": (lambda d: cmd.AddColumn(d, "br.T2", "NEW", "INTEGER", position=1), {("table", "br.T2")}),
    "column renamed": (lambda d: cmd.RenameColumn(d, "hq.T4", "C2", "C2X"),
                       {("table", "hq.T4"), ("mapping", "m4_br"), ("mapping", "m4_web")}),
    "table renamed": (lambda d: cmd.RenameTable(d, "hq.T7", "Z7"),
                      {("table", "hq.T7"), ("table", "hq.Z7"), ("mapping", "m7_br"), ("mapping", "m7_web")}),
    "mapping renamed": (lambda d: cmd.RenameMapping(d, "m6_br", "a_first"),
                        {("mapping", "m6_br"), ("mapping", "a_first")}),
    "new mapping": (lambda d: cmd.NewMapping(d, "hq.T1", "web.T2", "m_new"), {("mapping", "m_new")}),
    "mapping removed": (lambda d: cmd.RemoveMapping(d, "m0_web"), {("mapping", "m0_web")}),
    "table added": (lambda d: cmd.AddTable(d, "br", "NEW", [{"name": "ID", "type": "INTEGER"}]),
                    {("table", "br.NEW")}),
    "tables deleted": (lambda d: cmd.AuthoringCommand(d, au.delete_tables(d.model, ["br.T1", "hq.T9", "web.T0"]),
                                                      "Delete"),
                       {("table", "br.T1"), ("table", "hq.T9"), ("table", "web.T0"), ("mapping", "m1_br"),
                        ("mapping", "m9_br"), ("mapping", "m9_web"), ("mapping", "m0_web")}),
    "server edited": (lambda d: cmd.EditServer(d, "br", priority=25), {("server", "br")}),
    "server renamed": (lambda d: cmd.RenameServer(d, "web", "a_web"),
                       {("server", "web"), ("server", "a_web")}
                       | {("table", f"{s}.T{t}") for s in ("web", "a_web") for t in range(12)}
                       | {("mapping", f"m{t}_web") for t in range(12)}),
    "server added": (lambda d: cmd.AddServer(d, "a_new", "postgresql", 5), {("server", "a_new")}),
    "server removed": (lambda d: cmd.RemoveServer(d, "br"),
                       {("server", "br")} | {("table", f"br.T{t}") for t in range(12)}
                       | {("mapping", f"m{t}_br") for t in range(12)}),
}


@pytest.mark.parametrize("edit", EDITS)
def test_the_tree_follows_edits_undo_and_redo_touching_only_their_rows(tree: ModelTree, qtbot: Any,
                                                                       edit: str) -> None:
    build, touched = EDITS[edit]
    document = tree.document
    before = dict(tree.rows)
    assert cmd.push(document, build(document))
    as_fresh(tree, qtbot)
    kept = {ref for ref in before if ref not in touched}
    assert all(tree.rows[ref] is before[ref] for ref in kept)  # the very same row: not made again
    document.undo_stack.undo()
    as_fresh(tree, qtbot)
    assert all(tree.rows[ref] is before[ref] for ref in kept)
    document.undo_stack.redo()
    as_fresh(tree, qtbot)


def test_a_step_of_many_edits_makes_each_row_once(tree: ModelTree) -> None:
    document = tree.document
    rows = tree.rows_replaced
    assert cmd.push(document, cmd.EditServer(document, "web", priority=11))
    assert tree.rows_replaced - rows == 1
    rows = tree.rows_replaced
    assert cmd.push(document, cmd.RenameServer(document, "web", "w2"))
    assert tree.rows_replaced - rows == 1 + 12 + 12  # the server, its tables, the mappings into them
    rows = tree.rows_replaced
    document.undo_stack.undo()
    assert tree.rows_replaced - rows == 1 + 12 + 12


def test_every_edit_in_a_row_then_every_undo_and_redo(tree: ModelTree, qtbot: Any) -> None:
    """The edits one after another (each seeing what the earlier ones left), then all undone and redone."""
    document = tree.document
    done = 0
    for name, (build, _touched) in EDITS.items():
        if name in ("column renamed", "table renamed", "mapping removed", "new mapping"):  # named by earlier ones
            continue
        assert cmd.push(document, build(document)), name
        done += 1
    as_fresh(tree, qtbot)
    for _ in range(done):
        document.undo_stack.undo()
        as_fresh(tree, qtbot)
    for _ in range(done):
        document.undo_stack.redo()
        as_fresh(tree, qtbot)


def test_expanded_rows_and_the_current_row_survive_a_server_rename(tree: ModelTree) -> None:
    document = tree.document
    tree.select_ref(("table", "web.T3"))
    tree.expand(tree.currentIndex())
    tree.select_ref(("column", "web.T3", "C1"))
    assert cmd.push(document, cmd.RenameServer(document, "web", "w2"))
    assert tree.ref_at(tree.currentIndex()) == ("column", "w2.T3", "C1")
    assert tree._is_expanded(("table", "w2.T3")) and tree._is_expanded(("server", "w2"))
    assert not tree._is_expanded(("table", "w2.T4"))
    document.undo_stack.undo()
    assert tree.ref_at(tree.currentIndex()) == ("column", "web.T3", "C1")
    assert tree._is_expanded(("table", "web.T3"))


def test_a_renamed_mapping_keeps_its_open_row(tree: ModelTree) -> None:
    document = tree.document
    tree.select_ref(("mapping", "m5_br"))
    tree.expand(tree.currentIndex())
    row = tree.rows[("mapping", "m5_br")]
    assert cmd.push(document, cmd.RenameMapping(document, "m5_br", "m5_renamed"))
    assert tree.rows[("mapping", "m5_renamed")] is row and ("mapping", "m5_br") not in tree.rows
    assert tree._is_expanded(("mapping", "m5_renamed"))
    assert tree.ref_at(tree.currentIndex()) == ("mapping", "m5_renamed")


def test_the_filter_keeps_matching_rows_through_edits(tree: ModelTree) -> None:
    document = tree.document
    tree.filter_edit.setText("T11")
    def shown() -> set[tuple[object, ...]]:
        return {tree.ref_at(i) for i in tree._all()}
    assert ("table", "web.T11") in shown() and ("table", "web.T10") not in shown()
    assert cmd.push(document, cmd.RenameServer(document, "web", "w2"))
    assert ("table", "w2.T11") in shown() and ("table", "web.T11") not in shown()
    document.undo_stack.undo()
    assert ("table", "web.T11") in shown() and ("table", "w2.T11") not in shown()


def test_a_step_that_adds_and_removes_again_and_renames_twice(tree: ModelTree, qtbot: Any) -> None:
    """One undo step whose later edits undo or redo what earlier ones did: the tree shows where the step ends."""
    document = tree.document
    edits = chain(document.model, lambda m: au.add_server(m, "x", "postgresql"),
                  lambda m: au.add_table(m, "x", "T"), lambda m: au.remove_server(m, "x"),
                  lambda m: au.rename_server(m, "br", "b2"), lambda m: au.rename_server(m, "b2", "b3"),
                  lambda m: au.rename_mapping(m, "m1_web", "n1"), lambda m: au.remove_mapping(m, "n1"))
    document.apply(edits, "Many")
    as_fresh(tree, qtbot)
    document.undo_stack.undo()
    as_fresh(tree, qtbot)
    document.undo_stack.redo()
    as_fresh(tree, qtbot)
