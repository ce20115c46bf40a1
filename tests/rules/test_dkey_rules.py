"""Distribution-key rules DK001-DK011 and the default DKey rule (docs/contract.md §3, seed 000)."""

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
    table,
    validate,
)

from engine.keys import distribution_key

DKEY_LIMIT = 256


def keyed(type_: str, *, tgt_dbms: str = "postgresql", src_dbms: str = "postgresql") -> Any:
    """s.T and t.T with primary key K of `type_` (so the default DKey is K), copied s -> t."""
    cols = [col("K", type_, nullable=False), col("NAME", "VARCHAR(40)")]
    return one_way(cols, src_pk=["K"], tgt_pk=["K"], src_dbms=src_dbms, tgt_dbms=tgt_dbms)


def wide_key(char_len: int, *, src_dbms: str = "postgresql", tgt_dbms: str = "postgresql") -> Any:
    """DKey (CODE VARCHAR(char_len), ID INTEGER): char_len + 4 bytes."""
    cols = [col("CODE", f"VARCHAR({char_len})", nullable=False), col("ID", nullable=False)]
    return one_way(cols, src_pk=["CODE", "ID"], tgt_pk=["CODE", "ID"], src_dbms=src_dbms, tgt_dbms=tgt_dbms)


def no_keys(*, journal: bool = False) -> Any:
    """Neither table has a primary key or unique index: no default DKey."""
    cols = [col("ID"), col("NAME", "VARCHAR(40)")]
    return one_way(cols, map_extra={"journal": journal} if journal else None)


def two_col_pk(columns: dict[str, Any]) -> Any:
    cols = [col("ID", nullable=False), col("CODE", "CHAR(4)", nullable=False), col("NAME", "VARCHAR(40)")]
    return one_way(cols, columns=columns, src_pk=["ID", "CODE"], tgt_pk=["ID", "CODE"])


def explicit_key(
    key: list[str],
    *,
    tgt_unique: dict[str, list[str]] | None = None,
    src_unique: dict[str, list[str]] | None = None,
) -> Any:
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    return one_way(
        cols,
        src_pk=["ID"],
        tgt_pk=["ID"],
        src_unique=src_unique,
        tgt_unique=tgt_unique,
        map_extra={"distribution_key": key},
    )


def fed_by(columns: dict[str, Any], *, src_unique: dict[str, list[str]] | None = None) -> Any:
    """Target t.T(K VARCHAR(40) PK) fed through `columns` from s.T(ID PK, CODE, NAME)."""
    src = [col("ID", nullable=False), col("CODE", "CHAR(4)", nullable=False), col("NAME", "VARCHAR(40)")]
    tgt = [col("K", "VARCHAR(40)", nullable=False), col("NAME", "VARCHAR(40)")]
    return one_way(src, tgt, columns, src_pk=["ID"], tgt_pk=["K"], src_unique=src_unique)


def char_key(key: list[str], *, length: int = 200, default_from_unique: bool = False) -> Any:
    """s.T and t.T with K and L CHAR(`length`) (and ID); the DKey is `key`, given by the mapping or, with
    `default_from_unique`, by the target's only unique index (no primary key)."""
    cols = [col("ID", nullable=False), col("K", f"CHAR({length})", nullable=False),
            col("L", f"CHAR({length})", nullable=False)]
    if default_from_unique:
        return one_way(cols, src_pk=["ID"], src_unique={"UX": ["K", "L"]}, tgt_unique={"U1": key})
    return one_way(cols, src_pk=["ID"], tgt_pk=["ID"], src_unique={"UX": ["K", "L"]}, tgt_unique={"UX": ["K", "L"]},
                   map_extra={"distribution_key": key})


