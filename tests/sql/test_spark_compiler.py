"""The compiler of methods and `where` clauses to Spark Columns, on tiny inline DataFrames
(pyspark.testing.assertDataFrameEqual), checked against the reference's `evaluate_method`."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from engine.model.methods import MethodSpec
from engine.run.methods import evaluate_method
from engine.sql.errors import UnsupportedSql
from engine.sql.evaluate import predicate_holds
from engine.sql.spark import checked_sql, method_column, where_column

SCHEMA = "ID bigint, CODE string, NAME string, QTY string"
ROWS = [
    {"ID": 1, "CODE": "a-b-c", "NAME": "  Ada ", "QTY": "2.7"},
    {"ID": 2, "CODE": "x", "NAME": None, "QTY": "12"},
    {"ID": 3, "CODE": None, "NAME": "Bo\t", "QTY": "abc"},
]
METHODS: dict[str, Any] = {
    "copy": "NAME",
    "constant": {"method": "constant", "value": "EU"},
    "concat": {"method": "concat", "inputs": ["CODE", "NAME"], "sep": "/"},
    "concat_number": {"method": "concat", "inputs": ["ID", {"method": "constant", "value": "x"}], "sep": "#"},
    "split": {"method": "split", "input": "CODE", "sep": "-", "index": 1},
    "split_past_the_end": {"method": "split", "input": "CODE", "sep": "-", "index": 5},
    "substring": {"method": "substring", "input": "CODE", "start": 2, "length": 2},
    "substring_to_end": {"method": "substring", "input": "CODE", "start": 3},
    "cast_int": {"method": "cast", "input": "QTY", "type": "INTEGER"},
    "cast_decimal": {"method": "cast", "input": "QTY", "type": "DECIMAL(6,2)"},
    "upper_trim": {"method": "upper", "input": {"method": "trim", "input": "NAME"}},
    "lower": {"method": "lower", "input": "CODE"},
    "expression": {"method": "expression", "sql": "concat(CODE, '-', ID * 2)"},
}


@pytest.fixture(scope="module")
def source(spark: Any) -> Any:
    return spark.createDataFrame(ROWS, SCHEMA)


METHOD: TypeAdapter[Any] = TypeAdapter(MethodSpec)


def _method(spec: Any) -> Any:
    return METHOD.validate_python(spec)


@pytest.mark.slow
def test_every_method_compiles_to_what_the_reference_computes(spark: Any, source: Any) -> None:
    methods = {name: _method(spec) for name, spec in METHODS.items()}
    got = source.select("ID", *(method_column(m).alias(name) for name, m in methods.items()))
    expected = spark.createDataFrame(
        [{"ID": row["ID"], **{name: evaluate_method(m, row) for name, m in methods.items()}} for row in ROWS],
        got.schema)
    assertDataFrameEqual(got, expected)
    by_id = {r["ID"]: r for r in got.collect()}  # and what they are, written out
    assert by_id[1]["split"] == "b" and by_id[1]["split_past_the_end"] is None
    assert by_id[1]["cast_int"] == 2 and by_id[3]["cast_int"] is None  # a try-cast, truncating
    assert by_id[1]["upper_trim"] == "ADA" and by_id[3]["upper_trim"] == "BO\t"  # trim takes spaces only
    assert by_id[2]["concat"] is None and by_id[2]["concat_number"] == "2#x"
    assert by_id[2]["expression"] == "x-4"


@pytest.mark.slow
def test_a_where_clause_filters_as_the_reference_holds(spark: Any, source: Any) -> None:
    where = "upper(trim(NAME)) LIKE 'A%' OR CODE = 'x' AND ID BETWEEN 2 AND 3"
    got = source.where(where_column(where)).select("ID")
    expected = spark.createDataFrame([{"ID": r["ID"]} for r in ROWS if predicate_holds(where, r)], "ID bigint")
    assertDataFrameEqual(got, expected)
    assert sorted(r["ID"] for r in got.collect()) == [1, 2]


@pytest.mark.slow
def test_system_values_come_from_the_columns_given(spark: Any, source: Any) -> None:
    site = _method({"method": "system", "name": "site"})
    got = source.select(method_column(site, {"site": F.lit("hq")}).alias("S"))
    assertDataFrameEqual(got, spark.createDataFrame([{"S": "hq"}] * 3, "S string"))
    with pytest.raises(UnsupportedSql, match="system value 'txn'"):
        method_column(_method({"method": "system", "name": "txn"}))


@pytest.mark.parametrize("sql", ["reflect('java.lang.Runtime', 'getRuntime')", "java_method('a', 'b')",
                                 "read_files('/etc/passwd') IS NOT NULL", "NAME IN (SELECT NAME FROM t)"])
def test_sql_outside_the_allow_list_never_reaches_spark(sql: str) -> None:
    with pytest.raises(UnsupportedSql, match="which Mapwright does not run"):
        where_column(sql)
    with pytest.raises(UnsupportedSql, match="which Mapwright does not run"):
        method_column(_method({"method": "expression", "sql": sql}))


def test_spark_gets_the_sql_of_the_checked_tree() -> None:
    assert checked_sql("nvl(NAME, 'x') || substr(CODE, 2)") == "COALESCE(NAME, 'x') || SUBSTRING(CODE, 2)"
    assert checked_sql("`odd col` > 1") == "`odd col` > 1"


@pytest.mark.slow
def test_sessions_run_the_model_s_sql_in_ansi_mode(spark: Any) -> None:
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"
