"""Events -> final rows, conflicts, error queue and one outcome per delivery (docs/contract.md §5, step 5).

Each target table is folded in groups that cannot affect one another: one row key (`key`), the whole
table when a row can be reached by other columns than its key (`table`), or, for the tables a
`scope: transaction` covers, every such table of the site together (`site`: a transaction's changes
there stand or fall together).

A key group folds natively when no delivery in it can meet a conflict: Spark orders the group's events
(one window), carries the row's state from event to event (each column's last value set), and checks
that each delivered insert finds no row and each delivered update or delete finds exactly its old
image. Then the final row is the last state and every delivery is `applied`. Where a key group's
events are natively folded up to some event and not past it (the first delivery that may meet a
conflict), the events before it are applied natively, and the reference folds the rest from the row
as it stands there (its values and the site that last wrote it, as a snapshot row of that site: what
`fold` knows of a row). Any other group (a table whose values only the reference reads, a `table` or
`site` grouping) is folded by the reference (`fold.fold_events`) whole. The reference runs over Arrow
batches of whole groups (`grouped.fold_groups`: Spark shuffles and sorts, Python walks the consecutive
groups of each batch; what a native check hands over is folded where the check's window left it,
`grouped.fold_within`; the images of what a check hands over cross typed, as the table's structs), which
gives its rows, its conflicts and queue entries as the lines the run directory holds, and its outcomes.
"""

from __future__ import annotations

import json
import uuid
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

from engine.model.io import dump_model
from engine.model.schema import Model, Table
from engine.run.rundir.write import conflict_flat, jsonl_line, time_order_key
from engine.run.semantics.context import RunContext, TablePlan, build_context
from engine.run.semantics.fold import fold_events
from engine.spark import sqltext as sql
from engine.spark.canonical import read_row_sql, row_reader, row_writer, token, write_row_sql
from engine.spark.grouped import Fold, FoldTally, fold_groups, fold_within
from engine.spark.inworker import context_of, model_of
from engine.spark.jobs import concurrently, observed
from engine.spark.neteffect import EVENT_COLUMNS, snapshot_values, version_columns
from engine.spark.types import from_arrow, key_sql, rep, table_opaque, table_type_sql

OUTPUT = ("kind string, tkey string, ordinal long, text string, sort string, status string, n long, "
          "site string, origin string, `table` string, mapping string, txn string, commit_ts string, "
          "delivered_at string, type string, column_group string, `index` string, method string, outcome string, "
          "reason string, methods_tried array<string>, applied boolean, dkey string, local string, "
          "remote_old string, remote_new string, result string")
"""What the reference's fold of a group gives, one row each: `row` (a final row of table `tkey` as canonical
tokens, `ordinal` its place), `conflict` (its conflicts.jsonl line, the time-order `sort` key and the flat
columns of conflicts.parquet), `queue` (its error_queue.jsonl line and `sort`), `outcome` (`n` deliveries
ended `status`)."""


@dataclass(frozen=True)
class Resolved:
    """Per table key, its final rows (`seq`, `row`) from both paths; the reference's output of every group
    it folded (`OUTPUT`); and how many deliveries Spark applied, as the native checks counted them while
    they were kept (`applied_natively`: an observation, not another scan of every event)."""

    rows: dict[str, DataFrame]
    reference: DataFrame
    applied_sql: str  # a row a delivery applied natively, the checks run again: read where no observation says
    observed: tuple[Observation, ...] = ()
    tally: FoldTally | None = None  # what the reference's folds took in Python (None over Spark Connect)

    def applied_natively(self) -> int:
        metrics = [observed(o) for o in self.observed]
        if all("applied" in m for m in metrics):
            return sum(int(m["applied"] or 0) for m in metrics)
        return self.native_applied().count()  # over Spark Connect a checkpoint's job reports no metrics

    def native_applied(self) -> DataFrame:
        """A row a delivery Spark applied (planned only when asked: every check's query again)."""
        return self.reference.sparkSession.sql(self.applied_sql)


