"""Events -> final rows, conflicts, error queue and one outcome per delivery (docs/contract.md §5, step 5).

Each target table is folded in groups that cannot affect one another: one row key (`key`), the whole
table when a row can be reached by other columns than its key (`table`), or, for the tables a
`scope: transaction` covers, every such table of the site together (`site`: a transaction's changes
there stand or fall together).

A key group folds natively when no delivery in it can meet a conflict: Spark orders the group's events
(one window), carries the row's state from event to event (each column's last value set), and checks
that each delivered insert finds no row and each delivered update or delete finds exactly its old
image (`resolve_check`). Then the final row is the last state and every delivery is `applied`. Where a
key group's events are natively folded up to some event and not past it (the first delivery that may
meet a conflict), the events before it are applied natively, and the rest is handed over from the row
as it stands there (its values and the site that last wrote it, as a snapshot row of that site: what
`fold` knows of a row). What is handed over is checked again, alone, with rounds of native resolution
(`resolve_native`: a group's first update conflicts whose column groups' chains are order statistics or
sums, one a round; their lines written by Spark, `conflict_json`); what that check still hands over,
and any other group (a table whose values only the reference reads, a `table` or `site` grouping), the
reference folds (`fold.fold_events`). The reference runs over Arrow batches of whole groups
(`grouped.fold_groups`: Spark shuffles and sorts, Python walks the consecutive groups of each batch;
what a check hands over is folded where the check's window left it, `grouped.fold_within`; the images
of what a check hands over cross typed, as the table's structs), which gives its rows, its conflicts and
queue entries as the lines the run directory holds, and its outcomes.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

from engine.core.values import as_utc
from engine.model.io import dump_model
from engine.model.schema import Model, Table
from engine.run.rundir.write import conflict_flat, jsonl_line, time_order_key
from engine.run.semantics.context import RunContext, build_context
from engine.run.semantics.fold import fold_events
from engine.spark import conflict_json, resolve_native
from engine.spark import sqltext as sql
from engine.spark.canonical import read_row_sql, row_reader, row_writer, typed_row_reader, write_row_sql
from engine.spark.grouped import Fold, FoldTally, fold_groups, fold_within
from engine.spark.inworker import context_of, model_of
from engine.spark.jobs import concurrently, observed
from engine.spark.neteffect import EVENT_COLUMNS, version_columns
from engine.spark.resolve_check import checked as _checked
from engine.spark.resolve_check import handed_over, key_struct, native_table
from engine.spark.resolve_conflicts import conflict_lines

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
    tally: FoldTally | None = None  # what Python took: folds, conflicts' lines (None over Spark Connect)

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


def resolve(events: dict[str, DataFrame], model: Model, keep: Callable[[DataFrame], DataFrame] = lambda frame: frame,
            rounds: int | None = None, observe: bool = False) -> Resolved:
    """Each table's events -> its final rows, and the reference's fold of what Spark cannot fold natively.
    `keep` materializes each table's checked events, read twice (a cached frame would not be found again
    under a union of several: Spark's plan deduplication hides it), and each fold of the reference, which
    the run reads for its rows, conflicts, queue and counts. It must keep a frame's partitions as they are
    (`localCheckpoint` does, and so does `coalesce(1)`): the reference folds each group of a check in the
    partition the check's window put it in. `rounds` is how many update conflicts of a key group Spark's
    windows resolve (`resolve_native.ROUNDS` unless given; 0: the reference resolves every conflict).
    `observe`: `keep` runs the frame it is given (the run's does); what a check counted then spares the jobs
    it shows have nothing to do (a second check where the first hands nothing over, the reference's fold
    or Python's writing of conflicts where there is none). Over Spark Connect every job runs."""
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
    resolving = resolve_native.ROUNDS if rounds is None else rounds
    model_text = dump_model(model)

    def level(source: str, table: Table, n: int, encodable: str) -> tuple[str, Observation]:
        """One check of `source`'s events (`n` rounds of native resolution), kept where it is read again;
        counted as it is kept: the deliveries it applied, the events it hands over, and the resolved
        deliveries whose conflicts Spark writes (`encodable`) and Python writes (the rest)."""
        observed = Observation(f"native_{uuid.uuid4().hex}")  # a name no other query of the session has
        plain = ~F.col("_past") & (F.col("kind") == "delivery") & F.col("_conflicts").isNull()
        counted = [F.count(F.when(plain, 1)).alias("applied"),
                   F.count(F.when(F.col("_past") | F.col("_cut"), 1)).alias("handed")]
        if n:  # only a check with rounds resolves conflicts
            resolved = F.col("_conflicts").isNotNull()
            counted += [F.count(F.when(resolved & sql.col(encodable), 1)).alias("written"),
                        F.count(F.when(resolved & ~sql.col(encodable), 1)).alias("odd")]
        checked = spark.sql(_checked(source, table, ctx, n)).observe(observed, *counted)
        kept = "_last OR _past OR _cut" + (" OR _conflicts IS NOT NULL" if n else "")
        return sql.view(keep(checked.where(kept))), observed

    def check(table: Table) -> tuple[list[str], list[Observation], DataFrame]:
        """The table's events checked by the native fold, and the deliveries applied natively, counted as
        the check is kept. Only the events read below are kept: a group's last, the reference's (`_past`)
        and the one it takes the row from (`_cut`); at 1,000,000 B2 events a fifth of them, where keeping
        every checked event had held a gigabyte through the rest of the run.

        What the check hands over is checked again, alone, with rounds of native resolution
        (`resolve_native`: the windows resolve a group's first update conflicts, one a round): at 1,000,000
        B2 events a tenth of the events, where rounds over every event had cost more than the reference's
        fold they saved. Then the reference folds what is still handed over, in the partitions the last
        check's window put each group in (no exchange), as soon as that check is kept, beside the other
        tables' checks; the conflicts the windows resolved are written as the reference writes them."""
        n = resolving if resolve_native.resolvable(table, ctx) else 0
        written = conflict_json.encoding(table, ctx) if n else None
        encodable = written.encodable if written is not None else "FALSE"
        view, watch = level(frames[table.key], table, 0, encodable)
        views, watched = [view], [watch]
        counts = observed(watch) if observe else {}  # none: every part is planned
        if n and counts.get("handed", resolve_native.ROUNDS_FROM_EVENTS) >= resolve_native.ROUNDS_FROM_EVENTS:
            view, watch = level(f"(SELECT {', '.join(EVENT_COLUMNS)} FROM {handed_over(view, table)})", table, n,
                                encodable)
            views.append(view)
            watched.append(watch)
            counts = observed(watch) if observe else {}
        else:
            n = 0  # too little handed over to repay a second check (none: no job)
        parts: list[DataFrame] = []
        if counts.get("handed", 1):
            group = f"concat({sql.string(f'key:{table.key}:')}, to_json(_key))"
            handed = spark.sql(_for_fold(handed_over(view, table), table, group, typed=True))
            parts.append(fold_within(handed, ["group"], [], folding, _SCHEMA, OUTPUT, tally))
        if n and written is not None and counts.get("written", 1):
            # the conflicts Spark writes, and how many deliveries they resolved
            parts.append(spark.sql(_output({c: sql.ident(c) for c in conflict_json.COLUMNS},
                                           f"({written.query(view)})")))
            parts.append(spark.sql(_output({"kind": "'outcome'", "status": "'resolved'", "n": "count(*)"},
                                           f"{view} WHERE _conflicts IS NOT NULL AND {encodable}")))
        if n and counts.get("odd", 1):  # Python writes the rest as the reference does
            odd = spark.sql(f"SELECT * FROM {view} WHERE _conflicts IS NOT NULL AND NOT ({encodable})")
            parts.append(conflict_lines(odd, table, model_text, _SCHEMA, OUTPUT, tally))
        if not parts:  # nothing handed over, no conflict: no job
            parts.append(spark.sql(_output({}, None) + " WHERE FALSE"))
        return views, watched, keep(sql.union(parts))

    folding = _fold(model_text)
    tally = FoldTally.of(next(iter(events.values())))
    checks = concurrently([partial(check, table) for table in natives])  # one table's job beside another's
    checked_of = {table.key: views for table, (views, _, _) in zip(natives, checks, strict=True)}
    for table in model.tables:
        frame = frames[table.key]
        mode = modes[table.key]
        identity = ctx.tables[table.key].identity
        if table.key in checked_of:
            native_rows[table.key] = sql.union([
                spark.sql(f"SELECT CAST(0 AS BIGINT) AS seq, _after AS row FROM {view} "
                          "WHERE NOT _past AND _last AND op <> 'D'") for view in checked_of[table.key]])
            every = _checked(frame, table, ctx, 0)  # the kept checks hold only some of the events
            applied.append(f"SELECT 1 AS one FROM ({every}) WHERE NOT _past AND kind = 'delivery'")
            if len(checked_of[table.key]) > 1:
                again = _checked(f"(SELECT {', '.join(EVENT_COLUMNS)} FROM {handed_over(f'({every})', table)})",
                                 table, ctx, resolving)
                applied.append(f"SELECT 1 AS one FROM ({again}) WHERE NOT _past AND kind = 'delivery' "
                               "AND _conflicts IS NULL")
        elif mode == "key":
            group = f"concat({sql.string(f'key:{table.key}:')}, to_json({key_struct(key, table, identity)}))"
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
    return Resolved(native_rows, reference, applied_sql,
                    tuple(o for _, observations, _ in checks for o in observations), tally)


def rows_of(resolved: Resolved, table: Table) -> DataFrame:
    """A table's final rows from both paths: (`seq`, `row`), in no particular order."""
    folded = (resolved.reference.where((F.col("kind") == "row") & (F.col("tkey") == table.key))
              .select(F.col("ordinal").alias("seq"), sql.col(read_row_sql("text", table), "row")))
    if table.key in resolved.rows:
        return resolved.rows[table.key].unionByName(folded)
    return folded


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


def _output(values: dict[str, str], source: str | None) -> str:
    """A query of `OUTPUT`'s rows: each column's SQL from `values` (NULL where it has none), from `source`
    (None: one row)."""
    columns = []
    for part in OUTPUT.split(", "):
        name, kind = part.split(" ", 1)
        name = name.strip("`")
        columns.append(sql.named(f"CAST({values.get(name, 'NULL')} AS {kind})", name))
    return f"SELECT {', '.join(columns)}" + (f" FROM {source}" if source else "")


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
    event: dict[str, Any] = {"kind": kind, "site": reading.table(key).server, "table": key, "at": as_utc(row["at"]),
                             "commit_ts": as_utc(row["commit_ts"]), "origin": row["origin"], "txn": row["txn"],
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
