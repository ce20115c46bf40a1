"""The conflicts Spark resolved natively (`resolve_native`) whose text Spark does not write (`conflict_json`:
text that is not plain ASCII), as the lines the reference writes them.

The records' values are Spark's (typed Arrow structs: the delivery's images, the row before and after it,
each conflicting group's outcome); only their text is Python's: the reference's own `jsonl_line`,
`time_order_key` and `conflict_flat` over the record `detect.Delivery._conflict` makes, so each line is the
reference's byte for byte. Whole Arrow batches, one record a conflicting group; with them, how many
deliveries ended `resolved` (an `outcome` row a batch).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame

from engine.core.values import as_utc, row_to_json, to_json_value
from engine.model.schema import Table
from engine.run.rundir.write import conflict_flat, jsonl_line, time_order_key
from engine.spark.canonical import typed_row_reader
from engine.spark.grouped import FoldTally
from engine.spark.inworker import context_of, model_of

READ = ("origin", "txn", "mapping", "at", "commit_ts", "old", "new", "_conflicts")


def conflict_lines(resolved: DataFrame, table: Table, model_text: str, schema: pa.Schema, ddl: str,
                   tally: FoldTally | None = None) -> DataFrame:
    """`resolved` (the check's events with `_conflicts`) -> `resolve.OUTPUT` rows: each conflict's line,
    time-order key and flat columns, and the count of resolved deliveries; `tally` counts the deliveries
    Python read and its CPU seconds."""
    return resolved.select(*READ).mapInArrow(_writer(model_text, table.key, schema, tally), ddl)


def _writer(model_text: str, table_key: str, schema: pa.Schema, tally: FoldTally | None = None) \
        -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        table = model_of(model_text).table(table_key)
        assert table is not None
        ctx = context_of(model_text)
        names = {c.name for c in table.columns}
        whole = typed_row_reader(table, [c.name for c in table.columns])
        images: dict[str, Callable[[dict[str, Any] | None], dict[str, Any] | None]] = {}
        started = time.process_time()
        rows = 0
        for batch in batches:
            rows += batch.num_rows
            out: list[dict[str, Any]] = []
            deliveries = 0
            for event in batch.to_pylist():
                mapping = ctx.mappings[event["mapping"]]
                image = images.get(mapping.id)
                if image is None:  # the mapping's columns, in its order, as `map_image` makes an image
                    image = images[mapping.id] = typed_row_reader(table, [c for c in mapping.columns if c in names])
                old, new = image(event["old"]) or {}, image(event["new"]) or {}
                found = event["_conflicts"]
                local, result = whole(found["local"]), whole(found["result"])
                deliveries += 1
                for group in found["groups"]:
                    record: dict[str, Any] = {
                        "site": table.server, "origin": event["origin"], "table": table_key,
                        "dkey": {c: to_json_value(new.get(c)) for c in mapping.dkey or ()},
                        "txn": event["txn"], "type": "update", "column_group": group["g"],
                        "methods_tried": list(group["tried"]), "method": group["method"],
                        "outcome": group["outcome"], "local": row_to_json(local), "remote_old": row_to_json(old),
                        "remote_new": row_to_json(new), "result": row_to_json(result),
                        "delivered_at": to_json_value(as_utc(event["at"])), "mapping": mapping.id,
                        "commit_ts": to_json_value(as_utc(event["commit_ts"])), "applied": True,
                    }
                    out.append({"kind": "conflict", "text": jsonl_line(record), "sort": time_order_key(record),
                                **conflict_flat(record)})
            if deliveries:
                out.append({"kind": "outcome", "status": "resolved", "n": deliveries})
            if out:
                yield pa.RecordBatch.from_pylist(out, schema=schema)
        if tally is not None:
            tally.rows.add(rows)
            tally.cpu_seconds.add(time.process_time() - started)
    return run