def with_decimal(char_len: int, decimal: str = "DECIMAL", *, tgt_dbms: str = "postgresql") -> Any:
    """Key (CODE CHAR(char_len), AMOUNT `decimal`): a DECIMAL without a precision counts at the target
    DBMS's default precision."""
    cols = [col("CODE", f"CHAR({char_len})", nullable=False), col("AMOUNT", decimal, nullable=False)]
    return one_way(cols, src_pk=["CODE", "AMOUNT"], tgt_pk=["CODE", "AMOUNT"], tgt_dbms=tgt_dbms)


AT_TARGET = {"mapping": "m", "table": TGT}

CASES = [
    Case("DK001", "no-key-anywhere", lambda: no_keys(), lambda: no_keys(journal=True), AT_TARGET),
    Case(
        "DK001",
        "source-pk-not-copied",
        lambda: one_way(
            [col("ID", nullable=False), col("NAME", "VARCHAR(40)")],
            [col("NAME", "VARCHAR(40)")],
            src_pk=["ID"],
        ),
        lambda: one_way([col("ID", nullable=False), col("NAME", "VARCHAR(40)")], src_pk=["ID"]),
        AT_TARGET,
    ),
    Case(
        "DK002",
        "pk-column-unmapped",
        lambda: two_col_pk({"ID": "ID", "NAME": "NAME"}),
        lambda: two_col_pk({"ID": "ID", "CODE": "CODE"}),
        {**AT_TARGET, "column": "CODE"},
    ),
    Case("DK003", "257-bytes", lambda: wide_key(253), lambda: wide_key(252), AT_TARGET),
    Case(
        "DK003",
        "257-bytes-db2-source",
        lambda: wide_key(253, src_dbms="db2"),
        lambda: wide_key(253, src_dbms="oracle"),
        AT_TARGET,
    ),
    Case("DK003", "two-columns-not-one-named-twice", lambda: char_key(["K", "L"]), lambda: char_key(["K", "K"]),
         AT_TARGET),
    Case("DK003", "unique-index-naming-a-column-twice",
         lambda: char_key(["K", "L"], default_from_unique=True),
         lambda: char_key(["K", "K"], default_from_unique=True), AT_TARGET),
    Case("DK003", "decimal-without-precision", lambda: with_decimal(237), lambda: with_decimal(236), AT_TARGET),
    Case("DK003", "decimal-without-precision-on-db2", lambda: with_decimal(237),
         lambda: with_decimal(237, tgt_dbms="db2"), AT_TARGET),
    Case("DK004", "blob", lambda: keyed("BLOB"), lambda: keyed("VARCHAR(100)"), {**AT_TARGET, "column": "K"}),
    Case(
        "DK005",
        "db2-255",
        lambda: keyed("VARCHAR(255)", tgt_dbms="db2"),
        lambda: keyed("VARCHAR(254)", tgt_dbms="db2"),
        {**AT_TARGET, "column": "K"},
    ),
    Case(
        "DK005",
        "mssql-256",
        lambda: keyed("VARCHAR(256)", tgt_dbms="mssql"),
        lambda: keyed("VARCHAR(255)", tgt_dbms="mssql"),
        {**AT_TARGET, "column": "K"},
    ),
    Case(
        "DK005",
        "db2-vs-postgresql",
        lambda: keyed("VARCHAR(300)", tgt_dbms="db2"),
        lambda: keyed("VARCHAR(300)", tgt_dbms="postgresql"),
        {**AT_TARGET, "column": "K"},
    ),
    Case("DK006", "bit", lambda: keyed("BIT"), lambda: keyed("BOOLEAN"), {**AT_TARGET, "column": "K"}),
    Case(
        "DK007",
        "binary",
        lambda: keyed("BINARY(16)"),
        lambda: keyed("CHAR(16)"),
        {**AT_TARGET, "column": "K"},
    ),
    Case(
        "DK008", "float", lambda: keyed("FLOAT"), lambda: keyed("DECIMAL(10,2)"), {**AT_TARGET, "column": "K"}
    ),
    Case(
        "DK009",
        "fed-by-non-unique",
        lambda: fed_by({"K": "NAME"}),
        lambda: fed_by({"K": "NAME"}, src_unique={"UX_NAME": ["NAME"]}),
        {"mapping": "m", "table": SRC},
    ),
    Case(
        "DK010",
        "key-not-unique-in-target",
        lambda: explicit_key(["NAME"], src_unique={"UX": ["NAME"]}),
        lambda: explicit_key(["NAME"], src_unique={"UX": ["NAME"]}, tgt_unique={"UX": ["NAME"]}),
        AT_TARGET,
    ),
    Case(
        "DK011",
        "unknown-key-column",
        lambda: explicit_key(["ID", "NOPE"]),
        lambda: explicit_key(["ID"]),
        {**AT_TARGET, "column": "NOPE"},
    ),
]



