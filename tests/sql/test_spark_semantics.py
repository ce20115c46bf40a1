"""The reference evaluator's Spark semantics that a differential probe found wrong, without a JVM: NOT LIKE,
a DOUBLE or FLOAT as text, regexp_replace's edges, TIMESTAMP and DATE casts, FLOAT's 32 bits, and Python
errors that escaped a row. tests/sql/test_reference_equals_spark.py holds the same cases against Spark."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlglot

from engine.sql import evaluate
from engine.sql.allowlist import allowlist_problem
from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.evaluate import evaluate_sql
from engine.sql.floats import Float32, spark_float_text, to_float32

NOON = datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)


def test_not_like_and_not_ilike_negate() -> None:
    assert evaluate_sql("S NOT LIKE 'SKIP%'", {"S": "abc"}) is True
    assert evaluate_sql("S NOT LIKE 'SKIP%'", {"S": "SKIPME"}) is False
    assert evaluate_sql("S NOT ILIKE 'skip%'", {"S": "SKIPME"}) is False
    assert evaluate_sql("S NOT ILIKE 'skip%'", {"S": "other"}) is True
    assert evaluate_sql("S NOT LIKE 'a%'", {"S": None}) is None
    assert evaluate_sql("NOT S LIKE 'a%'", {"S": "abc"}) is False


@pytest.mark.parametrize(("value", "text"), [
    (0.1, "0.1"), (1e-3, "0.001"), (1e-4, "1.0E-4"), (100.0, "100.0"), (9999999.0, "9999999.0"), (1e7, "1.0E7"),
    (1.2345678e7, "1.2345678E7"), (123456789.123, "1.23456789123E8"), (1e20, "1.0E20"), (5e-324, "4.9E-324"),
    (1e-323, "1.0E-323"), (1.7976931348623157e308, "1.7976931348623157E308"), (-0.0, "-0.0"), (0.0, "0.0"),
    (math.nan, "NaN"), (math.inf, "Infinity"), (-math.inf, "-Infinity"), (-2.5, "-2.5"),
    (1e23, "9.999999999999999E22"), (2e23, "1.9999999999999998E23"),  # the JDK 17 algorithm's longer digits
    (1.373428634809579e18, "1.37342863480957901E18"), (8.41e21, "8.409999999999999E21"),
])
def test_a_double_is_text_as_the_jvm_writes_it(value: float, text: str) -> None:
    assert spark_float_text(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (0.1, "0.1"), (16777217.0, "1.6777216E7"), (85001538371584.0, "8.5001538E13"), (1.4e-45, "1.4E-45"),
    (3.4028234663852886e38, "3.4028235E38"), (-2577569024.0, "-2.57756902E9"),
])
def test_a_float_is_text_with_the_digits_of_32_bits(value: float, text: str) -> None:
    assert spark_float_text(to_float32(value)) == text


@pytest.mark.parametrize(("sql", "row", "expected"), [
    ("cast(F AS STRING)", {"F": 1e-4}, "1.0E-4"),
    ("concat(S, F)", {"S": "x", "F": 123456789.0}, "x1.23456789E8"),
    ("F || ''", {"F": 1e20}, "1.0E20"),
    ("length(F)", {"F": 1e308}, 7),
    ("substring(F, 1, 3)", {"F": 1e-4}, "1.0"),
    ("trim(F)", {"F": math.inf}, "Infinity"),
    ("concat_ws(',', F, 1)", {"F": math.nan}, "NaN,1"),
    ("cast(F AS STRING) = '1.0E20'", {"F": 1e20}, True),
    ("cast(F AS DECIMAL(38,0))", {"F": 1.373428634809579e18}, Decimal("1373428634809579010")),
])
def test_a_double_turned_into_text_reads_as_spark_writes_it(sql: str, row: dict[str, Any], expected: Any) -> None:
    assert evaluate_sql(sql, row) == expected


def test_regexp_replace_of_empty_text_and_its_replacement_edges() -> None:
    assert evaluate_sql("regexp_replace(S, '^', '>')", {"S": ""}) == ">"
    assert evaluate_sql("regexp_replace(S, '.*', 'X')", {"S": ""}) == "X"
    assert evaluate_sql("regexp_replace(S, '^', '>', 2)", {"S": ""}) == ""
    assert evaluate_sql("regexp_replace(S, '$', '<', 3)", {"S": "abc"}) == "abc<"
    assert evaluate_sql("regexp_replace(S, '$', '<', 4)", {"S": "abc"}) == "abc"
    assert evaluate_sql("regexp_replace(S, 'b', '\\\\\\\\')", {"S": "abc"}) == "a\\c"
    assert evaluate_sql("regexp_replace(S, 'z', '\\\\')", {"S": "abc"}) == "abc"  # no match: never read
    assert evaluate_sql("regexp_replace(S, 'z', '$')", {"S": "abc"}) == "abc"
    for bad in ("regexp_replace(S, '[a-z]', '\\\\')", "regexp_replace(S, 'b', '$')", "regexp_replace(S, 'b', '$2')"):
        with pytest.raises(SqlRuntimeError):
            evaluate_sql(bad, {"S": "abc"})


@pytest.mark.parametrize(("sql", "expected"), [
    ("cast(T AS BIGINT)", 1767607200), ("cast(T AS INT)", 1767607200), ("cast(T AS DOUBLE)", 1767607200.123456),
    ("cast(T AS DECIMAL(20,6))", Decimal("1767607200.123456")), ("cast(T AS STRING)", "2026-01-05 10:00:00.123456"),
    ("cast(T AS DATE)", date(2026, 1, 5)),
    ("cast(cast(T AS BIGINT) AS TIMESTAMP)", datetime(2026, 1, 5, 10, tzinfo=UTC)),
])
def test_a_timestamp_meets_numbers_as_seconds_since_the_epoch(sql: str, expected: Any) -> None:
    assert evaluate_sql(sql, {"T": NOON}) == expected


def test_a_timestamp_before_the_epoch_rounds_down_and_a_small_integer_overflows() -> None:
    assert evaluate_sql("cast(T AS BIGINT)", {"T": datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)}) == -1
    with pytest.raises(SqlRuntimeError, match="CAST_OVERFLOW"):
        evaluate_sql("cast(T AS SMALLINT)", {"T": NOON})
    assert evaluate_sql("try_cast(T AS TINYINT)", {"T": NOON}) is None


def test_cast_to_float_is_32_bits() -> None:
    assert evaluate_sql("cast(I AS FLOAT)", {"I": 16777217}) == 16777216.0
    assert evaluate_sql("cast(I AS FLOAT)", {"I": 2147483647}) == 2147483648.0
    assert evaluate_sql("cast(F AS FLOAT)", {"F": 1e308}) == math.inf
    assert evaluate_sql("cast(cast('0.1' AS FLOAT) AS STRING)", {}) == "0.1"
    assert evaluate_sql("cast(cast(0.1 AS FLOAT) + 1 AS STRING)", {}) == "1.1000000014901161"  # FLOAT + INT: DOUBLE
    assert evaluate_sql("cast(cast(I AS FLOAT) + cast(0.1 AS FLOAT) AS STRING)", {"I": 7}) == "7.1"
    assert isinstance(evaluate_sql("-cast(0.1 AS FLOAT)", {}), Float32)


def test_python_errors_become_the_rows_sql_error_or_spark_values() -> None:
    assert evaluate_sql("round(F, 0)", {"F": 1e308}) == 1e308
    assert evaluate_sql("round(F, 1)", {"F": math.inf}) == math.inf
    assert evaluate_sql("round(F, 0)", {"F": -0.4}) == 0.0
    assert math.copysign(1.0, evaluate_sql("round(F, 0)", {"F": -0.4})) == 1.0
    assert math.isnan(evaluate_sql("(F * 10) % 2", {"F": 1e308}))
    assert evaluate_sql("F % (F * 10)", {"F": 1e308}) == 1e308
    assert evaluate_sql("99999999999999999999999999999999999999 % 7", {}) == 1


def test_any_python_arithmetic_error_on_a_row_is_an_sql_error_naming_the_expression(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ev: Any, node: Any) -> Any:
        raise OverflowError("math range error")

    monkeypatch.setitem(evaluate._HANDLERS, sqlglot.exp.Abs, broken)
    with pytest.raises(SqlRuntimeError, match=r"'ABS\(F\)' fails on this row: OverflowError"):
        evaluate_sql("abs(F) + 1", {"F": 2.0})


@pytest.mark.parametrize("sql", ["CAST(x AS TIMESTAMP)", "TIMESTAMP '2020-01-01 00:00:00'", "DATE '2020-01-01'",
                                 "CAST(x AS DATE)", "try_cast(x AS TIMESTAMP)"])
def test_timestamp_and_date_casts_and_literals_are_on_the_allow_list(sql: str) -> None:
    assert allowlist_problem(sqlglot.parse_one(sql, read="spark")) is None


def test_timestamp_ntz_stays_off_the_allow_list() -> None:
    assert "TIMESTAMP_NTZ" in (allowlist_problem(sqlglot.parse_one("CAST(x AS TIMESTAMP_NTZ)", read="spark")) or "")


@pytest.mark.parametrize(("text", "expected"), [
    ("2020-01-01", datetime(2020, 1, 1, tzinfo=UTC)), ("2020-1-1 1:2:3", datetime(2020, 1, 1, 1, 2, 3, tzinfo=UTC)),
    ("2020", datetime(2020, 1, 1, tzinfo=UTC)), (" 2020-01-01T01:02:03Z ", datetime(2020, 1, 1, 1, 2, 3, tzinfo=UTC)),
    ("2020-01-01 01:02:03+01:00", datetime(2020, 1, 1, 0, 2, 3, tzinfo=UTC)),
    ("2020-01-01 01:02:03 PST", datetime(2020, 1, 1, 9, 2, 3, tzinfo=UTC)),
    ("2020-01-01 01:02:03.1234567891", datetime(2020, 1, 1, 1, 2, 3, 123456, tzinfo=UTC)),
])
def test_text_cast_to_timestamp_reads_as_spark_reads_it(text: str, expected: datetime) -> None:
    assert evaluate_sql("cast(S AS TIMESTAMP)", {"S": text}) == expected


@pytest.mark.parametrize("text", ["abc", "", "2020-01-01T", "2020-13-01", "2020-01-01 24:00:00", "2020-02-30"])
def test_text_that_is_no_timestamp_is_cast_invalid_input(text: str) -> None:
    with pytest.raises(SqlRuntimeError, match="CAST_INVALID_INPUT"):
        evaluate_sql("cast(S AS TIMESTAMP)", {"S": text})
    assert evaluate_sql("try_cast(S AS TIMESTAMP)", {"S": text}) is None


def test_dates_read_cast_compare_and_render_as_in_spark() -> None:
    assert evaluate_sql("cast(S AS DATE)", {"S": "2020-01-01 garbage"}) == date(2020, 1, 1)
    assert evaluate_sql("DATE '2020-01-01' = TIMESTAMP '2020-01-01 00:00:00'", {}) is True
    assert evaluate_sql("DT > '2020-02-28 23:00:00'", {"DT": date(2020, 2, 29)}) is True
    assert evaluate_sql("concat(DT, 'x')", {"DT": date(2020, 2, 29)}) == "2020-02-29x"
    assert evaluate_sql("cast(cast('0001-01-01' AS TIMESTAMP) AS STRING)", {}) == "0001-01-01 00:00:00"
    with pytest.raises(SqlRuntimeError, match="CAST_INVALID_INPUT"):
        evaluate_sql("cast(S AS DATE)", {"S": "2020-01-01x"})


def test_a_float_cast_from_an_integer_meets_a_double_as_the_integer() -> None:
    """Spark's SimplifyCasts drops INT -> FLOAT -> DOUBLE to INT -> DOUBLE (the probe's find)."""
    assert evaluate_sql("cast(I AS FLOAT) * 3", {"I": 2147483647}) == 6442450941.0
    assert evaluate_sql("cast(cast(I AS FLOAT) AS DOUBLE)", {"I": 16777217}) == 16777217.0
    assert evaluate_sql("cast(I AS FLOAT) = cast(16777216 AS FLOAT)", {"I": 16777217}) is True


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    ("a.b", "axb", True), ("a.b", "a\nb", False), ("a.b", "a\rb", False), ("a.b", "a\x85b", False),
    ("a.b", "a\u2028b", False), ("a.b", "a\u2029b", False), ("a.*b", "a\rb", False), (".", "\r\n", False),
    ("(?s)a.b", "a\u2028b", True), ("(?s:a.)b.", "a\nb\n", False), ("(?s:a.)b.", "a\rbx", True),
    ("a(?s).b", "a\rb", True), ("(?s)(?-s)a.b", "a\rb", False), ("(?i)A.B", "a\x85b", False),
    ("[.]", "x", False), ("[.]", ".", True), ("\\.", "a.b", True), ("[^.]", ".", False),
    ("^a$", "a\r\n", True), ("^a$", "a\r", True), ("^a$", "a\x85", True), ("^a$", "a\u2029", True),
    ("^a$", "a\n\n", False), ("^a$", "a\n\r", False), ("^.$", "a\r", True), ("^$", "\r\n", True),
    ("a\\Z", "a\u2028", True), ("a\\Z\\n", "a\n", True), ("a\\z", "a\n", False), ("\\Z\\z", "a\n", True),
    ("[$]", "$", True), ("\\$", "a", False), ("\\.$", "a.\n", True),
    ("(?m)^b", "a\rb", True), ("(?m)^b", "a\u2028b", True), ("(?m)a$", "a\u2029b", True),
    ("(?m)a$", "a\r\nb", True), ("(?m:a$)", "a\x85b", True), ("(?m)^", "", False), ("(?m)^$", "a\n", False),
    ("(?m)^$", "a\n\r", True), ("(?m)^$", "\r\r", True), ("(?m)(?<=^a)b", "x\rab", True),
    ("(?m:^b)|^a", "x\na", False), ("((?m)^b|^a)", "x\na", True), ("(?m)(?-m)^b", "x\nb", False),
    ("\\v", "a\x0c", True), ("\\v", "a\u2028", True), ("[\\v]x", "\nx", True),
])
def test_rlike_reads_lines_as_java_does(pattern: str, text: str, expected: bool) -> None:
    """Java's `.` stops at every line terminator (`\\n`, `\\r`, `\\u0085`, `\\u2028`, `\\u2029`), its `$` is the
    end or before a last one (`\\r\\n` one), `(?m)` and `(?s)` hold to the end of their group, `\\Z` is `$`, `\\z`
    the end, `\\v` vertical whitespace: each case as Spark gives it (tests/sql/test_reference_equals_spark.py)."""
    assert evaluate_sql("S RLIKE P", {"S": text, "P": pattern}) is expected


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    ("a(?i)b|c", "C", True), ("a(?i)b|c", "aB", True), ("a(?i)b|c", "Ab", False), ("(a(?i)b|c)d", "CD", False),
    ("(a(?i)b|c)d", "Cd", True), ("^(?i)(true|false)\\z", "TRUE", True), ("^(?i)(true|false)\\z", "TRUE\n", False),
    ("(?i)a(?-i)b|c", "Ab", True), ("(?i)a(?-i)b|c", "C", False), ("a|(?i)B", "b", True), ("a|(?i)B", "A", False),
    ("(?i-s)a", "A", True), ("(?-i)a", "a", True), ("(?i)", "", True),
    ("\\0101", "A", True), ("\\0101", "a", False), ("a\\Qb", "ab", True), ("a{2,}", "a", False),
])
def test_inline_flags_hold_to_the_end_of_their_group_as_in_java(pattern: str, text: str, expected: bool) -> None:
    """Java's `(?i)` in the middle of a pattern holds to the end of its group, across `|` (Python 3.11 refuses
    it there); `\\0` takes up to three octal digits, `\\Q` quotes: each as Spark gives it."""
    assert evaluate_sql("S RLIKE P", {"S": text, "P": pattern}) is expected


@pytest.mark.parametrize(("sql", "row", "expected"), [
    ("regexp_replace(S, '$', '<')", {"S": "a\r\n"}, "a<\r\n<"),
    ("regexp_replace(S, '$', '<')", {"S": "a\u2028"}, "a<\u2028<"),
    ("regexp_replace(S, '.', '<')", {"S": "a\r\nb"}, "<\r\n<"),
    ("regexp_replace(S, '(?m)^', '<')", {"S": "a\nb\n"}, "<a\n<b\n"),
    ("regexp_replace(S, '(?m)^', '<')", {"S": ""}, ""),
    ("regexp_replace(S, '(?m)$', '<')", {"S": "a\rb"}, "a<\rb<"),
    ("regexp_replace(S, '|a', '<')", {"S": "ab"}, "<a<b<"),  # Python's sub: <<<b<
    ("regexp_replace(S, 'x*', '<')", {"S": "abxd"}, "<a<b<<d<"),
    ("regexp_replace(S, P, '<')", {"S": "a\n", "P": "$|\\n"}, "a<\n<"),
    ("regexp_replace(S, P, '<')", {"S": "a\r\n", "P": "$|\\n"}, "a<\r<<"),
    ("regexp_replace(S, '$', '<', 2)", {"S": "a\r\n"}, "a<\r\n<"),
    ("regexp_replace(S, '$', '<', 3)", {"S": "a\r\n"}, "a\r\n<"),  # Java's `$` looks before the region
    ("regexp_replace(S, '(?m)^', '<', 3)", {"S": "a\r\nb"}, "a\r<\n<b"),
    ("regexp_replace(S, '(?i)a(?-i)|b', '<')", {"S": "AbaB"}, "<<<B"),
])
def test_regexp_replace_finds_its_matches_as_java_does(sql: str, row: dict[str, Any], expected: str) -> None:
    """Java's find starts one character further after an empty match (Python's `sub` also tries a longer
    match there), and Java's `$` and `(?m)^` are as in RLIKE: each as Spark gives it."""
    assert evaluate_sql(sql, row) == expected


