"""Equal numbers are equal whatever their scale or the sign of their zero, in keys, detection, convergence
and the order of a table file (docs/contract.md §7): the Spark pipeline against the reference, on a NUMBER
without precision (which Spark holds as text) and on a DOUBLE's -0.0."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sparkkit import both

from engine.core.types import parse_type
from engine.model import load_model
from engine.spark.types import key_sql, order_sql

NUMBER = parse_type("NUMBER")
TS = "2026-01-05T10:00:00Z"


def _model(folder: Path, key_type: str, mapped: bool, key: str = "K", other: str = "X",
           other_type: str = "INTEGER") -> Any:
    servers = ["s", "t"] if mapped else ["s"]
    model = {
        "format": "mapwright/1", "name": "numbers",
        "servers": [{"id": s, "dbms": "oracle", "priority": 20 - i} for i, s in enumerate(servers)],
        "tables": [{"server": s, "name": "T", "primary_key": [key],
                    "columns": [{"name": key, "type": key_type, "nullable": False},
                                {"name": other, "type": other_type, "nullable": True}]} for s in servers],
        "mappings": [{"id": "m", "source": "s.T", "target": "t.T", "columns": {key: key, other: other}}]
        if mapped else [],
        "conflicts": [],
    }
    path = folder / "model.json"
    path.write_text(json.dumps(model))
    return load_model(path)


def _data(folder: Path, changes: list[dict[str, Any]], snapshots: dict[str, str]) -> Path:
    data = folder / "data"
    (data / "changes").mkdir(parents=True)
    (data / "changes" / "a.jsonl").write_text("".join(json.dumps({"commit_ts": TS, "table": "T", **c}) + "\n"
                                                      for c in changes))
    for site, text in snapshots.items():
        (data / "snapshots" / site).mkdir(parents=True)
        (data / "snapshots" / site / "T.csv").write_text(text)
    return data


def _insert(txn: str, after: dict[str, Any], site: str = "s") -> dict[str, Any]:
    return {"site": site, "txn": txn, "seq": 1, "op": "I", "after": after}


CASES = {
    # s inserts 1.50 where t holds 1.5: the same key, a uniqueness conflict
    "number key scale": ("NUMBER", True, [_insert("a", {"K": "1.50", "X": 1})], {"t": "K,X\n1.5,0\n"}),
    # 2.0 at s, 2 at t: converged
    "number value scale": ("INTEGER", True, [], {"s": "K,X\n1,2.0\n", "t": "K,X\n1,2\n"}),
    # rows in numeric order (2.5, 9, 10, 100), not text order
    "number key order": ("NUMBER", False, [_insert(f"x{i}", {"K": k, "X": i})
                                           for i, k in enumerate([9, 10, 100, "2.5", "-3", "-20.5"])], {}),
    # s inserts -0.0 where t holds 0.0: the same key
    "double zero delivery": ("DOUBLE", True, [_insert("a", {"K": -0.0, "X": 5})], {"t": "K,X\n0.0,1\n"}),
    # an insert of 0.0 and an update of the row keyed -0.0 in one transaction: one row, one delivery
    "double zero chain": ("DOUBLE", True, [
        _insert("a", {"K": 0.0, "X": 1}),
        {"site": "s", "txn": "a", "seq": 2, "op": "U", "before": {"K": -0.0, "X": 1}, "after": {"K": -0.0, "X": 3}},
    ], {}),
}

EXPECTED_COUNTS = {
    "number key scale": {"conflicts": 1, "queued": 1, "applied": 0},
    "number value scale": {},
    "number key order": {},
    "double zero delivery": {"conflicts": 1, "queued": 1, "applied": 0},
    "double zero chain": {"deliveries": 1},
}


@pytest.mark.parametrize("name", list(CASES))
def test_equal_numbers_are_one_key_as_in_the_reference(spark: Any, tmp_path: Path, name: str) -> None:
    key_type, mapped, changes, snapshots = CASES[name]
    other_type = "NUMBER" if name == "number value scale" else "INTEGER"
    model = _model(tmp_path, key_type, mapped, other_type=other_type)
    got, want = both(spark, model, _data(tmp_path, changes, snapshots), tmp_path / "runs")
    assert got == want
    counts = want["manifest"]["counts"]
    assert {k: counts[k] for k in EXPECTED_COUNTS[name]} == EXPECTED_COUNTS[name]
    if name == "number value scale":
        assert '"diverged": 0' in want["convergence.json"]
    if name == "number key order":
        rows = want["tables/s/T.parquet"]["rows"]
        assert [r["K"] for r in rows] == sorted(r["K"] for r in rows)


NUMBERS = ["10", "100", "2.5", "9", "-3", "-20.5", "-20.25", "-20", "0.05", "0.5", "-0.5", "0", "1.50", "1.5",
           "123456789012345678901234567890123456789.5", "-0.00", None]


def test_a_number_held_as_text_keys_and_orders_by_value(spark: Any) -> None:
    frame = spark.createDataFrame([(n,) for n in NUMBERS], "v string")
    order = [f"o{i}" for i in range(len(order_sql("v", NUMBER)))]
    rows = frame.selectExpr("v", f"{key_sql('v', NUMBER)} AS k",
                            *(f"{o} AS {name}" for o, name in zip(order_sql("v", NUMBER), order, strict=True))) \
        .orderBy(*order).collect()
    got = [r["v"] for r in rows]
    want = sorted(NUMBERS, key=lambda n: (n is not None, Decimal(n) if n is not None else 0))
    assert [Decimal(v) if v is not None else None for v in got] == [Decimal(v) if v is not None else None
                                                                     for v in want]
    for r in rows:
        if r["v"] is not None:
            assert Decimal(r["k"]) == Decimal(r["v"])
            assert r["k"] == format(Decimal(r["v"]).normalize(), "f") or Decimal(r["v"]) == 0
    assert {r["k"] for r in rows if r["v"] in ("0", "-0.00")} == {"0"}
    assert {r["k"] for r in rows if r["v"] in ("1.50", "1.5")} == {"1.5"}


def test_a_double_key_holds_no_negative_zero(spark: Any) -> None:
    double = parse_type("DOUBLE")
    rows = spark.sql(f"SELECT CAST(v AS STRING) AS k FROM (SELECT {key_sql('x', double)} AS v "
                     "FROM VALUES (CAST(-0.0 AS DOUBLE)), (CAST(0.0 AS DOUBLE)), (CAST(-1.5 AS DOUBLE)) AS t(x))"
                     ).collect()
    assert [r["k"] for r in rows] == ["0.0", "0.0", "-1.5"]
