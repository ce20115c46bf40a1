"""TB003 by the server's DBMS: what sqlglot reads alike in every dialect, checked against the DBMS that has
to take it.

Before: PostgreSQL's bit strings (`B'101'`, `X'1F'`) and Unicode strings (`U&'d\\0061t'`) were TB003,
two constants on one line (`'foo' 'bar'`, a syntax error in PostgreSQL) were taken as joined, and
`CURRENT_USER` on SQLite (which fills in the text 'CURRENT_USER'), `CURRENT_TIME` on Oracle and the
DB2 and Informix special registers (`CURRENT TIMESTAMP`, `TODAY`) on every DBMS were taken as the
current user, time and date. Every value below is PostgreSQL 15's, read back from a server
(`tests/dbimport/test_ddl_pg_constants.py` checks them on one).
"""

from __future__ import annotations

from typing import Any

import pytest
from rulekit import assert_fires, assert_silent, col, model, server, table
from sqlglot import exp

from engine.sqldefaults import ParsedDefault, render_default, run_default


def one_column(default: Any, dbms: str = "postgresql", type_: str = "VARCHAR(40)") -> Any:
    """s.T whose column C has the given type and default."""
    return model([server("s", dbms)], [table("s", "T", [col("ID", nullable=False), col("C", type_, default=default)],
                                             pk=["ID"])])


# --- PostgreSQL's string constants ------------------------------------------------------------------

PG_VALUES = {
    "B'101'": "101",  # a bit string: PostgreSQL assigns its digits to a character column
    "b''": "",
    "X'1F'": "00011111",  # a bit string too, four bits a digit
    "x'a'\n'B'": "10101011",
    "B'10'\n'01'": "1001",
    "U&'d\\0061t\\+000061'": "data",
    "u&'d!0061t!+000061' UESCAPE '!'": "data",
    "U&'=0061' -- the escape character follows\n UESCAPE E'='": "a",  # UESCAPE after a comment, as an E string
    "U&'!0061'\n'!0062' UESCAPE '!'": "ab",  # the escape character applies to every piece
    "U&'\\D83D\\DE00 \\\\ a''b'": "\U0001F600 \\ a'b",
    "U&' \\0061' UESCAPE '\\'": " a",
    "'foo'\n'bar'": "foobar",  # continued over a line: one constant
    "'foo'\r'bar'": "foobar",
    "'foo' -- first piece\n  'bar'": "foobar",
    "'a'\n\n  'b'\n'c'": "abc",
    "'it''s'\n' fine'": "it's fine",
    "E'a\\t'\n'\\tb'": "a\t\tb",  # an escape string's pieces are all escape strings
    "E'\\1'\n'23'": "\x0123",  # each piece decoded alone: not \123 ('S')
    "E'\\xC3'\n'\\xA9'": "\u00e9",  # bytes joined, then read as UTF-8
    "N'a'\n'b'": "ab",
}


@pytest.mark.parametrize("default", list(PG_VALUES))
def test_postgresql_string_constants_are_accepted_with_postgresqls_value(default: str) -> None:
    """Accepted, and a run fills in PostgreSQL's value (as a Spark SQL literal)."""
    assert_silent(one_column(default), "TB003")
    spark = render_default(ParsedDefault(exp.Literal.string(PG_VALUES[default])), "spark")
    assert run_default(default, "postgresql") == spark


@pytest.mark.parametrize(("default", "why"), [
    ("'foo' 'bar'", "side by side"),  # PostgreSQL: syntax error at or near "'bar'"
    ("'foo' /* c */\n'bar'", "side by side"),  # a block comment does not continue a constant
    ("'a'\nE'b'", "side by side"),  # a continuation is a bare quote
    ("B'1'\nX'0'", "side by side"),
    ("B'102'", "'2' is not a binary digit"),
    ("X'G'", "'G' is not a hexadecimal digit"),
    ("U&'\\0000'", "value 0"),
    ("U&'\\D83D'", "surrogate"),
    ("E'\\uD83D'\n'\\uDE00'", "surrogate"),  # a pair is not split over pieces
    ("U&'\\q'", "invalid escape"),
    ("U&'\\00'", "invalid escape"),
    ("U&'\\+110000'", "110000"),
    ("U&'a' UESCAPE 'a'", "no escape character"),
    ("U&'a' UESCAPE '+'", "no escape character"),
    ("U&'a' UESCAPE '!!'", "no escape character"),
    ("U&'a' UESCAPE", "without its escape character"),
    ("'a' || 'b", "not closed"),
    ("\"x\" || 'y'", "names a column"),
    ("B'1' || B'0'", "only whole"),  # a bit-string expression: its value is not text
])
def test_postgresql_refuses_these_and_so_does_tb003(default: str, why: str) -> None:
    hits = assert_fires(one_column(default), "TB003", table="s.T", column="C")
    assert why in hits[0].message, hits[0].message


@pytest.mark.parametrize(("default", "type_", "fires"), [
    ("B'101'", "INTEGER", True),  # PostgreSQL: column "c" is of type integer but default expression is of type bit
    ("B'1'", "BOOLEAN", True),
    ("B'1'", "BLOB", True),
    ("B'101'", "BIT", True),  # bit string length 3 does not match type bit(1)
    ("B'1'", "BIT", False),
    ("X'0'", "BIT", True),  # four bits
    ("B'0'", "BIT", False),
    ("B'101'", "TEXT", False),
    ("B'101'", "CHAR(3)", False),
])
def test_a_bit_string_fits_a_bit_or_character_column_only(default: str, type_: str, fires: bool) -> None:
    m = one_column(default, type_=type_)
    if fires:
        assert_fires(m, "TB003", table="s.T", column="C")
    else:
        assert_silent(m, "TB003")


