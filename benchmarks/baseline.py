"""The native Spark job a Spark engineer would write for the 3-master topology: B2's baseline.

Read the change records with `spark.read.json` and an explicit schema, fan each change out to the sites
that receive it (its own site at its commit time, each mapping's target at commit time + the link's
delay), and keep the latest row per (site, table, key) with `max_by` over a struct in one aggregation;
write the result as Parquet. Last delivery wins: no conflict detection, no column groups, no additive
merge, no outages, no snapshots, no rejects; that is what makes it the floor the pipeline is measured
against. The column maps are taken as copies of same-named columns (true of the topology's model).
"""

from __future__ import annotations

import re
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from engine.model.schema import Model
from engine.run.input.schedule import Schedule

_DECIMAL = re.compile(r"^(?:DECIMAL|NUMERIC|NUMBER)\((\d+),\s*(\d+)\)$", re.IGNORECASE)
_SIMPLE: dict[str, T.DataType] = {
    "SMALLINT": T.ShortType(), "INTEGER": T.IntegerType(), "INT": T.IntegerType(), "BIGINT": T.LongType(),
    "SERIAL": T.IntegerType(), "SERIAL8": T.LongType(), "REAL": T.FloatType(), "FLOAT": T.DoubleType(),
    "DOUBLE": T.DoubleType(), "DATE": T.DateType(), "TIMESTAMP": T.TimestampType(),
    "DATETIME": T.TimestampType(), "BOOLEAN": T.BooleanType()}


def spark_type(type_string: str) -> T.DataType:
    """The Spark type a hand-written schema gives a contract type (character and other types as strings)."""
    match = _DECIMAL.match(type_string.strip())
    if match:
        return T.DecimalType(int(match.group(1)), int(match.group(2)))
    return _SIMPLE.get(type_string.strip().upper(), T.StringType())


def change_schema(model: Model) -> T.StructType:
    """The explicit schema of a change record: images hold the union of the tables' columns."""
    columns: dict[str, T.DataType] = {}
    for table in model.tables:
        for column in table.columns:
            columns.setdefault(column.name, spark_type(column.type))
    image = T.StructType([T.StructField(name, t) for name, t in columns.items()])
    return T.StructType([
        T.StructField("site", T.StringType()), T.StructField("txn", T.StringType()),
        T.StructField("seq", T.LongType()), T.StructField("commit_ts", T.TimestampType()),
        T.StructField("table", T.StringType()), T.StructField("op", T.StringType()),
        T.StructField("before", image), T.StructField("after", image)])


def routes(spark: SparkSession, model: Model, schedule: Schedule) -> DataFrame:
    """(origin site, table) -> (destination site, table, delay): each mapping, and each table to itself."""
    rows = [(t.server, t.name, t.server, t.name, 0.0) for t in model.tables]
    for m in model.mappings:
        (src_site, src_table), (dst_site, dst_table) = m.source.split(".", 1), m.target.split(".", 1)
        rows.append((src_site, src_table, dst_site, dst_table, float(schedule.link(src_site, dst_site).delay_s)))
    return spark.createDataFrame(rows, "site string, table string, dest_site string, dest_table string, "
                                       "delay_s double")


def key_of(model: Model) -> list[str]:
    """The key every table shares (the topology's tables all have the same primary key)."""
    keys = {tuple(t.primary_key or ()) for t in model.tables}
    if len(keys) != 1 or not next(iter(keys)):
        raise ValueError("the baseline needs one primary key shared by every table")
    return list(next(iter(keys)))


def latest_rows(spark: SparkSession, model: Model, schedule: Schedule, changes: Path) -> DataFrame:
    """The baseline's result: the latest delivered row image per (site, table, key); deletes dropped."""
    records = spark.read.schema(change_schema(model)).json(str(changes / "*.jsonl"))
    delivered = (records.join(F.broadcast(routes(spark, model, schedule)), ["site", "table"])
                 .withColumn("delivered_at", F.col("commit_ts") + F.make_dt_interval(secs=F.col("delay_s"))))
    key = [F.coalesce(F.col(f"after.{k}"), F.col(f"before.{k}")).alias(k) for k in key_of(model)]
    latest = (delivered.groupBy(F.col("dest_site").alias("site"), F.col("dest_table").alias("table"), *key)
              .agg(F.max_by(F.struct("op", "after"),
                            F.struct("delivered_at", "commit_ts", "site", "txn", "seq")).alias("last")))
    return latest.where(F.col("last.op") != "D").select("site", "table", "last.after.*")


def run_baseline(spark: SparkSession, model: Model, schedule: Schedule, changes: Path, out: Path) -> None:
    """Compute the baseline and write it as Parquet in `out`."""
    latest_rows(spark, model, schedule, changes).write.mode("overwrite").parquet(str(out))
