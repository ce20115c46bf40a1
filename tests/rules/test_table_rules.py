"""Table rules: replication definitions SC001 / SC002 (seed 002), keys TB001 and TB005, parents TB002, names
apart TB004."""

from __future__ import annotations

from typing import Any

import pytest
from rulekit import Case, assert_fires, assert_silent, col, fired, model, server, show, table, validate

COLS = [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col("CITY", "VARCHAR(40)")]


def repdefs(*defs: tuple[int, list[Any]], columns: list[dict[str, Any]] | None = None) -> Any:
    """One table s.T with the given replication definitions (version, columns)."""
    rd = [{"version": v, "columns": cs} for v, cs in defs]
    return model([server("s")], [table("s", "T", columns or COLS, pk=["ID"], replication_definitions=rd)])


def keys(pk: list[str] | None = None, unique: dict[str, list[str]] | None = None) -> Any:
    return model([server("s")], [table("s", "T", COLS, pk=pk, unique=unique)])


def defaults(name_default: Any, dbms: str = "postgresql") -> Any:
    """s.T whose NAME column has the given default."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)", default=name_default), col("CITY", "VARCHAR(40)")]
    return model([server("s", dbms)], [table("s", "T", cols, pk=["ID"])])


def parents(links: dict[str, str | None]) -> Any:
    """Tables on server s named by `links`, each with its parent."""
    return model(
        [server("s")], [table("s", name, COLS, pk=["ID"], parent=parent) for name, parent in links.items()]
    )


FULL = ["ID", "NAME", "CITY"]
AT = {"table": "s.T"}

CASES = [
    Case(
        "SC001",
        "added-column",
        lambda: repdefs((1, ["ID", "NAME"])),
        lambda: repdefs((1, FULL)),
        {**AT, "column": "CITY"},
    ),
    Case(
        "SC001",
        "dropped-column",
        lambda: repdefs((1, [*FULL, "ZIP"])),
        lambda: repdefs((1, FULL)),
        {**AT, "column": "ZIP"},
    ),
    Case(
        "SC001",
        "latest-is-highest-version",
        lambda: repdefs((1, FULL), (2, ["ID", "NAME"])),
        lambda: repdefs((1, ["ID", "NAME"]), (2, FULL)),
        {**AT, "column": "CITY"},
    ),
    Case(
        "SC001",
        "numeric-scale-differs",
        lambda: repdefs((1, ["ID", {"name": "A", "type": "DECIMAL(10,3)"}]),
                        columns=[col("ID", nullable=False), col("A", "NUMERIC(10,2)")]),
        lambda: repdefs((1, ["ID", {"name": "A", "type": "DECIMAL(10,2)"}]),
                        columns=[col("ID", nullable=False), col("A", "NUMERIC(10,2)")]),
        {**AT, "column": "A"},
    ),
    Case(
        "SC002",
        "version-repeats",
        lambda: repdefs((1, FULL), (1, FULL)),
        lambda: repdefs((1, FULL), (2, FULL)),
        AT,
    ),
    Case(
        "SC002",
        "column-repeats",
        lambda: repdefs((1, ["ID", "NAME", "CITY", "NAME"])),
        lambda: repdefs((1, ["ID", "NAME", "CITY"])),
        {**AT, "column": "NAME"},
    ),
    Case(
        "TB001",
        "pk-unknown-column",
        lambda: keys(pk=["IDD"]),
        lambda: keys(pk=["ID"]),
        {**AT, "column": "IDD"},
    ),
    Case(
        "TB001",
        "index-unknown-column",
        lambda: keys(pk=["ID"], unique={"UX": ["NAME", "TOWN"]}),
        lambda: keys(pk=["ID"], unique={"UX": ["NAME", "CITY"]}),
        {**AT, "column": "TOWN", "index": "UX"},
    ),
    Case(
        "TB003",
        "injected-default",
        lambda: defaults("'x'); DROP TABLE users; --"),
        lambda: defaults("'x'' ); DROP TABLE users; --'"),  # the same characters, inside one string literal
        {**AT, "column": "NAME"},
    ),
    Case(
        "TB003",
        "default-names-a-column",
        lambda: defaults("CITY"),
        lambda: defaults("'CITY'"),
        {**AT, "column": "NAME"},
    ),
    Case(
        "TB004",
        "names-differ-only-in-case",
        lambda: model([server("s")], [table("s", "T", [*COLS, col("name", "VARCHAR(10)")], pk=["ID"])]),
        lambda: model([server("s")], [table("s", "T", [*COLS, col("NAME2", "VARCHAR(10)")], pk=["ID"])]),
        {**AT, "column": "name"},
    ),
    Case(
        "TB005",
        "pk-repeats-a-column",
        lambda: keys(pk=["ID", "ID"]),
        lambda: keys(pk=["ID"]),
        {**AT, "column": "ID"},
    ),
    Case(
        "TB005",
        "index-repeats-a-column",
        lambda: keys(pk=["ID"], unique={"UX": ["NAME", "CITY", "NAME"]}),
        lambda: keys(pk=["ID"], unique={"UX": ["NAME", "CITY"]}),
        {**AT, "column": "NAME", "index": "UX"},
    ),
    Case(
        "TB002", "unknown-parent", lambda: parents({"T": "NOPE"}), lambda: parents({"T": "P", "P": None}), AT
    ),
    Case(
        "TB002",
        "circular",
        lambda: parents({"T": "P", "P": "T"}),
        lambda: parents({"T": "P", "P": "Q", "Q": None}),
        {"table": frozenset({"s.T", "s.P"})},
    ),
]



# --- SC001 -------------------------------------------------------------------------------------


def test_sc001_no_definitions_no_finding() -> None:
    m = model([server("s")], [table("s", "T", COLS, pk=["ID"])])
    assert_silent(m, "SC001")
    assert_silent(m, "SC002")


@pytest.mark.parametrize(
    ("def_type", "fires"),
    [
        ("VARCHAR(40)", False),
        ("varchar(40)", False),  # type strings are case-insensitive
        ("VARCHAR(41)", True),
        ("CHAR(40)", True),
        ("INTEGER", True),
        ("VARCHAR2(40)", False),  # Oracle's VARCHAR
        ("NVARCHAR(40)", True),
    ],
)
def test_sc001_column_type_differs(def_type: str, fires: bool) -> None:
    m = repdefs((1, ["ID", {"name": "NAME", "type": def_type}, "CITY"]))
    if fires:
        assert_fires(m, "SC001", table="s.T", column="NAME")
    else:
        assert_silent(m, "SC001")


@pytest.mark.parametrize(
    ("table_type", "def_type", "fires"),
    [
        ("DECIMAL(10,2)", "NUMERIC(10,2)", False),
        ("DECIMAL(10,2)", "NUMBER(10,2)", False),
        ("NUMERIC(10,2)", "number(10,2)", False),
        ("DECIMAL(10)", "NUMERIC(10,0)", False),
        ("DECIMAL", "NUMERIC", False),
        ("NUMERIC(10,2)", "DECIMAL(10,3)", True),
        ("NUMERIC(10,2)", "DECIMAL(11,2)", True),
        ("NUMBER", "DECIMAL", True),  # Oracle's NUMBER without a precision is a floating decimal
        ("NUMBER(10,2)", "DECIMAL", True),
        ("NUMBER(9,0)", "INTEGER", True),
        ("SET(NUMERIC(5,1))", "SET(DECIMAL(5,1))", False),
        ("CHAR(10)", "VARCHAR(10)", True),
        ("CHAR(10)", "NCHAR(10)", True),
    ],
)
def test_sc001_synonyms_of_one_type_are_equal(table_type: str, def_type: str, fires: bool) -> None:
    cols = [col("ID", nullable=False), col("A", table_type)]
    m = repdefs((1, ["ID", {"name": "A", "type": def_type}]), columns=cols)
    if fires:
        assert_fires(m, "SC001", table="s.T", column="A")
    else:
        assert_silent(m, "SC001")


def test_sc001_definition_without_types_checks_names_only() -> None:
    assert_silent(repdefs((1, [{"name": "ID"}, {"name": "NAME"}, {"name": "CITY"}])), "SC001")


def test_sc001_earlier_versions_may_differ() -> None:
    """Old versions describe old rows (seed 002); only the latest is compared with the table."""
    m = repdefs((1, ["ID"]), (2, ["ID", "NAME"]), (3, FULL))
    assert_silent(m, "SC001")
    assert_silent(m, "SC002")


def test_sc001_latest_is_the_highest_version_not_the_last_listed() -> None:
    m = repdefs((2, FULL), (1, ["ID"]))
    assert_silent(m, "SC001")
    assert_fires(m, "SC002", table="s.T")  # listed out of order


def test_sc001_every_difference() -> None:
    m = repdefs((1, ["ID", "ZIP"]))
    assert {f.location.column for f in fired(m, "SC001")} == {"NAME", "CITY", "ZIP"}


# --- SC002 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("versions", "fires"),
    [
        ([1, 2, 3], False),
        ([1, 5, 10], False),
        ([0, 1], False),
        ([1, 1], True),
        ([2, 1], True),
        ([1, 3, 2], True),
        ([1, 2, 2], True),
    ],
)
def test_sc002_versions_strictly_increasing(versions: list[int], fires: bool) -> None:
    m = repdefs(*[(v, FULL) for v in versions])
    if fires:
        assert_fires(m, "SC002", table="s.T")
    else:
        assert_silent(m, "SC002")


def test_sc002_repeated_column_in_an_old_version() -> None:
    m = repdefs((1, ["ID", "ID"]), (2, FULL))
    assert_fires(m, "SC002", table="s.T", column="ID")
    assert_silent(m, "SC001")


def test_sc002_same_column_in_different_versions_is_fine() -> None:
    assert_silent(repdefs((1, ["ID", "NAME"]), (2, FULL)), "SC002")


# --- TB001 / TB002 -----------------------------------------------------------------------------


def test_tb001_each_unknown_column() -> None:
    m = keys(pk=["ID", "X"], unique={"UX1": ["Y"], "UX2": ["NAME"]})
    hits = fired(m, "TB001")
    assert {(f.location.column, f.location.index) for f in hits} == {("X", None), ("Y", "UX1")}, show(hits)


def test_tb001_is_case_sensitive_like_column_maps() -> None:
    """Columns are matched by exact name everywhere in the model."""
    assert_fires(keys(pk=["id"]), "TB001", table="s.T", column="id")


@pytest.mark.parametrize(
    "links",
    [
        {"T": "T"},  # its own parent
        {"T": "P", "P": "Q", "Q": "T"},
    ],
)
def test_tb002_circular(links: dict[str, str | None]) -> None:
    assert_fires(parents(links), "TB002")


def test_tb002_parent_on_another_server() -> None:
    """A parent is a table on the same server."""
    m = model(
        [server("s"), server("u")],
        [table("u", "P", COLS, pk=["ID"]), table("s", "T", COLS, pk=["ID"], parent="P")],
    )
    assert_fires(m, "TB002", table="s.T")


def test_tb002_deep_hierarchy_is_fine() -> None:
    assert_silent(parents({"A": None, "B": "A", "C": "B", "D": "C", "E": "B"}), "TB002")


# --- TB003 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("default", "dbms"),
    [
        ("'new'", "postgresql"),
        ("CURRENT_TIMESTAMP", "sqlite"),
        ("current timestamp", "db2"),  # DB2's special register, spelt with a space
        ("SYSDATE", "oracle"),
        ("getdate()", "mssql"),
        ("-1.5", "mysql"),
        ("(1 + 2)", "sqlite"),
        ("nextval('orders_id_seq'::regclass)", "postgresql"),
        ("'12:30'", "postgresql"),  # a colon is not a bind parameter
        (0, "oracle"),
        (True, "postgresql"),
        (-2.5, "sqlite"),
        ("TODAY", "informix"),  # Informix's current date
        ("CURRENT YEAR TO SECOND", "informix"),  # and its current DATETIME, with a qualifier
        ("current year to fraction(3)", "informix"),
        ("USER", "oracle"),  # the standard's niladic user function, no parentheses
        ("USER", "db2"),
        ("SESSION_USER", "postgresql"),
        ("N'abc'", "mssql"),  # a national character literal
        ("x'00'", "sqlite"),  # SQLite's blob literals: a model imported from SQLite had TB003 and no DDL
        ("X'ABCD'", "sqlite"),
        ("0x00ff", "mssql"),
        ("E'\\t'", "postgresql"),  # PostgreSQL's escape strings
        ("e'it\\'s'", "postgresql"),
        ("E'caf\\u00e9 \\xC3\\xA9'", "postgresql"),  # a code point, and UTF-8 in byte escapes
    ],
)
def test_tb003_constant_expressions_are_fine(default: Any, dbms: str) -> None:
    assert_silent(defaults(default, dbms), "TB003")


@pytest.mark.parametrize(
    ("default", "dbms", "why"),
    [
        ("1; DROP TABLE users", "postgresql", "2 SQL statements"),
        ("'x'); DROP TABLE users; --", "sqlite", "not one SQL expression"),
        ("(SELECT max(ID) FROM T)", "postgresql", "not a constant expression"),
        ("SYSDATE", "postgresql", "names a column"),  # Oracle's, not PostgreSQL's
        ("USERNAME", "oracle", "names a column"),
        ("CURRENT YEAR TO SECOND; DROP TABLE users", "informix", "not one SQL expression"),
        (":name", "oracle", "placeholder"),
        ("?", "sqlite", "placeholder"),
        ("", "postgresql", "empty"),
        ("'unterminated", "postgresql", "not one SQL expression"),
        ("(" * 60 + "1" + ")" * 60, "postgresql", "nested too deeply"),  # had run out of stack
        ("1" + " + 1" * 30_000, "oracle", "too long"),
        ("USER", "sqlite", "names a column"),  # no niladic user function in SQLite or MySQL
        ("USER", "mysql", "names a column"),
        ("SESSION_USER", "oracle", "names a column"),
        ("x'0G'", "postgresql", "not a hexadecimal digit"),  # X'..' is a bit string in PostgreSQL (B'00000000')
        ("x'00'", "oracle", "not one SQL expression"),  # Oracle has no hex literal
        ("x'ABC'", "sqlite", "odd number of hex digits"),
        ("E'\\xE9'", "postgresql", "not UTF-8"),  # PostgreSQL refuses both; sqlglot read them as é and NUL
        ("E'\\0'", "postgresql", "NUL"),
        ("E'\\u12'", "postgresql", "short \\u escape"),
        ("E'\\uD800'", "postgresql", "surrogate"),
        ("'a\x00b'", "sqlite", "NUL"),
        ("E'\\t'", "db2", "not a constant expression"),  # an escape string is PostgreSQL's alone
    ],
)
def test_tb003_anything_else_names_the_column(default: Any, dbms: str, why: str) -> None:
    hits = assert_fires(defaults(default, dbms), "TB003", table="s.T", column="NAME")
    assert why in hits[0].message, hits[0].message


def test_tb003_follows_the_servers_dbms_in_incremental_validation() -> None:
    """The rule reads the server's DBMS, so changing it re-checks the server's tables."""
    from engine.edits import evolve, replace
    from engine.rules import Validator

    m = defaults("SYSDATE", "oracle")
    validator = Validator(m)
    assert not [f for f in validator.findings() if f.code == "TB003"]
    server = m.servers[0]
    validator.apply(replace(m, "server", server, evolve(server, dbms="postgresql")))
    assert [f.location.column for f in validator.findings() if f.code == "TB003"] == ["NAME"]
    assert validator.findings() == validate(m)


def test_an_escape_string_is_read_as_postgresql_reads_it() -> None:
    """`E'...'` is decoded by PostgreSQL's rules into the standard literal of the same text: what a run
    fills in and what DDL writes for any DBMS."""
    from sqlglot import exp

    from engine.sqldefaults import parse_default

    cases = {"E'\\t'": "\t", "e'it\\'s'": "it's", "E'a''b'": "a'b", "E'\\101\\x41\\u0041\\U00000041'": "AAAA",
             "E'\\q\\\\'": "q\\", "E'\\uD83D\\uDE00'": "\U0001F600", "E'\\xC3\\xA9'": "\u00e9",
             "E'\\b\\f\\n\\r'": "\b\f\n\r"}
    for text, value in cases.items():
        tree = parse_default(text, "postgresql").tree
        assert tree.is_string and tree.this == value, (text, tree)
    joined = parse_default("E'a\\t' || 'b'", "postgresql").tree
    assert [t.this for t in joined.find_all(exp.Literal)] == ["a\t", "b"]


def test_a_nan_default_is_refused_before_any_rule_sees_it() -> None:
    from pydantic import ValidationError
    with pytest.raises(ValidationError, match="finite"):
        defaults(float("nan"), "postgresql")


def test_tb002_every_table_in_or_into_a_cycle_is_reported_once_with_a_short_message() -> None:
    """A cycle of 2,000 tables (and one hanging off it): linear work, and messages cut after 8 tables."""
    n = 2000
    links: dict[str, str | None] = {f"T{i}": f"T{(i + 1) % n}" for i in range(n)}
    links["X"] = "T5"
    links["Y"] = "Z"
    links["Z"] = None
    found = fired(parents(links), "TB002")
    assert sorted(f.location.table for f in found) == sorted(f"s.{name}" for name in links if name not in ("Y", "Z"))
    assert max(len(f.message) for f in found) < 200
    short = fired(parents({"T": "P", "P": "Q", "Q": "T", "R": "P"}), "TB002")
    assert {f.location.table: f.message for f in short}["s.R"] == \
        "table hierarchy is circular: s.R -> s.P -> s.Q -> s.T -> s.P"
