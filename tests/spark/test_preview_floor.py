"""The preview benchmark's floor (benchmarks/preview_floor.py): the least a Spark-native run does, and does right.

The preview's latency is reported as a ratio of this floor, so the floor must do the work it claims: every
table's latest rows from its snapshot and the changes delivered to it, deletes dropped, written one Parquet
output per table, and each mapping's keys compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from builders import pair

from benchmarks.preview_floor import floor_run


def _change(seq: int, op: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    return json.dumps({"site": "s", "txn": f"s-{seq}", "seq": 1, "commit_ts": f"2026-01-05T08:00:0{seq}Z",
                       "table": "T", "op": op, "before": before, "after": after})


def _rows(path: Path) -> list[tuple[int, str | None]]:
    table = pq.read_table(path)
    return sorted(zip(table.column("ID").to_pylist(), table.column("NAME").to_pylist(), strict=True))


def test_the_floor_keeps_the_latest_rows_per_table_and_compares_each_mapping(spark: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "snapshots" / "s").mkdir(parents=True)
    (data / "snapshots" / "t").mkdir(parents=True)
    (data / "changes").mkdir()
    (data / "snapshots" / "s" / "T.csv").write_text("ID,NAME\n1,one\n2,two\n")
    (data / "snapshots" / "t" / "T.jsonl").write_text('{"ID": 1, "NAME": "one"}\n{"ID": 9, "NAME": "stray"}\n')
    (data / "changes" / "s.jsonl").write_text("\n".join([
        _change(3, "U", {"ID": 1, "NAME": "one"}, {"ID": 1, "NAME": "uno"}),
        _change(1, "D", {"ID": 2, "NAME": "two"}, None),
        _change(2, "I", None, {"ID": 3, "NAME": "three"}),
        _change(4, "U", {"ID": 3, "NAME": "three"}, {"ID": 3, "NAME": "tres"})]) + "\n")

    differences = floor_run(spark, pair(), data, tmp_path / "out")

    assert _rows(tmp_path / "out" / "s" / "T.parquet") == [(1, "uno"), (3, "tres")]
    # the target gets the source's changes over its own snapshot; the stray row stays (no deletes reach it)
    assert _rows(tmp_path / "out" / "t" / "T.parquet") == [(1, "uno"), (3, "tres"), (9, "stray")]
    assert differences == {"m": 1}
