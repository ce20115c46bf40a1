"""The reference evaluator equals Spark (ANSI mode) on the allow-list: values, NULLs, errors.

Each example is a batch: a few generated rows as ONE Spark DataFrame and many generated expressions
evaluated in ONE job (a column each). An expression the reference says fails (division by zero, a
strict cast of text that is not a number) must fail on Spark too; a few of those are run alone.
`MAPWRIGHT_SQL_EXAMPLES` runs the property test on that many batches (12 by default; with
`MAPWRIGHT_EXPLORE=1`, new random ones).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from exprgen import SCHEMA, TYPES, any_expr, rows
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pyspark.sql import functions as F

from engine.sql.errors import SqlRuntimeError
from engine.sql.evaluate import evaluate_sql
from engine.sql.spark import checked_sql

ERRORS_CHECKED_PER_BATCH = 3
EXAMPLES = int(os.environ.get("MAPWRIGHT_SQL_EXAMPLES", "12"))
FAILED = object()


def _reference(sql: str, table: list[dict[str, Any]]) -> list[Any] | object:
    """The reference's value on each row (given the columns' types), or FAILED when it fails on any row."""
    try:
        return [evaluate_sql(sql, row, None, TYPES) for row in table]
    except SqlRuntimeError:
        return FAILED


def _spark_values(spark: Any, df: Any, exprs: list[str]) -> list[list[Any]]:
    """Every expression on every row, in one job: one list per expression, rows in RID order."""
    columns = [F.expr(checked_sql(sql)).alias(f"e{i}") for i, sql in enumerate(exprs)]
    got = df.select("RID", *columns).orderBy("RID").collect()
    return [[row[f"e{i}"] for row in got] for i in range(len(exprs))]


def _spark_fails(df: Any, sql: str) -> bool:
    try:
        df.select(F.expr(checked_sql(sql)).alias("v")).collect()
    except Exception as exc:  # a Spark error class: pyspark.errors.*Exception
        return "pyspark" in type(exc).__module__
    return False


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # no shrinking: a
# failure already names the one expression and the rows, and shrinking Spark jobs takes many minutes
@given(table=rows, exprs=st.lists(any_expr(), min_size=10, max_size=30))
def test_reference_equals_spark_on_the_allow_list(spark: Any, table: list[dict[str, Any]],
                                                  exprs: list[str]) -> None:
    df = spark.createDataFrame([{"RID": i, **row} for i, row in enumerate(table)], SCHEMA)
    expected = {sql: _reference(sql, table) for sql in dict.fromkeys(exprs)}
    running = [sql for sql, values in expected.items() if values is not FAILED]
    failing = [sql for sql, values in expected.items() if values is FAILED]
    try:
        got = _spark_values(spark, df, running)
    except Exception:  # name the expression Spark fails on and the reference does not
        culprits = [sql for sql in running if _spark_fails(df, sql)]
        if culprits:
            raise AssertionError(f"Spark fails where the reference does not: {culprits} on {table}") from None
        # none fails alone: Spark's generated code computed a part the columns share once, on every row,
        # where each column alone skips it (behind a NULL, or a branch); the reference evaluates one
        # expression at a time, so each is compared alone
        got = [_spark_values(spark, df, [sql])[0] for sql in running]
    for sql, values in zip(running, got, strict=True):
        assert values == expected[sql], f"{sql} on {table}: Spark {values}, reference {expected[sql]}"
    for sql in failing[:ERRORS_CHECKED_PER_BATCH]:
        assert _spark_fails(df, sql), f"{sql} fails in the reference on {table}, not on Spark"


def test_known_disagreements_of_the_issue_now_agree(spark: Any) -> None:
    """The examples issue 9 found, in one job (the failing ones alone)."""
    table = [{"I1": 7, "I2": 0, "S1": "abc", "S2": "2.7", "B1": None}]
    df = spark.createDataFrame([{"RID": 0, **table[0]}], SCHEMA)
    agreeing = ["substring(S1, 0, 1)", "substring(S1, -5, 3)", "try_cast(S2 as int)", "I1 div 2",
                "trim(concat('  ', S1, '\t '))", "regexp_replace(S1, '(b)', '<$1>')"]
    got = _spark_values(spark, df, agreeing)
    assert got == [[evaluate_sql(sql, table[0])] for sql in agreeing] == [
        ["a"], ["a"], [None], [3], ["abc\t"], ["a<b>c"]]
    for sql in ("B1 || cast(cast(S1 as bigint) as string)", "concat(cast(B1 as string), cast(S1 as bigint))"):
        # a concat stops at a NULL part (each alone: two columns sharing the cast would have it computed
        # once for both, on every row)
        assert _spark_values(spark, df, [sql]) == [[evaluate_sql(sql, table[0])]] == [[None]]
    assert _reference("concat(S1, cast(S1 as bigint), B1)", table) is FAILED
    assert _spark_fails(df, "concat(S1, cast(S1 as bigint), B1)")  # ... and not before it
    for sql in ("I1 / I2", "cast(S2 as int)", "I1 % I2"):
        assert _reference(sql, table) is FAILED and _spark_fails(df, sql)


@pytest.mark.slow
def test_a_case_whose_branches_agree_skips_its_conditions_as_spark_does(spark: Any) -> None:
    """Spark folds `abs(1)` and `cast(TRUE as int)` to 1 and drops a CASE's conditions when every branch is
    the same: the cast of '2.7' to a number in the condition never fails (found by the property test)."""
    table = [{"I1": None, "I2": 1, "S1": "2.7", "S2": None, "B1": True}]
    df = spark.createDataFrame([{"RID": 0, **table[0]}], SCHEMA)
    same = ["CASE WHEN (coalesce(S2, S1) = 8) THEN abs(1) ELSE cast(TRUE as int) END",
            "if(coalesce(S2, S1) = 8, S1, S1)", "CASE WHEN coalesce(S2, S1) = 8 THEN NULL END",
            "CASE coalesce(S2, S1) WHEN 8 THEN 'a' WHEN 9 THEN 'a' ELSE 'a' END"]
    assert _spark_values(spark, df, same) == [[evaluate_sql(sql, table[0])] for sql in same] == [
        [1], ["2.7"], [None], ["a"]]
    for sql in ("CASE WHEN coalesce(S2, S1) = 8 THEN 1 ELSE 2 END", "if(coalesce(S2, S1) = 8, 1, 1 / 0)"):
        with pytest.raises(SqlRuntimeError):  # the branches differ: the condition is evaluated, and fails
            evaluate_sql(sql, table[0])
        assert _spark_fails(df, sql)


@pytest.mark.slow
def test_a_constant_that_fails_outside_a_branch_fails_every_row_as_spark_fails_the_query(spark: Any) -> None:
    """Spark's ConstantFolding evaluates what reads no column before any row, and a failure outside a
    conditional's branches fails the query, even where a NULL operand would never read it at run time; a
    failure inside a branch is left for the rows, and stays there once its conditional is simplified
    away. The first expression is the property test's find."""
    table = [{"I1": None, "I2": 1, "S1": "abc", "S2": None, "B1": True}]
    df = spark.createDataFrame([{"RID": 0, **table[0]}], SCHEMA)
    failing = ["(try_cast(if(B1, S1, S2) as bigint) <> (if(TRUE, 7, I2) % length('')))",
               "try_cast(S1 as bigint) <> (7 % 0)", "S1 IS NULL AND (7 % 0 = 1)", "I1 + (7 % 0)",
               "I1 IN (1, 7 % 0)", "coalesce(7 % 0, I2)", "CASE I2 WHEN 7 % 0 THEN 1 END", "if(TRUE, 7 % 0, I2) + 1",
               "CASE WHEN S1 = 'x' THEN 1 ELSE 1 END + (7 % 0)"]
    for sql in failing:
        assert _reference(sql, table) is FAILED, sql
        assert _spark_fails(df, sql), sql
    running = ["try_cast(S1 as bigint) <> if(TRUE, 7 % 0, I2)", "NULL + (7 % 0)", "coalesce(I2, 7 % 0)",
               "CASE WHEN B1 THEN 1 WHEN 7 % 0 = 1 THEN 2 END", "CASE I2 WHEN 1 THEN 1 WHEN 7 % 0 THEN 2 END"]
    # (not with a second column holding the lifted `7 % 0` too: Spark's code generation then computes it once
    # for both, on every row, and fails; the reference evaluates one expression at a time)
    assert _spark_values(spark, df, running) == [[evaluate_sql(sql, table[0])] for sql in running] == [
        [None], [None], [1], [1], [1]]