def grouping(model: Model, ctx: RunContext) -> dict[str, str]:
    """Each table's grouping: `key`, `table` or `site` (see the module's docstring)."""
    linked: set[str] = set()
    for plan in ctx.tables.values():
        if plan.scope != "transaction":
            continue
        linked.add(plan.key)
        for into in ctx.into(plan.key):
            origin = ctx.tables[into.source].server
            for mapping in ctx.mappings.values():
                if ctx.tables[mapping.source].server == origin and ctx.tables[mapping.target].server == plan.server:
                    linked.add(mapping.target)
    out = {}
    for table in model.tables:
        plan = ctx.tables[table.key]
        identity = set(plan.identity)
        if table.key in linked:
            out[table.key] = "site"
        elif any(m.dkey is None or set(m.dkey) != identity for m in ctx.into(table.key)) \
                or any(set(columns) != identity for _, columns in plan.unique_sets):
            out[table.key] = "table"
        else:
            out[table.key] = "key"
    return out


def resolve(events: dict[str, DataFrame], model: Model,
            keep: Callable[[DataFrame], DataFrame] = lambda frame: frame) -> Resolved:
    """Each table's events -> its final rows, and the reference's fold of what Spark cannot fold natively.
    `keep` materializes each table's checked events, read twice (a cached frame would not be found again
    under a union of several: Spark's plan deduplication hides it), and each fold of the reference, which
    the run reads for its rows, conflicts, queue and counts. It must keep a frame's partitions as they are
    (`localCheckpoint` does, and so does `coalesce(1)`): the reference folds each group of a check in the
    partition the check's window put it in."""
    ctx = build_context(model)
    modes = grouping(model, ctx)
    spark = next(iter(events.values())).sparkSession
    native_rows: dict[str, DataFrame] = {}
    to_reference: list[str] = []
    applied: list[str] = []
    key = "CASE WHEN new IS NOT NULL THEN new ELSE old END"
    frames = {table.key: sql.view(events[table.key]) for table in model.tables}
    natives = [table for table in model.tables
               if modes[table.key] == "key" and native_table(table, ctx.tables[table.key])]

    def check(table: Table) -> tuple[str, Observation, DataFrame]:
        """The table's events checked by the native fold, and the deliveries applied natively, counted as
        the check is kept. Only the events read below are kept: a group's last, the reference's (`_past`)
        and the one it takes the row from (`_cut`); at 1,000,000 B2 events a fifth of them, where keeping
        every checked event had held a gigabyte through the rest of the run.

        Then the reference folds what the check hands over, in the partitions the check's window put each
        group in (no exchange: B2 at 1,000,000 events, 317,000 rows were shuffled again), as soon as the
        check is kept, beside the other tables' checks."""
        observed = Observation(f"native_{uuid.uuid4().hex}")  # a name no other query of the session has
        applied = F.count(F.when(~F.col("_past") & (F.col("kind") == "delivery"), 1)).alias("applied")
        checked = spark.sql(_checked(frames[table.key], table, ctx)).observe(observed, applied)
        view = sql.view(keep(checked.where("_last OR _past OR _cut")))
        group = f"concat({sql.string(f'key:{table.key}:')}, to_json(_key))"
        handed = spark.sql(_for_fold(_handed_over(view, table), table, group, typed=True))
        return view, observed, keep(fold_within(handed, ["group"], [], folding, _SCHEMA, OUTPUT, tally))

    folding = _fold(dump_model(model))
    tally = FoldTally.of(next(iter(events.values())))
    checks = concurrently([partial(check, table) for table in natives])  # one table's job beside another's
    checked_of = {table.key: view for table, (view, _, _) in zip(natives, checks, strict=True)}
    for table in model.tables:
        frame = frames[table.key]
        mode = modes[table.key]
        identity = ctx.tables[table.key].identity
        if table.key in checked_of:
            checked = checked_of[table.key]
            native_rows[table.key] = spark.sql(f"SELECT CAST(0 AS BIGINT) AS seq, _after AS row FROM {checked} "
                                               "WHERE NOT _past AND _last AND op <> 'D'")
            every = _checked(frame, table, ctx)  # the kept check holds only some of the events
            applied.append(f"SELECT 1 AS one FROM ({every}) WHERE NOT _past AND kind = 'delivery'")
        elif mode == "key":
            group = f"concat({sql.string(f'key:{table.key}:')}, to_json({_key_struct(key, table, identity)}))"
            to_reference.append(_for_fold(frame, table, group))
        else:
            group = sql.string(f"table:{table.key}" if mode == "table" else f"site:{table.server}")
            to_reference.append(_for_fold(frame, table, group))
    folded = [fold for _, _, fold in checks]
    if to_reference:
        union = spark.sql(" UNION ALL ".join(f"({part})" for part in to_reference))
        folded.append(keep(fold_groups(union, ["group"], [], folding, _SCHEMA, OUTPUT, tally)))
    reference = sql.union(folded)
    applied_sql = " UNION ALL ".join(f"({part})" for part in applied) if applied else "SELECT 1 AS one WHERE FALSE"
    return Resolved(native_rows, reference, applied_sql, tuple(observed for _, observed, _ in checks), tally)


