"""Data-type rules TY001-TY004 (docs/contract.md §3, seed 001)."""

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
)


def udt(
    type_: str = "UDT:point",
    *,
    src_stream: bool | None = None,
    tgt_stream: bool | None = None,
    mapped: bool = True,
) -> Any:
    def geo(stream: bool | None) -> dict[str, Any]:
        return col("GEO", type_, **({"stream_support": stream} if stream is not None else {}))

    src = [col("ID", nullable=False), geo(src_stream)]
    tgt = [col("ID", nullable=False), geo(tgt_stream)]
    return one_way(src, tgt, {"ID": "ID", **({"GEO": "GEO"} if mapped else {})}, src_pk=["ID"], tgt_pk=["ID"])


def floats(
    type_: str = "FLOAT",
    src_fmt: str | None = "ieee",
    tgt_fmt: str | None = "ibm-hex",
    transfer: str | None = None,
    method: Any = "AMOUNT",
) -> Any:
    src = [col("ID", nullable=False), col("AMOUNT", type_)]
    tgt = [col("ID", nullable=False), col("AMOUNT", type_)]
    extra: dict[str, Any] = {"float_transfer": transfer} if transfer else {}
    return one_way(
        src,
        tgt,
        {"ID": "ID", "AMOUNT": method},
        src_pk=["ID"],
        tgt_pk=["ID"],
        src_server={"float_format": src_fmt} if src_fmt else None,
        tgt_server={"float_format": tgt_fmt} if tgt_fmt else None,
        **extra,
    )


def serial(
    type_: str = "SERIAL",
    *,
    back: bool = True,
    key: list[str] | None = None,
    columns: dict[str, Any] | None = None,
    back_to: str = SRC,
) -> Any:
    """t.T keyed on ID of `type_`; with `back`, a mapping t.T -> `back_to` (s.T) makes t a second master of
    t.T, unless `back_to` is an unknown table (MP002)."""
    cols = [col("ID", type_, nullable=False), col("NAME", "VARCHAR(40)", nullable=False)]
    extra = {"distribution_key": key} if key else {}
    maps = [mapping("back", TGT, back_to, {"ID": "ID", "NAME": "NAME"})] if back else []
    return one_way(
        cols,
        columns=columns,
        src_pk=["ID"],
        tgt_pk=["ID"],
        src_unique={"UX": ["NAME"]},
        tgt_unique={"UX": ["NAME"]},
        map_extra=extra,
        more_mappings=maps,
    )


def udt_in_expression(sql: str, *, stream: bool = False) -> Any:
    """s.T.GEO (UDT:point) read only by an `expression` into t.T.TXT."""
    src = [col("ID", nullable=False), col("GEO", "UDT:point", stream_support=stream), col("NAME", "VARCHAR(20)")]
    tgt = [col("ID", nullable=False), col("TXT", "VARCHAR(200)")]
    return one_way(src, tgt, {"ID": "ID", "TXT": {"method": "expression", "sql": sql}}, src_pk=["ID"], tgt_pk=["ID"])


def float_as_text(sql: str) -> Any:
    """s.T.AMOUNT (FLOAT, ieee) and ID, rendered by an `expression` into t.T.TXT VARCHAR (ibm-hex)."""
    src = [col("ID", nullable=False), col("AMOUNT", "FLOAT")]
    tgt = [col("ID", nullable=False), col("TXT", "VARCHAR(40)")]
    return one_way(src, tgt, {"ID": "ID", "TXT": {"method": "expression", "sql": sql}}, src_pk=["ID"],
                   tgt_pk=["ID"], src_server={"float_format": "ieee"}, tgt_server={"float_format": "ibm-hex"})


def lob(
    type_: str = "BLOB", storage: str | None = "blobspace", changed_only: bool = True, mapped: bool = True
) -> Any:
    cols = [col("ID", nullable=False), col("DOC", type_, **({"storage": storage} if storage else {}))]
    return one_way(
        cols,
        columns={"ID": "ID", **({"DOC": "DOC"} if mapped else {})},
        src_pk=["ID"],
        tgt_pk=["ID"],
        map_extra={"changed_columns_only": changed_only},
    )


