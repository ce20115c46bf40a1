"""The floor of a preview: the least a Spark-native run of a model's sample data must do, timed as a preview.

Read the change records with `spark.read.json` and an explicit schema, and each table's snapshot with
Spark's CSV, JSON or Parquet reader; send each change to its own table and to each mapping's target
(cached: every table reads them); keep the latest row per (table, key) with `max_by` over a struct
(snapshot rows before every change); write each table's rows as Parquet, one output per table as a run
directory holds them; and compare the keys of each mapping's source and target (one full join per
mapping, one aggregation for them all).

No column methods (a target column takes the same-named source column, cast), no conflict detection or
resolution, no schedule or delays, no rejects, no error queue, no accounting: only the reads, shuffles,
writes and jobs that any Spark-native run of the sample pays. It is the baseline the preview's latency is
a ratio of (`bench_preview`), as B2's native job is the pipeline's at scale (`baseline`).

Run as a process, as previews run: `python -m benchmarks.preview_floor [--runs N] [--warm]`, which prints
one JSON line per run (`{"run": i, "s": seconds}`); `--warm` first warms its session up on a tiny generated
sample, as the designer's warm worker does, and prints `{"ready": seconds}` when it has.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from functools import reduce
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from benchmarks.baseline import change_schema, spark_type
from engine.model.schema import Model, Table

SNAPSHOT_FORMATS = ("csv", "jsonl", "parquet")


def floor_run(spark: SparkSession, model: Model, data: Path, out: Path) -> dict[str, int]:
    """Run the floor on `data` into `out` (`<server>/<table>.parquet`); returns, per mapping whose source and
    target share a key column, how many keys are on one side only."""
    changes = spark.read.schema(change_schema(model)).json(str(data / "changes" / "*.jsonl"))
    routes = [(t.server, t.name, t.server, t.name) for t in model.tables]
    routes += [(s.server, s.name, t.server, t.name) for m in model.mappings
               if (s := model.table(m.source)) is not None and (t := model.table(m.target)) is not None]
    delivered = changes.join(F.broadcast(spark.createDataFrame(
        routes, "site string, table string, to_site string, to_table string")), ["site", "table"]).cache()
    written = {table.key: _write_latest(spark, table, delivered, data, out) for table in model.tables}
    compared: dict[str, DataFrame] = {}
    for mapping in model.mappings:
        source, target = model.table(mapping.source), model.table(mapping.target)
        if source is None or target is None:
            continue
        names = {c.name for c in source.columns}
        key = [k for k in target.primary_key if k in names]
        if key:
            only = (written[mapping.source].select(*key, F.lit(1).alias("s"))
                    .join(written[mapping.target].select(*key, F.lit(1).alias("t")), key, "full_outer")
                    .where(F.col("s").isNull() | F.col("t").isNull()))
            compared[mapping.id] = only.select(F.lit(mapping.id).alias("mapping"))
    counted = reduce(DataFrame.unionByName, compared.values()).groupBy("mapping").count().collect() \
        if compared else []
    delivered.unpersist()
    counts = {row["mapping"]: int(row["count"]) for row in counted}
    return {mapping_id: counts.get(mapping_id, 0) for mapping_id in compared}


def _write_latest(spark: SparkSession, table: Table, delivered: DataFrame, data: Path, out: Path) -> DataFrame:
    """The table's latest rows, written to `out/<server>/<table>.parquet` and read back from there."""
    struct = T.StructType([T.StructField(c.name, spark_type(c.type)) for c in table.columns])
    types = {f.name: f.dataType for f in struct}
    image = {f.name for f in delivered.schema["after"].dataType}  # type: ignore[attr-defined]
    mine = delivered.where((F.col("to_site") == table.server) & (F.col("to_table") == table.name))
    order = F.struct("commit_ts", "site", "txn", "seq")
    changes = mine.select(
        *(F.coalesce(F.col(f"after.{k}"), F.col(f"before.{k}")).cast(types[k]).alias(k)
          for k in table.primary_key),
        F.col("op"),
        F.struct(*((F.col(f"after.{c.name}") if c.name in image else F.lit(None)).cast(spark_type(c.type))
                   .alias(c.name) for c in table.columns)).alias("row"), order.alias("o"))
    snapshot = _snapshot(spark, table, struct, data)
    if snapshot is not None:
        first = F.struct(F.lit(None).cast("timestamp").alias("commit_ts"), F.lit("").alias("site"),
                         F.lit("").alias("txn"), F.lit(0).cast("long").alias("seq"))
        changes = changes.unionByName(snapshot.select(
            *table.primary_key, F.lit("I").alias("op"), F.struct(*(c.name for c in table.columns)).alias("row"),
            first.alias("o")))
    latest = changes.groupBy(*table.primary_key).agg(F.max_by(F.struct("op", "row"), F.col("o")).alias("last"))
    path = out / table.server / f"{table.name}.parquet"
    latest.where(F.col("last.op") != "D").select("last.row.*").coalesce(1).write.parquet(str(path))
    return spark.read.parquet(str(path))


def _snapshot(spark: SparkSession, table: Table, struct: T.StructType, data: Path) -> DataFrame | None:
    folder = data / "snapshots" / table.server
    for suffix in SNAPSHOT_FORMATS:
        path = folder / f"{table.name}.{suffix}"
        if path.is_file():
            if suffix == "csv":
                return spark.read.schema(struct).option("header", True).csv(str(path))
            if suffix == "jsonl":
                return spark.read.schema(struct).json(str(path))
            return spark.read.parquet(str(path)).select(*(F.col(f.name).cast(f.dataType) for f in struct))
    return None


def main(argv: list[str] | None = None) -> int:
    from engine.model import load_model
    from engine.runner import _start_spark
    from engine.spark.pipeline import configure
    from engine.spark.session import input_bytes
    from resources import ROOT as RESOURCES
    from resources import SAMPLE_MODEL

    parser = argparse.ArgumentParser(prog="python -m benchmarks.preview_floor")
    parser.add_argument("model", nargs="?", type=Path, default=SAMPLE_MODEL)
    parser.add_argument("--data", type=Path, default=RESOURCES / "samples" / "orders-data")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--warm", action="store_true", help="a session kept warm, as the designer's worker")
    args = parser.parse_args(argv)
    model = load_model(args.model)
    began = time.monotonic()
    # the JVM a preview of this size gets: `mapwright run`'s for one run, the worker's for a warm session
    spark: Any = _start_spark(args.master, None if args.warm else input_bytes(args.data))
    with tempfile.TemporaryDirectory(prefix="mapwright-floor-") as tmp:
        if args.warm:
            from engine.samplegen import SampleOptions, generate_sample

            generate_sample(model, Path(tmp) / "tiny", SampleOptions(seed=7, rows=20, changes=30))  # any model
            configure(spark, input_bytes(Path(tmp) / "tiny"))
            floor_run(spark, model, Path(tmp) / "tiny", Path(tmp) / "warm-up")
            print(json.dumps({"ready": round(time.monotonic() - began, 2)}), flush=True)
        for i in range(args.runs):
            start = time.monotonic()
            configure(spark, input_bytes(args.data))  # planned as the pipeline plans a run of this size
            floor_run(spark, model, args.data, Path(tmp) / f"run{i}")
            spark.catalog.clearCache()
            print(json.dumps({"run": i, "s": round(time.monotonic() - start, 2)}), flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