def rows_of(resolved: Resolved, table: Table) -> DataFrame:
    """A table's final rows from both paths: (`seq`, `row`), in no particular order."""
    folded = (resolved.reference.where((F.col("kind") == "row") & (F.col("tkey") == table.key))
              .select(F.col("ordinal").alias("seq"), sql.col(read_row_sql("text", table), "row")))
    if table.key in resolved.rows:
        return resolved.rows[table.key].unionByName(folded)
    return folded


# --- the native check -----------------------------------------------------------------------------------


def _checked(events: str, table: Table, ctx: RunContext) -> str:
    """The query of a key-grouped table's events with the row's state carried along, whether each event
    applies as the native fold says, whether the group's first event the native fold cannot take
    is this one or before it (`_past`: a group whose last event is not past is folded natively whole),
    which site last wrote the row (`_writer`), and the row after the event (`_after`) at the group's last
    event (`_last`) and at the event just before the first it cannot take (`_cut`). Three window layers
    over one sort: whether the row exists before the event, the columns' states, and the judgement."""
    plan = ctx.tables[table.key]
    key = "CASE WHEN new IS NOT NULL THEN new ELSE old END"
    order = "PARTITION BY _key ORDER BY at, rank, commit_ts, origin, txn, seq"
    mapped = {m.id: set(m.columns) for m in ctx.into(table.key)}
    versions = {number: set(version_columns(table, number)) for number in _versions(table)}
    carried, setting = [], []
    for column in table.columns:
        name = column.name
        default = default_value_sql(plan.defaults.get(name), column.sql_type)
        in_version = sql.any_of([f"version <=> {n}" if n is not None else "version IS NULL"
                                 for n, cols in versions.items() if name in cols]) if versions else "TRUE"
        in_mapping = sql.any_of([f"mapping = {sql.string(m)}" for m, cols in mapped.items() if name in cols])
        sets = (f"CASE WHEN kind = 'snapshot' THEN TRUE WHEN op = 'D' THEN FALSE "
                f"WHEN kind = 'local' THEN {in_version} OR NOT _exists WHEN op = 'I' THEN TRUE ELSE {in_mapping} END")
        own = f"new.{sql.ident(name)}"
        value = (f"CASE WHEN kind = 'snapshot' THEN {own} "
                 f"WHEN kind = 'local' THEN (CASE WHEN {in_version} THEN {own} ELSE {default} END) "
                 f"WHEN op = 'I' THEN (CASE WHEN {in_mapping} THEN {own} ELSE {default} END) ELSE {own} END")
        wrapped = f"CASE WHEN {sets} THEN named_struct('v', {value}) END"
        before = f"{order} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"
        carried.append(sql.named(f"last({wrapped}, TRUE) OVER ({before})", f"_s_{_safe(name)}"))
        # the state after the event: the event's own value where it sets the column, else the state before
        # it (one window per column, not two: the frame up to the current row adds only the current row)
        setting.append(sql.named(f"coalesce({wrapped}, _s_{_safe(name)})", f"_a_{_safe(name)}"))
    checks = []
    for mapping_id, columns in mapped.items():
        same = sql.all_of([_same(f"old.{sql.ident(c)}", f"_s_{_safe(c)}.v", _type(table, c)) for c in sorted(columns)])
        checks.append((f"mapping = {sql.string(mapping_id)}", same))
    delivered = (f"error IS NULL AND (CASE WHEN op = 'I' THEN NOT _exists "
                 f"ELSE _exists AND {sql.case(checks, 'FALSE')} END)")
    ok = f"CASE WHEN kind = 'delivery' THEN coalesce({delivered}, FALSE) ELSE TRUE END"
    after = ", ".join(f"{sql.string(c.name)}, _a_{_safe(c.name)}.v" for c in table.columns)
    # a delivered update writes the row (and makes its origin the row's writer, which site priority reads)
    # only where it changes a value (`detect.Delivery._resolve_groups`); a double that is not finite is
    # compared otherwise by the reference, so such an update ends what Spark folds of the group
    changes = sql.any_of([f"NOT (_s_{_safe(c.name)}.v <=> _a_{_safe(c.name)}.v)" for c in table.columns])
    unsure = sql.any_of([f"NOT {_finite(f'{state}_{_safe(c.name)}.v')}" for c in table.columns
                         if rep(c.sql_type).kind == "double" for state in ("_s", "_a")])
    writes = (f"CASE WHEN kind = 'snapshot' THEN TRUE WHEN kind = 'local' THEN op <> 'D' "
              f"WHEN op = 'I' THEN TRUE WHEN op = 'U' THEN {changes} ELSE FALSE END")
    # past the group's first delivery Spark cannot fold (`_past`), the reference folds the rest; the event
    # before it (`_cut`) hands the row over: one window for these, beside the next event's op
    # a second snapshot row of one group (a key with a NULL part, or a table with no key: no duplicate, and
    # each row is its own) is the reference's to fold, which keeps every row
    bad = f"(NOT ({ok}) OR (kind = 'delivery' AND op = 'U' AND {unsure}) OR (kind = 'snapshot' AND _exists))"
    upto = f"{order} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    keyed = f"SELECT *, {_key_struct(key, table, plan.identity)} AS _key FROM {events}"
    existed = f"SELECT *, coalesce(lag(op) OVER ({order}) <> 'D', FALSE) AS _exists FROM ({keyed})"
    states = f"SELECT *, {', '.join(setting)} FROM (SELECT *, {', '.join(carried)} FROM ({existed}))"
    judged = (f"SELECT *, lead(op) OVER ({order}) IS NULL AS _last, max({bad}) OVER ({upto}) AS _past, "
              f"coalesce(lead({bad}) OVER ({order}), FALSE) AS _next_bad, "
              f"last(CASE WHEN {writes} THEN origin END, TRUE) OVER ({upto}) AS _writer FROM ({states})")
    kept = ", ".join([*EVENT_COLUMNS, "_key", "_last", "_past", "_writer"])
    cut = "(NOT _past AND op <> 'D' AND _next_bad)"
    # the row after an event only where it is read: a group's last event and the event at its cut (a struct
    # of every column on each of a table's events is most of what the kept check holds)
    return (f"SELECT {kept}, {cut} AS _cut, CASE WHEN _last OR {cut} THEN named_struct({after}) END AS _after "
            f"FROM ({judged})")