CASES = [
    Case(
        "TY001",
        "udt-without-stream-support",
        lambda: udt(),
        lambda: udt(src_stream=True, tgt_stream=True),
        {"mapping": "m", "table": frozenset({SRC, TGT}), "column": "GEO"},
    ),
    Case(
        "TY001",
        "udt-in-row-type",
        lambda: udt("ROW(x INTEGER, p UDT:point)"),
        lambda: udt("ROW(x INTEGER, y INTEGER)"),
        {"mapping": "m", "column": "GEO"},
    ),
    Case(
        "TY001",
        "udt-read-by-an-expression",
        lambda: udt_in_expression("cast(geo as string)"),
        lambda: udt_in_expression("cast(geo as string)", stream=True),
        {"mapping": "m", "table": SRC, "column": "GEO"},
    ),
    Case(
        "TY002",
        "float-read-by-an-expression",
        lambda: float_as_text("concat('$', amount)"),
        lambda: float_as_text("concat('$', id)"),
        {"mapping": "m", "table": TGT, "column": "TXT"},
    ),
    Case(
        "TY002",
        "labels-differ-beyond-case",
        lambda: floats(src_fmt="IEEE", tgt_fmt="ibm-hex"),
        lambda: floats(src_fmt="IEEE", tgt_fmt="ieee"),
        {"mapping": "m", "table": TGT, "column": "AMOUNT"},
    ),
    Case(
        "TY002",
        "ieee-to-ibm-hex",
        lambda: floats(),
        lambda: floats(transfer="canonical"),
        {"mapping": "m", "table": TGT, "column": "AMOUNT"},
    ),
    Case(
        "TY003",
        "serial-key-two-masters",
        lambda: serial(),
        lambda: serial(back=False),
        {"mapping": "m", "table": TGT, "column": "ID"},
    ),
    Case(
        "TY003",
        "mp002-mapping-is-no-master",
        lambda: serial(),
        lambda: serial(back_to="t.NOPE"),
        {"mapping": "m", "table": TGT, "column": "ID"},
    ),
    Case(
        "TY004",
        "blob-in-blobspace-changed-only",
        lambda: lob(),
        lambda: lob(changed_only=False),
        {"mapping": "m", "column": "DOC"},
    ),
]



# --- TY001 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "fires"),
    [
        ("UDT:point", True),
        ("udt:geo.shape", True),
        ("ROW(x INTEGER, p UDT:point)", True),
        ("SET(UDT:point)", True),
        ("LIST(ROW(a INTEGER, b UDT:point))", True),
        ("MULTISET(INTEGER)", False),
        ("ROW(x INTEGER, y VARCHAR(10))", False),
        ("BLOB", False),
    ],
)
def test_ty001_types_holding_a_udt(type_: str, fires: bool) -> None:
    m = udt(type_)
    if fires:
        assert_fires(m, "TY001", mapping="m", column="GEO")
    else:
        assert_silent(m, "TY001")


@pytest.mark.parametrize(
    ("src_stream", "tgt_stream", "bad_tables"),
    [
        (None, None, {SRC, TGT}),
        (False, False, {SRC, TGT}),
        (True, None, {TGT}),
        (None, True, {SRC}),
        (True, True, set()),
    ],
)
def test_ty001_each_side_needs_stream_support(src_stream: Any, tgt_stream: Any, bad_tables: set[str]) -> None:
    hits = fired(udt(src_stream=src_stream, tgt_stream=tgt_stream), "TY001")
    assert {f.location.table for f in hits} == bad_tables, show(hits)


def test_ty001_only_when_replicated() -> None:
    assert_silent(udt(mapped=False), "TY001")


def test_ty001_udt_read_through_a_method() -> None:
    src = [col("ID", nullable=False), col("GEO", "UDT:point")]
    tgt = [col("ID", nullable=False), col("TXT", "VARCHAR(200)")]
    m = one_way(
        src,
        tgt,
        {"ID": "ID", "TXT": {"method": "cast", "input": "GEO", "type": "VARCHAR(200)"}},
        src_pk=["ID"],
        tgt_pk=["ID"],
    )
    assert_fires(m, "TY001", mapping="m", table=SRC, column="GEO")


@pytest.mark.parametrize(("sql", "fires"), [
    ("cast(GEO as string)", True),
    ("cast(geo as string)", True),  # SQL names are case-insensitive
    ("concat(NAME, cast(GEO as string))", True),
    ("upper(NAME)", False),
    ("'GEO'", False),  # a string, not the column
])
def test_ty001_udt_named_in_expression_sql(sql: str, fires: bool) -> None:
    m = udt_in_expression(sql)
    if fires:
        [finding] = fired(m, "TY001")
        assert (finding.location.table, finding.location.column) == (SRC, "GEO")
    else:
        assert_silent(m, "TY001")


