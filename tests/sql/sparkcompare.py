"""The reference against Spark on a few rows, row by row: values (a DECIMAL with its scale), NULLs, errors.

For the focused tests of what Spark's optimizer decides; tests/sql/test_reference_equals_spark.py does the
same over generated expressions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pyspark.sql import functions as F

from engine.core.types import SqlType
from engine.sql.errors import SqlRuntimeError
from engine.sql.evaluate import evaluate_sql
from engine.sql.spark import checked_sql

FAILED = "FAILED"


def reference(sql: str, row: Mapping[str, Any], types: Mapping[str, SqlType] | None = None) -> Any:
    """The reference's value of `sql` on `row`, or FAILED where it fails on the row."""
    try:
        return evaluate_sql(sql, row, None, types)
    except SqlRuntimeError:
        return FAILED


def same(spark_value: Any, value: Any) -> bool:
    """Equal as Spark gives it: a DECIMAL with its scale (1.0 is not 1), a BOOLEAN is no integer."""
    if isinstance(spark_value, Decimal) or isinstance(value, Decimal):
        return isinstance(spark_value, Decimal) and isinstance(value, Decimal) and str(spark_value) == str(value)
    if isinstance(spark_value, bool) or isinstance(value, bool):
        return type(spark_value) is type(value) and spark_value == value
    if isinstance(spark_value, float) and isinstance(value, float) and math.isnan(spark_value):
        return math.isnan(value)
    return bool(spark_value == value) and type(spark_value) is type(value)


def mismatches(spark: Any, schema: str, table: list[dict[str, Any]], exprs: list[str],
               types: Mapping[str, SqlType] | None = None) -> list[str]:
    """Every expression on every row of `table` (a DataFrame of `schema`, its first column RID): where the
    reference and Spark (given the checked SQL) disagree, one line each; the rows the reference fails on
    must fail on Spark, each alone."""
    df = spark.createDataFrame([{"RID": i, **row} for i, row in enumerate(table)], schema)
    found: list[str] = []
    for sql in exprs:
        expected = [reference(sql, row, types) for row in table]
        fine = [i for i, v in enumerate(expected) if v != FAILED]
        if fine:
            rows = df.where(f"RID IN ({', '.join(map(str, fine))})").orderBy("RID")
            got = [r["v"] for r in rows.select(F.expr(checked_sql(sql)).alias("v")).collect()]
            found += [f"{sql} on {table[i]}: Spark {g!r}, reference {expected[i]!r}"
                      for i, g in zip(fine, got, strict=True) if not same(g, expected[i])]
        for i in (i for i, v in enumerate(expected) if v == FAILED):
            if not spark_fails(df.where(f"RID = {i}"), sql):
                found.append(f"{sql} on {table[i]}: the reference fails, Spark does not")
    return found


def spark_fails(df: Any, sql: str) -> bool:
    try:
        df.select(F.expr(checked_sql(sql)).alias("v")).collect()
    except Exception as exc:  # a Spark error class: pyspark.errors.*Exception
        return "pyspark" in type(exc).__module__
    return False