@pytest.mark.slow
def test_a_null_in_a_condition_is_false_and_what_it_decides_is_never_evaluated(spark: Any) -> None:
    """Spark's ReplaceNullWithFalseInPredicate makes a NULL in a conditional's condition FALSE (through AND,
    OR and boolean conditionals), and BooleanSimplification then drops what that decides: the cast of 'abc'
    in `cast(S1 as bigint) >= 0 AND NULL` is never evaluated there, though as a value the AND fails. The
    first expression is the property test's find."""
    table = [{"I1": None, "I2": 1, "S1": "abc", "S2": None, "B1": True}]
    df = spark.createDataFrame([{"RID": 0, **table[0]}], SCHEMA)
    decided = ["if(cast(coalesce(S1, CAST(NULL AS STRING)) as bigint) BETWEEN cast(FALSE as int) AND "
               "(10 % CAST(NULL AS BIGINT)), 'a', 'b')",
               "if(cast(S1 as bigint) >= 0 AND CAST(NULL AS BOOLEAN), 'a', 'b')",
               "CASE WHEN cast(S1 as bigint) > 0 AND NULL THEN 'a' WHEN B1 THEN 'c' ELSE 'b' END",
               "if(if(cast(S1 as bigint) > 0, CAST(NULL AS BOOLEAN), FALSE), 'a', 'b')",
               "if(CASE WHEN B1 THEN CAST(NULL AS BOOLEAN) END AND cast(S1 as bigint) > 0, 'a', 'b')",
               "if((cast(S1 as bigint) > 0 AND CAST(NULL AS BOOLEAN)) OR B1, 'a', 'b')",
               "if(cast(S1 as bigint) >= 0 AND (I2 IN (CAST(NULL AS BIGINT))), 'a', 'b')",
               "if(coalesce(CAST(NULL AS BOOLEAN), cast(S1 as bigint) > 0 AND CAST(NULL AS BOOLEAN)), 'a', 'b')",
               "if((cast(S1 as bigint) > 0 AND CAST(NULL AS BOOLEAN)) AND 1 % 0 = 1, 'a', 'b')",
               # a branch whose condition is FALSE is dropped: the CASE is the NULL of its ELSE (the
               # second find), so the comparison is NULL and its cast of 'abc' never evaluated
               "(cast(S1 as bigint) <> CASE WHEN (CAST(NULL AS BIGINT) IN (1, NULL, I1)) THEN length('2aa_') "
               "ELSE length(CAST(NULL AS STRING)) END) IS NULL",
               "cast(S1 as bigint) + CASE WHEN cast(S1 as bigint) > 0 AND NULL THEN 5 WHEN B1 THEN NULL END",
               "CASE WHEN cast(S1 as bigint) > 1 AND NULL THEN 4 ELSE 4 END"]
    for sql in decided:  # one at a time: no job shares a part between two columns
        assert _spark_values(spark, df, [sql]) == [[evaluate_sql(sql, table[0])]], sql
    assert [evaluate_sql(sql, table[0]) for sql in decided] == ["b", "b", "c", "b", "b", "a", "b", "b", "b",
                                                                   True, None, 4]
    for sql in ("cast(S1 as bigint) >= 0 AND CAST(NULL AS BOOLEAN)",  # a value, not a condition
                "if(cast(S1 as bigint) >= 0 OR CAST(NULL AS BOOLEAN), 'a', 'b')",  # OR still reads the cast
                "if(NOT (cast(S1 as bigint) >= 0 AND CAST(NULL AS BOOLEAN)), 'a', 'b')",  # NOT is not rewritten
                "if(B1 = (cast(S1 as bigint) > 0 AND CAST(NULL AS BOOLEAN)), 'a', 'b')",
                "if(CAST(NULL AS BOOLEAN) AND 1 % 0 = 1, 'a', 'b')"):  # folded whole as a constant first
        assert _reference(sql, table) is FAILED, sql
        assert _spark_fails(df, sql), sql