# --- TY002 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "fires"),
    [
        ({}, True),
        ({"type_": "REAL"}, True),
        ({"type_": "DOUBLE"}, True),
        ({"src_fmt": "vax", "tgt_fmt": "ieee"}, True),
        ({"transfer": "ieee"}, False),
        ({"transfer": "canonical"}, False),
        ({"tgt_fmt": "ieee"}, False),  # same format
        ({"tgt_fmt": "IEEE"}, False),  # the same format, labelled in other case
        ({"src_fmt": " Ibm-Hex", "tgt_fmt": "ibm-hex"}, False),
        ({"src_fmt": "VAX", "tgt_fmt": "ieee"}, True),
        ({"src_fmt": None}, False),  # only one server sets a format
        ({"tgt_fmt": None}, False),
        ({"src_fmt": None, "tgt_fmt": None}, False),
        ({"type_": "DECIMAL(12,2)"}, False),  # exact numeric
        ({"type_": "INTEGER"}, False),
    ],
)
def test_ty002_floating_point_across_formats(kw: dict[str, Any], fires: bool) -> None:
    m = floats(**kw)
    if fires:
        assert_fires(m, "TY002", mapping="m", table=TGT, column="AMOUNT")
    else:
        assert_silent(m, "TY002")


def test_ty002_float_source_into_other_target_type() -> None:
    src = [col("ID", nullable=False), col("AMOUNT", "DOUBLE")]
    tgt = [col("ID", nullable=False), col("AMOUNT_TXT", "VARCHAR(40)")]
    m = one_way(
        src,
        tgt,
        {"ID": "ID", "AMOUNT_TXT": {"method": "cast", "input": "AMOUNT", "type": "VARCHAR(40)"}},
        src_pk=["ID"],
        tgt_pk=["ID"],
        src_server={"float_format": "ieee"},
        tgt_server={"float_format": "ibm-hex"},
    )
    assert_fires(m, "TY002", mapping="m", column="AMOUNT_TXT")


def test_ty002_unmapped_float_column_does_not_move() -> None:
    cols = [col("ID", nullable=False), col("AMOUNT", "FLOAT")]
    m = one_way(
        cols,
        columns={"ID": "ID"},
        src_pk=["ID"],
        tgt_pk=["ID"],
        src_server={"float_format": "ieee"},
        tgt_server={"float_format": "ibm-hex"},
    )
    assert_silent(m, "TY002")


# --- TY003 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "back", "fires"),
    [
        ("SERIAL", True, True),
        ("SERIAL8", True, True),
        ("serial", True, True),
        ("SERIAL", False, False),  # one master
        ("INTEGER", True, False),
        ("BIGINT", True, False),
    ],
)
def test_ty003_serial_key_with_several_masters(type_: str, back: bool, fires: bool) -> None:
    m = serial(type_, back=back)
    if fires:
        assert_fires(m, "TY003", mapping="m", table=TGT, column="ID")
    else:
        assert_silent(m, "TY003", mapping="m")


def test_ty003_serial_column_outside_the_key() -> None:
    m = serial("SERIAL", key=["NAME"])
    assert_silent(m, "TY003", mapping="m")
    assert_fires(m, "TY003", mapping="back", table=SRC, column="ID")  # back is keyed on s.T's SERIAL ID


def test_ty003_second_master_from_another_server() -> None:
    cols = [col("ID", "SERIAL8", nullable=False), col("NAME", "VARCHAR(40)")]
    m = model(
        [server("s"), server("t"), server("u")],
        [table(x, "T", cols, pk=["ID"]) for x in ("s", "t", "u")],
        [
            mapping("m", SRC, TGT, {"ID": "ID", "NAME": "NAME"}),
            mapping("m2", "u.T", TGT, {"ID": "ID", "NAME": "NAME"}),
        ],
    )
    assert {f.location.mapping for f in fired(m, "TY003")} == {"m", "m2"}


def test_ty003_not_gated_by_other_key_columns() -> None:
    """TY003 is not among the rules that need a complete DKey (only DK009, DK010 and NN001 are):
    a SERIAL key column is still reported when another key column has no column map."""
    m = serial("SERIAL", key=["ID", "NAME"], columns={"ID": "ID"})
    assert_fires(m, "DK002", mapping="m", column="NAME")
    assert_fires(m, "TY003", mapping="m", table=TGT, column="ID")


# --- TY004 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "fires"),
    [
        ({}, True),
        ({"storage": "sbspace"}, True),
        ({"type_": "CLOB"}, True),
        ({"type_": "TEXT", "storage": "sbspace"}, True),
        ({"type_": "BYTE"}, True),
        ({"storage": "inrow"}, False),
        ({"storage": None}, False),
        ({"changed_only": False}, False),
        ({"mapped": False}, False),
        ({"type_": "VARCHAR(100)"}, False),  # not a large object
    ],
)
def test_ty004_large_objects_with_changed_columns_only(kw: dict[str, Any], fires: bool) -> None:
    m = lob(**kw)
    if fires:
        assert_fires(m, "TY004", mapping="m", column="DOC")
    else:
        assert_silent(m, "TY004")
