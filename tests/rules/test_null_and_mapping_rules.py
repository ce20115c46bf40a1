"""NOT NULL rules (NN001, NL001, NL002) and mapping references (MP001-MP006)."""

from __future__ import annotations

from typing import Any

import pytest
from rulekit import (
    SRC,
    TGT,
    Case,
    assert_fires,
    assert_silent,
    col,
    fired,
    mapping,
    model,
    one_way,
    server,
    show,
    table,
    validate,
)


def protected_pair(
    src_dbms: str = "oracle",
    tgt_dbms: str = "postgresql",
    *,
    src_nn: bool = False,
    tgt_nn: bool = False,
    protected: bool = True,
) -> Any:
    """Key ID on both sides, NOT NULL per side as given."""
    src = [col("ID", nullable=not src_nn), col("NAME", "VARCHAR(40)")]
    tgt = [col("ID", nullable=not tgt_nn), col("NAME", "VARCHAR(40)")]
    return one_way(
        src, tgt, src_pk=["ID"], tgt_pk=["ID"], src_dbms=src_dbms, tgt_dbms=tgt_dbms, protected=protected
    )


def required(*, default: Any = None, mapped: bool = False, nullable: bool = False, dbms: str = "postgresql") -> Any:
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    extra = {"default": default} if default is not None else {}
    tgt = [col("ID", nullable=False), col("REQ", "VARCHAR(10)", nullable=nullable, **extra)]
    columns: dict[str, Any] = {"ID": "ID"}
    if mapped:
        columns["REQ"] = {"method": "constant", "value": "x"}
    return one_way(src, tgt, columns, src_pk=["ID"], tgt_pk=["ID"], tgt_dbms=dbms)


def copied(method: Any, *, src_nullable: bool = True, tgt_nullable: bool = False) -> Any:
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)", nullable=src_nullable)]
    tgt = [col("ID", nullable=False), col("NAME", "VARCHAR(40)", nullable=tgt_nullable)]
    return one_way(src, tgt, {"ID": "ID", "NAME": method}, src_pk=["ID"], tgt_pk=["ID"])


def with_columns(columns: dict[str, Any], **map_extra: Any) -> Any:
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col("CITY", "VARCHAR(40)")]
    tgt = [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col("CITY", "VARCHAR(40)")]
    return one_way(src, tgt, {"ID": "ID", **columns}, src_pk=["ID"], tgt_pk=["ID"], map_extra=map_extra)


def unknown_end(source: str = SRC, target: str = TGT) -> Any:
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    return model(
        [server("s"), server("t")],
        [table("s", "T", cols, pk=["ID"]), table("t", "T", cols, pk=["ID"])],
        [mapping("m", source, target, {"ID": "ID", "NAME": "NAME"})],
    )


AT = {"mapping": "m", "table": TGT}

