"""The importer's pure pieces: type mapping for each dialect's types, progress by batch, placement."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, unquote_plus

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.dialects import mssql, mysql, oracle, postgresql

from engine.dbimport import ImportFailure, connected, parse_source, place, reflect_tables
from engine.dbimport.connect import display_url
from engine.dbimport.types import MappedType, contract_type


@pytest.mark.parametrize(
    ("reflected", "expected"),
    [
        (oracle.NUMBER(10, 2), "NUMBER(10,2)"),
        (oracle.NUMBER(), "NUMBER"),
        (oracle.VARCHAR2(30), "VARCHAR2(30)"),
        (oracle.NVARCHAR2(10), "NVARCHAR(10)"),
        (oracle.RAW(16), "RAW(16)"),
        (oracle.NCLOB(), "CLOB"),
        (oracle.DATE(), "DATE"),
        (oracle.LONG(), "LONG"),
        (oracle.BINARY_DOUBLE(), "DOUBLE"),
        (mssql.DATETIME2(), "TIMESTAMP"),
        (mssql.NVARCHAR(40), "NVARCHAR(40)"),
        (mssql.VARBINARY(16), "VARBINARY(16)"),
        (mysql.DATETIME(), "DATETIME"),
        (mysql.BINARY(8), "BINARY(8)"),
        (postgresql.BYTEA(), "BLOB"),
        (postgresql.DOUBLE_PRECISION(), "DOUBLE"),
        (postgresql.ARRAY(sa.Integer()), "ARRAY(INTEGER)"),
        (postgresql.ARRAY(postgresql.UUID()), "ARRAY(UUID)"),
        (postgresql.UUID(), "UUID"),
        (mssql.UNIQUEIDENTIFIER(), "UUID"),
        (postgresql.TIMESTAMP(timezone=True), "TIMESTAMPTZ"),
        (sa.NCHAR(3), "NCHAR(3)"),
        (sa.CHAR(), "CHAR(1)"),
        (sa.DECIMAL(12, 2), "DECIMAL(12,2)"),
        (sa.Numeric(), "NUMERIC"),
        (sa.Boolean(), "BOOLEAN"),
    ],
)
def test_types_with_a_contract_counterpart_map_exactly(reflected: Any, expected: str) -> None:
    assert contract_type(reflected) == MappedType(expected)


@pytest.mark.parametrize(
    ("reflected", "nearest", "why"),
    [
        (oracle.NUMBER(10, -2), "NUMBER", "a size the contract cannot hold"),  # a number: never TEXT
        (postgresql.NUMERIC(3, -1), "NUMERIC", "a size the contract cannot hold"),
        (sa.Numeric(4, 6), "NUMERIC", "precision and scale"),
        (sa.String(), "TEXT", "no length"),
        (sa.VARBINARY(), "BLOB", "no length"),
        (sa.Time(), "TIMESTAMP", "time of day"),
        (sa.Enum(name="e"), "TEXT", "enumeration without values"),
        (postgresql.INTERVAL(), "VARCHAR(40)", "interval"),
        (postgresql.JSONB(), "TEXT", "JSON"),
        (postgresql.ARRAY(postgresql.JSONB()), "ARRAY(TEXT)", "JSON"),
        (sa.types.NullType(), "TEXT", "does not know"),
    ],
)
def test_types_without_one_come_in_as_the_nearest_with_a_note(reflected: Any, nearest: str, why: str) -> None:
    mapped = contract_type(reflected)
    assert mapped.type == nearest
    assert mapped.note is not None and why in mapped.note and mapped.note.endswith(f"imported as {nearest}")


def test_progress_is_reported_by_batch_and_a_raising_callback_stops_the_read(tmp_path: Path) -> None:
    db = tmp_path / "many.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("".join(f"CREATE TABLE t{i:03} (id INTEGER PRIMARY KEY, v VARCHAR(5));" for i in range(120)))
    calls: list[tuple[int, int, str]] = []
    with connected(parse_source(f"sqlite:///{db}")) as (_, connection):
        imported = reflect_tables(connection, "s", progress=lambda *a: calls.append(a))
    assert len(imported.tables) == 120 and imported.dbms == "sqlite"
    assert calls == [(0, 120, ""), (50, 120, "t049"), (100, 120, "t099"), (120, 120, "t119")]

    class Stop(Exception):
        pass

    def stop_after_first(done: int, _total: int, _what: str) -> None:
        if done:
            raise Stop

    with connected(parse_source(f"sqlite:///{db}")) as (_, connection), pytest.raises(Stop):
        reflect_tables(connection, "s", progress=stop_after_first)


def test_urls_are_shown_and_remembered_without_their_password() -> None:
    assert display_url("postgresql://me:pw@host:5432/db?password_env=X") == "postgresql://me@host:5432/db?password_env=X"
    assert display_url("not a url") == "(not a database URL)"
    source = parse_source("postgresql://me@host/db?password_env=PW", environ={"PW": "secret"})
    assert source.url.password == "secret" and "password_env" not in source.url.query
    assert source.shown == "postgresql+psycopg://me@host/db"
    assert source.scrub("FATAL: bad secret\nmore") == "FATAL: bad ***"


def test_a_password_inside_an_odbc_connection_string_is_never_shown_nor_remembered() -> None:
    """pyodbc's `odbc_connect` query parameter is a whole ODBC connection string: its PWD is a password."""
    odbc = quote_plus("DRIVER={ODBC Driver 18};SERVER=db;UID=sa;PWD={s;3cr}}et};Encrypt=yes")
    shown = display_url(f"mssql+pyodbc:///?odbc_connect={odbc}")
    assert "3cr" not in unquote_plus(shown) and "PWD" not in unquote_plus(shown)
    assert "UID=sa" in unquote_plus(shown) and "Encrypt=yes" in unquote_plus(shown)  # the rest is kept
    source = parse_source(f"mssql+pyodbc:///?odbc_connect={quote_plus('DSN=x;Password=hunter2')}")
    assert "hunter2" not in source.shown
    assert source.scrub("login failed: Password=hunter2") == "login failed: Password=***"


