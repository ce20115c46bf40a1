"""What an import cannot carry over exactly is named, column by column, and never breaks the model's DDL.

Real databases only: a PostgreSQL server (the session's `pg_server`) and SQLite files.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from catalog import catalog

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"

PG_LOSSY = """
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE TYPE pair AS (a int, b text);
CREATE TABLE lossy (
    id integer PRIMARY KEY,
    qty posint,
    doc xml,
    spot point,
    two pair,
    twice integer GENERATED ALWAYS AS (id * 2) STORED,
    tiny smallserial,
    counter smallint GENERATED ALWAYS AS IDENTITY,
    hundreds numeric(5,-2)
);
"""

PG_SERIALS = """
CREATE SCHEMA src;
CREATE TABLE src.line (
    order_no integer NOT NULL,
    line_no serial,
    seq bigserial,
    tiny smallserial,
    PRIMARY KEY (order_no, line_no)
);
CREATE TABLE src.event (code varchar(8) PRIMARY KEY, n serial, big bigserial);
"""


def mw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def notes(out: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """`table.column` -> the note's message, from `import`'s stderr."""
    found: dict[str, str] = {}
    for line in out.stderr.splitlines():
        assert line.startswith("mapwright: note: "), out.stderr
        where, _, message = line.removeprefix("mapwright: note: ").partition(": ")
        assert where not in found, f"{where} noted twice: {out.stderr}"
        found[where] = message
    return found


def imported(url: str, model: Path, *extra: str) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """(column name -> column, for the one table read; notes) of `mapwright import`, checked to load."""
    out = mw("import", url, "--server", "db", "--out", str(model), *extra)
    assert out.returncode == 0, out.stderr
    assert mw("validate", str(model)).returncode == 0
    table = json.loads(model.read_text())["tables"][0]
    return {c["name"]: c for c in table["columns"]}, notes(out)


def test_postgresql_types_the_contract_lacks_are_named_and_their_ddl_applies(pg_server: Any, tmp_path: Path) -> None:
    url = pg_server.create_database("import_lossy")
    pg_server.psql(PG_LOSSY, "import_lossy")
    columns, said = imported(url, tmp_path / "lossy.json")
    # a domain holds its base type's values
    assert columns["qty"]["type"] == "INTEGER"
    assert said["db.lossy.qty"] == "posint is a domain (its checks are not kept) over INTEGER; imported as INTEGER"
    # a type SQLAlchemy does not know is named as the database names it
    assert said["db.lossy.doc"] == "xml is a type SQLAlchemy does not know; imported as TEXT"
    assert said["db.lossy.spot"] == "point is a type SQLAlchemy does not know; imported as TEXT"
    assert said["db.lossy.two"] == "pair is a type SQLAlchemy does not know; imported as TEXT"
    # a generated column keeps its expression (issue 36)
    assert columns["twice"] == {"name": "twice", "type": "INTEGER", "generated": {"expression": "id * 2"}}
    # a 2-byte serial has no SERIAL type: SMALLINT with its sequence, without a default naming this database's
    assert columns["tiny"] == {"name": "tiny", "type": "SMALLINT", "nullable": False, "identity": {}}
    assert columns["counter"] == {"name": "counter", "type": "SMALLINT", "nullable": False,
                                  "identity": {"always": True}}
    # a number with a size the contract cannot hold is still a number
    assert columns["hundreds"]["type"] == "NUMERIC"
    assert said["db.lossy.hundreds"] == "NUMERIC(5, -2) has a size the contract cannot hold; imported as NUMERIC"
    assert set(said) == {f"db.lossy.{c}" for c in ("qty", "doc", "spot", "two", "hundreds")}
    model, ddl = tmp_path / "lossy.json", tmp_path / "lossy.sql"
    assert mw("export", str(model), "--to", "ddl", "--server", "db", "--out", str(ddl)).returncode == 0
    copy = pg_server.create_database("import_lossy_copy")
    pg_server.psql(ddl.read_text(), "import_lossy_copy")  # raised before: relation "lossy_tiny_seq" does not exist
    again, _ = imported(copy, tmp_path / "again.json")
    assert again == columns


def test_serial_columns_outside_a_lone_primary_key_round_trip(pg_server: Any, tmp_path: Path) -> None:
    url = pg_server.create_database("import_serials")
    pg_server.psql(PG_SERIALS, "import_serials")
    model, ddl = tmp_path / "serials.json", tmp_path / "serials.sql"
    out = mw("import", url, "--server", "db", "--schema", "src", "--out", str(model))
    assert out.returncode == 0, out.stderr
    types = {t["name"]: {c["name"]: c["type"] for c in t["columns"]} for t in json.loads(model.read_text())["tables"]}
    assert types == {"event": {"code": "VARCHAR(8)", "n": "SERIAL", "big": "SERIAL8"},
                     "line": {"order_no": "INTEGER", "line_no": "SERIAL", "seq": "SERIAL8", "tiny": "SMALLINT"}}
    assert mw("export", str(model), "--to", "ddl", "--server", "db", "--out", str(ddl)).returncode == 0
    copy_url = pg_server.create_database("import_serials_copy")
    pg_server.psql(ddl.read_text(), "import_serials_copy")  # the model keeps schema src: a fresh database
    original, copy = catalog(url, "src"), catalog(copy_url, "src")
    for table in original.values():  # the one thing the model cannot keep (noted on import)
        table["columns"] = [c if c[0] != "tiny" else (*c[:3], None) for c in table["columns"]]
    assert copy == original


def test_sqlite_columns_without_a_type_generated_or_on_an_expression_are_each_noted_once(tmp_path: Path) -> None:
    path = tmp_path / "odd.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE bare (a, b INT, c INT GENERATED ALWAYS AS (b * 2) VIRTUAL, d INT AS (b + 1) STORED);
            CREATE UNIQUE INDEX ux_bare_lower ON bare (lower(a));
        """)
    columns, said = imported(f"sqlite:///{path}", tmp_path / "m.json")
    assert columns["a"]["type"] == "TEXT"
    assert said["db.bare.a"] == "the column has no declared type; imported as TEXT"
    assert "db.bare.c" not in said and "db.bare.d" not in said  # generated columns keep their expressions
    assert columns["c"]["generated"] == {"expression": "b * 2", "stored": False}
    assert columns["d"]["generated"] == {"expression": "b + 1"}
    assert len(said) == 2 and any("ux_bare_lower" in message for message in said.values()), said