CASES = [
    Case(
        "NN001",
        "oracle-source-nullable",
        lambda: protected_pair("oracle"),
        lambda: protected_pair("oracle", src_nn=True, tgt_nn=True),
        AT,
    ),
    Case(
        "NN001",
        "db2-target-vs-unprotected",
        lambda: protected_pair("postgresql", "db2"),
        lambda: protected_pair("postgresql", "db2", protected=False),
        AT,
    ),
    Case(
        "NN001",
        "oracle-vs-mssql",
        lambda: protected_pair("oracle", "mssql"),
        lambda: protected_pair("informix", "mssql"),
        AT,
    ),
    Case(
        "NL001",
        "required-unmapped",
        lambda: required(),
        lambda: required(default="'n/a'"),
        {**AT, "column": "REQ"},
    ),
    Case(
        "NL001",
        "required-unmapped-vs-mapped",
        lambda: required(),
        lambda: required(mapped=True),
        {**AT, "column": "REQ"},
    ),
    Case(
        "NL002",
        "copy-from-nullable",
        lambda: copied("NAME"),
        lambda: copied("NAME", src_nullable=False),
        {**AT, "column": "NAME"},
    ),
    Case(
        "MP001",
        "unknown-input",
        lambda: with_columns({"NAME": "NAMEE"}),
        lambda: with_columns({"NAME": "NAME"}),
        {**AT, "column": "NAME"},
    ),
    Case(
        "MP002",
        "unknown-table",
        lambda: unknown_end(source="s.NOPE"),
        lambda: unknown_end(),
        {"mapping": "m", "table": "s.NOPE"},
    ),
    Case(
        "MP003",
        "where-unknown-column",
        lambda: with_columns({}, where="STATUS <> 'void'"),
        lambda: with_columns({}, where="NAME <> 'void'"),
        {"mapping": "m", "table": SRC, "column": "STATUS"},
    ),
    Case(
        "MP004",
        "expression-does-not-parse",
        lambda: with_columns({"NAME": {"method": "expression", "sql": "concat(NAME, "}}),
        lambda: with_columns({"NAME": {"method": "expression", "sql": "concat(NAME, '-', CITY)"}}),
        {**AT, "column": "NAME"},
    ),
    Case(
        "MP003",
        "where-invalid-regex",
        lambda: with_columns({}, where="NAME rlike '('"),
        lambda: with_columns({}, where="NAME rlike '[(]'"),
        {"mapping": "m", "table": SRC},
    ),
    Case(
        "MP003",
        "where-is-not-a-condition",
        lambda: with_columns({}, where="ID"),
        lambda: with_columns({}, where="ID > 0"),
        {"mapping": "m", "table": SRC},
    ),
    Case(
        "MP004",
        "expression-invalid-regex",
        lambda: with_columns({"NAME": {"method": "expression", "sql": "regexp_replace(NAME, '[0-9', '')"}}),
        lambda: with_columns({"NAME": {"method": "expression", "sql": "regexp_replace(NAME, '[0-9]', '')"}}),
        {**AT, "column": "NAME"},
    ),
    Case(
        "MP006",
        "where-regex-nested-quantifiers",
        lambda: with_columns({}, where="NAME rlike '^(a+)+$'"),
        lambda: with_columns({}, where="NAME rlike '^(ab)+$'"),
        {"mapping": "m", "table": SRC},
    ),
    Case(
        "MP006",
        "expression-regex-overlapping-alternatives",
        lambda: with_columns({"NAME": {"method": "expression", "sql": "regexp_replace(NAME, '(x|[a-z])+', '')"}}),
        lambda: with_columns({"NAME": {"method": "expression", "sql": "regexp_replace(NAME, '(x|[0-9])+', '')"}}),
        {**AT, "column": "NAME"},
    ),
    Case(
        "MP005",
        "unknown-target-column",
        lambda: with_columns({"NAMEE": "NAME"}),
        lambda: with_columns({"NAME": "NAME"}),
        {**AT, "column": "NAMEE"},
    ),
]



# --- NN001 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src_dbms", "tgt_dbms", "src_nn", "tgt_nn", "protected", "fires"),
    [
        ("oracle", "postgresql", False, False, True, True),
        ("postgresql", "oracle", False, False, True, True),
        ("db2", "postgresql", False, False, True, True),
        ("postgresql", "db2", False, False, True, True),
        ("oracle", "db2", False, False, True, True),
        ("oracle", "postgresql", True, False, True, True),  # target side has no NOT NULL key column
        ("oracle", "postgresql", False, True, True, True),  # source side has none
        ("oracle", "postgresql", True, True, True, False),
        ("db2", "db2", True, True, True, False),
        ("oracle", "db2", False, False, False, False),  # not protected
        ("postgresql", "mssql", False, False, True, False),  # no Oracle or DB2 server
        ("informix", "ase", False, False, True, False),
        ("mysql", "sqlite", False, False, True, False),
    ],
)
def test_nn001_protected_oracle_or_db2(
    src_dbms: str, tgt_dbms: str, src_nn: bool, tgt_nn: bool, protected: bool, fires: bool
) -> None:
    m = protected_pair(src_dbms, tgt_dbms, src_nn=src_nn, tgt_nn=tgt_nn, protected=protected)
    if fires:
        assert len(fired(m, "NN001", mapping="m")) == 1
    else:
        assert_silent(m, "NN001")


def test_nn001_once_per_mapping_with_many_nullable_key_columns() -> None:
    cols = [col("A"), col("B"), col("C")]
    m = one_way(
        cols,
        src_pk=["A", "B", "C"],
        tgt_pk=["A", "B", "C"],
        src_dbms="db2",
        tgt_dbms="oracle",
        protected=True,
    )
    hits = fired(m, "NN001")
    assert len(hits) == 1, show(hits)
    assert hits[0].location.mapping == "m"


def test_nn001_one_not_null_key_column_per_side_is_enough() -> None:
    cols = [col("A"), col("B", nullable=False), col("C")]
    m = one_way(cols, src_pk=["A", "B", "C"], tgt_pk=["A", "B", "C"], src_dbms="oracle", protected=True)
    assert_silent(m, "NN001")