@pytest.mark.parametrize("pattern", [
    "[a[b]]", "[[:alpha:]]", "[a&&b]", "(?x)a b", "(?d).", "(?u)a", "(?U)a", "(?c)a", "(?#c)a", "(?P<n>a)",
    "(?<n>a)", "(?(1)a|b)", "a{", "a{,2}", "a(?s)*", "\\0", "(a)\\10", "[\\1]", "[\\Qa\\E]", "\\h",
])
def test_a_pattern_java_and_python_read_apart_is_refused(pattern: str) -> None:
    """A class in a class (Java's union) or `&&` (its intersection), the flags Java has and the translation does
    not (`x`, `d`, `u`, `U`, `c`), Python's own groups, a `{` that is no quantifier, a multi-digit back
    reference: the run fails in one line (UnsupportedSql, not an error of the row) rather than guess."""
    with pytest.raises(UnsupportedSql) as refused:
        evaluate_sql("S RLIKE P", {"S": "ab", "P": pattern})
    assert refused.type is UnsupportedSql


def _today_at(clock: time, zone: tzinfo) -> datetime:
    return datetime.combine(datetime.now(zone).date(), clock, zone).astimezone(UTC)


@pytest.mark.parametrize(("text", "clock", "zone"), [
    ("10:00", time(10), UTC), ("10:00:01", time(10, 0, 1), UTC), ("T10:00", time(10), UTC), ("T10", time(10), UTC),
    (" 10:00\n", time(10), UTC), ("1:2:3.4", time(1, 2, 3, 400000), UTC), ("0:0", time(0), UTC),
    ("10:00:01.123456789", time(10, 0, 1, 123456), UTC), ("10:00:00 Z", time(10), UTC),
    ("10:00:00.Z", time(10), UTC), ("T10:00:00-08", time(10), timezone(timedelta(hours=-8))),
    ("10:00:01+02:00", time(10, 0, 1), timezone(timedelta(hours=2))),
    ("10:00:01 America/Los_Angeles", time(10, 0, 1), ZoneInfo("America/Los_Angeles")),
    ("10:00:01Pacific/Kiritimati", time(10, 0, 1), ZoneInfo("Pacific/Kiritimati")),
])
def test_a_time_without_a_date_is_that_time_today(text: str, clock: time, zone: tzinfo) -> None:
    """Spark reads a time without a date as that time on today's date in its zone (UTC, the session's, without
    one): the value depends on the day of the run, so it is compared with today's computed around it."""
    for sql in ("cast(S AS TIMESTAMP)", "try_cast(S AS TIMESTAMP)"):
        before = _today_at(clock, zone)
        assert evaluate_sql(sql, {"S": text}) in (before, _today_at(clock, zone)), sql
    before = _today_at(time(10), UTC)
    assert evaluate_sql("TIMESTAMP '10:00'", {}) in (before, _today_at(time(10), UTC))


