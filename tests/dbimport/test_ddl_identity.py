"""Serial columns in DDL: a DBMS that numbers one column per table gets one numbered column, and the
others are plain integers with a comment that says why.

Before: SQL Server DDL of a table with two SERIAL columns had two IDENTITY columns, which SQL Server
refuses (`Multiple identity columns specified for table 'T'. Only one identity column per table is
allowed.`); a primary key of two serial columns was a DdlError for SQL Server, PostgreSQL and MySQL
(SQLAlchemy: `Only one Column may be marked autoincrement=True`), and one serial column in a primary key
of two a DdlError for SQLite.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

import pytest

from engine.ddl import model_ddl
from engine.model import Model

ALL = ["mssql", "postgresql", "oracle", "mysql", "sqlite"]


def serials(columns: dict[str, str], key: list[str]) -> Model:
    """Table T of server s (SQL Server) with the given columns (name: type), all NOT NULL."""
    cols = [{"name": n, "type": t, "nullable": False} for n, t in columns.items()]
    return Model.model_validate({"format": "mapwright/1", "name": "serials", "servers": [{"id": "s", "dbms": "mssql"}],
                                 "tables": [{"server": "s", "name": "T", "columns": cols, "primary_key": key}]})


def identities(ddl: str) -> list[str]:
    return re.findall(r"\[(\w+)\] \w+ NOT NULL IDENTITY", ddl)


@pytest.mark.parametrize(("columns", "key", "kept", "plain"), [
    ({"ID": "INTEGER", "A": "SERIAL", "B": "SERIAL8"}, ["ID"], "A", "B"),  # the first serial column
    ({"A": "SERIAL", "B": "SERIAL"}, ["A"], "A", "B"),
    ({"A": "SERIAL", "B": "SERIAL"}, ["B"], "B", "A"),  # the primary key's serial column first
    ({"A": "SERIAL8", "B": "SERIAL"}, ["B", "A"], "B", "A"),  # the key's first, by the key's order
])
def test_sql_server_ddl_has_one_identity_column(columns: dict[str, str], key: list[str], kept: str,
                                                plain: str) -> None:
    ddl = model_ddl(serials(columns, key), server="s")
    assert identities(ddl) == [kept], ddl
    assert (f"-- column {plain} ({columns[plain]}) written without IDENTITY: SQL Server allows one IDENTITY "
            f"column per table, and it is {kept}\n") in ddl
    assert f"[{plain}] {'BIGINT' if columns[plain] == 'SERIAL8' else 'INTEGER'} NOT NULL," in ddl


@pytest.mark.parametrize("dialect", ALL)
def test_a_primary_key_of_serial_columns_is_written_for_every_dialect(dialect: str) -> None:
    for key in (["A", "B"], ["ID", "A"]):
        ddl = model_ddl(serials({"ID": "INTEGER", "A": "SERIAL", "B": "SERIAL8"}, key), dialect, server="s")
        create = ddl.split("CREATE TABLE")[1]
        assert "PRIMARY KEY" in create and create.count(" IDENTITY") + create.count(" AUTO_INCREMENT") <= 1, ddl


def test_mysql_numbers_only_the_column_that_leads_the_key() -> None:
    """InnoDB wants its AUTO_INCREMENT column first in a key; SQLAlchemy had written it on the second."""
    ddl = model_ddl(serials({"ID": "INTEGER", "A": "SERIAL"}, ["ID", "A"]), "mysql", server="s")
    assert "AUTO_INCREMENT" not in ddl.split("CREATE TABLE")[1]
    assert "-- column A (SERIAL) written without AUTO_INCREMENT: MySQL numbers a column only where it leads" in ddl
    ddl = model_ddl(serials({"A": "SERIAL", "B": "SERIAL8"}, ["A", "B"]), "mysql", server="s")
    assert "`A` INTEGER NOT NULL AUTO_INCREMENT" in ddl and ddl.count("AUTO_INCREMENT,") == 1


def test_sqlite_takes_a_serial_column_in_a_primary_key_of_two() -> None:
    ddl = model_ddl(serials({"ID": "INTEGER", "A": "SERIAL"}, ["ID", "A"]), "sqlite", server="s")
    with sqlite3.connect(":memory:") as db:
        db.executescript(ddl)
        db.execute('INSERT INTO "T" VALUES (1, 1)')


def test_postgresql_keeps_every_serial_column(pg_server: Any) -> None:
    """PostgreSQL's SERIAL is a type with its own sequence: both numbered, in a key of two as elsewhere."""
    ddl = model_ddl(serials({"A": "SERIAL", "B": "SERIAL8", "C": "SERIAL"}, ["A", "B"]), "postgresql", server="s")
    assert '"A" SERIAL NOT NULL' in ddl and '"B" BIGSERIAL NOT NULL' in ddl and '"C" SERIAL NOT NULL' in ddl
    assert "-- column" not in ddl
    pg_server.create_database("serial_keys")
    pg_server.psql(ddl, "serial_keys")
    pg_server.psql('INSERT INTO "T" DEFAULT VALUES; INSERT INTO "T" DEFAULT VALUES', "serial_keys")
    rows = json.loads(pg_server.psql('SELECT json_agg(t ORDER BY "A") FROM "T" t', "serial_keys"))
    assert rows == [{"A": 1, "B": 1, "C": 1}, {"A": 2, "B": 2, "C": 2}]


@pytest.mark.parametrize(("dialect", "numbered", "noted"), [
    ("informix", {"A", "C"}, ["B"]),  # one SERIAL and one SERIAL8 per table
    ("sybase", {"A"}, ["B", "C"]),  # ASE: one IDENTITY
    ("ibm_db_sa", {"A"}, ["B", "C"]),  # DB2: one identity column
    ("postgresql", {"A"}, []),  # SERIAL is a type: no column loses its sequence
    ("oracle", {"A"}, []),  # SQLAlchemy writes no Oracle identity without an explicit Identity
])
def test_each_dbms_numbers_as_many_columns_as_it_allows(dialect: str, numbered: set[str], noted: list[str]) -> None:
    """The third-party dialects (sqlalchemy-informix, sqlalchemy-sybase, ibm_db_sa) are not installed here:
    the choice is checked by dialect name."""
    from engine.ddl import auto_numbered

    table = serials({"A": "SERIAL", "B": "SERIAL", "C": "SERIAL8"}, ["A"]).tables[0]
    got, notes = auto_numbered(table, dialect)
    assert got == numbered
    assert [re.match(r"-- column (\w+)", n).group(1) for n in notes] == noted  # type: ignore[union-attr]