DECIMAL_COLUMNS = {"D": "DECIMAL(12,2)", "E": "DECIMAL(5,3)", "I": "INTEGER", "L": "BIGINT", "W": "DECIMAL(38,10)"}


@pytest.mark.slow
def test_a_decimal_quotient_has_the_scale_spark_gives_it(spark: Any) -> None:
    """Spark rounds a DECIMAL quotient to the scale of its result type, from the operands' declared
    precision and scale (`DECIMAL(12,2) / 3` is DECIMAL(16,6)): the reference, given the row's column types,
    does the same, in values and in a `where` that compares one (the differential probe's find: `1.00 / 3 >
    0.3333333333333` is FALSE in Spark)."""
    from decimal import Decimal

    from engine.core.types import parse_type

    types = {name: parse_type(t) for name, t in DECIMAL_COLUMNS.items()}
    table = [{"D": Decimal("125.62"), "E": Decimal("1.005"), "I": 7, "L": 3, "W": Decimal("12345678.9012345678")},
             {"D": Decimal("1.00"), "E": Decimal("-0.001"), "I": -3, "L": 9, "W": Decimal("-1.0000000001")},
             {"D": Decimal("-9999999999.99"), "E": None, "I": 1, "L": -7, "W": Decimal("0.0000000001")}]
    schema = "RID int, " + ", ".join(f"{name} {t.replace('INTEGER', 'INT')}" for name, t in DECIMAL_COLUMNS.items())
    df = spark.createDataFrame([{"RID": i, **row} for i, row in enumerate(table)], schema)
    exprs = ["CAST(D / 3 AS STRING)", "D / 3 > 0.3333333333333", "CAST(D / I AS STRING)", "CAST(I / 2.0 AS STRING)",
             "CAST(D / 7.00 AS STRING)", "CAST((D / 3) * 2 AS STRING)", "CAST(W / 3 AS STRING)",
             "CAST(D / L AS STRING)", "CAST(-D / 3 AS STRING)", "CAST(D / -3 AS STRING)",
             "CAST(D / CAST(3 AS DECIMAL(5,1)) AS STRING)", "CAST(E / D AS STRING)", "CAST(W / E AS STRING)",
             "CAST((D + E) / 3 AS STRING)", "CAST(D / 0.5 AS STRING)", "CAST(L / 3 AS STRING)"]
    got = _spark_values(spark, df, exprs)
    for sql, values in zip(exprs, got, strict=True):
        assert values == [evaluate_sql(sql, row, None, types) for row in table], sql
    assert got[0] == ["41.873333", "0.333333", "-3333333333.330000"]
    assert got[1] == [True, False, False]


PROBE_SCHEMA = "RID int, S string, I int, F double, T timestamp, DT date"


