"""Several frames materialized by one Spark job instead of one job each.

A small run's time is its jobs' and plans', not its rows': keeping each of eleven tables' frames is
eleven jobs, each scheduled, planned and committed on its own. `keep_together` keeps them all in one: each
frame's rows become one struct column of a wide frame (`_part` says whose row it is, the other structs
are NULL), the wide frame is kept once, and each frame is read back from it by its part. The rows and
their values are the frames' own; only the nullability of their columns may widen (a union's columns
are nullable where any side's are), which no query over them reads as data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from engine.spark import sqltext as sql

K = TypeVar("K")
PART = "_part"


def keep_together(frames: Mapping[K, DataFrame], keep: Callable[[DataFrame], DataFrame],
                  together: bool = True) -> dict[K, DataFrame]:
    """Each of `frames`, materialized by one `keep` of all of them (a single frame is kept alone).

    `together` False keeps each alone, as a large run does: each frame read from the kept whole scans
    every frame's blocks, which a few thousand rows do not notice and millions do."""
    keys = list(frames)
    if len(keys) <= 1 or not together:
        return {key: keep(frame) for key, frame in frames.items()}
    structs = [StructType(frames[k].schema.fields) for k in keys]  # types, never DDL text: any field name
    parts = []
    for i, key in enumerate(keys):
        columns = [F.struct(*(F.col(sql.ident(name)) for name in frames[key].columns)).alias(f"p{i}")
                   if j == i else F.lit(None).cast(struct).alias(f"p{j}") for j, struct in enumerate(structs)]
        parts.append(frames[key].select(F.lit(i).alias(PART), *columns))
    kept = keep(sql.union(parts))
    return {key: kept.where(F.col(PART) == i).select(f"p{i}.*") for i, key in enumerate(keys)}
