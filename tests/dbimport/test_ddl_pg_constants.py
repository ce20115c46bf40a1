"""PostgreSQL's bit strings, Unicode strings and constants continued over lines as column defaults: TB003
takes exactly what a PostgreSQL 15 server takes, a run fills in the value the server fills in, and DDL
writes it for each DBMS only as an equivalent that fills in the same value (else leaves it out, said why).

Before: `B'101'`, `X'1F'` and `U&'d\\0061t'` were TB003 (`a bitstring is not a constant expression`), so
DDL left them out for every DBMS, PostgreSQL too; `'foo'` newline `'bar'` was taken as `CONCAT('foo',
'bar')`, which DDL left out for every other DBMS, and `'foo' 'bar'` on one line, which PostgreSQL refuses,
was taken the same way.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))

from builders import one_table
from runkit import build, rec, run  # noqa: E402

from engine.core.types import parse_type  # noqa: E402
from engine.ddl import model_ddl  # noqa: E402
from engine.model import Model  # noqa: E402
from engine.rules import validate  # noqa: E402
from engine.sql import evaluate as sql_evaluate  # noqa: E402
from engine.sqldefaults import run_default  # noqa: E402

PG_TYPES = {"VARCHAR(40)": "varchar(40)", "CHAR(3)": "char(3)", "TEXT": "text", "BIT": "bit(1)",
            "INTEGER": "integer", "BOOLEAN": "boolean", "BLOB": "bytea"}
"""The PostgreSQL type each model type is (the model's BIT is PostgreSQL's bit(1), as import reads it)."""

CASES: list[tuple[str, str]] = [
    ("B'101'", "VARCHAR(40)"), ("b''", "VARCHAR(40)"), ("B'101'", "TEXT"), ("B'101'", "CHAR(3)"),
    ("X'1F'", "VARCHAR(40)"), ("x'a'\n'B'", "VARCHAR(40)"), ("B'1'", "BIT"), ("B'0'", "BIT"),
    ("U&'d\\0061t\\+000061'", "VARCHAR(40)"), ("U&'d!0061t!+000061' UESCAPE '!'", "VARCHAR(40)"),
    ("U&'!0061'\n'!0062' UESCAPE '!'", "VARCHAR(40)"), ("U&'\\D83D\\DE00 \\\\'", "VARCHAR(40)"),
    ("'foo'\n'bar'", "VARCHAR(40)"), ("'foo' -- the first piece\n 'bar'", "VARCHAR(40)"),
    ("'foo'\r'bar'", "VARCHAR(40)"), ("E'a\\t'\n'\\tb'", "VARCHAR(40)"), ("E'\\1'\n'23'", "VARCHAR(40)"),
    # refused by the server, and so by TB003
    ("'foo' 'bar'", "VARCHAR(40)"), ("'foo' /* c */\n'bar'", "VARCHAR(40)"), ("'a'\nE'b'", "VARCHAR(40)"),
    ("B'102'", "VARCHAR(40)"), ("U&'\\0000'", "VARCHAR(40)"), ("U&'\\D83D'", "VARCHAR(40)"),
    ("U&'a' UESCAPE '+'", "VARCHAR(40)"), ("E'\\uD83D'\n'\\uDE00'", "VARCHAR(40)"),
    ("B'101'", "INTEGER"), ("B'1'", "BOOLEAN"), ("B'1'", "BLOB"), ("B'101'", "BIT"),
]


def tb003(model: Model) -> list[str]:
    return [f.message for f in validate(model) if f.code == "TB003"]


def test_tb003_takes_what_postgresql_takes_and_a_run_fills_in_what_it_fills_in(pg_server: Any) -> None:
    """Each default on the server: a table with it, a row that takes it. TB003 is silent exactly where the
    server takes it, and the run's value (text) is the server's."""
    pg_server.create_database("pg_constants")
    for default, type_ in CASES:
        sql = (f"CREATE TEMP TABLE t (id int, c {PG_TYPES[type_]} DEFAULT {default});\n"
               "INSERT INTO t (id) VALUES (1);\nSELECT json_build_object('c', c::text) FROM t")
        try:
            served: str | None = json.loads(pg_server.psql(sql, "pg_constants"))["c"]
        except RuntimeError:
            served = None
        found = tb003(one_table("postgresql", {"C": (type_, default)}))
        assert (served is None) == bool(found), (default, type_, served, found)
        if served is not None:
            value = sql_evaluate.evaluate_sql(str(run_default(default, "postgresql")), {}, None)
            assert value == served or (type_ == "CHAR(3)" and value == served.rstrip()), (default, value, served)


COLUMNS = {"BITS": ("VARCHAR(10)", "B'101'"), "FLAG": ("BIT", "B'1'"), "OFF": ("BIT", "(B'0')"),
           "HEX": ("VARCHAR(10)", "X'A'"), "UNI": ("VARCHAR(10)", "U&'d\\0061t'"),
           "ESC": ("VARCHAR(10)", "U&'d!0061t' UESCAPE '!'"), "JOINED": ("VARCHAR(10)", "'foo'\n'bar'")}
VALUES = {"ID": 1, "BITS": "101", "FLAG": True, "OFF": False, "HEX": "1010", "UNI": "dat", "ESC": "dat",
          "JOINED": "foobar"}


def test_postgresql_ddl_of_the_constants_fills_in_the_same_values(pg_server: Any) -> None:
    """The model's own DDL (BIT is written BOOLEAN: its bit string is TRUE or FALSE there)."""
    model = one_table("postgresql", COLUMNS)
    assert not tb003(model)
    ddl = model_ddl(model, server="s")
    assert "left out" not in ddl and """"BITS" VARCHAR(10) DEFAULT (b'101')""" in ddl, ddl
    assert '"FLAG" BOOLEAN DEFAULT TRUE' in ddl and """"JOINED" VARCHAR(10) DEFAULT 'foobar'""" in ddl, ddl
    pg_server.create_database("pg_constants_ddl")
    pg_server.psql(ddl, "pg_constants_ddl")
    pg_server.psql('INSERT INTO "T" ("ID") VALUES (1)', "pg_constants_ddl")
    assert json.loads(pg_server.psql('SELECT row_to_json(t) FROM "T" t', "pg_constants_ddl")) == VALUES


