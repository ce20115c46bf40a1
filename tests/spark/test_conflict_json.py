"""Spark writes the conflicts its windows resolved as the reference writes them (`conflict_json`): each line,
time-order key and flat column byte for byte what Python's writer (`resolve_conflicts`, the reference's own
`jsonl_line`, `time_order_key`, `conflict_flat`) gives of the same rows; and what it cannot show it writes
exactly (text that is not plain ASCII) it leaves to Python."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from engine.model.io import dump_model
from engine.run.semantics.context import build_context
from engine.spark import conflict_json
from engine.spark.resolve import _SCHEMA, OUTPUT
from engine.spark.resolve_conflicts import conflict_lines
from tests.builders import col, mapping, model, server, table

pytestmark = pytest.mark.slow

ROW = ("struct<ID: bigint, NAME: string, TS: timestamp, AMT: decimal(30,12), N: int, OK: boolean, "
       "DATA: binary>")
SOURCE = (f"origin string, txn string, mapping string, at timestamp, commit_ts timestamp, old {ROW}, new {ROW}, "
          f"_conflicts struct<groups: array<struct<g: string, tried: array<string>, method: string, "
          f"outcome: string>>, local: {ROW}, result: {ROW}>")
COLUMNS = ["origin", "txn", "mapping", "at", "commit_ts", "old", "new", "_conflicts"]
FLAT = [c for c in conflict_json.COLUMNS if c != "kind"]


def _model() -> Any:
    cols = [col("ID", "BIGINT", nullable=False), col("NAME", "VARCHAR(20)"), col("TS", "TIMESTAMP"),
            col("AMT", "DECIMAL(30,12)"), col("N", "INTEGER"), col("OK", "BOOLEAN"), col("DATA", "VARBINARY(8)")]
    names = ["ID", "NAME", "TS", "AMT", "N", "OK", "DATA"]
    sites = [server("t"), server("a"), server("b")]
    return model(sites, [table(s["id"], "T", cols, pk=["ID"]) for s in sites],
                 [mapping("a_t", "a.T", "t.T", {c: c for c in names}),
                  mapping("b_t", "b.T", "t.T", {c: c for c in names if c != "DATA"})])


def _row(key: int, name: Any, ts: Any, amt: Any, n: Any = 7, ok: Any = True, data: Any = b"\x00\xff") -> tuple:
    return key, name, ts, amt, n, ok, data


PLAIN = [  # values Spark writes: every kind, NULLs, microseconds, a time before 1970, a wide decimal
    _row(1, "plain name", datetime(2026, 1, 5, 8, 0, 3, tzinfo=UTC), Decimal("670.000000000000")),
    _row(2, None, datetime(2026, 1, 5, 8, 0, 3, 500, tzinfo=UTC), Decimal("-12.500000000000"), None, False, None),
    _row(3, "a ~ {b} [c] !#$%&'()*+,-./", datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
         Decimal("123456789012345678.000000000001"), -2147483648, None, b""),
    _row(4, "", None, None, 0, True, b"\x12\x34"),
    _row(5, "tiny", datetime(2026, 1, 5, tzinfo=UTC), Decimal("0.000000000001")),  # no exponent: 0.000...
]
ODD = [  # text only Python writes exactly
    _row(11, 'a "quoted" name', datetime(2026, 1, 5, tzinfo=UTC), Decimal("1.000000000000")),
    _row(6, "back\\slash", datetime(2026, 1, 5, tzinfo=UTC), Decimal("1.000000000000")),
    _row(7, "tab\there", datetime(2026, 1, 5, tzinfo=UTC), Decimal("1.000000000000")),
    _row(8, "Zürich", datetime(2026, 1, 5, tzinfo=UTC), Decimal("1.000000000000")),
    _row(9, "🙂", datetime(2026, 1, 5, tzinfo=UTC), Decimal("1.000000000000")),
]


def _source(spark: SparkSession, rows: list[tuple], txn: str = "a-1", mapping_id: str = "a_t") -> Any:
    at = datetime(2026, 1, 5, 8, 0, 4, 250000, tzinfo=UTC)
    groups = [("address_cg", ["latest_timestamp", "site_priority"], "site_priority", "remote"),
              ("amount_cg", ["additive"], "additive", "merged")]
    data = []
    for n, row in enumerate(rows):
        old = (row[0], "before", None, Decimal("1.000000000000"), 1, False, None)
        sent = row if mapping_id == "a_t" else (*row[:-1], None)
        data.append(("a", txn, mapping_id, at, datetime(2026, 1, 5, 8, 0, n, tzinfo=UTC), old, sent,
                     (groups, row, row)))
    return spark.createDataFrame(data, SOURCE)


def _written(frame: Any) -> list[tuple]:
    return sorted(tuple(r) for r in frame.select(*FLAT).collect())


def test_spark_writes_each_plain_conflict_as_the_reference_and_leaves_the_rest_to_python(
        spark: SparkSession) -> None:
    m = _model()
    t = m.table("t.T")
    assert t is not None
    encoding = conflict_json.encoding(t, build_context(m))
    assert encoding is not None
    for rows, txn, via in ((PLAIN, "a-1", "a_t"), (PLAIN, "b-1", "b_t"), (ODD, "a-2", "a_t")):
        source = _source(spark, rows, txn, via)
        source.createOrReplaceTempView("resolved")
        python = conflict_lines(source, t, dump_model(m), _SCHEMA, OUTPUT).where(F.col("kind") == "conflict")
        native = spark.sql(encoding.query("resolved"))
        encodable = {r[0] for r in source.select(F.col("new.ID"), F.expr(encoding.encodable)).collect() if r[1]}
        if rows is PLAIN:
            assert encodable == {r[0] for r in rows}  # every plain row is Spark's to write
            assert _written(native) == _written(python)  # line, sort key and flat columns, byte for byte
            assert native.count() == 2 * len(rows)  # a line a conflicting column group
        else:
            assert encodable == set() and native.count() == 0
    # a delivery with an odd value among plain ones: only the plain ones are written by Spark
    mixed = _source(spark, [*PLAIN, ODD[0]], "a-3")
    mixed.createOrReplaceTempView("resolved")
    assert spark.sql(encoding.query("resolved")).select("txn").distinct().count() == 1
    assert spark.sql(encoding.query("resolved")).count() == 2 * len(PLAIN)

