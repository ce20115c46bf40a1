"""TY005 (Mapwright): a target column fed a value of an incompatible or narrower type.

The rule follows the method tree (copy, concat, substring, cast, constant,
upper/lower/trim; split gives text of unknown length; an expression is not
typed) and names the cast that makes the conversion explicit.
"""

from __future__ import annotations

from typing import Any

import pytest
from rulekit import TGT, Case, assert_fires, assert_silent, col, fired, one_way

from engine.core.narrowing import narrowing
from engine.core.types import parse_type


def feed(src_type: str, tgt_type: str, method: Any = "V", *, extra_src: list[dict[str, Any]] = ()) -> Any:  # type: ignore[assignment]
    """s.T(ID, V src_type, ...) -> t.T(ID, V tgt_type), V computed by `method`."""
    src = [col("ID", nullable=False), col("V", src_type), *extra_src]
    tgt = [col("ID", nullable=False), col("V", tgt_type)]
    return one_way(src, tgt, {"ID": "ID", "V": method}, src_pk=["ID"], tgt_pk=["ID"])


def concat(*inputs: Any, sep: str = "") -> dict[str, Any]:
    return {"method": "concat", "inputs": list(inputs), "sep": sep}


def cast(input_: Any, type_: str) -> dict[str, Any]:
    return {"method": "cast", "input": input_, "type": type_}


WHERE = {"mapping": "m", "table": TGT, "column": "V"}
CASES = [
    Case("TY005", "varchar2-into-integer", lambda: feed("VARCHAR2(30)", "INTEGER"),
         lambda: feed("VARCHAR2(30)", "INTEGER", cast("V", "INTEGER")), WHERE),
    Case("TY005", "concat-into-number",
         lambda: feed("INTEGER", "BIGINT", concat("V", "ID")),
         lambda: feed("INTEGER", "VARCHAR(30)", concat("V", "ID", sep="-")), WHERE),
    Case("TY005", "decimal-narrower", lambda: feed("DECIMAL(12,2)", "DECIMAL(8,2)"),
         lambda: feed("DECIMAL(12,2)", "DECIMAL(14,2)"), WHERE),
    Case("TY005", "varchar-narrower", lambda: feed("VARCHAR(80)", "VARCHAR(40)"),
         lambda: feed("VARCHAR(40)", "VARCHAR(80)"), WHERE),
]


def messages(m: Any) -> list[str]:
    return [f.message for f in fired(m, "TY005")]


# --- the brief's four shapes, with the suggested cast ------------------------------------


def test_text_into_integer_suggests_a_cast() -> None:
    [msg] = messages(feed("VARCHAR2(30)", "INTEGER"))
    assert "VARCHAR2(30) from s.T.V" in msg
    assert "cast(V as INTEGER)" in msg


def test_concat_into_a_number_names_the_concat() -> None:
    [msg] = messages(feed("INTEGER", "DECIMAL(20,0)", concat("V", "ID", sep="-")))
    assert "concat(V, ID)" in msg and "cast(concat(V, ID) as DECIMAL(20,0))" in msg


def test_decimal_losing_integer_digits_says_how_many() -> None:
    [msg] = messages(feed("DECIMAL(12,2)", "DECIMAL(8,2)"))
    assert "10 digits" in msg and "6" in msg and "cast(V as DECIMAL(8,2))" in msg


def test_decimal_losing_scale_fires_and_wider_scale_does_not() -> None:
    assert "decimal places" in messages(feed("DECIMAL(10,4)", "DECIMAL(12,2)"))[0]
    assert_silent(feed("DECIMAL(10,2)", "DECIMAL(12,4)"), "TY005")


def test_varchar_narrower_says_truncated_and_suggests_cast() -> None:
    [msg] = messages(feed("VARCHAR(80)", "VARCHAR(40)"))
    assert "80 characters may be cut to 40" in msg and "cast(V as VARCHAR(40))" in msg


# --- following the method tree -------------------------------------------------------


