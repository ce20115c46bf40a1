"""The whole run in plain Python: the reference the Spark pipeline must agree with (docs/contract.md §5).

decode -> net effect per transaction and row -> map through every mapping that
reads the record's table -> deliver by schedule -> detect and resolve at each
site -> converge. Only local commits produce changes: a change applied at a
site from elsewhere is not passed on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.core.values import ConversionError, conform
from engine.model.schema import Model
from engine.run.input.debezium.files import add_snapshot_rows, read_debezium
from engine.run.input.files import InputError
from engine.run.input.keys import hashable
from engine.run.input.records import ChangeRecord, Reject, read_changes
from engine.run.input.schedule import Schedule, load_schedule
from engine.run.input.snapshots import read_snapshots
from engine.run.semantics.context import MappingPlan, RunContext, TablePlan, build_context
from engine.run.semantics.converge import converge
from engine.run.semantics.fold import fold_events, key_values
from engine.run.semantics.methods import SystemValues, evaluate_method, map_image, replication_key, where_holds
from engine.run.semantics.net_effect import Chain, NetChange, RowOp, chain_operations, net_effect
from engine.run.semantics.order import delivery_time
from engine.sql.errors import SqlRuntimeError

Row = dict[str, Any]
Progress = Callable[[str], None]
BEGINNING = datetime.min.replace(tzinfo=UTC)


class RunCancelled(BaseException):  # like KeyboardInterrupt: py4j and `except Exception` must let it through
    """Raised by a progress callback to stop a run; the run directory then says `cancelled`."""


@dataclass
class RunCounts:
    """The manifest's counts. records = rejects + accepted; deliveries = applied + resolved + queued."""

    records: int = 0
    rejects: int = 0
    filtered: int = 0
    deliveries: int = 0
    applied: int = 0
    resolved: int = 0
    queued: int = 0
    conflicts: int = 0
    skipped: int | None = None
    """Debezium events with no row change (tombstones, heartbeats, transaction boundaries), not records;
    None (and left out of the manifest, as the contract has it) when the run read no Debezium files."""

    def as_dict(self) -> dict[str, int]:
        return {key: value for key, value in vars(self).items() if value is not None}


@dataclass
class RunResult:
    """What a run leaves: final rows per table (`"srv.T"`), conflicts, error queue, rejects, convergence."""

    tables: dict[str, list[Row]]
    conflicts: list[dict[str, Any]]
    error_queue: list[dict[str, Any]]
    rejects: list[Reject]
    convergence: list[dict[str, Any]]
    counts: RunCounts
    stage_seconds: dict[str, float] = field(default_factory=dict)

    def diverged(self) -> dict[str, int]:
        return {m["mapping"]: m["diverged"] for m in self.convergence}


@dataclass
class Transaction:
    """The accepted records of one transaction at its site, in `seq` order."""

    site: str
    txn: str
    commit_ts: datetime
    records: list[ChangeRecord]


def run_reference(model: Model, data_dir: Path, progress: Progress | None = None) -> RunResult:
    """Run the model on `DIR/changes`, `DIR/snapshots` and `DIR/schedule.json`."""
    if not data_dir.is_dir():
        raise InputError(f"{data_dir}: no such folder (the run's --data)")
    timer = _Timer(progress)
    with timer.stage("decode"):
        ctx = build_context(model)
        records, rejects = read_changes(data_dir, model)
        events = read_debezium(data_dir, model)
        snapshots = read_snapshots(data_dir, model)
        add_snapshot_rows(snapshots, events.snapshot_rows, model)
        schedule = load_schedule(data_dir / "schedule.json")
    rejects = sorted(rejects + events.rejects, key=lambda r: (r.file, r.line))  # by file as Spark has them
    return run_inputs(ctx, records + events.records, rejects, snapshots, schedule, timer,
                      skipped=events.skipped if events.files else None)


def run_model(model: Model, records: Sequence[ChangeRecord], rejects: Sequence[Reject] = (),
              snapshots: dict[str, list[Row]] | None = None, schedule: Schedule | None = None) -> RunResult:
    """Run the model on inputs already in memory (decoded records, typed snapshot rows)."""
    return run_inputs(build_context(model), records, rejects, snapshots or {}, schedule or Schedule(), _Timer())


def run_inputs(ctx: RunContext, records: Sequence[ChangeRecord], rejects: Sequence[Reject],
               snapshots: dict[str, list[Row]], schedule: Schedule, timer: _Timer,
               skipped: int | None = None) -> RunResult:
    """The stages after decoding, timed by `timer`."""
    counts = RunCounts(records=len(records) + len(rejects), rejects=len(rejects), skipped=skipped)
    with timer.stage("net_effect"):
        events, deliveries, counts.filtered = build_events(ctx, records, snapshots, schedule)
        counts.deliveries = len(deliveries)
    with timer.stage("resolve"):
        folded = fold_events(events + deliveries, ctx)
    tables: dict[str, list[Row]] = {key: [] for key in ctx.tables}
    for row in folded.rows:
        tables[row["table"]].append(row["values"])
    for outcome in folded.outcomes:
        setattr(counts, outcome["status"], getattr(counts, outcome["status"]) + 1)
    counts.conflicts = len(folded.conflicts)
    if counts.deliveries != counts.applied + counts.resolved + counts.queued:
        raise AssertionError(f"accounting broken: {counts}")
    with timer.stage("converge"):
        convergence = converge(ctx, tables)
    return RunResult(tables, folded.conflicts, folded.queue, list(rejects), convergence, counts, timer.seconds)


