"""The run's Spark stages, each a `DataFrame -> DataFrame` function (or a factory of one).

Native Spark does the reading, line splitting, filtering, partitioning,
sorting and counting. Where the semantics are an ordered fold (decoding a
record by its version, the net effect of a transaction, detection and
resolution per key), a stage runs the reference's pure functions over
Arrow batches of key-partitioned, sorted rows (`mapInArrow`): one Python
call per batch, never one per key. Values cross stages as tagged JSON text
(`engine.spark.codec`), so nothing is lost between them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from engine.model.io import parse_model
from engine.model.schema import Model
from engine.run.context import RunContext, build_context
from engine.run.converge import compare_mapping
from engine.run.debezium import Skip, SnapshotRow, decode_event
from engine.run.fold import fold_events, fold_grouping, group_key
from engine.run.records import ChangeRecord, Reject, change_files, decode_record, split_lines
from engine.run.reference import Transaction, local_events, transaction_deliveries
from engine.run.schedule import Schedule, parse_schedule
from engine.spark.batches import grouped, rows_of, to_batches
from engine.spark.codec import decode, encode

Stage = Callable[[DataFrame], DataFrame]

LINES = pa.schema([("file", pa.string()), ("line", pa.int64()), ("data", pa.binary())])
DECODED = pa.schema([("kind", pa.string()), ("site", pa.string()), ("txn", pa.string()), ("seq", pa.int64()),
                     ("file", pa.string()), ("line", pa.int64()), ("payload", pa.string())])
EVENTS = pa.schema([("kind", pa.string()), ("gkey", pa.string()), ("payload", pa.string())])
FOLDED = pa.schema([("kind", pa.string()), ("status", pa.string()), ("payload", pa.string())])
CONVERGED = pa.schema([("mapping", pa.string()), ("payload", pa.string())])


def ddl(schema: pa.Schema) -> str:
    names = {pa.string(): "string", pa.int64(): "long", pa.binary(): "binary"}
    return ", ".join(f"{f.name} {names[f.type]}" for f in schema)


@lru_cache(maxsize=8)
def _model(model_text: str) -> Model:
    return parse_model(model_text)


@lru_cache(maxsize=8)
def _context(model_text: str) -> RunContext:
    """The run context, built once per Python worker and model."""
    return build_context(_model(model_text))


@lru_cache(maxsize=8)
def _schedule(schedule_text: str) -> Schedule:
    return parse_schedule(decode(schedule_text))


def read_change_lines(spark: SparkSession, files: dict[str, str]) -> DataFrame:
    """Every non-blank line of the change files: (file as the user named it, line number from 1, bytes).

    `files` maps each file's absolute path to the name rejects report. Whole files are read as bytes and
    split by the reference's `split_lines`, so line numbers are exact and a line that is not UTF-8
    reaches decoding as it is (Spark's text reader and `split` would replace its bytes with U+FFFD).
    """
    if not files:
        return spark.createDataFrame([], ddl(LINES))
    names = encode(files)

    def split_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        known = decode(names)
        for batch in batches:
            for row in batch.to_pylist():
                name = file_name(row["path"], known)
                out = [{"file": name, "line": n, "data": data} for n, data in split_lines(row["content"])]
                yield from to_batches(out, LINES)

    whole = spark.read.format("binaryFile").load([glob_escaped(path) for path in files])
    return whole.select("path", "content").mapInArrow(split_batches, ddl(LINES))


def glob_escaped(path: str) -> str:
    """`path` with Hadoop's glob characters escaped, so that a folder named `data [2]` is read as named."""
    return re.sub(r"([\\\[\]{}*?])", r"\\\1", path)


def file_name(location: str, files: dict[str, str]) -> str:
    """The name the reference reports for a file Spark read, from the location it gives: a Hadoop path
    (`file:/a b/c.jsonl`, not escaped) or, on some file systems, a URI (`file:///a%20b/c.jsonl`)."""
    path = location.removeprefix("file:")
    if path.startswith("//"):
        path = "/" + path[2:].split("/", 1)[-1] if not path.startswith("///") else path[2:]
    if path in files:
        return files[path]
    unescaped = unquote(urlsplit(location).path)
    return files.get(unescaped, path)


def decode_records(model_text: str, debezium: dict[str, str] | None = None) -> Stage:
    """Lines -> accepted records and rejects, each decoded by its replication-definition version; the lines
    of Debezium files (`debezium`: file -> server) by `decode_event`, which adds skips and snapshot rows."""
    servers = encode(debezium or {})

    def decode_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        model, known = _model(model_text), decode(servers)
        out: list[dict[str, Any]] = []
        for row in rows_of(batches):
            server = known.get(row["file"])
            out.append(decoded_row(decode_record(row["data"], row["file"], row["line"], model) if server is None
                                   else decode_event(row["data"], server, row["file"], row["line"], model)))
        yield from to_batches(out, DECODED)

    def stage(lines: DataFrame) -> DataFrame:
        return lines.mapInArrow(decode_batches, ddl(DECODED))
    return stage


def decoded_row(result: ChangeRecord | SnapshotRow | Skip | Reject) -> dict[str, Any]:
    """A decoded line as a DECODED row: kind record, snapshot, skip or reject."""
    if isinstance(result, ChangeRecord):
        return {"kind": "record", "site": result.site, "txn": result.txn, "seq": result.seq, "file": result.file,
                "line": result.line, "payload": encode(dataclasses.asdict(result))}
    kind = "snapshot" if isinstance(result, SnapshotRow) else "skip" if isinstance(result, Skip) else "reject"
    return {"kind": kind, "site": None, "txn": None, "seq": None, "file": result.file, "line": result.line,
            "payload": encode(dataclasses.asdict(result))}


def group_of(event: dict[str, Any], ctx: RunContext) -> str:
    """The fold group an event belongs to: its row key, its table, or its site (`fold_grouping`)."""
    grouping = fold_grouping(ctx, event["table"])
    if grouping == "site":
        return encode([event["site"]])
    if grouping == "table":
        return encode([event["site"], event["table"]])
    return encode(list(group_key(event, ctx)))


def net_effect(model_text: str, schedule_text: str) -> Stage:
    """Accepted records -> local-commit and delivery events (and a `filtered` count per transaction).

    Records are partitioned by transaction and sorted by `seq` (file order breaks ties), so each
    transaction reaches one call of the reference's net-effect functions whole.
    """
    def effect_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        ctx, schedule = _context(model_text), _schedule(schedule_text)
        out: list[dict[str, Any]] = []
        for (site, txn), rows in grouped(batches, lambda r: (r["site"], r["txn"])):
            records = [ChangeRecord(**decode(r["payload"])) for r in rows]
            transaction = Transaction(site, txn, max(r.commit_ts for r in records), records)
            deliveries, filtered = transaction_deliveries(transaction, ctx, schedule)
            for event in local_events(transaction, ctx) + deliveries:
                out.append({"kind": event["kind"], "gkey": group_of(event, ctx), "payload": encode(event)})
            if filtered:
                out.append({"kind": "filtered", "gkey": None, "payload": str(filtered)})
        yield from to_batches(out, EVENTS)

    def stage(records: DataFrame) -> DataFrame:
        return (records.where(F.col("kind") == "record")
                .repartition("site", "txn")
                .sortWithinPartitions("site", "txn", "seq", "file", "line")
                .mapInArrow(effect_batches, ddl(EVENTS)))
    return stage


def resolve(model_text: str) -> Stage:
    """Events -> final rows, conflicts, error-queue entries and one outcome per delivery.

    Events are partitioned and sorted by fold group, so each group (one row key where the model
    allows it) is folded by the reference's detection and resolution in one call.
    """
    def fold_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        ctx = _context(model_text)
        for _, rows in grouped(batches, lambda r: r["gkey"]):
            folded = fold_events([decode(r["payload"]) for r in rows], ctx)
            out = ([{"kind": "row", "status": None, "payload": encode(x)} for x in folded.rows]
                   + [{"kind": "conflict", "status": None, "payload": encode(x)} for x in folded.conflicts]
                   + [{"kind": "queue", "status": None, "payload": encode(x)} for x in folded.queue]
                   + [{"kind": "outcome", "status": x["status"], "payload": encode(x)} for x in folded.outcomes])
            yield from to_batches(out, FOLDED)

    def stage(events: DataFrame) -> DataFrame:
        return (events.where(F.col("kind") != "filtered")
                .repartition("gkey")
                .sortWithinPartitions("gkey")
                .mapInArrow(fold_batches, ddl(FOLDED)))
    return stage


def converge(model_text: str, tables_text: str) -> Stage:
    """Mapping ids -> each mapping's convergence report, one mapping per task."""
    def compare_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        ctx = _context(model_text)
        tables = decode(tables_text)
        out = [{"mapping": r["mapping"], "payload": encode(compare_mapping(ctx, ctx.mappings[r["mapping"]], tables))}
               for r in rows_of(batches)]
        yield from to_batches(out, CONVERGED)

    def stage(mappings: DataFrame) -> DataFrame:
        return mappings.mapInArrow(compare_batches, ddl(CONVERGED))
    return stage


def file_names(changes_dir: Path) -> dict[str, str]:
    """Absolute path -> the name the reference reports, for every change file, by name; the reference's
    `InputError` when `changes` is not a folder or a file cannot be read."""
    return {str(p.resolve()): str(p) for p in change_files(changes_dir)}