def test_nn001_source_side_reads_the_columns_feeding_the_key() -> None:
    """The source's own primary key is NOT NULL, but the key is fed by nullable columns."""
    src = [col("ID", nullable=False), col("A", "VARCHAR(5)"), col("B", "VARCHAR(5)")]
    tgt = [col("K", "VARCHAR(12)", nullable=False)]
    key = {"K": {"method": "concat", "inputs": ["A", "B"], "sep": "-"}}
    m = one_way(
        src,
        tgt,
        key,
        src_pk=["ID"],
        tgt_pk=["K"],
        src_unique={"UX_AB": ["A", "B"]},
        src_dbms="oracle",
        protected=True,
    )
    assert_fires(m, "NN001", mapping="m")
    src[1]["nullable"] = False
    m = one_way(
        src,
        tgt,
        key,
        src_pk=["ID"],
        tgt_pk=["K"],
        src_unique={"UX_AB": ["A", "B"]},
        src_dbms="oracle",
        protected=True,
    )
    assert_silent(m, "NN001")


def test_nn001_target_side_reads_the_key_not_other_columns() -> None:
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)", nullable=False)]
    tgt = [col("ID"), col("NAME", "VARCHAR(40)", nullable=False)]
    m = one_way(src, tgt, src_pk=["ID"], tgt_pk=["ID"], tgt_dbms="db2", protected=True)
    assert_fires(m, "NN001", mapping="m")


def test_nn001_uses_the_servers_of_this_mapping_only() -> None:
    """An Oracle server elsewhere does not make a PostgreSQL-to-PostgreSQL mapping subject to NN001."""
    cols = [col("ID"), col("NAME", "VARCHAR(40)")]
    m = model(
        [server("s"), server("t"), server("o", "oracle")],
        [
            table("s", "T", cols, pk=["ID"]),
            table("t", "T", cols, pk=["ID"]),
            table("o", "T", cols, pk=["ID"]),
        ],
        [
            mapping("m", SRC, TGT, {"ID": "ID", "NAME": "NAME"}),
            mapping("m2", SRC, "o.T", {"ID": "ID", "NAME": "NAME"}),
        ],
        protected=True,
    )
    assert [f.location.mapping for f in fired(m, "NN001")] == ["m2"]


# --- NL001 / NL002 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "fires"),
    [
        ({}, True),
        ({"default": "'n/a'"}, False),
        ({"default": 0}, False),
        ({"mapped": True}, False),
        ({"nullable": True}, False),
    ],
)
def test_nl001(kw: dict[str, Any], fires: bool) -> None:
    m = required(**kw)
    if fires:
        assert_fires(m, "NL001", mapping="m", table=TGT, column="REQ")
    else:
        assert_silent(m, "NL001")


@pytest.mark.parametrize("default", ["NULL", "null", " ( NULL ) ", "CAST(NULL AS VARCHAR(10))"])
def test_nl001_a_null_default_is_no_default(default: str) -> None:
    """docs/contract.md §3, NL001: "a target column that is NOT NULL and has no default is not mapped". A
    default of SQL NULL gives the unmapped NOT NULL column the NULL it refuses, exactly as no default does."""
    assert_fires(required(default=default), "NL001", mapping="m", table=TGT, column="REQ")


def test_nl001_oracles_empty_text_is_null() -> None:
    """Oracle reads `''` as NULL (and a run fills it so): on an Oracle target it is no default; elsewhere it is
    the empty text."""
    assert_fires(required(default="''", dbms="oracle"), "NL001", mapping="m", table=TGT, column="REQ")
    assert_silent(required(default="''"), "NL001")


@pytest.mark.parametrize("default", ["'NULL'", "COALESCE(NULL, 'x')", "0"])
def test_nl001_a_default_that_is_not_null_still_counts(default: str) -> None:
    """Near miss of the NULL default: the text 'NULL', or an expression of NULL that gives a value."""
    assert_silent(required(default=default), "NL001")


def test_nl001_each_missing_column() -> None:
    tgt = [col("ID", nullable=False), col("A", nullable=False), col("B", nullable=False), col("C")]
    m = one_way([col("ID", nullable=False)], tgt, {"ID": "ID"}, src_pk=["ID"], tgt_pk=["ID"])
    assert {f.location.column for f in fired(m, "NL001")} == {"A", "B"}