def _probe_table() -> list[dict[str, Any]]:
    import math
    from datetime import UTC, date, datetime

    return [
        {"S": "abc", "I": 5, "F": 2.5, "T": datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC),
         "DT": date(2020, 2, 29)},
        {"S": "SKIPME", "I": -3, "F": -0.0, "T": datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC),
         "DT": date(1970, 1, 1)},
        {"S": None, "I": None, "F": None, "T": None, "DT": None},
        {"S": "", "I": 0, "F": math.nan, "T": datetime(1970, 1, 1, tzinfo=UTC), "DT": date(2000, 1, 1)},
        {"S": "a_b%c", "I": 2147483647, "F": 1e308, "T": None, "DT": None},
        {"S": "2020-01-01 01:02:03+01:00", "I": 16777217, "F": math.inf, "T": None, "DT": None},
        {"S": "2020-1-2 3:4", "I": 100, "F": 1e20, "T": None, "DT": None},
        {"S": "0.1", "I": 7, "F": 1e-4, "T": None, "DT": None},
        {"S": "x", "I": 1, "F": 123456789.0, "T": None, "DT": None},
        {"S": "-7.5e3", "I": -1, "F": 1e23, "T": None, "DT": None},
    ]


def _probe_frame(spark: Any, table: list[dict[str, Any]]) -> Any:
    return spark.createDataFrame([{"RID": i, **row} for i, row in enumerate(table)], PROBE_SCHEMA)


def _same(spark_value: Any, reference: Any) -> bool:
    """Equal, NaN equal to NaN, a Spark DATE or naive TIMESTAMP equal to the reference's UTC one."""
    import math
    from datetime import UTC, datetime

    if isinstance(spark_value, float) and isinstance(reference, float) and math.isnan(spark_value):
        return math.isnan(reference)
    if isinstance(spark_value, datetime) and isinstance(reference, datetime):
        return spark_value.replace(tzinfo=UTC) == reference.astimezone(UTC).replace(tzinfo=UTC)
    return bool(spark_value == reference) and type(spark_value) is type(reference) or \
        (isinstance(spark_value, float) and isinstance(reference, float) and spark_value == reference)


def _reference_or_failed(sql: str, row: dict[str, Any]) -> Any:
    try:
        return evaluate_sql(sql, row)
    except SqlRuntimeError:
        return FAILED


