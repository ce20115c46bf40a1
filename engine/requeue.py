"""`mapwright requeue`: execute a run's error queue again, as Oracle's `DBMS_DEFER_SYS.EXECUTE_ERROR` does.

The queued changes of RUNDIR (all, or the transactions named) are delivered again, each to the site it
was queued at, through detection and resolution with MODEL (which may have changed since: a resolution
method added), against the run's final tables as they stand. The result is a new run directory with the
layout, counts and protocol of `mapwright run` (`rundir.write_run`: staged, locked, swapped in whole).
RUNDIR is only read.

A queue entry is a change record addressed to its destination (`fold.queue_entry`); fed to a run as a
change record it would be a local commit there, applied unconditionally, so the entries are turned into
deliveries instead (origin, mapping and delivery time as they were) and folded with the reference engine
over the final tables taken as snapshots. Entries not named by `--txn` are carried over as queued, with
their reason, so the new run's error queue still holds everything that is unresolved. An entry the new
model cannot take (its table, mapping or a column gone, a value that no longer fits) is a reject.

Limit: a run directory does not record which site last wrote each row, so `site_priority` sees every
final row as last written by its own site, as a snapshot row is.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.core.values import ValueDecodeError, parse_timestamp
from engine.model import Model, load_model
from engine.run.input.records import ChangeRecord, Reject, decode_record, parse_json
from engine.run.input.snapshots import read_snapshot_file
from engine.run.rundir.publish import RunDirError, check_out_dir, claim
from engine.run.rundir.read import RunDirUnreadable, read_run_files, read_text
from engine.run.rundir.write import RUN_INPUT_ERRORS, RunInfo, model_sha256, table_file, write_failed_run, write_run
from engine.run.semantics.context import RunContext, build_context
from engine.run.semantics.converge import converge
from engine.run.semantics.fold import fold_events
from engine.run.semantics.reference import RunCounts, RunResult, snapshot_events
from engine.runner import invalid_model_reason

EXIT_OK, EXIT_FAILED = 0, 1
QUEUE = "error_queue.jsonl"
Row = dict[str, Any]


class RequeueError(Exception):
    """Input a requeue cannot start with; the message is one line for the user (exit 2)."""


@dataclass
class Requeued:
    """What the new run is made of: the queue entries as delivery events, and the entries not taken."""

    deliveries: list[dict[str, Any]]
    rejects: list[Reject]
    executed: int


def requeue(rundir: Path, model_path: Path, out: Path, txns: Collection[str] = ()) -> int:
    """Execute RUNDIR's error queue (the transactions `txns`, or all) again with MODEL into `out`.

    Returns the exit code: 0 when the new run is written, 1 when MODEL has validation errors (a failed
    manifest in `out`, as `mapwright run` writes). Raises `RequeueError` before writing anything."""
    try:
        check_out_dir(out)
        _check_apart(rundir, out)
        files = read_run_files(rundir)
    except (RunDirError, RunDirUnreadable) as exc:
        raise RequeueError(str(exc)) from None
    if files.manifest["status"] != "succeeded":
        raise RequeueError(f"{rundir}: the run did not succeed (status {files.manifest['status']}): "
                           "it has no error queue to execute")
    model = load_model(model_path)
    info = RunInfo(model_sha256(model_path), master=None, spark_version=None, started=datetime.now(UTC),
                   model_path=str(model_path), run_engine="inprocess")
    reason = invalid_model_reason(model, model_path)
    try:
        if reason is not None:
            with claim(out) as target:
                where = write_failed_run(target, "failed", reason, replace(info, finished=datetime.now(UTC)))
            print(f"mapwright: requeue failed: {reason} (the reason is in {where / 'manifest.json'})",
                  file=sys.stderr)
            return EXIT_FAILED
        ctx = build_context(model)
        queued = queue_deliveries(rundir / QUEUE, model, ctx, set(txns))
        snapshots = final_tables(rundir, model)
        with claim(out) as target:
            result = execute(ctx, snapshots, queued)
            write_run(result, model, target, replace(info, finished=datetime.now(UTC)))
    except RUN_INPUT_ERRORS as exc:
        raise RequeueError(str(exc)) from None
    except RunDirError as exc:
        raise RequeueError(str(exc)) from None
    counts = result.counts
    print(f"executed {queued.executed} queued change(s) of {rundir} again: {counts.applied} applied, "
          f"{counts.resolved} resolved, {counts.queued} queued, {counts.rejects} rejected; wrote {out}")
    return EXIT_OK


def _check_apart(rundir: Path, out: Path) -> None:
    """The new run never replaces RUNDIR, nor lives inside it, nor holds it."""
    source, target = rundir.resolve(), out.resolve()
    if target == source or source in target.parents or target in source.parents:
        raise RequeueError(f"{out}: the new run must be written apart from {rundir}, which requeue only reads")


def queue_deliveries(path: Path, model: Model, ctx: RunContext, txns: set[str]) -> Requeued:
    """The entries of `path` as delivery events: those of `txns` (all when empty) to be executed, the others
    carried over as queued with their reason. `RequeueError` when a named transaction is not queued."""
    try:
        lines = [line for line in read_text(path).split("\n") if line.strip()]
    except RunDirUnreadable as exc:
        raise RequeueError(str(exc)) from None
    docs = [_object(parse_json(line)[0]) for line in lines]
    present = {str(doc.get("txn")) for doc in docs}
    missing = sorted(txns - present)
    if missing:
        raise RequeueError(f"--txn {missing[0]}: no queued change of that transaction in {path}")
    out = Requeued([], [], 0)
    for number, (line, doc) in enumerate(zip(lines, docs, strict=True), start=1):
        selected = not txns or str(doc.get("txn")) in txns
        event = delivery(decode_record(line, str(path), number, model), doc, model, ctx)
        if isinstance(event, str):
            out.rejects.append(Reject(str(path), number, event, line))
            continue
        if isinstance(event, Reject):
            out.rejects.append(event)
            continue
        if selected:
            out.executed += 1
        else:
            event["error"] = str(doc.get("reason") or "unresolved")  # queued again, as it stands
        out.deliveries.append(event)
    return out


def _object(doc: Any) -> Row:
    return doc if isinstance(doc, dict) else {}  # read_run_files has checked every line is an object


def delivery(record: ChangeRecord | Reject, doc: Row, model: Model, ctx: RunContext) -> dict[str, Any] | Reject | str:
    """A queue entry as the delivery it was (`reference.delivery_event`), or why MODEL cannot take it."""
    if isinstance(record, Reject):
        return record
    origin, mapping_id = doc.get("origin"), doc.get("mapping")
    if not isinstance(origin, str) or model.server(origin) is None:
        return f"unknown origin site {origin!r}"
    mapping = ctx.mappings.get(mapping_id) if isinstance(mapping_id, str) else None
    if mapping is None:
        return f"mapping {mapping_id!r} is not in the model"
    if mapping.target != record.table:
        return f"mapping {mapping_id} no longer writes to {record.table}"
    try:
        at = parse_timestamp(doc["delivered_at"]) if isinstance(doc.get("delivered_at"), str) else record.commit_ts
    except ValueDecodeError as exc:
        return f"bad delivered_at {doc['delivered_at']!r}: {exc}"
    return {"kind": "delivery", "site": record.site, "table": record.table, "mapping": mapping.id, "at": at,
            "commit_ts": record.commit_ts, "origin": origin, "txn": record.txn, "seq": record.seq,
            "op": record.op, "old": _as_sent(record.before, doc.get("before")),
            "new": _as_sent(record.after, doc.get("after"))}


def _as_sent(decoded: Row | None, image: Any) -> Row | None:
    """The columns the queued image held (the mapping's), typed: decoding fills every other column with
    NULL, which a delivery would then write."""
    if decoded is None or not isinstance(image, dict):
        return decoded
    return {name: value for name, value in decoded.items() if name in image}


def final_tables(rundir: Path, model: Model) -> dict[str, list[Row]]:
    """RUNDIR's final rows of each table of MODEL, typed by MODEL (a table the run has not: empty)."""
    out: dict[str, list[Row]] = {}
    for table in model.tables:
        path = table_file(rundir, table.server, table.name)
        if path.is_file():
            out[table.key] = read_snapshot_file(path, table)
    return out


def execute(ctx: RunContext, snapshots: dict[str, list[Row]], queued: Requeued) -> RunResult:
    """Fold the deliveries over the final tables and account for them as a run does (`reference.run_inputs`)."""
    started = time.perf_counter()
    folded = fold_events(snapshot_events(snapshots, ctx) + queued.deliveries, ctx)
    resolved_at = time.perf_counter()
    tables: dict[str, list[Row]] = {key: [] for key in ctx.tables}
    for row in folded.rows:
        tables[row["table"]].append(row["values"])
    counts = RunCounts(records=len(queued.deliveries) + len(queued.rejects), rejects=len(queued.rejects),
                       deliveries=len(queued.deliveries), conflicts=len(folded.conflicts))
    for outcome in folded.outcomes:
        setattr(counts, outcome["status"], getattr(counts, outcome["status"]) + 1)
    convergence = converge(ctx, tables)
    seconds = {"resolve": resolved_at - started, "converge": time.perf_counter() - resolved_at}
    return RunResult(tables, folded.conflicts, folded.queue, queued.rejects, convergence, counts, seconds)