# --- DK001 and the default rule -----------------------------------------------


def test_journal_mapping_needs_no_key() -> None:
    m = no_keys(journal=True)
    assert distribution_key(m, m.mappings[0]) is None
    assert_silent(m, "DK001")


def test_an_empty_distribution_key_is_no_key_not_the_default_rule() -> None:
    """Only an absent key takes the default rule (docs/contract.md §1: `absent = chosen by the default
    rule`); `[]` names no column: DK001, though the target's primary key would have served."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    m = one_way(cols, src_pk=["ID"], tgt_pk=["ID"], map_extra={"distribution_key": []})
    assert distribution_key(m, m.mappings[0]) is None
    assert_fires(m, "DK001", mapping="m", table=TGT)
    assert any("distribution_key is empty" in f.message for f in validate(m) if f.code == "DK001")
    absent = one_way(cols, src_pk=["ID"], tgt_pk=["ID"])
    assert distribution_key(absent, absent.mappings[0]).columns == ("ID",)  # type: ignore[union-attr]
    assert_silent(absent, "DK001")


def test_journal_flag_does_not_silence_other_rules() -> None:
    cols = [col("ID"), col("REQ", nullable=False)]
    m = one_way(cols, columns={"ID": "ID"}, map_extra={"journal": True})
    assert_silent(m, "DK001")
    assert_fires(m, "NL001", mapping="m", column="REQ")


def test_default_key_is_target_primary_key_before_unique_index() -> None:
    cols = [col("ID", nullable=False), col("CODE", "CHAR(4)", nullable=False)]
    mapped_code = one_way(
        cols, columns={"CODE": "CODE"}, src_pk=["ID"], tgt_pk=["ID"], tgt_unique={"UX_CODE": ["CODE"]}
    )
    assert_fires(mapped_code, "DK002", mapping="m", column="ID")
    assert_silent(mapped_code, "DK002", column="CODE")
    mapped_id = one_way(
        cols, columns={"ID": "ID"}, src_pk=["ID"], tgt_pk=["ID"], tgt_unique={"UX_CODE": ["CODE"]}
    )
    assert_silent(mapped_id, "DK002")
    assert_silent(mapped_id, "DK001")


def test_default_key_is_first_unique_index_without_primary_key() -> None:
    cols = [col("A", nullable=False), col("B", nullable=False)]
    only_b = one_way(cols, columns={"B": "B"}, src_pk=["A"], tgt_unique={"UX_A": ["A"], "UX_B": ["B"]})
    assert_fires(only_b, "DK002", mapping="m", column="A")
    assert_silent(only_b, "DK001")
    only_a = one_way(cols, columns={"A": "A"}, src_pk=["A"], tgt_unique={"UX_A": ["A"], "UX_B": ["B"]})
    assert_silent(only_a, "DK002")
    assert_silent(only_a, "DK001")


def test_default_key_from_copied_source_primary_key() -> None:
    """No target key: the target columns copied from the source PK (renamed here) are the DKey."""
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    tgt = [col("T_ID", "FLOAT", nullable=False), col("NAME", "VARCHAR(40)")]
    m = one_way(src, tgt, {"T_ID": "ID", "NAME": "NAME"}, src_pk=["ID"])
    assert_silent(m, "DK001")
    assert_fires(m, "DK008", mapping="m", column="T_ID")  # the DKey is T_ID
    assert_fires(m, "DK010", mapping="m", table=TGT)  # and it is complete, but not unique in t.T
    assert distribution_key(m, m.mappings[0]).columns == ("T_ID",)  # type: ignore[union-attr]


def test_default_key_from_composite_source_primary_key_keeps_source_order() -> None:
    src = [col("A", nullable=False), col("B", nullable=False)]
    tgt = [col("X", nullable=False), col("Y", nullable=False)]
    m = one_way(src, tgt, {"X": "B", "Y": "A"}, src_pk=["A", "B"])
    assert_silent(m, "DK001")
    assert set(distribution_key(m, m.mappings[0]).columns) == {"X", "Y"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "columns",
    [
        pytest.param({"X": "A"}, id="one-of-two-pk-columns-copied"),
        pytest.param({"X": {"method": "upper", "input": "A"}, "Y": "B"}, id="pk-column-not-copied-by-column"),
        pytest.param({"X": {"method": "concat", "inputs": ["A", "B"], "sep": "-"}}, id="pk-concatenated"),
    ],
)
def test_default_key_needs_every_source_pk_column_copied(columns: dict[str, Any]) -> None:
    src = [col("A", "VARCHAR(10)", nullable=False), col("B", "VARCHAR(10)", nullable=False)]
    tgt = [col("X", "VARCHAR(30)"), col("Y", "VARCHAR(10)")]
    m = one_way(src, tgt, columns, src_pk=["A", "B"])
    assert_fires(m, "DK001", mapping="m", table=TGT)


def test_no_default_key_without_any_primary_key() -> None:
    assert_fires(no_keys(), "DK001", mapping="m", table=TGT)


def test_explicit_key_overrides_default() -> None:
    cols = [col("ID", nullable=False), col("CODE", "CHAR(4)")]
    m = one_way(
        cols, columns={"ID": "ID"}, src_pk=["ID"], tgt_pk=["ID"], map_extra={"distribution_key": ["CODE"]}
    )
    assert_fires(m, "DK002", mapping="m", column="CODE")
    assert_silent(m, "DK002", column="ID")


def test_explicit_key_on_target_without_keys_gives_no_dk001() -> None:
    m = one_way([col("ID"), col("NAME", "VARCHAR(40)")], map_extra={"distribution_key": ["ID"]})
    assert_silent(m, "DK001")


# --- DK002 / DK011 --------------------------------------------------------------


def test_dk011_replaces_dk002_for_a_column_the_target_lacks() -> None:
    m = explicit_key(["ID", "NOPE", "NAME"])
    m.mappings[0].columns.pop("NAME")
    assert_fires(m, "DK011", mapping="m", table=TGT, column="NOPE")
    assert_silent(m, "DK002", column="NOPE")
    assert_fires(m, "DK002", mapping="m", column="NAME")  # an existing column is still DK002
    assert len(fired(m, "DK011")) == 1


def test_dk011_even_when_the_mapping_writes_the_unknown_column() -> None:
    cols = [col("ID", nullable=False)]
    m = one_way(
        cols,
        columns={"ID": "ID", "NOPE": "ID"},
        src_pk=["ID"],
        tgt_pk=["ID"],
        map_extra={"distribution_key": ["NOPE"]},
    )
    assert_fires(m, "DK011", column="NOPE")
    assert_silent(m, "DK002")


def test_each_unmapped_key_column_reported() -> None:
    m = two_col_pk({"NAME": "NAME"})
    assert {f.location.column for f in fired(m, "DK002")} == {"ID", "CODE"}


# --- DK003 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("char_len", "src_dbms", "fires"),
    [
        (253, "postgresql", True),
        (252, "postgresql", False),  # exactly 256 bytes is allowed
        (253, "db2", True),
        (253, "mssql", True),
        (253, "informix", True),
        (253, "oracle", False),  # not checked when the source server is Oracle
        (1000, "oracle", False),
    ],
)
def test_dk003_byte_limit(char_len: int, src_dbms: str, fires: bool) -> None:
    m = wide_key(char_len, src_dbms=src_dbms)
    if fires:
        assert_fires(m, "DK003", mapping="m", table=TGT)
    else:
        assert_silent(m, "DK003")


def test_dk003_oracle_target_is_still_checked() -> None:
    assert_fires(wide_key(253, src_dbms="postgresql", tgt_dbms="oracle"), "DK003", mapping="m", table=TGT)


@pytest.mark.parametrize(
    ("types", "fires"),
    [
        # DECIMAL/NUMERIC/NUMBER(p,s): floor(p/2)+1 bytes
        (["DECIMAL(31,2)"] * 16, False),  # 16 * 16 = 256
        (["DECIMAL(31,2)"] * 16 + ["SMALLINT"], True),  # 258
        (["NUMBER(30,0)"] * 16 + ["BOOLEAN"], True),  # floor(30/2)+1 = 16: 16 * 16 + 1 = 257
        (["NUMERIC(29,0)"] * 17, False),  # floor(29/2)+1 = 15: 255
        (["TIMESTAMP"] * 25 + ["INTEGER"] + ["SMALLINT"], False),  # 250 + 4 + 2 = 256
        (["TIMESTAMP"] * 25 + ["BIGINT"], True),  # 258
        (["DATE"] * 64, False),  # 256
        (["DATE"] * 64 + ["BIT"], True),  # 257 (BIT is also DK006)
        (["CHAR(200)", "BINARY(57)"], True),  # 257 (binary is also DK007)
        (["NCHAR(128)", "NVARCHAR(128)"], False),  # 256
    ],
)
def test_dk003_byte_lengths(types: list[str], fires: bool) -> None:
    cols = [col(f"C{i}", t, nullable=False) for i, t in enumerate(types)]
    names = [c["name"] for c in cols]
    m = one_way(cols, src_pk=names, tgt_pk=names)
    if fires:
        assert_fires(m, "DK003", mapping="m", table=TGT)
    else:
        assert_silent(m, "DK003")


def test_dk003_counts_a_column_named_twice_once() -> None:
    """The DKey is a set of target columns: ["K", "K"] is K, 200 bytes, not 400."""
    m = char_key(["K", "K"])
    assert distribution_key(m, m.mappings[0]).columns == ("K",)  # type: ignore[union-attr]
    assert_silent(m, "DK003")
    over = char_key(["K", "K"], length=257)
    [finding] = fired(over, "DK003")
    assert "(K) is 257 bytes" in finding.message


def test_default_key_from_a_unique_index_naming_a_column_twice_counts_it_once() -> None:
    m = char_key(["K", "K"], default_from_unique=True)
    assert distribution_key(m, m.mappings[0]).columns == ("K",)  # type: ignore[union-attr]
    assert_fires(m, "TB005", column="K")
    assert_silent(m, "DK003")


@pytest.mark.parametrize(("tgt_dbms", "precision"), [
    ("db2", 5), ("mssql", 18), ("ase", 18), ("informix", 16), ("mysql", 10), ("oracle", 38),
    ("postgresql", 38), ("sqlite", 38), ("other", 38),
])
@pytest.mark.parametrize("decimal", ["DECIMAL", "NUMERIC", "NUMBER", "decimal"])
def test_dk003_decimal_without_precision_takes_the_target_dbms_default(tgt_dbms: str, precision: int,
                                                                      decimal: str) -> None:
    room = DKEY_LIMIT - (precision // 2 + 1)
    assert_silent(with_decimal(room, decimal, tgt_dbms=tgt_dbms), "DK003")
    [finding] = fired(with_decimal(room + 1, decimal, tgt_dbms=tgt_dbms), "DK003")
    assert f"{decimal.upper()}({precision}), the default on {tgt_dbms}" in finding.message


def test_dk003_decimal_with_a_precision_is_counted_as_declared() -> None:
    assert_silent(with_decimal(252, "DECIMAL(5,2)"), "DK003")  # 252 + 3
    assert_fires(with_decimal(254, "DECIMAL(5,2)"), "DK003")  # 254 + 3


# --- DK004-DK008: column types ---------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "code"),
    [
        ("TEXT", "DK004"),
        ("CLOB", "DK004"),
        ("BLOB", "DK004"),
        ("BYTE", "DK004"),
        ("LONG", "DK004"),
        ("LONG RAW", "DK004"),
        ("long raw", "DK004"),
        ("BIT", "DK006"),
        ("BINARY(8)", "DK007"),
        ("VARBINARY(8)", "DK007"),
        ("RAW(8)", "DK007"),
        ("REAL", "DK008"),
        ("FLOAT", "DK008"),
        ("DOUBLE", "DK008"),
    ],
)
def test_key_column_type_rules(type_: str, code: str) -> None:
    m = keyed(type_)
    assert_fires(m, code, mapping="m", table=TGT, column="K")
    others = {"DK004", "DK006", "DK007", "DK008"} - {code}
    assert not [f for f in validate(m) if f.code in others]


@pytest.mark.parametrize(
    "type_",
    [
        "INTEGER",
        "BIGINT",
        "DECIMAL(10,2)",
        "NUMBER(8,0)",
        "CHAR(10)",
        "VARCHAR(254)",
        "DATE",
        "TIMESTAMP",
        "BOOLEAN",
        "SERIAL",
    ],
)
def test_key_column_type_near_misses(type_: str) -> None:
    found = {f.code for f in validate(keyed(type_, tgt_dbms="db2"))}
    assert not found & {"DK004", "DK005", "DK006", "DK007", "DK008"}, found


def test_type_rules_only_for_key_columns() -> None:
    cols = [
        col("ID", nullable=False),
        col("DOC", "BLOB"),
        col("R", "FLOAT"),
        col("B", "BIT"),
        col("BIN", "BINARY(8)"),
        col("WIDE", "VARCHAR(4000)"),
    ]
    found = {f.code for f in validate(one_way(cols, src_pk=["ID"], tgt_pk=["ID"], tgt_dbms="db2"))}
    assert not found & {"DK003", "DK004", "DK005", "DK006", "DK007", "DK008"}, found


# --- DK005 -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "tgt_dbms", "fires"),
    [
        ("VARCHAR(255)", "db2", True),
        ("VARCHAR(254)", "db2", False),
        ("CHAR(255)", "db2", True),
        ("NVARCHAR(255)", "db2", True),
        ("VARCHAR(256)", "mssql", True),
        ("VARCHAR(255)", "mssql", False),
        ("NCHAR(256)", "mssql", True),
        ("VARCHAR(300)", "postgresql", False),
        ("VARCHAR(300)", "oracle", False),
        ("VARCHAR(300)", "informix", False),
        ("BINARY(300)", "db2", False),  # not character (DK007 instead)
    ],
)
def test_dk005_medium_character_on_target_dbms(type_: str, tgt_dbms: str, fires: bool) -> None:
    m = keyed(type_, tgt_dbms=tgt_dbms)
    if fires:
        assert_fires(m, "DK005", mapping="m", table=TGT, column="K")
    else:
        assert_silent(m, "DK005")


def test_dk005_uses_the_target_dbms_not_the_source() -> None:
    assert_silent(keyed("VARCHAR(255)", src_dbms="db2", tgt_dbms="postgresql"), "DK005")
    assert_fires(keyed("VARCHAR(255)", src_dbms="postgresql", tgt_dbms="db2"), "DK005", column="K")


# --- DK009 / DK010 -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "src_unique", "fires"),
    [
        ({"K": "ID"}, None, False),  # the source primary key
        ({"K": "CODE"}, {"UX_CODE": ["CODE"]}, False),  # a source unique index
        ({"K": "CODE"}, None, True),
        ({"K": {"method": "concat", "inputs": ["ID", "CODE"], "sep": "-"}}, None, False),  # contains the PK
        ({"K": {"method": "concat", "inputs": ["CODE", "NAME"], "sep": "-"}}, None, True),
        (
            {"K": {"method": "concat", "inputs": ["CODE", "NAME"], "sep": "-"}},
            {"UX": ["CODE", "NAME"]},
            False,
        ),
        ({"K": {"method": "concat", "inputs": ["CODE", "NAME"], "sep": "-"}}, {"UX": ["CODE", "ID"]}, True),
        (
            {"K": {"method": "upper", "input": {"method": "cast", "input": "ID", "type": "VARCHAR(12)"}}},
            None,
            False,
        ),
        ({"K": {"method": "constant", "value": "X"}}, None, True),  # fed by no source column
        ({"K": {"method": "system", "name": "site"}}, None, True),
    ],
)
def test_dk009_source_columns_feeding_the_key(columns: dict[str, Any], src_unique: Any, fires: bool) -> None:
    m = fed_by({**columns, "NAME": "NAME"}, src_unique=src_unique)
    if fires:
        assert_fires(m, "DK009", mapping="m", table=SRC)
    else:
        assert_silent(m, "DK009")


@pytest.mark.parametrize(
    ("key", "tgt_unique", "fires"),
    [
        (["ID"], None, False),
        (["ID", "NAME"], None, False),  # contains the primary key
        (["NAME"], None, True),
        (["NAME"], {"UX_NAME": ["NAME"]}, False),
        (["NAME"], {"UX_BOTH": ["NAME", "ID"]}, True),
    ],
)
def test_dk010_key_unique_in_target(key: list[str], tgt_unique: Any, fires: bool) -> None:
    m = explicit_key(key, tgt_unique=tgt_unique, src_unique={"UX_NAME": ["NAME"]})
    if fires:
        assert_fires(m, "DK010", mapping="m", table=TGT)
    else:
        assert_silent(m, "DK010")


def _all_three(**kw: Any) -> Any:
    """A mapping where DK009, DK010 and NN001 all apply: protected, Oracle source, everything nullable,
    explicit DKey NAME, unique in neither table."""
    cols = [col("ID"), col("NAME", "VARCHAR(40)"), col("CODE", "CHAR(4)")]
    return one_way(cols, src_pk=["ID"], tgt_pk=["ID"], src_dbms="oracle", protected=True, **kw)


def test_dk009_dk010_nn001_fire_when_key_complete() -> None:
    m = _all_three(map_extra={"distribution_key": ["NAME", "CODE"]})
    for code in ("DK009", "DK010", "NN001"):
        assert_fires(m, code, mapping="m")


@pytest.mark.parametrize("how", ["unmapped-column", "unknown-column"])
def test_dk009_dk010_nn001_skipped_when_key_incomplete(how: str) -> None:
    if how == "unmapped-column":
        m = _all_three(columns={"ID": "ID", "NAME": "NAME"}, map_extra={"distribution_key": ["NAME", "CODE"]})
        assert_fires(m, "DK002", column="CODE")
    else:
        m = _all_three(map_extra={"distribution_key": ["NAME", "NOPE"]})
        assert_fires(m, "DK011", column="NOPE")
    for code in ("DK009", "DK010", "NN001"):
        assert_silent(m, code)


def test_key_rules_are_per_mapping() -> None:
    """Two mappings into one table: only the one with the bad key is reported."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    m = model(
        [server("s"), server("t"), server("u")],
        [
            table("s", "T", cols, pk=["ID"]),
            table("u", "T", cols, pk=["ID"]),
            table("t", "T", cols, pk=["ID"]),
        ],
        [
            mapping("good", "s.T", "t.T", {"ID": "ID", "NAME": "NAME"}),
            mapping("bad", "u.T", "t.T", {"NAME": "NAME"}),
        ],
    )
    assert [f.location.mapping for f in fired(m, "DK002")] == ["bad"]
