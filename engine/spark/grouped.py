"""The reference's ordered folds over Arrow, a batch at a time: never a Python call per key.

`groupBy(...).applyInArrow` hands Python one Arrow table per group, and each group costs a round of
framing in the JVM and in the worker: about half a millisecond, more than folding a small group takes.
Here the rows are shuffled by their group and sorted by it within each partition (Spark's own exchange
and sort), and `mapInArrow` hands Python whole batches; the worker walks each batch, cuts it where the
group changes (a group may go on into the next batch) and gives each group's rows to the fold, in the
order Spark sorted them. What the folds give back leaves in batches too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame

from engine.spark.jobs import classic_context

Rows = list[dict[str, Any]]
Fold = Callable[[Rows], Rows]
"""One group's rows (dicts, as `to_pylist` gives them) -> the rows it gives (dicts of the output schema)."""

BATCH_ROWS = 4096
"""Output rows per Arrow batch handed back to Spark."""


@dataclass(frozen=True)
class FoldTally:
    """Where Python still runs, counted by the workers as they fold: the rows handed to the folds, the
    groups folded, and the CPU seconds the Python tasks spent (reading the batches, folding, writing what
    the folds give). Spark accumulators: read once the jobs that fold have run."""

    rows: Any
    groups: Any
    cpu_seconds: Any

    @staticmethod
    def of(frame: DataFrame) -> FoldTally | None:
        """A tally in `frame`'s session; None over Spark Connect, which has no accumulators."""
        context = classic_context(frame.sparkSession)
        if context is None:
            return None
        return FoldTally(context.accumulator(0), context.accumulator(0), context.accumulator(0.0))

    def figures(self) -> dict[str, float]:
        return {"rows": int(self.rows.value), "groups": int(self.groups.value),
                "cpu_seconds": round(float(self.cpu_seconds.value), 4)}


def fold_groups(frame: DataFrame, keys: list[str], order: list[str], make_fold: Callable[[], Fold],
                schema: pa.Schema, ddl: str, tally: FoldTally | None = None) -> DataFrame:
    """`frame`'s rows folded per group of equal `keys`, each group's rows in `order` (after the keys);
    `make_fold` is called once per Python task (its closure ships to the workers); `ddl` is `schema` as
    Spark's DDL; `tally` counts what Python did."""
    return fold_within(spread(frame, *keys), keys, order, make_fold, schema, ddl, tally)


def fold_within(frame: DataFrame, keys: list[str], order: list[str], make_fold: Callable[[], Fold],
                schema: pa.Schema, ddl: str, tally: FoldTally | None = None) -> DataFrame:
    """`fold_groups` of a frame whose every group is whole within one of its partitions already (a frame
    an exchange by those groups made, kept as it is): only sorted within its partitions, not shuffled."""
    return frame.sortWithinPartitions(*keys, *order).mapInArrow(_by_groups(keys, make_fold, schema, tally), ddl)


def spread(frame: DataFrame, *keys: str) -> DataFrame:
    """`frame` hash-partitioned by `keys` into the session's shuffle partitions, a number adaptive execution
    keeps. Where a stage's work is rows, not bytes (a Python fold, windows over wide rows), AQE's coalescing
    by size plans it badly: on two cores it made three tasks of the four partitions, the third twice the
    others and alone on one core in a second round (B2 at 1,000,000 events, the reference's fold took
    almost twice as long; benchmarks/results)."""
    return frame.repartition(int(frame.sparkSession.conf.get("spark.sql.shuffle.partitions") or 1), *keys)


def _by_groups(keys: list[str], make_fold: Callable[[], Fold], schema: pa.Schema, tally: FoldTally | None) \
        -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        started = time.process_time()
        fold = make_fold()
        out: Rows = []
        group: Rows = []
        current: tuple[Any, ...] | None = None
        rows = groups = 0
        for batch in batches:
            rows += batch.num_rows
            names = batch.schema.names
            at = [names.index(k) for k in keys]
            # column by column, and each row's dict made in C: `to_pylist` of a batch took twice as long
            for values in zip(*(column.to_pylist() for column in batch.columns), strict=True):
                key = tuple(values[i] for i in at)
                row = dict(zip(names, values, strict=True))
                if group and key != current:
                    out.extend(fold(group))
                    groups += 1
                    group = []
                    if len(out) >= BATCH_ROWS:
                        yield pa.RecordBatch.from_pylist(out, schema=schema)
                        out = []
                current = key
                group.append(row)
        if group:
            out.extend(fold(group))
            groups += 1
        if out:
            yield pa.RecordBatch.from_pylist(out, schema=schema)
        if tally is not None:
            tally.rows.add(rows)
            tally.groups.add(groups)
            tally.cpu_seconds.add(time.process_time() - started)
    return run