def _handed_over(checked: str, table: Table) -> str:
    """What the reference folds of a natively checked table: each group's events from the first delivery
    that may meet a conflict (`_past`), and where the group was folded natively up to there (`_cut`), the
    row as it stands then, as a snapshot row of the site that last wrote it (what `fold` knows of a row;
    a snapshot row comes first at its site, `schedule.event_order`). One projection of the kept check, not
    a union of two: each group's rows stay in the partition the check's window put them in."""
    snapshot = snapshot_values(table, origin="_writer", row=f"CAST(_after AS {table_type_sql(table)})", seq="0")
    columns = [sql.named(f"CASE WHEN _cut THEN {snapshot[c]} ELSE {sql.ident(c)} END", c) for c in EVENT_COLUMNS]
    return f"(SELECT {', '.join(columns)}, _key FROM {checked} WHERE _past OR _cut) AS _handed"


def _key_struct(image: str, table: Table, identity: tuple[str, ...]) -> str:
    """SQL of an image's identity as a struct to group a row's events by: each value as it compares
    (`types.key_sql`: `1.50` and `1.5` of a NUMBER, -0.0 and 0.0 of a DOUBLE are one key)."""
    fields = ", ".join(f"{sql.string(c)}, {key_sql(f'({image}).{sql.ident(c)}', _type(table, c))}" for c in identity)
    return f"named_struct({fields})"


