"""The model tree and the mapping grid through random sequences of edits, undos, redos, sorts and searches
(hypothesis's state machine): after every step each shows what one just made on the same model shows, so a
failure shrinks to the few steps that matter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from many_tables import grid_expected, grid_shown, many_tables, tree_lines
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from designer.authoring import commands as cmd
from designer.authoring.grid import MappingGrid
from designer.document import Document
from designer.tree import ModelTree
from engine import authoring as au

NAMES = ("T1", "T9", "X", "Y")


def edits(document: Document, draw: Callable[[Any], Any]) -> cmd.AuthoringCommand:
    """One authoring change, its kind and its targets drawn from the model as it is now."""
    model = document.model
    tables = [t.key for t in model.tables] or ["hq.NONE"]
    mappings = [m.id for m in model.mappings] or ["NONE"]
    servers = [s.id for s in model.servers] or ["NONE"]
    kind = draw(st.sampled_from(["method", "unmap", "add column", "remove column", "rename table", "new mapping",
                                 "remove mapping", "rename mapping", "server", "rename server", "add server",
                                 "remove server", "delete tables"]))
    if kind in ("method", "unmap"):
        mapping = model.mapping(draw(st.sampled_from(mappings)))
        target = model.table(mapping.target) if mapping else None
        column = draw(st.sampled_from(target.column_names() if target else ["NONE"]))
        if kind == "unmap":
            return cmd.SetMethod(document, mapping.id if mapping else "NONE", column, None)
        method = draw(st.sampled_from(["upper", "trim", "constant", "expression", "concat"]))
        return cmd.AuthoringCommand(document, au.insert_method(model, mapping.id if mapping else "NONE", column,
                                                                method), "Insert")
    if kind in ("add column", "remove column", "rename table"):
        key = draw(st.sampled_from(tables))
        table = model.table(key)
        if kind == "add column":
            return cmd.AddColumn(document, key, draw(st.sampled_from(("A", "C0", "Z"))), "INTEGER",
                                 position=draw(st.integers(0, 3)))
        if kind == "remove column":
            return cmd.RemoveColumn(document, key, draw(st.sampled_from(table.column_names() if table else ["X"])))
        return cmd.RenameTable(document, key, draw(st.sampled_from(NAMES)))
    if kind in ("new mapping", "remove mapping", "rename mapping"):
        if kind == "new mapping":
            return cmd.NewMapping(document, draw(st.sampled_from(tables)), draw(st.sampled_from(tables)))
        mapping_id = draw(st.sampled_from(mappings))
        if kind == "remove mapping":
            return cmd.RemoveMapping(document, mapping_id)
        return cmd.RenameMapping(document, mapping_id, draw(st.sampled_from(("a", "m1_br", "zz"))))
    if kind == "server":
        return cmd.EditServer(document, draw(st.sampled_from(servers)), priority=draw(st.integers(1, 50)))
    if kind == "rename server":
        return cmd.RenameServer(document, draw(st.sampled_from(servers)), draw(st.sampled_from(("a", "br", "zz"))))
    if kind == "add server":
        return cmd.AddServer(document, draw(st.sampled_from(("a", "m", "zz"))), "postgresql")
    if kind == "remove server":
        return cmd.RemoveServer(document, draw(st.sampled_from(servers)))
    picked = draw(st.lists(st.sampled_from(tables), max_size=4))
    return cmd.AuthoringCommand(document, au.delete_tables(model, picked), "Delete")


class ViewsFollowTheModel(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        QApplication.instance() or QApplication([])
        self.document = Document(many_tables(4))
        self.tree = ModelTree(self.document)
        self.grid = MappingGrid(self.document)
        self.grid.view.sortByColumn(2, Qt.SortOrder.DescendingOrder)  # by method: most edits move rows

    @rule(data=st.data())
    def edit(self, data: st.DataObject) -> None:
        try:
            command = edits(self.document, data.draw)
        except (au.AuthoringError, ValueError):
            return  # refused (a name taken, a column the table lacks): nothing pushed
        cmd.push(self.document, command)

    @rule()
    def undo(self) -> None:
        self.document.undo_stack.undo()

    @rule()
    def redo(self) -> None:
        self.document.undo_stack.redo()

    @rule(column=st.integers(-1, 3), descending=st.booleans())
    def sort(self, column: int, descending: bool) -> None:
        self.grid.view.sortByColumn(column, Qt.SortOrder.DescendingOrder if descending
                                    else Qt.SortOrder.AscendingOrder)

    @rule(text=st.sampled_from(["", "T1", "concat", "BR", "c3"]))
    def search(self, text: str) -> None:
        self.grid.search.setText(text)

    @invariant()
    def as_fresh(self) -> None:
        tree, grid = ModelTree(self.document), MappingGrid(self.document)
        try:
            assert tree_lines(self.tree) == tree_lines(tree)
            assert grid_shown(self.grid) == grid_expected(self.grid, grid)
        finally:  # the fresh views follow the document no further
            self.document.sig_changed.disconnect(tree.apply_edits)
            self.document.sig_changed.disconnect(grid.model.reload)
            tree.deleteLater()
            grid.deleteLater()

    def teardown(self) -> None:
        for view in (self.tree, self.grid):
            view.deleteLater()


ViewsFollowTheModel.TestCase.settings = settings(max_examples=12, stateful_step_count=15, deadline=None)
test_views_follow_the_model = ViewsFollowTheModel.TestCase
