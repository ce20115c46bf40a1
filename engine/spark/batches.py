"""Helpers for `mapInArrow` stages: rows in key-sorted Arrow batches, grouped across batch boundaries."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa

Row = dict[str, Any]


def rows_of(batches: Iterable[pa.RecordBatch]) -> Iterator[Row]:
    for batch in batches:
        yield from batch.to_pylist()


def grouped(batches: Iterable[pa.RecordBatch], key: Callable[[Row], Any]) -> Iterator[tuple[Any, list[Row]]]:
    """Consecutive rows with equal `key`, as one list even when a group spans several batches."""
    current: Any = object()
    group: list[Row] = []
    for row in rows_of(batches):
        k = key(row)
        if group and k != current:
            yield current, group
            group = []
        current = k
        group.append(row)
    if group:
        yield current, group


def to_batches(rows: Sequence[Row], schema: pa.Schema, size: int = 4096) -> Iterator[pa.RecordBatch]:
    for start in range(0, len(rows), size):
        yield pa.RecordBatch.from_pylist(list(rows[start : start + size]), schema=schema)