def _finite(value: str) -> str:
    return f"({value} IS NULL OR (NOT isnan({value}) AND abs({value}) < CAST('Infinity' AS DOUBLE)))"


def _type(table: Table, name: str) -> Any:
    column = table.column(name)
    assert column is not None
    return column.sql_type


def _safe(name: str) -> str:
    """A column name as part of a generated one: ASCII letters and digits (Spark takes no other letter in a
    name it is not quoted), and a checksum of the name (the same in every process, so a warm session sees
    the same query text again)."""
    plain = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in name)
    return f"{plain}_{zlib.crc32(name.encode()) % 10**6}"


def _same(a: str, b: str, t: Any) -> str:
    """Null-safe equality as `values.same_value` has it; a double that is not finite is left to the
    reference (Python's comparison of NaN and the infinities differs from Spark's)."""
    if rep(t).kind == "double":
        return f"({a} <=> {b} AND {_finite(a)})"
    return f"{key_sql(a, t)} <=> {key_sql(b, t)}"  # a number held as text: by value


def _versions(table: Table) -> list[int | None]:
    from engine.run.input.records import versions_of
    return list(versions_of(table))


def default_value_sql(raw: Any, t: Any) -> str | None:
    """A column's default as the reference fills it (`context.default_value`) in the column's type: a
    literal conformed to the type, or the event's time (its day at midnight for the current date) in a
    timestamp column; None when Spark cannot give it exactly (the reference's fold gives it then)."""
    from engine.core.values import ConversionError, conform
    from engine.sql import evaluate as sql_evaluate
    from engine.sql.errors import UnsupportedSql
    from engine.sql.lineage import reads_current_time

    r = rep(t)
    if raw is None:
        return f"CAST(NULL AS {r.ddl})"
    value = raw
    if isinstance(raw, str):
        try:
            tree = sql_evaluate.parse_sql(raw)
        except UnsupportedSql:
            return None
        if reads_current_time(tree):
            if r.kind != "timestamp":
                return None
            if tree.key == "currenttimestamp":
                return f"CAST(at AS {r.ddl})"
            return f"CAST(CAST(at AS DATE) AS {r.ddl})" if tree.key == "currentdate" else None
        try:
            value = sql_evaluate.evaluate_sql(raw, {}, None)
        except (UnsupportedSql, ArithmeticError, ValueError):
            return None
    try:
        value = conform(value, t)
    except ConversionError:
        return None
    if value is None:
        return f"CAST(NULL AS {r.ddl})"
    written = token(value, t)
    if r.kind == "binary":
        return f"unhex({sql.string(str(written))})"
    if r.kind in ("decimal", "double", "timestamp", "opaque"):
        return f"CAST({sql.string(str(written))} AS {r.ddl})"
    return sql.lit(value, r.ddl)


