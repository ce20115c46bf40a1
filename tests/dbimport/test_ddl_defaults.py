"""Column defaults in `export --to ddl`: each is written so that the target database takes the DDL and
fills in the same value, or left out with a comment; never written in a form the target refuses or reads
as another value. Executed in SQLite (and PostgreSQL) with a row that takes the defaults.

Before: SQLite's `x'00'` and PostgreSQL's `E'\\t'` were TB003 (a model imported from SQLite could not be
exported), and `--dialect sqlite` wrote an Oracle `USER` and a SQL Server `N'none'` as they were, which
SQLite refuses.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from builders import one_table

from engine.ddl import model_ddl
from engine.model import Model
from engine.rules import validate

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"
DIALECTS = ["sqlite", "postgresql", "oracle", "mssql", "mysql"]
"""Every SQL dialect the DDL export is installed with here (DB2, ASE and Informix need third-party ones)."""


def sqlite_row(ddl: str) -> dict[str, Any]:
    """Execute the DDL in a new SQLite database, insert a row that takes every default, and read it back."""
    with sqlite3.connect(":memory:") as db:
        db.executescript(ddl)
        db.execute('INSERT INTO "T" ("ID") VALUES (1)')
        cursor = db.execute('SELECT * FROM "T"')
        return dict(zip([d[0] for d in cursor.description], cursor.fetchone(), strict=True))


def no_tb003(model: Model) -> None:
    assert not [f for f in validate(model) if f.code == "TB003"], [f.message for f in validate(model)]


# --- SQLite's blob literal --------------------------------------------------------------------------


def test_sqlite_hex_blob_defaults_export_for_sqlite_and_fill_in_the_bytes() -> None:
    model = one_table("sqlite", {"B0": ("BLOB", "x'00'"), "B1": ("BLOB", "X'ABCD'"), "B2": ("VARBINARY(4)", "x''")})
    no_tb003(model)
    ddl = model_ddl(model, server="s")
    assert "left out" not in ddl
    assert sqlite_row(ddl) == {"ID": 1, "B0": b"\x00", "B1": b"\xab\xcd", "B2": b""}


def test_a_sqlite_table_with_a_blob_default_imports_validates_and_exports(tmp_path: Path) -> None:
    """The reported case: `mapwright import` of a SQLite table whose blob column defaults to `x'00'` gave a
    model with TB003, which `export --to ddl` refused."""
    source = tmp_path / "source.sqlite"
    with sqlite3.connect(source) as db:
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB DEFAULT x'00', n TEXT DEFAULT 'a')")
    model, ddl = tmp_path / "m.json", tmp_path / "m.sql"
    for args in (["import", f"sqlite:///{source}", "--server", "db", "--out", str(model)],
                 ["validate", str(model)],
                 ["export", str(model), "--to", "ddl", "--server", "db", "--out", str(ddl)]):
        done = subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "TB003" not in done.stdout + done.stderr, (args, done.stdout, done.stderr)
    with sqlite3.connect(":memory:") as db:
        db.executescript(ddl.read_text())
        db.execute('INSERT INTO "t" ("id") VALUES (1)')
        assert db.execute('SELECT "b", "n" FROM "t"').fetchone() == (b"\x00", "a")


def test_a_hex_blob_default_is_written_in_each_dialects_own_form() -> None:
    """sqlglot writes a hex literal as a bit string for PostgreSQL (`x'00'` is B'00000000' there) and as
    the number 0 for Oracle: each dialect gets its own binary literal instead."""
    model = one_table("sqlite", {"B": ("BLOB", "x'0aFF'")})
    written = {d: model_ddl(model, d, server="s") for d in DIALECTS}
    assert """DEFAULT (x'0aFF')""" in written["sqlite"]
    assert """DEFAULT (CAST('\\x0aFF' AS BYTEA))""" in written["postgresql"]
    assert """DEFAULT (HEXTORAW('0aFF'))""" in written["oracle"]
    assert "DEFAULT (0x0aFF)" in written["mssql"]
    assert """DEFAULT (x'0aFF')""" in written["mysql"]
    assert sqlite_row(model_ddl(one_table("mssql", {"B": ("BLOB", "0x0aff")}), "sqlite", server="s"))["B"] == b"\n\xff"


def test_a_default_another_dbms_reads_as_other_bytes_is_left_out() -> None:
    """A hex literal in a text column, text in a binary column (PostgreSQL reads `'\\x00'` as one byte,
    SQLite as four characters), an empty blob for Oracle (where it is NULL): left out, with a comment."""
    cases = [("sqlite", "VARCHAR(4)", "x'41'", "postgresql"), ("postgresql", "BLOB", "'\\x00'::bytea", "sqlite"),
             ("postgresql", "BLOB", "'\\x00'", "sqlite"), ("sqlite", "BLOB", "x''", "oracle")]
    for dbms, type_, default, target in cases:
        model = one_table(dbms, {"C": (type_, default)})
        no_tb003(model)
        ddl = model_ddl(model, target, server="s")
        assert "-- default of column C left out: " in ddl and "DEFAULT" not in ddl, (dbms, default, target, ddl)
    assert sqlite_row(model_ddl(one_table("postgresql", {"C": ("BLOB", "'\\x00'::bytea")}), "sqlite",
                                server="s"))["C"] is None  # before: the four bytes \x00


# --- PostgreSQL's escape strings --------------------------------------------------------------------

ESCAPED = {"TAB": ("VARCHAR(10)", "E'\\t'"), "QUOTE": ("VARCHAR(10)", "e'it\\'s\\n'"),
           "ACCENT": ("VARCHAR(10)", "E'caf\\u00e9'"), "JOINED": ("VARCHAR(10)", "E'a\\\\' || 'b'")}
ESCAPED_VALUES = {"ID": 1, "TAB": "\t", "QUOTE": "it's\n", "ACCENT": "café", "JOINED": "a\\b"}


def test_postgresql_escape_strings_export_to_sqlite_as_the_same_text() -> None:
    model = one_table("postgresql", ESCAPED)
    no_tb003(model)
    ddl = model_ddl(model, "sqlite", server="s")
    assert "left out" not in ddl
    assert sqlite_row(ddl) == ESCAPED_VALUES
    for dialect in DIALECTS:
        assert "left out" not in model_ddl(model, dialect, server="s")


def test_postgresql_escape_strings_and_blobs_apply_in_postgresql(pg_server: Any) -> None:
    """The PostgreSQL server takes the DDL of a PostgreSQL model's escape strings, and of other DBMSs'
    defaults (a SQLite blob, SQL Server's `N'...'` and BIT 1, Oracle's `''`), and fills in the same values.
    Also `CURRENT_TIME`, which sqlglot had written `CURRENT_TIME()` (a syntax error in PostgreSQL)."""
    pg_server.create_database("ddl_defaults")
    pg_server.psql(model_ddl(one_table("postgresql", {**ESCAPED, "AT": ("VARCHAR(30)", "CURRENT_TIME")}),
                             server="s"), "ddl_defaults")
    pg_server.psql('INSERT INTO "T" ("ID") VALUES (1)', "ddl_defaults")
    row = json.loads(pg_server.psql('SELECT row_to_json(t) FROM "T" t', "ddl_defaults"))
    assert row.pop("AT") and row == ESCAPED_VALUES
    foreign = {"sqlite": {"B": ("BLOB", "X'00ab'")}, "mssql": {"N": ("NVARCHAR(10)", "N'none'"), "F": ("BIT", "1")},
               "oracle": {"E": ("VARCHAR(10)", "''"), "U": ("VARCHAR(40)", "USER")}}
    for dbms, columns in foreign.items():
        pg_server.psql('DROP TABLE "T"', "ddl_defaults")
        pg_server.psql(model_ddl(one_table(dbms, columns), "postgresql", server="s"), "ddl_defaults")
        pg_server.psql('INSERT INTO "T" ("ID") VALUES (1)', "ddl_defaults")
        got = json.loads(pg_server.psql('SELECT row_to_json(t) FROM "T" t', "ddl_defaults"))
        expected = {"sqlite": {"B": "\\x00ab"}, "mssql": {"N": "none", "F": True},
                    "oracle": {"E": None, "U": "mapwright"}}[dbms]
        assert got == {"ID": 1, **expected}, dbms


# --- defaults with no equivalent in the target ------------------------------------------------------


@pytest.mark.parametrize(("dialect", "user", "national"), [
    ("sqlite", None, "DEFAULT 'none'"),
    ("postgresql", "DEFAULT (USER)", "DEFAULT 'none'"),
    ("oracle", "DEFAULT (USER)", "DEFAULT (N'none')"),
    ("mssql", "DEFAULT (USER)", "DEFAULT (N'none')"),
    ("mysql", None, "DEFAULT (N'none')"),
])
def test_user_and_national_literals_for_every_dialect(dialect: str, user: str | None, national: str) -> None:
    """Oracle's `USER` where the target has it, else left out; SQL Server's `N'none'` as `'none'` where
    `N'...'` is not SQL, else as it is."""
    ddl = model_ddl(one_table("oracle", {"WHO": ("VARCHAR(30)", "USER")}), dialect, server="s")
    if user is None:
        assert "-- default of column WHO left out: USER has no equivalent in " in ddl and "DEFAULT" not in ddl
    else:
        assert user in ddl and "left out" not in ddl
    ddl = model_ddl(one_table("mssql", {"NOTE": ("NVARCHAR(10)", "N'none'")}), dialect, server="s")
    assert national in ddl and "left out" not in ddl


def test_export_ddl_for_sqlite_of_oracle_and_sql_server_defaults_runs_in_sqlite(tmp_path: Path) -> None:
    """`mapwright export --to ddl --dialect sqlite` of tables on Oracle and SQL Server: SQLite takes the
    DDL, `N'none'` is 'none', and `USER` (no constant in SQLite) and other functions that SQLite has not,
    which it refused only when a row was inserted, are left out with a comment."""
    source = [{"name": "ID", "type": "INTEGER", "nullable": False}]
    oracle = [*source, {"name": "WHO", "type": "VARCHAR(30)", "default": "USER"},
              {"name": "RAW", "type": "RAW(2)", "default": "HEXTORAW('AB')"},
              {"name": "AT", "type": "TIMESTAMP", "default": "SYSTIMESTAMP"},
              {"name": "EMPTY", "type": "VARCHAR(5)", "default": "''"},
              {"name": "NOTE", "type": "VARCHAR(10)", "default": "'it''s'"}]
    mssql = [*source, {"name": "NOTE", "type": "NVARCHAR(10)", "default": "N'none'"},
             {"name": "WHO", "type": "VARCHAR(30)", "default": "SYSTEM_USER"},
             {"name": "UID", "type": "VARCHAR(40)", "default": "NEWID()"},
             {"name": "FLAG", "type": "BIT", "default": "1"},
             {"name": "B", "type": "BLOB", "default": "0x00"}]
    model = {"format": "mapwright/1", "name": "to sqlite",
             "servers": [{"id": "src", "dbms": "postgresql"}, {"id": "ora", "dbms": "oracle"},
                         {"id": "ms", "dbms": "mssql"}],
             "tables": [{"server": "src", "name": "T", "columns": source, "primary_key": ["ID"]},
                        {"server": "ora", "name": "T", "columns": oracle, "primary_key": ["ID"]},
                        {"server": "ms", "name": "T2", "columns": mssql, "primary_key": ["ID"]}],
             "mappings": [{"id": "to_ora", "source": "src.T", "target": "ora.T", "columns": {"ID": "ID"}},
                          {"id": "to_ms", "source": "src.T", "target": "ms.T2", "columns": {"ID": "ID"}}]}
    path, out = tmp_path / "m.json", tmp_path / "m.sql"
    path.write_text(json.dumps(model))
    done = subprocess.run([MAPWRIGHT, "export", str(path), "--to", "ddl", "--dialect", "sqlite", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    ddl = out.read_text()
    for left_out in ("WHO left out: USER", "RAW left out", "WHO left out: SYSTEM_USER", "UID left out"):
        assert f"-- default of column {left_out}" in ddl, ddl
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        db.executescript(ddl)  # before: near "'none'": syntax error; default value of column [WHO] is not constant
        db.execute('INSERT INTO "T" ("ID") VALUES (1)')
        db.execute('INSERT INTO "T2" ("ID") VALUES (1)')
        t = db.execute('SELECT "WHO", "RAW", "AT" IS NOT NULL, "EMPTY", "NOTE" FROM "T"').fetchone()
        t2 = db.execute('SELECT "NOTE", "WHO", "UID", "FLAG", "B" FROM "T2"').fetchone()
    assert t == (None, None, 1, None, "it's")  # Oracle's '' is NULL
    assert t2 == ("none", None, None, 1, b"\x00")


@pytest.mark.parametrize(("dbms", "default", "type_"), [
    ("postgresql", "1 / 2", "DECIMAL(5,2)"),  # 0 in PostgreSQL, 0.5 in Oracle and MySQL
    ("mssql", "'a' + 'b'", "VARCHAR(5)"),  # text in SQL Server, a number in MySQL
    ("postgresql", "'1 day'::interval", "VARCHAR(20)"),
    ("postgresql", "CURRENT_TIMESTAMP", "VARCHAR(30)"),  # as text, each DBMS writes a time its own way
    ("postgresql", "upper('a')", "VARCHAR(5)"),
    ("postgresql", "SYSTEM_USER", "VARCHAR(40)"),  # `method:identity` in PostgreSQL, the login in SQL Server
    ("oracle", "'a' || ''", "VARCHAR(5)"),
])
def test_what_has_no_checked_equivalent_is_left_out_for_another_dbms(dbms: str, default: str, type_: str) -> None:
    model = one_table(dbms, {"C": (type_, default)})
    no_tb003(model)
    assert "left out" not in model_ddl(model, server="s")  # its own DBMS takes it as it is
    for dialect in DIALECTS:
        if dialect != dbms:
            ddl = model_ddl(model, dialect, server="s")
            assert "-- default of column C left out: " in ddl and "DEFAULT" not in ddl, (dialect, ddl)


def test_today_and_now_keep_their_meaning_in_each_dialect() -> None:
    """The current date in a DATE column: SQL Server's GETDATE() and Oracle's CURRENT_DATE have the time of
    day, so they are cut to the date; Oracle's SYSDATE into a TIMESTAMP is the current timestamp."""
    today = one_table("postgresql", {"D": ("DATE", "CURRENT_DATE"), "T": ("TIMESTAMP", "now()")})
    assert "[D] DATE NULL DEFAULT (CAST(GETDATE() AS DATE))" in model_ddl(today, "mssql", server="s")
    assert """"D" DATE DEFAULT (TRUNC(CURRENT_DATE, 'DD'))""" in model_ddl(today, "oracle", server="s")
    assert "`D` DATE DEFAULT (CURRENT_DATE)" in model_ddl(today, "mysql", server="s")  # MySQL wants ( )
    row = sqlite_row(model_ddl(one_table("oracle", {"D": ("DATE", "SYSDATE"), "T": ("TIMESTAMP", "SYSDATE")}),
                               "sqlite", server="s"))
    assert len(row["D"]) == 10 and len(row["T"]) == 19
