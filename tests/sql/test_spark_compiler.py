"""The SQL home's Spark side: Spark runs only the checked tree's SQL, its column names bound to the columns
that hold them (on tiny inline DataFrames, pyspark.testing.assertDataFrameEqual, against the reference).
The pipeline's method compiler over these is tested in tests/spark/test_methods.py."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from engine.sql.errors import UnsupportedSql
from engine.sql.evaluate import evaluate_sql, predicate_holds
from engine.sql.spark import bound_sql, checked_sql

ROWS = [
    {"ID": 1, "CODE": "a-b-c", "NAME": "  Ada ", "QTY": "2.7"},
    {"ID": 2, "CODE": "x", "NAME": None, "QTY": "12"},
    {"ID": 3, "CODE": None, "NAME": "Bo\t", "QTY": "abc"},
]


def in_struct(name: str) -> str | None:
    """Names bound to the fields of a row struct `r`, as the pipeline keeps rows; NAMEX is no column."""
    return None if name == "NAMEX" else f"r.`{name}`"


@pytest.fixture(scope="module")
def source(spark: Any) -> Any:
    flat = spark.createDataFrame(ROWS, "ID bigint, CODE string, NAME string, QTY string")
    return flat.select(F.struct(*flat.columns).alias("r"), "ID")


@pytest.mark.slow
def test_a_bound_where_clause_holds_where_the_reference_holds(spark: Any, source: Any) -> None:
    where = "upper(trim(NAME)) LIKE 'A%' OR CODE = 'x' AND ID BETWEEN 2 AND 3"
    got = source.where(F.expr(f"coalesce({bound_sql(where, in_struct, 'NULL')}, FALSE)")).select("ID")
    expected = spark.createDataFrame([{"ID": r["ID"]} for r in ROWS if predicate_holds(where, r)], "ID bigint")
    assertDataFrameEqual(got, expected)
    assert sorted(r["ID"] for r in got.collect()) == [1, 2]


@pytest.mark.slow
def test_a_name_no_column_holds_is_null_and_the_time_is_the_one_given(spark: Any, source: Any) -> None:
    sql = "concat(coalesce(NAMEX, 'none'), '@', cast(current_timestamp() AS STRING))"
    now = "CAST('2026-01-05 10:00:00' AS TIMESTAMP)"
    got = source.select(F.expr(bound_sql(sql, in_struct, now)).alias("V"), "ID")
    expected = spark.createDataFrame([{"V": "none@2026-01-05 10:00:00", "ID": r["ID"]} for r in ROWS],
                                     "V string, ID bigint")
    assertDataFrameEqual(got, expected)
    day = "cast(current_timestamp() AS STRING) = '2026-01-05 00:00:00'"  # the reference's clock is the one given
    assert predicate_holds(day, {}, datetime(2026, 1, 5, tzinfo=UTC))
    assert not predicate_holds(day, {}, datetime(2026, 1, 6, tzinfo=UTC))


@pytest.mark.parametrize("sql", ["reflect('java.lang.Runtime', 'getRuntime')", "java_method('a', 'b')",
                                 "read_files('/etc/passwd') IS NOT NULL", "NAME IN (SELECT NAME FROM t)"])
def test_sql_outside_the_allow_list_never_reaches_spark(sql: str) -> None:
    with pytest.raises(UnsupportedSql, match="which Mapwright does not run"):
        checked_sql(sql)
    with pytest.raises(UnsupportedSql, match="which Mapwright does not run"):
        bound_sql(sql, in_struct, "NULL")


def test_spark_gets_the_sql_of_the_checked_tree() -> None:
    assert checked_sql("nvl(NAME, 'x') || substr(CODE, 2)") == "COALESCE(NAME, 'x') || SUBSTRING(CODE, 2)"
    assert checked_sql("`odd col` > 1") == "`odd col` > 1"
    bound = bound_sql("`odd col` > 1 AND NAME = 'mwbound'", in_struct, "NULL")
    assert bound == "((r.`odd col`) > 1 AND (r.`NAME`) = 'mwbound')"  # a literal like a mark stays


@pytest.mark.slow
def test_sessions_run_the_model_s_sql_in_ansi_mode(spark: Any) -> None:
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"


@pytest.mark.slow
def test_the_added_functions_run_bound_on_spark_as_in_the_reference(spark: Any, source: Any) -> None:
    """The where clauses and expressions of the added functions, bound to the row struct as the pipeline binds
    them: Spark is given the function the snippet wrote (INSTR, DATE_SUB, not sqlglot's LOCATE and DATE_ADD),
    and `current_date()` is the day of the time given, as in the reference."""
    now = "CAST('2026-01-05 23:30:00' AS TIMESTAMP)"
    moment = datetime(2026, 1, 5, 23, 30, tzinfo=UTC)
    wheres = ["instr(CODE, '-') > 0", "isnull(NAME) OR startswith(ltrim(NAME), 'A')", "greatest(ID, 2) > 2",
              "nvl2(CODE, floor(ID / 2), -1) = 0", "current_date() = DATE '2026-01-05'",
              "datediff(date_sub(current_date(), ID), DATE '2026-01-01') > 1", "nullif(CODE, 'x') IS NULL"]
    for where in wheres:
        got = source.where(F.expr(f"coalesce({bound_sql(where, in_struct, now)}, FALSE)")).select("ID")
        assert sorted(r["ID"] for r in got.collect()) == [r["ID"] for r in ROWS if predicate_holds(where, r, moment)], \
            where
    exprs = ["lpad(CODE, 6, '*')", "initcap(NAME)", "replace(CODE, '-')", "right(CODE, 2)", "reverse(QTY)",
             "cast(date_sub(current_date(), ID) AS STRING)", "cast(locate('b', CODE, 2) AS STRING)"]
    got = source.select("ID", *(F.expr(bound_sql(sql, in_struct, now)).alias(f"e{i}") for i, sql in enumerate(exprs)))
    rows = {r["ID"]: r for r in got.collect()}
    for row in ROWS:
        for i, sql in enumerate(exprs):
            assert rows[row["ID"]][f"e{i}"] == evaluate_sql(sql, row, moment), (sql, row)


def test_spark_is_given_the_function_the_snippet_names() -> None:
    assert checked_sql("instr(CODE, 'a')") == "INSTR(CODE, 'a')"  # sqlglot would write LOCATE('a', CODE)
    # sqlglot would write DATE_ADD(AT, 1 * -1); the days are cast to INT, as Spark's analysis refuses a BIGINT
    assert checked_sql("date_sub(AT, 1)") == "DATE_SUB(AT, CAST(1 AS INT))"
    assert checked_sql("date_add(AT, N * -1)") == "DATE_ADD(AT, CAST(N * -1 AS INT))"
    assert checked_sql("nvl2(CODE, 1, 2)") == "IF(NOT (CODE) IS NULL, 1, 2)"  # as Spark replaces it
    assert checked_sql("nullif(a = b, isnull(c))") == "IF((a = b) = (((c) IS NULL)), NULL, a = b)"
    assert bound_sql("current_date() > AT", in_struct, "NOW") == "(CAST((NOW) AS DATE) > (r.`AT`))"