def build_events(ctx: RunContext, records: Sequence[ChangeRecord], snapshots: dict[str, list[Row]],
                 schedule: Schedule) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Everything the fold applies: (snapshot and local-commit events, delivery events, filtered count).

    Deliveries come from the net effect of each transaction through each mapping that reads its tables;
    `filtered` counts the (chain, mapping) pairs that send nothing.
    """
    events: list[dict[str, Any]] = snapshot_events(snapshots, ctx)
    deliveries: list[dict[str, Any]] = []
    filtered = 0
    for txn in group_transactions(records):
        events.extend(local_events(txn, ctx))
        sent, unsent = transaction_deliveries(txn, ctx, schedule)
        deliveries.extend(sent)
        filtered += unsent
    return events, deliveries, filtered


def group_transactions(records: Sequence[ChangeRecord]) -> list[Transaction]:
    """Records by (site, txn), each in `seq` order (file order breaks ties); a transaction commits at the
    latest `commit_ts` of its records. Transactions in commit order."""
    grouped: dict[tuple[str, str], list[ChangeRecord]] = {}
    for record in records:
        grouped.setdefault((record.site, record.txn), []).append(record)
    out = [Transaction(site, txn, max(r.commit_ts for r in recs), sorted(recs, key=lambda r: r.seq))
           for (site, txn), recs in grouped.items()]
    return sorted(out, key=lambda t: (t.commit_ts, t.site, t.txn))


def snapshot_events(snapshots: dict[str, list[Row]], ctx: RunContext) -> list[dict[str, Any]]:
    """The initial rows as events, each last written by its own site."""
    events = []
    for table_key, rows in snapshots.items():
        server = ctx.tables[table_key].server
        for i, row in enumerate(rows):
            events.append({"kind": "snapshot", "site": server, "table": table_key, "at": BEGINNING,
                           "commit_ts": BEGINNING, "origin": server, "txn": "", "seq": i, "op": "I",
                           "old": None, "new": row})
    return events


def local_events(txn: Transaction, ctx: RunContext) -> list[dict[str, Any]]:
    """The transaction's records as local commits at their site; an update that moves a row to another
    identity becomes a delete and an insert, so every event touches one row key."""
    events = []
    for i, record in enumerate(txn.records):
        base = {"kind": "local", "site": txn.site, "table": record.table, "at": txn.commit_ts,
                "commit_ts": txn.commit_ts, "origin": txn.site, "txn": txn.txn}
        plan = ctx.tables[record.table]
        ops: list[tuple[str, Row | None, Row | None]] = [(record.op, record.before, record.after)]
        if record.op == "U" and key_values(plan, record.before) != key_values(plan, record.after):
            ops = [("D", record.before, None), ("I", None, record.after)]
        for j, (op, old, new) in enumerate(ops):
            events.append({**base, "seq": 2 * i + j, "op": op, "old": old, "new": new})
    return events


def transaction_chains(txn: Transaction, ctx: RunContext) -> list[tuple[str, Chain]]:
    """(table, chain) for each row the transaction touches, in the order of each chain's first operation.

    The transaction's changes are examined in `seq` order across its tables (docs/contract.md §7, `scope:
    transaction`: the changes after the first unresolved one are never examined), so chains are not grouped
    by table. Each operation carries its place in the transaction (`txn.records` is in `seq` order, file
    order breaking ties) as its `seq`.
    """
    by_table: dict[str, list[RowOp]] = {}
    for place, record in enumerate(txn.records):
        by_table.setdefault(record.table, []).append(RowOp(record.op, record.before, record.after, place))
    out: list[tuple[str, Chain]] = []
    for table_key, ops in by_table.items():
        plan = ctx.tables[table_key]

        def row_key(image: Row, plan: TablePlan = plan) -> tuple[Any, ...]:
            return key_values(plan, image)

        out.extend((table_key, chain) for chain in chain_operations(ops, row_key))
    return sorted(out, key=lambda item: item[1].ops[0].seq)


def transaction_deliveries(txn: Transaction, ctx: RunContext, schedule: Schedule) -> tuple[list[dict[str, Any]], int]:
    """The deliveries one transaction sends, and how many (chain, mapping) pairs send nothing."""
    deliveries: list[dict[str, Any]] = []
    filtered = 0
    for table_key, chain in transaction_chains(txn, ctx):
        for mapping in ctx.reading(table_key):
            changes, failure = chain_changes(chain, mapping, txn, ctx)
            if not changes:
                filtered += 1
            for change in changes:
                deliveries.append(delivery_event(txn, mapping, change, ctx, schedule, len(deliveries), failure))
    return deliveries, filtered


def chain_changes(chain: Chain, mapping: MappingPlan, txn: Transaction,
                  ctx: RunContext) -> tuple[list[NetChange], str | None]:
    """What one chain sends through one mapping, and why it cannot be sent as it should (or None).

    When the mapping's `where` or distribution key fails on an image (Spark's ANSI errors: a division by
    zero, a cast of text that is not a number), what to send cannot be decided from it: the chain sends
    its shape as if every image passed and the key stayed (INSERT...UPDATE an insert, UPDATE...DELETE a
    delete, UPDATE...UPDATE an update), and each change carries the failure, so it is queued at its
    destination with the reason instead of failing the run.
    """
    try:
        return net_effect(chain, _where_of(mapping, txn.commit_ts), _key_of(mapping, txn, ctx)), None
    except SqlRuntimeError as exc:
        what = "where clause" if mapping.where and _fails(lambda: [_where_of(mapping, txn.commit_ts)(i)
                                                                  for i in (chain.initial, chain.final)]) \
            else "distribution key"
        unfiltered = net_effect(chain, lambda image: image is not None, lambda image: None)
        return unfiltered, f"the mapping's {what} fails on this row: {exc}"


def _fails(work: Callable[[], object]) -> bool:
    try:
        work()
    except SqlRuntimeError:
        return True
    return False


def _where_of(mapping: MappingPlan, now: datetime) -> Callable[[Row | None], bool]:
    return lambda image: where_holds(mapping, image, now)


def _key_of(mapping: MappingPlan, txn: Transaction, ctx: RunContext) -> Callable[[Row], Any]:
    """The mapping's DKey of a source image (read with op `U`: both images of a chain compare alike)."""
    system = SystemValues(txn.site, txn.commit_ts, txn.txn, "U")

    def key(image: Row) -> tuple[Any, ...] | None:
        values = replication_key(mapping, ctx.tables[mapping.target], image, system)
        return None if values is None else tuple(hashable(v) for v in values)  # NaN equals NaN

    return key


def delivery_event(txn: Transaction, mapping: MappingPlan, change: NetChange, ctx: RunContext,
                   schedule: Schedule, seq: int, failure: str | None = None) -> dict[str, Any]:
    """A net change mapped to the target table and timed by the schedule. A value that cannot take its
    target column's type, or a method whose SQL fails on the row, leaves the change with an `error` (it
    will be queued, with the values that could be computed); so does a `failure` of the chain's `where`
    or key (`chain_changes`)."""
    target = ctx.tables[mapping.target]
    system = SystemValues(txn.site, txn.commit_ts, txn.txn, change.op)
    event: dict[str, Any] = {
        "kind": "delivery", "site": target.server, "table": target.key, "mapping": mapping.id,
        "at": delivery_time(schedule, txn.site, target.server, txn.commit_ts), "commit_ts": txn.commit_ts,
        "origin": txn.site, "txn": txn.txn, "seq": seq, "op": change.op, "old": None, "new": None,
    }
    try:
        event["old"] = map_image(mapping, target, change.old, system) if change.old is not None else None
        event["new"] = map_image(mapping, target, change.new, system) if change.new is not None else None
    except (ConversionError, SqlRuntimeError) as exc:
        problems: list[str] = []
        for side, image in (("old", change.old), ("new", change.new)):
            if image is not None:
                event[side] = _mapped_leniently(mapping, target, image, system, problems)
        reason = problems[0] if problems else str(exc)
        event["error"] = reason if reason.startswith("the mapping's") else \
            f"a value does not fit its target column: {reason}"
    if failure is not None:
        event["error"] = failure
    return event


def _mapped_leniently(mapping: MappingPlan, target: TablePlan, image: Row, system: SystemValues,
                      problems: list[str]) -> Row:
    """The target columns of `image` as far as they can be computed: a value that does not take its
    column's type stays as computed, a method whose SQL fails is NULL; `problems` gets why, in order."""
    out: Row = {}
    for column, method in mapping.columns.items():
        try:
            value = evaluate_method(method, image, system, mapping.source_types)
        except SqlRuntimeError as exc:
            problems.append(f"the mapping's SQL fails on this row: column {column}: {exc}")
            out[column] = None
            continue
        try:
            out[column] = conform(value, target.types[column])
        except ConversionError as exc:
            problems.append(str(exc))
            out[column] = value
    return out


class _Timer:
    """Seconds per stage, and the progress callback told of each stage as it starts."""

    def __init__(self, progress: Progress | None = None) -> None:
        self.progress = progress
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        if self.progress is not None:
            self.progress(name)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