@pytest.mark.slow
def test_the_value_probe_disagreements_now_agree(spark: Any) -> None:
    """The differential probe's finds on DOUBLE, FLOAT, TIMESTAMP and DATE columns: NOT LIKE, a DOUBLE as
    text, regexp_replace of empty text, a TIMESTAMP cast to numbers, FLOAT's 32 bits, Python errors of a
    row (round of 1E308, % of infinity), and TIMESTAMP/DATE casts and literals. Each is compared alone on
    every row (the session's time zone is UTC, so Spark's naive timestamps are UTC)."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    table = _probe_table()
    df = _probe_frame(spark, table)
    exprs = [
        "S NOT LIKE 'SKIP%'", "S NOT ILIKE 'skip%'", "NOT S LIKE 'SKIP%'",
        "cast(F AS STRING)", "concat(S, F)", "F || ''", "length(F)", "substring(F, 1, 3)", "trim(F)",
        "concat_ws(',', F, I)", "cast(F AS STRING) = '1.0E20'", "cast(F * 3 AS STRING)", "cast(F / 7 AS STRING)",
        "regexp_replace(S, '^', '>')", "regexp_replace(S, '$', '<')", "regexp_replace(S, '.*', 'X')",
        "regexp_replace(S, 'a|', 'Z')", "regexp_replace(S, '^', '>', 2)", "regexp_replace(S, 'b', '\\\\\\\\')",
        "regexp_replace(S, 'zz', '\\\\')",
        "cast(T AS BIGINT)", "cast(T AS INT)", "cast(T AS DOUBLE)", "cast(T AS DECIMAL(20,6))",
        "try_cast(T AS TINYINT)", "cast(T AS STRING)", "cast(T AS DATE)",
        "cast(I AS FLOAT)", "cast(cast(I AS FLOAT) AS STRING)", "cast(F AS FLOAT)", "cast(cast(F AS FLOAT) AS STRING)",
        "try_cast(S AS FLOAT)", "cast(cast(I AS FLOAT) + cast(0.1 AS FLOAT) AS STRING)",
        "cast(cast(I AS FLOAT) * 3 AS STRING)", "cast(-cast(F AS FLOAT) AS STRING)", "cast(cast(I AS FLOAT) AS DOUBLE)",
        "cast(I AS FLOAT) = cast(16777216 AS FLOAT)", "cast(I AS FLOAT) = 16777216",
        "round(F, 0)", "round(F, 1)", "round(F, -2)", "cast(round(cast(F AS FLOAT), 1) AS STRING)", "(F * 10) % 2",
        "F % 3", "try_cast(S AS TIMESTAMP)", "try_cast(S AS DATE)", "cast(try_cast(S AS TIMESTAMP) AS STRING)",
        "TIMESTAMP '2020-01-01 00:00:00' < T", "DATE '2020-01-01' = TIMESTAMP '2020-01-01 00:00:00'",
        "DT = '2020-02-29'", "DT < T", "cast(DT AS STRING)", "concat(DT, 'x')", "cast(DT AS TIMESTAMP)",
        "cast(I AS TIMESTAMP)", "cast(cast(S AS DATE) AS STRING)", "coalesce(cast(T AS DATE), DT)",
        "T = '2026-01-05 10:00:00.123456'", "cast(T AS TIMESTAMP) = T",
        # functions added to the allow-list (tests below hold more of them)
        "year(DT)", "day(DT)", "hour(T)", "second(T)", "datediff(T, DT)", "sign(F)", "greatest(F, I)", "least(I, 3)",
        "instr(S, 'b')", "initcap(S)", "lpad(S, 4, '_')", "isnull(T)", "nullif(I, 5)", "floor(I)",
    ]
    for sql in exprs:
        expected = [_reference_or_failed(sql, row) for row in table]
        if FAILED in expected:  # row by row: the failing rows fail on Spark too, the others agree
            for i, value in enumerate(expected):
                one = df.where(f"RID = {i}")
                if value is FAILED:
                    assert _spark_fails(one, sql), f"{sql} fails in the reference on row {i}, not on Spark"
                else:
                    got = _spark_values(spark, one, [sql])[0][0]
                    assert _same(got, value), f"{sql} on row {i}: Spark {got!r}, reference {value!r}"
            continue
        got_all = _spark_values(spark, df, [sql])[0]
        for i, (got, value) in enumerate(zip(got_all, expected, strict=True)):
            assert _same(got, value), f"{sql} on row {i}: Spark {got!r}, reference {value!r}"


@pytest.mark.slow
def test_doubles_and_floats_are_text_as_spark_writes_them(spark: Any) -> None:
    """Thousands of DOUBLE and FLOAT values (random bits, round decimals, powers, the edges) cast to STRING
    in one job each: the reference's JVM-style text equals Spark's, digit for digit."""
    import math
    import random
    import struct

    from engine.sql.floats import spark_float_text, to_float32

    rng = random.Random(20260105)
    doubles = [0.1, 1e-3, 9999999.0, 1e7, 123456789.123, 5e-324, 1e-323, 1.7976931348623157e308, 1e23, 2e23,
               -0.0, 0.0, math.inf, -math.inf, 100.0, 1e-4, 1e20, 1.2345678e7, 2.2250738585072014e-308]
    doubles += [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(1500)]
    doubles += [float(f"{rng.randint(1, 99999)}e{rng.randint(-12, 25)}") for _ in range(800)]
    doubles += [float(f"{m}e{e}") for e in range(-323, 308, 7) for m in (1, 2, 4.9, 9)]
    doubles = [d for d in doubles if not math.isnan(d)]
    singles = [struct.unpack("f", struct.pack("I", rng.getrandbits(32)))[0] for _ in range(1500)]
    singles = [s for s in singles if not math.isnan(s)] + [1.4e-45, 3.4028234663852886e38, 0.1, 16777217.0]
    for values, cast in ((doubles, "F"), ([float(to_float32(s)) for s in singles], "cast(F AS FLOAT)")):
        df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "RID int, F double")
        got = {row.RID: row.v for row in df.selectExpr("RID", f"cast({cast} AS STRING) AS v").collect()}
        for i, value in enumerate(values):
            shown = spark_float_text(to_float32(value) if cast != "F" else value)
            assert shown == got[i], f"{value!r} as {cast}: Spark {got[i]}, reference {shown}"


@pytest.mark.slow
def test_text_of_other_scripts_reads_as_spark_reads_it(spark: Any) -> None:
    """A hostile probe's finds: Python's `\\w`, `\\d` and `\\s` are Unicode's where Java's are ASCII's, Python's
    `int` and `Decimal` take other scripts' digits, `1_0` and a no-break space, and `re.I` folds `ſ` to `s`
    where Spark's ILIKE lowers both sides. Each expression on every row, as Spark gives it."""
    rows = ["ok", "été", "x-y", "١٢٣٤", "straße", "\xa01", "1_0", " 12 ", "ſ", "s", "ς", "Σ", "ΑΣ", "ı", "I", "İ",
            "a b", "a\u2003b", None]
    df = spark.createDataFrame([(i, s) for i, s in enumerate(rows)], "RID int, S string")
    exprs = ["S RLIKE '^\\\\w+$'", "S RLIKE '\\\\d'", "regexp_replace(S, '\\\\s', '_')", "S RLIKE '(?i)SS'",
             "S RLIKE '\\\\bb'", "S ILIKE 's'", "S ILIKE 'σ'", "S ILIKE 'ας'", "S ILIKE 'i'", "S ILIKE 'I'",
             "try_cast(S AS INT)", "try_cast(S AS BIGINT)", "try_cast(S AS DECIMAL(10,2))", "try_cast(S AS DOUBLE)"]
    got = _spark_values(spark, df.orderBy("RID"), exprs)
    for sql, values in zip(exprs, got, strict=True):
        for text, value in zip(rows, values, strict=True):
            expected = _reference_or_failed(sql, {"S": text})
            assert _same(value, expected), f"{sql} of {text!r}: Spark {value!r}, reference {expected!r}"