@pytest.mark.parametrize("dbms", ["mysql", "sqlite", "oracle", "db2"])
def test_a_bit_string_is_postgresqls_alone(dbms: str) -> None:
    assert_fires(one_column("B'1'", dbms, "BIT"), "TB003", table="s.T", column="C")


@pytest.mark.parametrize(("default", "dbms", "fires"), [
    ("'a' 'b'", "sqlite", True), ("'a'\n'b'", "sqlite", True),  # SQLite: near "'b'": syntax error
    ("'a'\n'b'", "oracle", True), ("N'a'\n'b'", "mssql", True), ("'a' 'b'", "ase", True),
    ("'a' 'b'", "mysql", False),  # MySQL joins literals side by side
    ("'it''s'", "oracle", False),  # one literal
])
def test_literals_side_by_side_only_where_the_dbms_joins_them(default: str, dbms: str, fires: bool) -> None:
    """sqlglot joins them in every dialect (T-SQL reads the second as a column alias, refused as well)."""
    m = one_column(default, dbms)
    if fires:
        assert_fires(m, "TB003", table="s.T", column="C")
    else:
        assert_silent(m, "TB003")


# --- niladic functions ------------------------------------------------------------------------------

HAS = {
    "postgresql": ["CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
                   "CURRENT_USER", "CURRENT_ROLE", "SESSION_USER", "CURRENT_SCHEMA", "CURRENT_CATALOG",
                   "CURRENT_TIMESTAMP(3)", "LOCALTIME(0)", "current_schema()"],
    "sqlite": ["CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"],
    "mysql": ["CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP(6)", "NOW()", "LOCALTIMESTAMP", "CURRENT_DATE()",
              "CURRENT_USER", "CURRENT_USER()"],
    "oracle": ["CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP(3)", "LOCALTIMESTAMP", "SYSDATE",
               "SYSTIMESTAMP", "USER"],
    "mssql": ["CURRENT_TIMESTAMP", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "USER", "getdate()"],
    "ase": ["USER", "current_date()", "current_time()", "getdate()"],
    "db2": ["CURRENT TIMESTAMP", "CURRENT_TIMESTAMP", "CURRENT DATE", "CURRENT_TIME", "CURRENT_USER", "USER"],
    "informix": ["TODAY", "CURRENT", "CURRENT YEAR TO SECOND", "SYSDATE", "SYSDATE YEAR TO DAY", "USER",
                 "CURRENT_USER"],
}
HAS_NOT = {
    "postgresql": ["CURRENT_TIMESTAMP()", "CURRENT_DATE()", "CURRENT_USER()", "TODAY", "CURRENT",
                   "CURRENT TIMESTAMP", "CURRENT YEAR TO SECOND", "SYSDATE"],
    "sqlite": ["CURRENT_USER", "CURRENT_TIMESTAMP()", "CURRENT_TIMESTAMP(3)", "TODAY", "CURRENT TIMESTAMP"],
    "mysql": ["CURRENT_ROLE", "TODAY"],
    "oracle": ["CURRENT_TIME", "CURRENT_USER", "CURRENT_ROLE", "CURRENT_TIMESTAMP()", "TODAY", "CURRENT DATE"],
    "mssql": ["CURRENT_TIME", "CURRENT_TIMESTAMP()", "CURRENT_TIMESTAMP(3)", "CURRENT_ROLE", "TODAY",
              "CURRENT TIMESTAMP"],
    "ase": ["CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_USER", "SESSION_USER"],
    "db2": ["CURRENT_CATALOG", "CURRENT_ROLE", "TODAY", "CURRENT YEAR TO SECOND"],
    "informix": ["CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "LOCALTIMESTAMP", "SESSION_USER",
                 "CURRENT TIMESTAMP"],
}


@pytest.mark.parametrize(("dbms", "default"), [(d, f) for d, fs in HAS.items() for f in fs])
def test_a_niladic_function_the_dbms_has_is_fine(dbms: str, default: str) -> None:
    assert_silent(one_column(default, dbms), "TB003")


@pytest.mark.parametrize(("dbms", "default"), [(d, f) for d, fs in HAS_NOT.items() for f in fs])
def test_a_niladic_function_the_dbms_has_not_is_tb003(dbms: str, default: str) -> None:
    assert_fires(one_column(default, dbms), "TB003", table="s.T", column="C")


def test_the_reported_cases_say_why() -> None:
    assert "SQLite SQL has no CURRENT_USER" in assert_fires(one_column("CURRENT_USER", "sqlite"), "TB003")[0].message
    oracle = one_column("CURRENT_TIME", "oracle", "TIMESTAMP")
    assert "Oracle SQL has no CURRENT_TIME" in assert_fires(oracle, "TB003")[0].message
    in_expression = one_column("'by ' || CURRENT_USER", "sqlite")
    assert "CURRENT_USER" in assert_fires(in_expression, "TB003")[0].message
    assert_silent(one_column("'CURRENT_USER'", "sqlite"), "TB003")  # text, not a function