@pytest.mark.parametrize(
    ("method", "src_nullable", "tgt_nullable", "fires"),
    [
        ("NAME", True, False, True),
        ({"method": "column", "input": "NAME"}, True, False, True),
        ("NAME", False, False, False),
        ("NAME", True, True, False),
        ({"method": "upper", "input": "NAME"}, True, False, False),  # not a copy
        ({"method": "constant", "value": "x"}, True, False, False),
    ],
)
def test_nl002(method: Any, src_nullable: bool, tgt_nullable: bool, fires: bool) -> None:
    m = copied(method, src_nullable=src_nullable, tgt_nullable=tgt_nullable)
    if fires:
        assert_fires(m, "NL002", mapping="m", table=TGT, column="NAME")
        assert_silent(m, "NL001")
    else:
        assert_silent(m, "NL002")


# --- MP001 / MP004 / MP005 ------------------------------------------------------------------


@pytest.mark.parametrize(
    "method",
    [
        "NOPE",
        {"method": "upper", "input": "NOPE"},
        {"method": "concat", "inputs": ["NAME", {"method": "trim", "input": "NOPE"}], "sep": " "},
        {
            "method": "cast",
            "input": {"method": "split", "input": "NOPE", "sep": ",", "index": 0},
            "type": "VARCHAR(40)",
        },
        {"method": "substring", "input": {"method": "lower", "input": "NOPE"}, "start": 1},
        {"method": "expression", "sql": "concat(NAME, NOPE)"},
    ],
)
def test_mp001_unknown_input_at_any_depth(method: Any) -> None:
    assert_fires(with_columns({"CITY": method}), "MP001", mapping="m", table=TGT, column="CITY")


@pytest.mark.parametrize(
    "method",
    [
        {"method": "concat", "inputs": ["NAME", {"method": "trim", "input": "CITY"}], "sep": " "},
        {"method": "constant", "value": "x"},
        {"method": "system", "name": "site"},
        {"method": "expression", "sql": "coalesce(name, city, 'none')"},  # case-insensitive, as Spark SQL
    ],
)
def test_mp001_near_miss(method: Any) -> None:
    assert_silent(with_columns({"CITY": method}), "MP001")


def test_mp001_input_names_a_target_only_column() -> None:
    src = [col("ID", nullable=False)]
    tgt = [col("ID", nullable=False), col("EXTRA", "VARCHAR(10)")]
    m = one_way(src, tgt, {"ID": "ID", "EXTRA": "EXTRA"}, src_pk=["ID"], tgt_pk=["ID"])
    assert_fires(m, "MP001", mapping="m", column="EXTRA")


@pytest.mark.parametrize(
    ("sql", "fires"),
    [
        ("NAME ||", True),
        ("upper(", True),
        ("SELECT NAME FROM T", True),  # a query where an expression belongs
        ("upper(NAME)", False),
        ("CASE WHEN CITY IS NULL THEN NAME ELSE CITY END", False),
        ("concat_ws('-', NAME, CITY)", False),
    ],
)
def test_mp004_expression_must_parse(sql: str, fires: bool) -> None:
    m = with_columns({"NAME": {"method": "expression", "sql": sql}})
    if fires:
        assert_fires(m, "MP004", mapping="m", table=TGT, column="NAME")
    else:
        assert_silent(m, "MP004")


def test_mp005_each_unknown_target_column() -> None:
    m = with_columns({"X": "NAME", "Y": "CITY", "NAME": "NAME"})
    assert {f.location.column for f in fired(m, "MP005")} == {"X", "Y"}
    assert_silent(m, "MP001")


# --- MP003 -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "column"),
    [
        ("STATUS <> 'void'", "STATUS"),
        ("NAME = 'x' AND NOPE > 3", "NOPE"),
        ("upper(CITY) = upper(TOWN)", "TOWN"),
    ],
)
def test_mp003_unknown_column(where: str, column: str) -> None:
    assert_fires(with_columns({}, where=where), "MP003", mapping="m", table=SRC, column=column)


@pytest.mark.parametrize(("where", "fires"), [
    ("current_timestamp() > timestamp'2026-01-01 00:00:00'", True),
    ("ID > 3 AND current_date() < date'2027-01-01'", True),
    ("CURRENT_TIMESTAMP IS NOT NULL", True),
    ("ID > 3", False),
])
def test_mp003_a_where_that_reads_the_clock(where: str, fires: bool) -> None:
    """Which rows such a mapping sends changes with the clock: a run could not say whether it converges (the
    reference failed at convergence, Spark reported the same rows diverged)."""
    found = [f for f in fired(with_columns({}, where=where), "MP003") if "current time" in f.message]
    assert len(found) == (1 if fires else 0)