def native_table(table: Table, plan: TablePlan) -> bool:
    """Whether Spark can fold `table`'s key groups: no opaque column, every default given exactly."""
    return not table_opaque(table) and all(default_value_sql(plan.defaults.get(c.name), c.sql_type) is not None
                                           for c in table.columns)


# --- the reference's fold -------------------------------------------------------------------------------


def _for_fold(events: str, table: Table, group: str, typed: bool = False) -> str:
    """The query of a table's events for the reference's fold, with their `group`. Its images cross into
    Python `typed` (`old`, `new`: the table's structs, which Arrow hands over as Python values) where the
    frame holds one table, as a natively checked table's hand-over does; else as rows of tokens
    (`old_text`, `new_text`, `canonical`): one schema for every table of a union, and for every type."""
    columns = [sql.named(group, "group"), sql.named(sql.string(table.key), "tkey"), "kind", "at", "commit_ts",
               "origin", "txn", "seq", "op", "mapping", "version", "error", "old_json", "new_json"]
    if typed:
        columns += ["old", "new"]
    else:
        columns += [sql.named(write_row_sql(side, table), f"{side}_text") for side in ("old", "new")]
    return f"SELECT {', '.join(columns)} FROM {events}"


_FIELDS = [f.strip() for f in OUTPUT.split(",")]


def _schema() -> pa.Schema:
    fields = []
    for part in OUTPUT.split(", "):
        name, kind = part.split(" ", 1)
        name = name.strip("`")
        arrow = {"string": pa.string(), "long": pa.int64(), "boolean": pa.bool_(),
                 "array<string>": pa.list_(pa.string())}[kind]
        fields.append(pa.field(name, arrow))
    return pa.schema(fields)


_SCHEMA = _schema()


def _fold(model_text: str) -> Callable[[], Fold]:
    """The reference's fold of one group's events (`grouped.fold_groups`)."""
    return lambda: partial(_fold_group, _Reading(model_of(model_text), context_of(model_text)))


class _Reading:
    """What a task works out once per table, not once per event: the table, the columns an event's images
    carry, a reader of those images and a writer of final rows (`canonical.row_reader`, `row_writer`)."""

    def __init__(self, model: Model, ctx: RunContext) -> None:
        self.model, self.ctx = model, ctx
        self._tables: dict[str, Table] = {}
        self._readers: dict[tuple[str, str, Any], Callable[[str | None], dict[str, Any] | None]] = {}
        self._typed: dict[tuple[str, str, Any], Callable[[dict[str, Any] | None], dict[str, Any] | None]] = {}
        self._writers: dict[str, Callable[[dict[str, Any]], str]] = {}

    def table(self, key: str) -> Table:
        table = self._tables.get(key)
        if table is None:
            found = self.model.table(key)
            assert found is not None
            table = self._tables[key] = found
        return table

    def reader(self, key: str, kind: str, row: dict[str, Any]) -> Callable[[str | None], dict[str, Any] | None]:
        """The reader of an event's images: a local commit's carry its version's columns, a delivery's its
        mapping's, a snapshot row's all (as the reference's events do)."""
        which = row["version"] if kind == "local" else row["mapping"] if kind == "delivery" else None
        read = self._readers.get((key, kind, which))
        if read is None:
            table, present = self.table(key), self._present(key, kind, row)
            read = self._readers[(key, kind, which)] = row_reader(table, present)
        return read

    def typed_reader(self, key: str, kind: str, row: dict[str, Any]) \
            -> Callable[[dict[str, Any] | None], dict[str, Any] | None]:
        """`reader` of images handed over typed: the columns the event carries, as the reference holds them
        (`types.from_arrow`; only a timestamp's zone and bytes' type differ from what Arrow gives)."""
        which = row["version"] if kind == "local" else row["mapping"] if kind == "delivery" else None
        read = self._typed.get((key, kind, which))
        if read is None:
            read = self._typed[(key, kind, which)] = typed_row_reader(self.table(key), self._present(key, kind, row))
        return read

    def _present(self, key: str, kind: str, row: dict[str, Any]) -> tuple[str, ...]:
        table = self.table(key)
        if kind == "local":
            return version_columns(table, row["version"])
        if kind == "delivery":
            return tuple(self.ctx.mappings[row["mapping"]].columns)
        return tuple(c.name for c in table.columns)

    def writer(self, key: str) -> Callable[[dict[str, Any]], str]:
        write = self._writers.get(key)
        if write is None:
            write = self._writers[key] = row_writer(self.table(key))
        return write