@pytest.mark.parametrize(("src", "tgt", "method", "fires"), [
    ("VARCHAR(20)", "VARCHAR(10)", {"method": "substring", "input": "V", "start": 1, "length": 10}, False),
    ("VARCHAR(20)", "VARCHAR(10)", {"method": "substring", "input": "V", "start": 1, "length": 12}, True),
    ("VARCHAR(20)", "VARCHAR(10)", {"method": "substring", "input": "V", "start": 11}, False),
    ("VARCHAR(20)", "VARCHAR(10)", {"method": "substring", "input": "V", "start": 5}, True),
    ("VARCHAR(80)", "VARCHAR(40)", cast("V", "VARCHAR(40)"), False),
    ("VARCHAR(10)", "VARCHAR(40)", cast("V", "VARCHAR(80)"), True),
    ("VARCHAR(80)", "VARCHAR(40)", {"method": "upper", "input": "V"}, True),
    ("VARCHAR(40)", "VARCHAR(40)", {"method": "lower", "input": "V"}, False),
    ("CHAR(40)", "VARCHAR(40)", {"method": "trim", "input": "V"}, False),
    ("VARCHAR(30)", "INTEGER", {"method": "trim", "input": "V"}, True),
    ("CHAR(2)", "VARCHAR(14)", concat("V", "ID", sep="-"), False),  # 2 + "-" + 11 (-2147483648)
    ("CHAR(2)", "VARCHAR(13)", concat("V", "ID", sep="-"), True),
    ("INTEGER", "VARCHAR(11)", "V", False),  # -2147483648 takes 11 characters
    ("INTEGER", "VARCHAR(5)", "V", True),
    ("DATE", "TIMESTAMP", "V", False),
    ("TIMESTAMP", "DATE", "V", True),
    ("DATE", "INTEGER", "V", True),
    ("DOUBLE", "DECIMAL(10,2)", "V", True),
    ("DOUBLE", "REAL", "V", True),
    ("REAL", "DOUBLE", "V", False),
    ("INTEGER", "DOUBLE", "V", False),
    ("SMALLINT", "INTEGER", "V", False),
    ("BIGINT", "INTEGER", "V", True),
    ("INTEGER", "DECIMAL(10,0)", "V", False),
    ("CLOB", "VARCHAR(4000)", "V", True),
    ("VARCHAR(4000)", "CLOB", "V", False),
    ("VARCHAR(10)", "BLOB", "V", True),
    ("BINARY(16)", "VARBINARY(8)", "V", True),
    ("VARCHAR(30)", "INTEGER", {"method": "split", "input": "V", "sep": "-", "index": 1}, True),
    ("VARCHAR(30)", "CHAR(2)", {"method": "split", "input": "V", "sep": "-", "index": 0}, False),
    ("VARCHAR(30)", "INTEGER", cast({"method": "split", "input": "V", "sep": "-", "index": 1}, "INTEGER"), False),
    ("VARCHAR(30)", "INTEGER", {"method": "expression", "sql": "cast(V as int)"}, False),
    ("VARCHAR(30)", "DATE", {"method": "system", "name": "commit_ts"}, True),
    ("VARCHAR(30)", "TIMESTAMP", {"method": "system", "name": "commit_ts"}, False),
    ("VARCHAR(30)", "INTEGER", {"method": "system", "name": "txn"}, False),
    ("UDT:point", "UDT:point", "V", False),
])
def test_method_tree(src: str, tgt: str, method: Any, fires: bool) -> None:
    got = fired(feed(src, tgt, method), "TY005", column="V")
    assert bool(got) is fires, [f.message for f in got]


@pytest.mark.parametrize(("value", "tgt", "fires"), [
    ("HQ", "CHAR(2)", False), ("HQX", "CHAR(2)", True), (42, "SMALLINT", False), (123456, "SMALLINT", True),
    ("17", "INTEGER", False), ("abc", "INTEGER", True), (0.5, "INTEGER", True), (1.25, "DECIMAL(5,2)", False),
    (True, "BOOLEAN", False), (None, "INTEGER", False), (12345, "VARCHAR(4)", True),
    ("2026-01-05", "DATE", False), ("2026-01-05T10:30:00", "TIMESTAMP", False), ("2026-01-05T10:30:00", "DATE", True),
    ("soon", "TIMESTAMP", True), (20260105, "DATE", True),
])
def test_constants_are_judged_by_their_value(value: Any, tgt: str, fires: bool) -> None:
    got = fired(feed("INTEGER", tgt, {"method": "constant", "value": value}), "TY005")
    assert bool(got) is fires, [f.message for f in got]


@pytest.mark.parametrize(("value", "tgt", "fires", "says"), [
    ("1e9999999", "DECIMAL(10,2)", True, "1e9999999 has 10,000,000 digits before the point, DECIMAL(10,2) holds 8"),
    ("1e-9999999", "DECIMAL(10,2)", True, "1e-9999999 has 9,999,999 decimal places, DECIMAL(10,2) keeps 2"),
    ("1e999999999999999999999", "DECIMAL(10,2)", True, "beyond the range of any number"),
    ("1e999999999999999999999", "FLOAT", True, "beyond the range of any number"),
    ("1e400", "DOUBLE", True, "beyond the range of DOUBLE"),
    ("1e39", "REAL", True, "beyond the range of REAL"),
    ("1e300", "DOUBLE", False, ""),
    ("1e7", "DECIMAL(10,2)", False, ""),
    ("12.50000", "DECIMAL(4,2)", False, ""),
    ("-0", "DECIMAL(10,2)", False, ""),
])
def test_constants_beyond_the_decimal_context_are_judged_not_crashed(value: str, tgt: str, fires: bool,
                                                                     says: str) -> None:
    """An exponent beyond the decimal module's context (1e9999999) once raised decimal.Overflow."""
    got = messages(feed("INTEGER", tgt, {"method": "constant", "value": value}))
    assert bool(got) is fires, got
    assert all(says in msg for msg in got), got


def test_unknown_source_column_is_left_to_mp001() -> None:
    m = feed("INTEGER", "VARCHAR(2)", "NOPE")
    assert_fires(m, "MP001", column="V")
    assert_silent(m, "TY005")


def test_each_narrowed_column_is_reported_once_at_its_target_column() -> None:
    src = [col("ID", nullable=False), col("A", "VARCHAR(80)"), col("B", "VARCHAR(30)")]
    tgt = [col("ID", nullable=False), col("A", "VARCHAR(40)"), col("B", "INTEGER")]
    m = one_way(src, tgt, src_pk=["ID"], tgt_pk=["ID"])
    assert sorted(f.location.column for f in fired(m, "TY005")) == ["A", "B"]


def test_narrowing_is_directional() -> None:
    assert narrowing(parse_type("VARCHAR(80)"), parse_type("VARCHAR(40)")) is not None
    assert narrowing(parse_type("VARCHAR(40)"), parse_type("VARCHAR(80)")) is None