@pytest.mark.parametrize("where", ["NAME <> ", "(ID > 3", "AND AND", "SELECT 1"])
def test_mp003_does_not_parse(where: str) -> None:
    assert_fires(with_columns({}, where=where), "MP003", mapping="m", table=SRC)


@pytest.mark.parametrize(
    "where",
    [
        "NAME <> 'void'",
        "ID > 3 AND (CITY IS NULL OR CITY LIKE 'B%')",
        "name <> 'void'",
        "coalesce(CITY, '') IN ('Bern', 'Basel')",
    ],
)
def test_mp003_near_miss(where: str) -> None:
    assert_silent(with_columns({}, where=where), "MP003")


def flagged(where: str) -> Any:
    """s.T with columns of several types, BOOLEAN and BIT among them, filtered by `where`."""
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col("AMT", "DECIMAL(10,2)"), col("AT", "TIMESTAMP"),
           col("OK", "BOOLEAN"), col("B", "BIT"), col("GEO", "UDT:point", stream_support=True)]
    return one_way(src, src, src_pk=["ID"], tgt_pk=["ID"], map_extra={"where": where})


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("ID", "ID is a column of type INTEGER"),
        ("name", "name is a column of type VARCHAR(40)"),
        ("(AMT)", "AMT is a column of type DECIMAL(10,2)"),
        ("AT", "AT is a column of type TIMESTAMP"),
        ("GEO", "GEO is a column of type UDT:point"),
        ("''", "'' is a string"),
        ("'true'", "'true' is a string"),
        ("5", "5 is a number"),
        ("0.5", "0.5 is a number"),
        ("ID + 1", "ID + 1 is arithmetic"),
        ("-ID", "-ID is arithmetic"),
        ("ID % 2", "is arithmetic"),
        ("NAME || 'x'", "is text"),
        ("concat(NAME, 'x')", "is text"),
        ("upper(NAME)", "is text"),
        ("length(NAME)", "is a number"),
        ("cast(ID as string)", "is a cast to STRING"),
        ("try_cast(NAME as int)", "is a cast to INT"),
    ],
)
def test_mp003_where_that_is_not_a_condition(where: str, says: str) -> None:
    """Spark refuses a filter whose type is not BOOLEAN (FILTER_NOT_BOOLEAN) when the run starts."""
    [finding] = fired(flagged(where), "MP003")
    assert finding.message.startswith("where clause is not a condition: "), finding.message
    assert says in finding.message, finding.message


@pytest.mark.parametrize(
    "where",
    [
        "OK", "ok", "(OK)", "B", "TRUE", "false", "NULL", "NOT OK", "ID = 1", "ID > 1 AND OK", "NAME IS NULL",
        "NAME LIKE 'a%'", "cast(NAME as boolean)", "coalesce(OK, false)", "if(ID > 1, OK, false)",
        "CASE WHEN ID = 1 THEN TRUE ELSE FALSE END", "ID IN (1, 2)", "ID BETWEEN 1 AND 3",
    ],
)
def test_mp003_conditions_and_what_cannot_be_typed_are_accepted(where: str) -> None:
    assert_silent(flagged(where), "MP003")


def test_mp003_unknown_column_is_not_also_typed() -> None:
    [finding] = fired(flagged("NOPE"), "MP003")
    assert finding.location.column == "NOPE"


def test_where_editor_shows_a_clause_that_is_not_a_condition() -> None:
    from engine.authoring import where_problems

    m = flagged("ID > 0")
    assert where_problems(m, "m", "ID > 0") == []
    assert where_problems(m, "m", "ID") == ["where clause is not a condition: ID is a column of type INTEGER, "
                                            "not a BOOLEAN"]


def test_mp003_where_reads_source_not_target_columns() -> None:
    src = [col("ID", nullable=False), col("STATUS", "VARCHAR(10)")]
    tgt = [col("ID", nullable=False), col("ORIGIN", "VARCHAR(10)")]
    m = one_way(
        src,
        tgt,
        {"ID": "ID", "ORIGIN": {"method": "constant", "value": "hq"}},
        src_pk=["ID"],
        tgt_pk=["ID"],
        map_extra={"where": "ORIGIN = 'hq'"},
    )
    assert_fires(m, "MP003", column="ORIGIN")
    m2 = one_way(
        src,
        tgt,
        {"ID": "ID", "ORIGIN": {"method": "constant", "value": "hq"}},
        src_pk=["ID"],
        tgt_pk=["ID"],
        map_extra={"where": "STATUS = 'hq'"},
    )
    assert_silent(m2, "MP003")