REGEX_TEXTS = ["a\nb", "a\rb", "a\x85b", "a\u2028b", "a\u2029b", "axb", "a\n", "a\r\n", "a\r", "a\x85", "a\u2028",
               "a\u2029", "a\n\n", "a\n\r", "a\r\n\r\n", "", "\n", "\r\n", "\r\r", "b\r\nb", "a\r\nb", "a.b", "AxB",
               "A\nB", "x\nab", "x\rab", "$", "]", "a\x0c", "TRUE", "TRUE\n", "aB", "Cd", "CD"]
REGEX_PATTERNS = [".", "^.$", "a.b", "a.*b", "(?s)a.b", "(?s:a.)b", "a(?s).b", "(?-s)a.b", "(?s)(?-s)a.b",
                  "(a(?s).)b.", "(?s)a.b|x.y", "a(?s).|b.", "(?is)A.B", "(?i)A.B", "^a$", "a$", "$", "b$", "a\\Z",
                  "a\\z", "\\Z", "\\z", "(?m)^b", "(?m)a$", "(?m)^", "(?m)$", "(?m)^$", "^$", "(?m:a$)", "(?m)$b",
                  "a$\\r?\\n?", "[.]", "[$]", "\\.", "\\$", "[^.]", "[]a]", "[^]a]", "a[$.]", "(?m)(?<=^a)b",
                  "(?m:^b)|^a", "((?m)^b|^a)", "\\v", "[\\v]", "$|\\n", "(?m)^|$", "|a", "x*", "a|(?i)b",
                  "(a(?i)b|c)d", "^(?i)(true|false)\\z", "(?i)a(?-i)b|c", "\\0101", "a\\Q.\\E", "(?i-s)a."]


@pytest.mark.slow
def test_regular_expressions_read_lines_and_flags_as_java_does(spark: Any) -> None:
    """RLIKE and regexp_replace (from the first, second and third character) of every pattern on every text
    with line terminators (`\\n`, `\\r`, `\\r\\n`, `\\u0085`, `\\u2028`, `\\u2029`): Java's `.`, `$`, `\\Z`, `\\z`,
    `(?m)`, `(?s)`, `(?i)` anywhere in a pattern, `\\v`, `\\0`, `\\Q...\\E` and Java's way of finding the next
    match after an empty one, in one job; a few literal patterns too, as a model writes them."""
    rows = [{"S": text, "P": pattern} for pattern in REGEX_PATTERNS for text in REGEX_TEXTS]
    df = spark.createDataFrame([{"RID": i, **row} for i, row in enumerate(rows)], "RID int, S string, P string")
    exprs = ["S RLIKE P", "regexp_replace(S, P, '<')", "regexp_replace(S, P, '<', 2)", "regexp_replace(S, P, '<', 3)",
             "S RLIKE 'a.b'", "S RLIKE '^a$'", "regexp_replace(S, '$', '<')", "regexp_replace(S, '(?m)^', '<')",
             "regexp_replace(S, '.', '<', 2)", "S RLIKE 'a(?s).b'"]
    got = _spark_values(spark, df, exprs)
    for sql, values in zip(exprs, got, strict=True):
        for row, value in zip(rows, values, strict=True):
            expected = evaluate_sql(sql, row)
            assert value == expected, f"{sql} of {row}: Spark {value!r}, reference {expected!r}"


TIME_TEXTS = ["10:00", "10:00:01", "T10:00", "T10", " T10:00", " 10:00", "10:00\n", "10", "10:", "1:2:3.4",
              "10:00:01.123456789", "10:00:01Z", "10:00:01+02:00", "10:00:01 UTC", "T10:00:01America/Los_Angeles",
              "10:00:01Pacific/Kiritimati", "10:00:01Etc/GMT+12", "25:00", "+10:00", "T", "10:00Z", "T10Z",
              "10:00:00.Z", "t10:00", "T 10:00", "10:00:00 Z", "T10:00:00-08", "10:00:00GMT+1", "10:00:01 PST",
              "2020-01-01 01Z", "2020-01-01 01:02 UTC", "2020-01-01 01 UTC", "2020-01-01 01:02:03 UTC",
              "2020-01-01T01", "\x7f2020-01-01\x7f", "10:00\x7f", "\x7f\x7f12 ", "true\x7f", "\x7f1.5", "1\x7f2"]


