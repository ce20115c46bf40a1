"""The whole run on Spark: decode -> net effect -> resolve -> converge, chained DataFrame stages.

Inputs the run cannot use (a bad schedule, a snapshot that does not fit its
table, a model without keys) are found on the driver before any job starts,
so they fail with the same one-line reasons as the reference. The result is
the reference's `RunResult`, written by the same run-directory writer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from engine.model.io import dump_model
from engine.model.schema import Model
from engine.run.context import build_context
from engine.run.debezium import SnapshotRow, add_snapshot_rows, debezium_files
from engine.run.fold import row_sort_key
from engine.run.records import InputError, Reject, read_snapshots
from engine.run.reference import RunCounts, RunResult, snapshot_events
from engine.run.schedule import load_schedule
from engine.spark import stages
from engine.spark.codec import decode, encode

STAGES = ("decode", "net_effect", "resolve", "converge")
Progress = Callable[[str, int, int], None]


def run_spark(spark: SparkSession, model: Model, data_dir: Path, progress: Progress | None = None) -> RunResult:
    """Run `model` on the sample data in `data_dir` with `spark`; raises the reference's input errors."""
    if not data_dir.is_dir():
        raise InputError(f"{data_dir}: no such folder (the run's --data)")
    seconds: dict[str, float] = {}

    def stage(name: str) -> _Stage:
        return _Stage(name, seconds, progress)

    with stage("decode"):
        ctx = build_context(model)
        load_schedule(data_dir / "schedule.json")  # fails here, on the driver, with the reference's reason
        snapshots = read_snapshots(data_dir, model)
        model_text = dump_model(model)
        debezium = debezium_files(data_dir / "changes", model)
        files = {**stages.file_names(data_dir / "changes"), **{str(Path(f).resolve()): f for f in debezium}}
        lines = stages.read_change_lines(spark, files)
        decoded = lines.transform(stages.decode_records(model_text, debezium)).persist()
        kinds = _count_by(decoded, "kind")
        apart = decoded.where(F.col("kind").isin("reject", "snapshot")).select("kind", "payload").collect()
        rejects = sorted((Reject(**decode(r["payload"])) for r in apart if r["kind"] == "reject"),
                         key=lambda r: (r.file, r.line))
        add_snapshot_rows(snapshots, [SnapshotRow(**decode(r["payload"])) for r in apart if r["kind"] == "snapshot"],
                          model)
    skipped, snapshot_rows = kinds.get("skip", 0), kinds.get("snapshot", 0)
    counts = RunCounts(records=sum(kinds.values()) - skipped - snapshot_rows, rejects=kinds.get("reject", 0),
                       skipped=skipped if debezium else None)

    with stage("net_effect"):
        schedule_file = data_dir / "schedule.json"
        schedule_text = schedule_file.read_text(encoding="utf-8") if schedule_file.exists() else '{"links": []}'
        events = decoded.transform(stages.net_effect(model_text, schedule_text)).persist()
        filtered = events.where(F.col("kind") == "filtered").agg(F.sum(F.col("payload").cast("long"))).first()
        counts.filtered = int(filtered[0] or 0) if filtered else 0
        counts.deliveries = _count_by(events, "kind").get("delivery", 0)
        initial = [{"kind": "snapshot", "gkey": stages.group_of(e, ctx), "payload": encode(e)}
                   for e in snapshot_events(snapshots, ctx)]
        if initial:
            events = events.unionByName(spark.createDataFrame(initial, stages.ddl(stages.EVENTS)))

    with stage("resolve"):
        folded = events.transform(stages.resolve(model_text)).persist()
        statuses = _count_by(folded.where(F.col("kind") == "outcome"), "status")
        counts.applied, counts.resolved, counts.queued = (statuses.get(s, 0) for s in ("applied", "resolved", "queued"))
        collected: dict[str, list[Any]] = {"row": [], "conflict": [], "queue": []}
        for r in folded.where(F.col("kind") != "outcome").select("kind", "payload").toLocalIterator():
            collected[r["kind"]].append(decode(r["payload"]))
        counts.conflicts = len(collected["conflict"])
        if counts.deliveries != counts.applied + counts.resolved + counts.queued:
            raise AssertionError(f"accounting broken: {counts}")
        tables: dict[str, list[dict[str, Any]]] = {key: [] for key in ctx.tables}
        for row in collected["row"]:
            tables[row["table"]].append(row["values"])
        for key, rows in tables.items():
            identity = ctx.tables[key].identity
            rows.sort(key=lambda values: row_sort_key(values, identity))  # noqa: B023 - used at once

    with stage("converge"):
        mappings = spark.createDataFrame([{"mapping": m} for m in sorted(ctx.mappings)], "mapping string") \
            if ctx.mappings else None
        reports = [] if mappings is None else [
            decode(r["payload"]) for r in mappings.repartition(max(1, min(len(ctx.mappings), 8)))
            .transform(stages.converge(model_text, encode(tables))).collect()]
        convergence = sorted(reports, key=lambda m: m["mapping"])
    for df in (decoded, events, folded):
        df.unpersist()
    return RunResult(tables, collected["conflict"], collected["queue"], rejects, convergence, counts, seconds)


def _count_by(df: DataFrame, column: str) -> dict[str, int]:
    return {r[column]: int(r["count"]) for r in df.groupBy(column).count().collect()}


class _Stage:
    """Times a stage into `seconds` and tells `progress` (stage, stages done, total) as it starts and ends."""

    def __init__(self, name: str, seconds: dict[str, float], progress: Progress | None) -> None:
        self.name, self.seconds, self.progress = name, seconds, progress
        self.start = 0.0

    def __enter__(self) -> _Stage:
        if self.progress:
            self.progress(self.name, STAGES.index(self.name), len(STAGES))
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds[self.name] = time.perf_counter() - self.start
        if self.progress and exc[0] is None:
            self.progress(self.name, STAGES.index(self.name) + 1, len(STAGES))