@pytest.mark.parametrize("url", ["sqlite://me:hunter2@/shop.db", "sqlite://localhost/shop.db",
                                 "sqlite:///shop.db?timeout=abc"])
def test_a_url_the_dialect_refuses_is_an_import_failure(url: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The designer's import dialog connects through the same engine: an ImportFailure it shows, not a crash."""
    monkeypatch.chdir(tmp_path)
    sqlite3.connect("shop.db").close()
    with pytest.raises(ImportFailure, match="^not a usable database URL: sqlite://") as info, \
            connected(parse_source(url)):
        pass
    assert "hunter2" not in str(info.value)


boxes = st.lists(st.tuples(st.floats(-2000, 2000), st.floats(-2000, 2000), st.floats(10, 400), st.floats(10, 900)),
                 max_size=8)


@given(boxes, st.lists(st.tuples(st.floats(10, 400), st.floats(10, 1500)), min_size=1, max_size=30))
def test_placed_boxes_overlap_nothing(occupied: list[tuple[float, float, float, float]],
                                      sizes: list[tuple[float, float]]) -> None:
    corners = place(occupied, sizes)
    placed = [(x, y, w, h) for (x, y), (w, h) in zip(corners, sizes, strict=True)]

    def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
        return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]

    for i, a in enumerate(placed):
        assert not any(overlap(a, b) for b in occupied)
        assert not any(overlap(a, b) for b in placed[i + 1:])


def test_a_sqlite_column_comes_in_as_its_declared_type_not_as_sqlite_s_affinity(tmp_path: Path) -> None:
    """SQLite keeps the declared type and SQLAlchemy reflects its affinity: VARBINARY(16) and BIT came in as
    NUMERIC (so DK007, a binary key, was missed), DOUBLE PRECISION as the 4-byte REAL, CHARACTER VARYING(40)
    as TEXT. A declared type the contract has comes in as it is; one it does not is said, never silent."""
    db = tmp_path / "b.db"
    with sqlite3.connect(db) as conn:
        conn.execute('CREATE TABLE badge (code VARBINARY(16) PRIMARY KEY, active BIT, holder CHARACTER VARYING(40), '
                     'value DOUBLE PRECISION, ratio DOUBLE, token UUID, photo MEDIUMBLOB, odd VARCHAR(-1), plain, '
                     'n INT)')
    with connected(parse_source(f"sqlite:///{db}")) as (_, connection):
        imported = reflect_tables(connection, "s")
    [table] = imported.tables
    types = {c.name: c.type for c in table.columns}
    assert types == {"code": "VARBINARY(16)", "active": "BIT", "holder": "VARCHAR(40)", "value": "DOUBLE",
                     "ratio": "DOUBLE", "token": "UUID", "photo": "BLOB", "odd": types["odd"],
                     "plain": "TEXT", "n": "INTEGER"}
    notes = {n.column: n.message for n in imported.notes}
    assert set(notes) == {"photo", "odd", "plain"}  # UUID is a contract type now (issue 36)
    assert notes["photo"].startswith("MEDIUMBLOB is no contract type") and "no declared type" not in notes["photo"]
    assert notes["odd"].startswith("VARCHAR(-1) is no contract type")
    assert notes["plain"] == "the column has no declared type; imported as TEXT"