# --- MP002 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target", "unknown"),
    [
        ("zz.T", TGT, "zz.T"),  # unknown server
        ("s.NOPE", TGT, "s.NOPE"),  # unknown table on a known server
        (SRC, "zz.T", "zz.T"),
        (SRC, "t.NOPE", "t.NOPE"),
        ("t.T", "s.T", None),  # both known, just the other way round
    ],
)
def test_mp002_unknown_server_or_table(source: str, target: str, unknown: str | None) -> None:
    m = unknown_end(source, target)
    if unknown:
        assert_fires(m, "MP002", mapping="m", table=unknown)
    else:
        assert_silent(m, "MP002")


def test_mp002_both_ends_unknown() -> None:
    m = unknown_end("zz.A", "yy.B")
    assert {f.location.table for f in fired(m, "MP002", mapping="m")} == {"zz.A", "yy.B"}


def _noisy(source: str, target: str) -> Any:
    """A mapping that would draw many findings if both ends were known."""
    src = [col("ID"), col("F", "FLOAT"), col("GEO", "UDT:point")]
    tgt = [col("ID"), col("REQ", nullable=False), col("F", "FLOAT"), col("GEO", "UDT:point")]
    return model(
        [server("s", "oracle", float_format="ieee"), server("t", "db2", float_format="ibm-hex")],
        [table("s", "T", src), table("t", "T", tgt)],
        [
            mapping(
                "m",
                source,
                target,
                {"ID": "NOPE", "F": "F", "GEO": "GEO", "X": {"method": "expression", "sql": "ID +"}},
                where="NOPE = 1",
                reverse="nowhere",
                distribution_key=["BAD"],
                changed_columns_only=True,
            )
        ],
        protected=True,
    )


@pytest.mark.parametrize(("source", "target"), [("s.NOPE", TGT), (SRC, "t.NOPE"), ("zz.T", "yy.T")])
def test_mp002_silences_every_other_finding_of_the_mapping(source: str, target: str) -> None:
    control = {f.code for f in validate(_noisy(SRC, TGT)) if f.location.mapping == "m"}
    assert len(control) >= 5, control  # the control model does draw findings
    found = [f for f in validate(_noisy(source, target)) if f.location.mapping == "m"]
    assert found and {f.code for f in found} == {"MP002"}, show(found)


def _subset_into(source: str) -> Any:
    tgt = [
        col("ID", nullable=False),
        col("NAME", "VARCHAR(40)"),
        col("CITY", "VARCHAR(40)"),
        col("UPDATED", "TIMESTAMP"),
    ]
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col("UPDATED", "TIMESTAMP")]
    group = {
        "name": "g",
        "columns": ["NAME", "CITY", "UPDATED"],
        "resolution": [{"method": "latest_timestamp", "column": "UPDATED"}, {"method": "site_priority"}],
    }
    return model(
        [server("s", priority=1), server("t", priority=2)],
        [table("s", "T", src, pk=["ID"]), table("t", "T", tgt, pk=["ID"])],
        [mapping("m", source, TGT, {"ID": "ID", "NAME": "NAME", "UPDATED": "UPDATED"})],
        [{"table": TGT, "column_groups": [group]}],
    )


def test_mp002_mapping_draws_no_conflict_findings_either() -> None:
    """CR008 names the mapping it is about; a mapping with an unknown source gets no finding but MP002."""
    assert_fires(_subset_into(SRC), "CR008", mapping="m", table=TGT, group="g")  # control
    found = [f for f in validate(_subset_into("s.NOPE")) if f.location.mapping == "m"]
    assert {f.code for f in found} == {"MP002"}, show(found)


def test_mp002_names_a_server_whose_id_holds_a_dot() -> None:
    """`hq.eu.NOPE` is table NOPE of server `hq.eu`, not table `eu.NOPE` of a server `hq` there is none of."""
    m = model([server("hq.eu"), server("br")],
              [table("hq.eu", "T", [col("ID", nullable=False)], pk=["ID"]),
               table("br", "T", [col("ID", nullable=False)], pk=["ID"])],
              [mapping("m", "br.T", "hq.eu.NOPE", {"ID": "ID"})])
    [finding] = fired(m, "MP002")
    assert finding.message == "target 'hq.eu.NOPE' is unknown: server hq.eu has no table 'NOPE' (it has T)"
