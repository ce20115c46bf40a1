"""TY006: a column's type is another DBMS's own type, with the native type to use; and the conversion that
gives a table its server's types (engine.authoring.nativetypes), one exact, undoable edit.

`CASES` (a firing model and its near miss, per DBMS case) are run here and by `test_code_catalog.py`.
"""

from __future__ import annotations

from typing import Any

import pytest
from rulekit import Case, assert_fires, assert_silent, case_params, col, fired, model, server, table

from engine.authoring import AuthoringError
from engine.authoring.nativetypes import convert_table_types, native_type
from engine.edits import replace
from engine.model import Model
from engine.rules import Validator, validate


def typed(type_: str, dbms: str, **extra: Any) -> Model:
    """Server `s` of `dbms` with table T: ID (pk) and V of `type_`."""
    return model([server("s", dbms)], [table("s", "T", [col("ID", nullable=False), col("V", type_, **extra)],
                                             pk=["ID"])])


def case(type_: str, on: str, native_on: str) -> Case:
    return Case("TY006", f"{type_.split('(')[0].lower()}-on-{on}", lambda: typed(type_, on),
                lambda: typed(type_, native_on), {"table": "s.T", "column": "V"})


CASES = [
    case("VARCHAR2(80)", "postgresql", "oracle"),
    case("NUMBER(10,2)", "mssql", "oracle"),
    case("RAW(16)", "db2", "oracle"),
    case("LONG", "mysql", "oracle"),
    case("LONG RAW", "informix", "oracle"),
    case("SERIAL", "oracle", "informix"),
    case("SERIAL8", "mysql", "postgresql"),
    case("BYTE", "postgresql", "informix"),
    case("TEXT", "oracle", "postgresql"),
    case("TEXT", "db2", "mysql"),
    case("DATETIME", "postgresql", "mssql"),
    case("BOOLEAN", "mssql", "postgresql"),
    case("BOOLEAN", "ase", "informix"),
    case("SET(INTEGER NOT NULL)", "postgresql", "informix"),
    case("ROW(a INTEGER)", "oracle", "informix"),
]


@pytest.mark.parametrize("c", case_params(CASES))
def test_fires_and_near_miss(c: Case) -> None:
    c.check_fires()
    c.check_misses()


def messages(m: Model) -> list[str]:
    return [f.message for f in fired(m, "TY006")]


def test_message_names_the_owner_and_the_native_type() -> None:
    assert messages(typed("VARCHAR2(80)", "postgresql")) == \
        ["V: VARCHAR2(80) is Oracle's; on postgresql use VARCHAR(80)"]
    assert messages(typed("SERIAL", "oracle")) == \
        ["V: SERIAL is Informix's and PostgreSQL's; on oracle use INTEGER with an identity"]
    assert messages(typed("BOOLEAN", "mssql")) == ["V: BOOLEAN is not SQL Server's; on mssql use BIT"]
    assert messages(typed("NUMBER", "db2")) == \
        ["V: NUMBER is Oracle's; db2 has no exact equal: choose a DECIMAL(p,s) that holds its values"]
    assert messages(typed("LIST(INTEGER NOT NULL)", "mysql"))[0].startswith("V: LIST(INTEGER) is Informix's; mysql")


def test_generic_types_and_unchecked_dbms_are_silent() -> None:
    for dbms in ("oracle", "db2", "mssql", "informix", "ase", "postgresql", "mysql"):
        for type_ in ("VARCHAR(10)", "DECIMAL(10,2)", "INTEGER", "TIMESTAMP", "BLOB", "CLOB", "VARBINARY(8)"):
            assert_silent(typed(type_, dbms), "TY006")
    for dbms in ("sqlite", "other"):  # SQLite takes any type name; `other` is unknown
        assert_silent(typed("VARCHAR2(80)", dbms), "TY006")
    assert_silent(typed("SERIAL", "postgresql"), "TY006")