@pytest.mark.slow
def test_a_time_without_a_date_is_today_as_in_spark(spark: Any) -> None:
    """Spark reads a time without a date (`10:00`, `T10`) as a TIMESTAMP at that time today, in its zone (UTC
    without one), and as no DATE; a DEL around text is trimmed where Spark trims it. The value depends on the
    day: Spark's is compared with the reference's just before and just after (the same day but at midnight)."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    df = spark.createDataFrame([(i, text) for i, text in enumerate(TIME_TEXTS)], "RID int, S string")
    exprs = ["cast(try_cast(S AS TIMESTAMP) AS STRING)", "try_cast(S AS DATE)", "try_cast(S AS INT)",
             "try_cast(S AS BOOLEAN)", "try_cast(S AS DOUBLE)", "try_cast(S AS DECIMAL(10,2))"]
    before = [[evaluate_sql(sql, {"S": text}) for text in TIME_TEXTS] for sql in exprs]
    got = _spark_values(spark, df, exprs)
    after = [[evaluate_sql(sql, {"S": text}) for text in TIME_TEXTS] for sql in exprs]
    for sql, values, early, late in zip(exprs, got, before, after, strict=True):
        for text, value, one, other in zip(TIME_TEXTS, values, early, late, strict=True):
            assert _same(value, one) or _same(value, other), f"{sql} of {text!r}: Spark {value!r}, reference {one!r}"
    assert got[0][0] is not None and got[0][0].endswith(" 10:00:00")  # '10:00' is a time today, not NULL


FUNCTION_SCHEMA = ("RID int, S string, P string, I int, L bigint, F double, R float, D decimal(12,2), "
                   "E decimal(5,3), T timestamp, DT date")
FUNCTION_TYPES = {"D": "DECIMAL(12,2)", "E": "DECIMAL(5,3)", "I": "INTEGER", "L": "BIGINT", "F": "DOUBLE",
                  "T": "TIMESTAMP"}


def _function_table() -> list[dict[str, Any]]:
    """Rows for the functions added to the allow-list: month ends, a leap day, the epoch, negative and
    fractional numbers, empty text, text that is a date or a time or neither, NULLs, Unicode."""
    import math
    from datetime import UTC, date, datetime
    from decimal import Decimal

    from engine.sql.floats import to_float32

    def row(s: Any, p: Any, i: Any, f: Any, d: Any, t: Any, dt: Any, e: Any = None, r: Any = None) -> dict[str, Any]:
        return {"S": s, "P": p, "I": i, "L": None if i is None else i * 3, "F": f,
                "R": None if r is None else to_float32(r),  # a FLOAT column holds 32 bits
                "D": None if d is None else Decimal(d), "E": None if e is None else Decimal(e), "T": t, "DT": dt}

    return [
        row("abcabc", "b", 5, 2.5, "125.62", datetime(2026, 1, 31, 23, 59, 59, 999999, tzinfo=UTC), date(2020, 2, 29),
            "1.005", 1.5),
        row("hELLO wORLD", "", -3, -2.5, "-0.50", datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC),
            date(2019, 1, 31), "-0.001", -0.25),
        row(None, None, None, None, None, None, None),
        row("", "", 0, -0.0, "0.00", datetime(1970, 1, 1, tzinfo=UTC), date(2000, 2, 29), "0.000", 0.0),
        row("2026-01-01", "20", 1, math.nan, "-9999999999.99", datetime(2024, 2, 29, 12, 30, 5, tzinfo=UTC),
            date(2024, 12, 31), "99.999", math.inf),
        row("2020-02-29 10:11:12", "-", 31, 1e20, "1.01", datetime(2000, 3, 1, tzinfo=UTC), date(1999, 12, 31)),
        row("10:11", "1", 59, 9.2233720368547e18, "3.00", None, date(2021, 3, 31), "5.5", 16777217.0),
        row("ab c  d", " ", -1, -1e-300, "-1.49", None, date(2020, 3, 1)),
        row("ß straße ǆx ΑΣ ﬁx", "ß", 2, 0.5, "0.01", None, None),
        row("a😀b a\tb x-y", "😀", 100, 1.5e-7, "2.50", None, None),
        row("abc", "abc", 3, 3.0, "3.00", None, None),
        row("x", "xyz", -31, -0.5, "-3.00", None, None),
    ]


FUNCTION_EXPRS = [
    # NULL tests and conditional values
    "isnull(S)", "isnotnull(T)", "isnull(cast(I AS STRING) || S)", "nullif(I, 3)", "nullif(S, 'abc')",
    "nullif(D, 3)", "nullif(S, P)", "nullif(I, CAST(NULL AS INT))", "ifnull(S, 'none')", "nvl2(S, I, -1)",
    "nvl2(T, S, P)", "nvl2(D, 'a', 'b')",
    # numbers
    "greatest(I, 3)", "greatest(I, L, -2)", "least(I, 3)", "greatest(I, 2.5)", "least(D, 3)", "greatest(D, E)",
    "least(D, E, I)", "greatest(F, 2)", "least(F, -1D)", "greatest(R, cast(1 AS FLOAT))", "greatest(S, P)",
    "least(S, P, 'b')", "greatest(T, DT)", "least(DT, DATE '2020-01-01')", "greatest(I, NULL)", "least(NULL, D)",
    "floor(F)", "ceil(F)", "ceiling(F)", "floor(D)", "ceil(D)", "floor(E)", "ceil(E)", "floor(I)", "ceil(L)",
    "floor(-D)", "floor(R)", "ceil(R)", "floor(D / 3)", "sign(I)", "sign(F)", "signum(D)", "sign(E)", "sign(R)",
    "mod(I, 7)", "mod(D, 3)", "mod(-I, 4)", "mod(F, 2)", "floor(I) > 1", "greatest(I, 3) > 3",
    # dates and times
    "year(DT)", "month(DT)", "day(DT)", "dayofmonth(DT)", "year(T)", "month(T)", "day(T)", "hour(T)",
    "minute(T)", "second(T)", "hour(DT)", "year(DT) = 2020", "to_date(T)", "to_date(DT)", "to_date(S)",
    "to_date(P)", "year(S)", "month(P)", "hour(S)", "minute(S)", "second(S)", "datediff(DT, DATE '2020-01-01')",
    "datediff(T, DT)", "datediff(DT, T)", "datediff(S, DT)", "datediff(DT, '2020-03-01')", "date_add(DT, 1)",
    "date_add(DT, -1)", "date_add(DT, I)",
    "date_add(DT, L)", "date_sub(DT, D)", "date_add(T, F)", "date_sub(DT, I)", "date_sub(DT, 1)", "date_add(T, 30)",
    "date_add(S, 1)", "date_sub(DT, '3')", "date_add(DT, P)", "dateadd(DT, 365)", "date_diff(DT, T)",
    "DT > to_date('2020-01-01')", "datediff(date_add(DT, I), DT) = I",
    # text
    "startswith(S, P)", "endswith(S, P)", "contains(S, P)", "startswith(S, 'a')", "contains(I, '1')",
    "endswith(S, '')", "instr(S, P)", "instr(S, 'a')", "instr(I, 1)", "instr(S, '') > 0", "locate(P, S)",
    "locate(P, S, 2)", "locate(P, S, I)", "locate('', S, I)", "locate(P, S, CAST(NULL AS INT))",
    "position(P IN S)", "lpad(S, 8, P)", "rpad(S, 8, P)", "lpad(S, 3)", "rpad(S, I, '.')", "lpad(S, I, 'xy')",
    "lpad(I, 5, '0')", "rpad(P, 0, 'x')", "lpad(S, -1, 'x')", "ltrim(S)", "rtrim(S)", "ltrim(concat('  ', S, ' '))",
    "rtrim(concat(' ', P, '  '))", "replace(S, P, '#')", "replace(S, P)", "replace(S, 'b', P)", "replace(I, 1, 9)",
    "left(S, 2)", "left(S, I)", "right(S, 2)", "right(S, I)", "left(I, 1)", "right(P, 0)", "reverse(S)",
    "reverse(I)", "initcap(S)", "initcap(P)", "initcap(lower(S))", "upper(initcap(S))",
]


def _same_decimal_text(spark_value: Any, reference: Any) -> bool:
    """`_same`, and a DECIMAL with the scale Spark's type gives it (3.00 is not 3)."""
    from decimal import Decimal

    if isinstance(spark_value, Decimal) and isinstance(reference, Decimal):
        return str(spark_value) == str(reference)
    return _same(spark_value, reference)


