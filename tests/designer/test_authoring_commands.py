"""Every authoring command, model-level: push it, assert the model, undo, assert it is back (orange's style)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from designer.authoring import commands as cmd
from designer.document import Document
from engine.model import Model

START = {
    "format": "mapwright/1", "name": "start",
    "servers": [{"id": "hq", "dbms": "oracle", "priority": 20}, {"id": "br", "dbms": "postgresql", "priority": 10}],
    "tables": [
        {"server": "hq", "name": "CUST", "columns": [
            {"name": "REGION", "type": "CHAR(2)", "nullable": False},
            {"name": "NO", "type": "INTEGER", "nullable": False},
            {"name": "NAME", "type": "VARCHAR(40)"}], "primary_key": ["REGION", "NO"]},
        {"server": "br", "name": "CUST", "columns": [
            {"name": "KEY", "type": "VARCHAR(16)", "nullable": False}, {"name": "name", "type": "VARCHAR(40)"}],
         "primary_key": ["KEY"]}],
    "mappings": [{"id": "fwd", "source": "hq.CUST", "target": "br.CUST", "columns": {
        "KEY": {"method": "concat", "inputs": ["REGION", "NO"], "sep": "-"}}}],
    "conflicts": [{"table": "br.CUST", "column_groups": [{"name": "g", "columns": ["name"],
                                                          "resolution": [{"method": "site_priority"}]}]}],
    "layout": {"hq.CUST": [0, 0], "br.CUST": [400, 0]},
}

Check = Callable[[Model], bool]
CASES: list[tuple[str, Callable[[Document], cmd.AuthoringCommand], Check]] = [
    ("add server", lambda d: cmd.AddServer(d, "web", "mssql", 5),
     lambda m: m.server("web") is not None and m.server("web").priority == 5),  # type: ignore[union-attr]
    ("edit server", lambda d: cmd.EditServer(d, "br", dbms="db2", float_format="ieee"),
     lambda m: (m.server("br").dbms, m.server("br").float_format) == ("db2", "ieee")),  # type: ignore[union-attr]
    ("rename server", lambda d: cmd.RenameServer(d, "br", "branch"),
     lambda m: m.table("branch.CUST") is not None and m.mapping("fwd").target == "branch.CUST"  # type: ignore[union-attr]
     and m.conflicts[0].table == "branch.CUST" and "branch.CUST" in m.layout),
    ("remove server", lambda d: cmd.RemoveServer(d, "br"),
     lambda m: m.server("br") is None and m.table("br.CUST") is None and m.mappings == [] and m.conflicts == []),
    ("add table", lambda d: cmd.AddTable(d, "br", "ORDERS", [{"name": "ID", "type": "INTEGER"}]),
     lambda m: m.table("br.ORDERS") is not None and m.table("br.ORDERS").column_names() == ["ID"]),  # type: ignore[union-attr]
    ("rename table", lambda d: cmd.RenameTable(d, "br.CUST", "CUSTOMER"),
     lambda m: m.mapping("fwd").target == "br.CUSTOMER" and m.conflicts[0].table == "br.CUSTOMER"  # type: ignore[union-attr]
     and "br.CUSTOMER" in m.layout),
    ("replicate table", lambda d: cmd.ReplicateTable(d, "hq.CUST", "br", "CUST_HQ"),
     lambda m: m.table("br.CUST_HQ").columns == m.table("hq.CUST").columns),  # type: ignore[union-attr]
    ("remove table", lambda d: cmd.RemoveTable(d, "br.CUST"),
     lambda m: m.table("br.CUST") is None and m.mappings == []),
    ("add column", lambda d: cmd.AddColumn(d, "br.CUST", "CODE", "CHAR(3)", False, "'X'", 1),
     lambda m: m.table("br.CUST").columns[1].name == "CODE" and m.table("br.CUST").columns[1].default == "'X'"),  # type: ignore[union-attr]
    ("set column", lambda d: cmd.SetColumn(d, "br.CUST", "name", type="VARCHAR(80)", nullable=False),
     lambda m: not m.table("br.CUST").column("name").nullable),  # type: ignore[union-attr]
    ("rename column", lambda d: cmd.RenameColumn(d, "hq.CUST", "REGION", "AREA"),
     lambda m: m.mapping("fwd").columns["KEY"].inputs[0].input == "AREA"  # type: ignore[union-attr]
     and m.table("hq.CUST").primary_key == ["AREA", "NO"]),  # type: ignore[union-attr]
    ("move column", lambda d: cmd.MoveColumn(d, "hq.CUST", "NAME", -1),
     lambda m: m.table("hq.CUST").column_names() == ["REGION", "NAME", "NO"]),  # type: ignore[union-attr]
    ("remove column", lambda d: cmd.RemoveColumn(d, "br.CUST", "name"),
     lambda m: m.table("br.CUST").column_names() == ["KEY"] and m.conflicts[0].column_groups[0].columns == []),  # type: ignore[union-attr]
    ("set keys", lambda d: cmd.SetKeys(d, "hq.CUST", ["NO"], [{"name": "UX", "columns": ["NAME"]}]),
     lambda m: m.table("hq.CUST").primary_key == ["NO"] and m.table("hq.CUST").unique_indexes[0].name == "UX"),  # type: ignore[union-attr]
    ("new mapping", lambda d: cmd.NewMapping(d, "br.CUST", "hq.CUST", "back"),
     lambda m: m.mapping("back") is not None and set(m.mapping("back").columns) == {"NAME"}),  # type: ignore[union-attr]
    ("auto-map", lambda d: cmd.AutoMap(d, "fwd"),
     lambda m: m.mapping("fwd").columns["name"].input == "NAME"),  # type: ignore[union-attr]
    ("rename mapping", lambda d: cmd.RenameMapping(d, "fwd", "hq_to_br"),
     lambda m: m.mapping("fwd") is None and m.mapping("hq_to_br") is not None),
    ("remove mapping", lambda d: cmd.RemoveMapping(d, "fwd"), lambda m: m.mappings == []),
    ("add reverse", lambda d: cmd.AddReverse(d, "fwd"),
     lambda m: m.mapping("fwd").reverse == "br_CUST_to_hq_CUST"  # type: ignore[union-attr]
     and m.mapping("br_CUST_to_hq_CUST").reverse == "fwd"),  # type: ignore[union-attr]
    ("set where", lambda d: cmd.SetWhere(d, "fwd", "NAME IS NOT NULL"),
     lambda m: m.mapping("fwd").where == "NAME IS NOT NULL"),  # type: ignore[union-attr]
    ("set method", lambda d: cmd.SetMethod(d, "fwd", "name", {"method": "upper", "input": "NAME"}),
     lambda m: m.mapping("fwd").columns["name"].method == "upper"),  # type: ignore[union-attr]
    ("move method input", lambda d: cmd.MoveMethodInput(d, "fwd", "KEY", (), 1, -1),
     lambda m: [i.input for i in m.mapping("fwd").columns["KEY"].inputs] == ["NO", "REGION"]),  # type: ignore[union-attr]
]


@pytest.mark.parametrize(("name", "make", "check"), CASES, ids=[c[0] for c in CASES])
def test_push_undo_redo(qtbot: Any, name: str, make: Callable[[Document], cmd.AuthoringCommand],
                        check: Check) -> None:
    document = Document(Model.model_validate(START))
    before = document.model.model_copy(deep=True)
    findings_before = sorted(document.findings())
    changes: list[Any] = []
    document.sig_changed.connect(changes.append)
    command = make(document)
    assert cmd.push(document, command)
    assert check(document.model), name
    assert document.dirty and changes
    document.undo_stack.undo()
    assert document.model == before
    assert sorted(document.findings()) == findings_before  # validation follows the undo exactly
    document.undo_stack.redo()
    assert check(document.model)


def test_a_refused_change_is_never_pushed(qtbot: Any) -> None:
    from engine.authoring import AuthoringError

    document = Document(Model.model_validate(START))
    for make in (lambda: cmd.AddServer(document, "hq", "oracle"), lambda: cmd.AddColumn(document, "hq.CUST", "X",
                                                                                         "VARCHR(2)"),
                 lambda: cmd.RenameTable(document, "hq.CUST", "A B"), lambda: cmd.RenameMapping(document, "fwd", ""),
                 lambda: cmd.SetMethod(document, "fwd", "name", {"method": "upper"})):
        with pytest.raises(AuthoringError):
            make()
    assert document.undo_stack.count() == 0
    assert not cmd.push(document, cmd.RenameServer(document, "hq", "hq"))  # no change: nothing pushed
    assert document.undo_stack.count() == 0


def test_a_selection_follows_renames_and_their_undo(qtbot: Any) -> None:
    from designer.authoring.selection import follow_ref

    document = Document(Model.model_validate(START))
    rename_column = cmd.RenameColumn(document, "br.CUST", "KEY", "CUST_KEY")
    assert follow_ref(("column", "br.CUST", "KEY"), rename_column.edits) == ("column", "br.CUST", "CUST_KEY")
    assert follow_ref(("link", "fwd", "KEY"), rename_column.edits) == ("link", "fwd", "CUST_KEY")
    assert follow_ref(("method", "fwd", "KEY", (0,)), rename_column.edits) == ("method", "fwd", "CUST_KEY", (0,))
    assert follow_ref(("column", "br.CUST", "name"), rename_column.edits) == ("column", "br.CUST", "name")
    undo = [e.inverted() for e in reversed(rename_column.edits)]
    assert follow_ref(("link", "fwd", "CUST_KEY"), undo) == ("link", "fwd", "KEY")
    server = cmd.RenameServer(document, "br", "branch")
    assert follow_ref(("column", "br.CUST", "KEY"), server.edits) == ("column", "branch.CUST", "KEY")
    assert follow_ref(("server", "br"), server.edits) == ("server", "branch")
    mapping = cmd.RenameMapping(document, "fwd", "forward")
    assert follow_ref(("link", "fwd", "KEY"), mapping.edits) == ("link", "forward", "KEY")
    assert follow_ref(("table", "hq.CUST"), mapping.edits) == ("table", "hq.CUST")