@pytest.mark.parametrize(("type_", "dbms", "want"), [
    ("VARCHAR2(80)", "postgresql", "VARCHAR(80)"), ("varchar2(80)", "mysql", "VARCHAR(80)"),
    ("NUMBER(10,2)", "db2", "DECIMAL(10,2)"), ("NUMBER(10)", "mssql", "DECIMAL(10,0)"),
    ("NUMBER", "postgresql", "DECIMAL"), ("NUMBER", "mssql", None), ("NUMBER(38)", "db2", None),
    ("NUMBER(38)", "mssql", "DECIMAL(38,0)"), ("RAW(16)", "mssql", "VARBINARY(16)"),
    ("LONG", "db2", "CLOB"), ("LONG", "postgresql", "TEXT"), ("LONG RAW", "postgresql", "BLOB"),
    ("SERIAL", "oracle", "INTEGER"), ("SERIAL8", "db2", "BIGINT"), ("BYTE", "oracle", "BLOB"),
    ("TEXT", "oracle", "CLOB"), ("DATETIME", "oracle", "TIMESTAMP"), ("BOOLEAN", "ase", "BIT"),
    ("SET(INTEGER)", "postgresql", None), ("VARCHAR2(80)", "oracle", None), ("VARCHAR2(80)", "sqlite", None),
    ("VARCHAR(80)", "oracle", None), ("NOT A TYPE", "oracle", None),
])
def test_native_type(type_: str, dbms: str, want: str | None) -> None:
    assert native_type(type_, dbms) == want


MIXED = [col("ID", "SERIAL", nullable=False), col("NAME", "VARCHAR2(80)"), col("PRICE", "NUMBER(10,2)"),
         col("WIDE", "NUMBER"), col("AT", "DATETIME"), col("OK", "VARCHAR(3)"),
         col("SEQ", "SERIAL8", default=1)]


def mixed(dbms: str) -> Model:
    return model([server("s", dbms)], [table("s", "T", MIXED, pk=["ID"])])


def test_convert_table_types_is_one_exact_edit_and_clears_the_findings() -> None:
    m = mixed("db2")
    assert {f.location.column for f in fired(m, "TY006")} == {"ID", "NAME", "PRICE", "WIDE", "AT", "SEQ"}
    before = m.model_dump(mode="json")
    edits = convert_table_types(m, "s.T")
    assert [e.kind for e in edits] == ["table"]
    assert m.model_dump(mode="json") == before  # the model is read, not changed
    v = Validator(m)
    v.apply_all(edits)
    t = m.table("s.T")
    assert t is not None
    assert [c.type for c in t.columns] == ["INTEGER", "VARCHAR(80)", "DECIMAL(10,2)", "NUMBER", "TIMESTAMP",
                                           "VARCHAR(3)", "BIGINT"]
    assert t.columns[0].identity is not None and t.columns[6].identity is None  # a default numbers SEQ already
    assert [f.location.column for f in fired(m, "TY006")] == ["WIDE"]  # no exact equal on DB2: left as it is
    assert v.findings() == validate(m)
    assert convert_table_types(m, "s.T") == []  # nothing more to convert
    for edit in reversed(edits):
        edit.inverted().apply(m)
    assert m.model_dump(mode="json") == before


def test_convert_refuses_an_unknown_table() -> None:
    with pytest.raises(AuthoringError, match="no table 's.NOPE'"):
        convert_table_types(mixed("oracle"), "s.NOPE")


def test_incremental_validation_follows_a_server_dbms_change() -> None:
    m = mixed("postgresql")
    v = Validator(m)
    assert {f.location.column for f in v.findings() if f.code == "TY006"} == {"NAME", "PRICE", "WIDE", "AT"}
    srv = m.server("s")
    assert srv is not None
    v.apply(replace(m, "server", srv, srv.model_copy(update={"dbms": "oracle"})))
    assert {f.location.column for f in v.findings() if f.code == "TY006"} == {"ID", "AT", "SEQ"}
    assert v.findings() == validate(m)
    assert_fires(m, "TY006", table="s.T", column="ID")