def test_other_dbmss_get_the_same_values() -> None:
    model = one_table("postgresql", COLUMNS)
    ddl = model_ddl(model, "sqlite", server="s")
    assert "left out" not in ddl
    with sqlite3.connect(":memory:") as db:
        db.executescript(ddl)
        db.execute('INSERT INTO "T" ("ID") VALUES (1)')
        cursor = db.execute('SELECT * FROM "T"')
        row = dict(zip([d[0] for d in cursor.description], cursor.fetchone(), strict=True))
    assert row == {**VALUES, "FLAG": 1, "OFF": 0}
    written = {dialect: model_ddl(model, dialect, server="s") for dialect in ("oracle", "mssql", "mysql")}
    for dialect, text in written.items():
        assert "left out" not in text, (dialect, text)
    assert """"BITS" VARCHAR2(10 CHAR) DEFAULT '101'""" in written["oracle"]
    assert '"FLAG" BOOLEAN DEFAULT 1' in written["oracle"] and "`FLAG` BOOL DEFAULT TRUE" in written["mysql"]
    assert "[FLAG] BIT NULL DEFAULT 1" in written["mssql"]
    assert "[UNI] VARCHAR(10) NULL DEFAULT 'dat'" in written["mssql"]
    assert "`JOINED` VARCHAR(10) DEFAULT 'foobar'" in written["mysql"]


def test_a_bit_string_with_no_equivalent_is_left_out_said_why() -> None:
    """`B''` is the empty text, which Oracle reads as NULL; a bit string in a number column is TB003."""
    empty = model_ddl(one_table("postgresql", {"E": ("VARCHAR(5)", "B''")}), "oracle", server="s")
    assert "-- default of column E left out: '' has no equivalent: Oracle reads it as NULL" in empty
    number = one_table("postgresql", {"N": ("INTEGER", "B'101'")})
    assert tb003(number) and "PostgreSQL takes only in a bit or character column" in tb003(number)[0]
    for dialect in ("postgresql", "sqlite"):
        ddl = model_ddl(number, dialect, server="s")
        assert "-- default of column N left out: B'101' is a bit string" in ddl and "DEFAULT" not in ddl


def test_a_run_fills_in_the_servers_text() -> None:
    """The reference run's row: the text PostgreSQL assigns (Spark SQL had read `B'101'` as the number 5)."""
    target = {"server": "t", "name": "T", "primary_key": ["ID"], "columns": [
        {"name": "ID", "type": "INTEGER", "nullable": False},
        *({"name": n, "type": t, "default": d} for n, (t, d) in COLUMNS.items() if t != "BIT")]}
    model = build([{"id": "s", "dbms": "postgresql"}, {"id": "t", "dbms": "postgresql"}],
                  [{"server": "s", "name": "T", "primary_key": ["ID"],
                    "columns": [{"name": "ID", "type": "INTEGER", "nullable": False}]}, target],
                  [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID"}}])
    [row] = run(model, [rec("s", "x1", "I", after={"ID": 1})]).tables["t.T"]
    assert row == {k: v for k, v in VALUES.items() if k not in ("FLAG", "OFF")}


@pytest.mark.parametrize("type_", ["VARCHAR(10)", "TEXT"])
def test_a_bit_string_run_default_is_text_not_a_number(type_: str) -> None:
    from engine.spark.resolve_check import default_value_sql

    assert default_value_sql(run_default("B'101'", "postgresql"), parse_type(type_)) == "CAST('101' AS string)"