@pytest.mark.slow
def test_the_added_functions_equal_spark_row_by_row(spark: Any) -> None:
    """Every function the allow-list gained (NULL tests, greatest/least, floor/ceil/sign, date parts and
    arithmetic, text search, padding and case) on rows of edges, as Spark gives them: the values (with the
    DECIMAL scale of Spark's type), and an error exactly where Spark fails. Spark is given the checked SQL."""
    from engine.core.types import parse_type

    spark.conf.set("spark.sql.session.timeZone", "UTC")
    types = {name: parse_type(t) for name, t in FUNCTION_TYPES.items()}
    table = _function_table()
    plain = [{**row, "R": None if row["R"] is None else float(row["R"])} for row in table]  # pyspark's own float
    df = spark.createDataFrame([{"RID": i, **row} for i, row in enumerate(plain)], FUNCTION_SCHEMA)

    def reference(sql: str, row: dict[str, Any]) -> Any:
        try:
            return evaluate_sql(sql, row, None, types)
        except SqlRuntimeError:
            return FAILED

    expected = {sql: [reference(sql, row) for row in table] for sql in FUNCTION_EXPRS}
    running = [sql for sql in FUNCTION_EXPRS if FAILED not in expected[sql]]
    for sql, values in zip(running, _spark_values(spark, df, running), strict=True):
        for i, (got, value) in enumerate(zip(values, expected[sql], strict=True)):
            assert _same_decimal_text(got, value), f"{sql} on row {i}: Spark {got!r}, reference {value!r}"
    for sql in (sql for sql in FUNCTION_EXPRS if FAILED in expected[sql]):  # the other rows in one job
        fine = [i for i, value in enumerate(expected[sql]) if value is not FAILED]
        got = _spark_values(spark, df.where(f"RID IN ({', '.join(map(str, fine))})"), [sql])[0] if fine else []
        for i, value in zip(fine, got, strict=True):
            assert _same_decimal_text(value, expected[sql][i]), \
                f"{sql} on row {i}: Spark {value!r}, reference {expected[sql][i]!r}"
        failing = [i for i, value in enumerate(expected[sql]) if value is FAILED]
        for i in failing[:ERRORS_CHECKED_PER_BATCH]:
            assert _spark_fails(df.where(f"RID = {i}"), sql), f"{sql} fails in the reference on row {i}, not on Spark"