def test_unique_nulls_not_distinct_is_noted(pg_server: Any, tmp_path: Path) -> None:
    url = pg_server.create_database("import_nulls")
    pg_server.psql("CREATE TABLE t (a int, b int, c int, CONSTRAINT uq_a UNIQUE NULLS NOT DISTINCT (a), "
                   "CONSTRAINT uq_b UNIQUE (b)); CREATE UNIQUE INDEX ux_c ON t (c) NULLS NOT DISTINCT", "import_nulls")
    model = tmp_path / "m.json"
    out = mw("import", url, "--server", "db", "--out", str(model))
    assert out.returncode == 0, out.stderr
    assert json.loads(model.read_text())["tables"][0]["unique_indexes"] == [
        {"name": "uq_a", "columns": ["a"]}, {"name": "uq_b", "columns": ["b"]}, {"name": "ux_c", "columns": ["c"]}]
    assert sorted(out.stderr.splitlines()) == [
        "mapwright: note: db.t: unique constraint uq_a is NULLS NOT DISTINCT; imported as a plain unique index "
        "(NULLs distinct)",
        "mapwright: note: db.t: unique index ux_c is NULLS NOT DISTINCT; imported as a plain unique index "
        "(NULLs distinct)"]


def test_a_line_break_in_a_name_never_splits_a_note_or_an_error(pg_server: Any, tmp_path: Path) -> None:
    url = pg_server.create_database("import_breaks")
    pg_server.psql('CREATE TABLE "two\nlines" ("u\tu" interval)', "import_breaks")
    model = tmp_path / "m.json"
    out = mw("import", url, "--server", "db", "--out", str(model))
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        "mapwright: note: db.two\\nlines.u\\tu: INTERVAL is an interval (the contract has no interval type); "
        "imported as VARCHAR(40)"]
    assert json.loads(model.read_text())["tables"][0]["name"] == "two\nlines"  # the model keeps the name as it is
    again = mw("import", url, "--server", "db", "--into", str(model))
    assert again.returncode == 2 and again.stderr.splitlines() == [
        "mapwright: the model already has db.two\\nlines (leave it out with --tables, or import into another "
        "--server)"], again.stderr
    missing = mw("import", url, "--server", "db", "--tables", "nope", "--out", str(tmp_path / "n.json"))
    assert missing.stderr.splitlines() == [
        "mapwright: no table 'nope' in the default schema (tables: two\\nlines)"], missing.stderr
