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
from engine.sql.evaluate import predicate_holds
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