@pytest.mark.parametrize("text", [" T10:00", "t10:00", "T 10:00", "T", "10", "10:", "100:00", "10:000", "+10:00",
                                  "-10:00", "25:00", "23:60", "10:00Z", "T10Z", "2020-01-01 01Z",
                                  "2020-01-01 01:02 UTC", "2020-01-01 01 UTC"])
def test_a_time_spark_does_not_read_is_cast_invalid_input(text: str) -> None:
    """The `T` form only with the `T` first (Spark's `j == 0`), `hour:minute` at least, a zone only after
    the seconds, with a date or without."""
    with pytest.raises(SqlRuntimeError, match="CAST_INVALID_INPUT"):
        evaluate_sql("cast(S AS TIMESTAMP)", {"S": text})
    assert evaluate_sql("try_cast(S AS TIMESTAMP)", {"S": text}) is None


def test_a_time_without_a_date_is_no_date() -> None:
    for text in ("10:00", "T10:00", "10:00:01"):
        assert evaluate_sql("try_cast(S AS DATE)", {"S": text}) is None
        with pytest.raises(SqlRuntimeError, match="CAST_INVALID_INPUT"):
            evaluate_sql("cast(S AS DATE)", {"S": text})


@pytest.mark.parametrize(("sql", "text", "expected"), [
    ("try_cast(S AS TIMESTAMP)", "\x7f2020-01-01\x7f", datetime(2020, 1, 1, tzinfo=UTC)),
    ("try_cast(S AS DATE)", "2020-01-01\x7f", date(2020, 1, 1)), ("try_cast(S AS INT)", "\x7f\x7f12 ", 12),
    ("try_cast(S AS BOOLEAN)", "true\x7f", True), ("try_cast(S AS DOUBLE)", "\x7f1.5", None),
    ("try_cast(S AS DECIMAL(10,2))", "\x7f1.5", None), ("try_cast(S AS INT)", "1\x7f2", None),
])
def test_a_del_around_text_is_trimmed_where_spark_trims_it(sql: str, text: str, expected: Any) -> None:
    """Spark trims whitespace and ISO controls, DEL included, off text cast to a TIMESTAMP, DATE, integer or
    BOOLEAN; a DOUBLE or DECIMAL keeps it, and does not read."""
    assert evaluate_sql(sql, {"S": text}) == expected