def _fold_group(reading: _Reading, group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A group's rows (`_for_fold`) -> `OUTPUT`'s rows: its final rows, conflicts, queue and outcomes."""
    events = [_event(row, reading) for row in group]
    folded = fold_events(events, reading.ctx)
    out: list[dict[str, Any]] = []
    for ordinal, row in enumerate(folded.rows):
        out.append({"kind": "row", "tkey": row["table"], "ordinal": ordinal,
                    "text": reading.writer(row["table"])(row["values"])})
    for conflict in folded.conflicts:
        out.append({"kind": "conflict", "text": jsonl_line(conflict), "sort": time_order_key(conflict),
                    **conflict_flat(conflict)})
    for entry in folded.queue:
        out.append({"kind": "queue", "text": jsonl_line(entry), "sort": time_order_key(entry)})
    statuses: dict[str, int] = {}
    for outcome in folded.outcomes:
        statuses[outcome["status"]] = statuses.get(outcome["status"], 0) + 1
    for status, n in statuses.items():
        out.append({"kind": "outcome", "status": status, "n": n})
    return out


def _event(row: dict[str, Any], reading: _Reading) -> dict[str, Any]:
    """An event of `fold.fold_events` from its canonical row: images carry exactly the columns the
    reference's would (`_Reading.reader`)."""
    key, kind = row["tkey"], row["kind"]
    event: dict[str, Any] = {"kind": kind, "site": reading.table(key).server, "table": key, "at": _utc(row["at"]),
                             "commit_ts": _utc(row["commit_ts"]), "origin": row["origin"], "txn": row["txn"],
                             "seq": row["seq"], "op": row["op"]}
    if kind == "delivery":
        event["mapping"] = row["mapping"]
    if row["error"] is not None:
        event["error"] = row["error"]
        event["old"] = json.loads(row["old_json"]) if row["old_json"] is not None else None
        event["new"] = json.loads(row["new_json"]) if row["new_json"] is not None else None
        return event
    if "old_text" in row:
        read = reading.reader(key, kind, row)
        event["old"], event["new"] = read(row["old_text"]), read(row["new_text"])
    else:
        typed = reading.typed_reader(key, kind, row)
        event["old"], event["new"] = typed(row["old"]), typed(row["new"])
    return event


def typed_row_reader(table: Table, present: Iterable[str]) -> Callable[[dict[str, Any] | None], dict[str, Any] | None]:
    """An image of `table` as Arrow hands a struct of its columns over (`to_pylist`) -> the reference's row
    of the `present` columns. A value is the reference's as it is but a timestamp (in UTC, zoned) and bytes."""
    keep = set(present)
    columns = [(c.name, r if r.kind in ("timestamp", "binary") else None)
               for c in table.columns if c.name in keep for r in [rep(c.sql_type)]]

    def read(image: dict[str, Any] | None) -> dict[str, Any] | None:
        if image is None:
            return None
        return {name: value if r is None or value is None else from_arrow(value, r)
                for name, r in columns for value in [image[name]]}
    return read


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
