"""Transactions -> local commits and deliveries (docs/contract.md §5, steps 2 to 4), over typed columns.

Windows over each transaction (site, txn), in one sort of its records by `seq`, give its commit time, each
record's place in it and the deliveries before the record's (in `seq` order across its tables).
Where every chain of the transaction is a single operation (one record a row: the usual case), Spark
computes everything natively: each mapping's `where` on the before and after images, its distribution
key (a key that changes sends a delete and an insert), the table of seed 004 (`net_effect.decide`), the
mapped images in the target's types, the delivery time by the schedule, and each delivery's place in the
transaction (`seq`, numbered as the reference numbers it).

A transaction goes the reference's way instead (`reference.local_events`, `transaction_deliveries`, over
Arrow, one Python call per transaction) when it must: a chain of several operations (a row changed twice,
a key that moves), a record typed otherwise than the table today (`decode.force_python`), or a value
Spark cannot give exactly as the reference does (`methods.Typed.ok`) or that does not fit its target
column (the reference queues that change with its reason). Its events come back as canonical tokens and
are typed natively, so both paths give the same typed events.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, Observation, Window
from pyspark.sql import functions as F

from engine.core.types import SqlType
from engine.core.values import ConversionError, conform, row_to_json
from engine.model.io import dump_model
from engine.model.schema import Model, Table
from engine.run.input.records import versions_of
from engine.run.input.schedule import Schedule, parse_schedule
from engine.run.semantics.context import MappingPlan, RunContext, build_context
from engine.run.semantics.reference import Transaction, local_events, transaction_deliveries
from engine.spark import sqltext as sql
from engine.spark.canonical import read_row_sql, token
from engine.spark.decode import record_of
from engine.spark.grouped import Fold, FoldTally, fold_groups, spread
from engine.spark.inworker import context_of, model_of, schedule_of
from engine.spark.jobs import observed
from engine.spark.methods import Binding, Typed, cast_value, compile_method, spark_kind_of, where
from engine.spark.methods import conform as conform_sql
from engine.spark.types import key_sql, rep, table_opaque, table_type_sql

BEGINNING = datetime.min.replace(tzinfo=UTC)
EVENT_COLUMNS = ("kind", "rank", "at", "commit_ts", "origin", "txn", "seq", "op", "mapping", "version", "error",
                 "old_json", "new_json", "old", "new")
"""An event of one target table: what applies at its site (`fold.fold_events`'s dicts, typed): `rank` is 0
for a snapshot row, 1 a local commit, 2 a delivery; `version` says which columns a local commit carries,
`mapping` those a delivery carries; `error` a delivery the reference could not map (queued as it is, its
images as `old_json`/`new_json`)."""

REFERENCE_EVENTS = ("dest string, kind string, at timestamp, commit_ts timestamp, origin string, txn string, "
                    "seq long, op string, mapping string, version int, error string, old_text string, "
                    "new_text string, old_json string, new_json string, filtered long")
"""What the reference's path gives for a transaction: its events (images as canonical tokens keyed by the
target's column positions) and, in a row of kind `filtered`, how many (chain, mapping) pairs sent nothing."""


@dataclass(frozen=True)
class Events:
    """Per target table key, its events (`EVENT_COLUMNS`); and the transactions' records with their
    counts (`filtered`, `deliveries` as columns of `transactions`, `reference` for the rest)."""

    tables: dict[str, DataFrame]
    transactions: DataFrame
    reference: DataFrame
    native_counts: dict[str, Any] = field(default_factory=dict)
    """`filtered` and `deliveries` of the transactions Spark mapped, where keeping them counted them
    (`net_effect`'s `observe`); empty otherwise."""
    tally: FoldTally | None = None
    """What the reference's run of the transactions Spark does not map took in Python."""

    def mapped(self) -> dict[str, int]:
        """`filtered` and `deliveries` of the transactions Spark mapped: as keeping them counted them, or
        where nothing was counted (not observed; over Spark Connect a checkpoint's job reports no
        metrics), a scan of them."""
        counts = self.native_counts
        if not all(name in counts for name in ("filtered", "deliveries")):
            counts = self.transactions.where(~F.col("_complex")).agg(
                F.sum("_filtered").alias("filtered"), F.sum("_deliveries").alias("deliveries")).collect()[0].asDict()
        return {name: int(counts[name] or 0) for name in ("filtered", "deliveries")}


def net_effect(records: DataFrame, snapshots: dict[str, DataFrame], model: Model, ids: dict[str, str],
               schedule_doc: dict[str, Any], sql_natively: bool = True,
               keep: Callable[[DataFrame], DataFrame] = lambda frame: frame, observe: bool = False) -> Events:
    """Typed records -> events per target table. `sql_natively` False sends every transaction whose table
    a mapping with a `where` or an `expression` reads to the reference (a run whose SQL failed on a row
    in Spark runs again so: the reference queues that row's change, with the reason).

    `observe`: `keep` runs the frame it is given (the run's does). The job that keeps the transactions then
    also adds up what Spark's own mapping filtered and delivered (`Events.native_counts`): the run's counts
    without another scan of the kept records."""
    ctx = build_context(model)
    schedule = parse_schedule(schedule_doc)
    transactions = _transactions(records, model, ctx, ids, sql_natively)
    counting = Observation(f"net_effect_{uuid.uuid4().hex}")  # a name no other query of the session has
    if observe:
        mapped = ~F.col("_complex")
        transactions = transactions.observe(counting, F.sum(F.when(mapped, F.col("_filtered"))).alias("filtered"),
                                            F.sum(F.when(mapped, F.col("_deliveries"))).alias("deliveries"))
    txns = keep(transactions)
    counts = observed(counting) if observe else {}
    reference_records = txns.where(F.col("_complex")).select("site", "txn", "file_ord", "line", "text", "normalized")
    tally = FoldTally.of(records)
    reference = keep(fold_groups(reference_records, ["site", "txn"], ["file_ord", "line"],
                                 _reference_path(dump_model(model), json.dumps(schedule_doc)), _OUT,
                                 REFERENCE_EVENTS, tally))
    spark = records.sparkSession
    native, by_reference = sql.view(txns), sql.view(reference)
    snapshot_views = {key: sql.view(frame) for key, frame in snapshots.items()}
    tables: dict[str, DataFrame] = {}
    for table in model.tables:
        parts = [_local_events(native, table, ids[table.key]),
                 *(_delivery_events(native, m, ctx, schedule) for m in ctx.into(table.key)),
                 _typed_reference_events(by_reference, table)]
        if table.key in snapshot_views:
            parts.insert(0, snapshot_events(snapshot_views[table.key], table))
        tables[table.key] = spark.sql(" UNION ALL ".join(f"({part})" for part in parts))
    return Events(tables, txns, reference, counts, tally)


# --- the transaction window -----------------------------------------------------------------------------


def _transactions(records: DataFrame, model: Model, ctx: RunContext, ids: dict[str, str],
                  sql_natively: bool) -> DataFrame:
    """Records with their transaction's facts, each mapping's net changes (`_ch_<n>`), and `_complex`: the
    transaction takes the reference's path.

    A transaction of one record needs no window: its facts are its own. Where no transaction has several
    records (a count of (site, txn) pairs says, a shuffle of two short columns), no record is shuffled and
    sorted by transaction (B2, one record a transaction: the net effect about a quarter faster).
    Otherwise every record takes the window (picking out the transactions of several by joins, and the
    mappings' changes planned twice for the two kinds, had doubled the bundled sample's net effect: a small
    run's time is mostly its plans')."""
    each_alone = records.groupBy("site", "txn").count().where("count > 1").isEmpty()
    changed = _changed(_one_record(records) if each_alone else _numbered(records), model, ctx, ids, sql_natively)
    return _finished(_alone(changed) if each_alone else _together(changed))


def _numbered(records: DataFrame) -> DataFrame:
    """Records with their transaction's last commit time (`_commit`), size (`_n`) and each one's place in it
    (`_i`): a shuffle by transaction AQE keeps in its partitions (`spread`)."""
    txn = Window.partitionBy("site", "txn")
    ordered = txn.orderBy("seq", "file_ord", "line")
    return spread(records, "site", "txn").select(
        "*", F.max("commit_ts").over(txn).alias("_commit"), F.count("*").over(txn).alias("_n"),
        (F.row_number().over(ordered) - 1).alias("_i"))


def _one_record(records: DataFrame) -> DataFrame:
    """`_numbered` of records each a transaction of its own."""
    return records.select("*", F.col("commit_ts").alias("_commit"), F.lit(1).cast("bigint").alias("_n"),
                          F.lit(0).alias("_i"))


def _changed(frame: DataFrame, model: Model, ctx: RunContext, ids: dict[str, str], sql_natively: bool) -> DataFrame:
    """Numbered records with the row each changes (`_lookup`), whether it moves its row's key (`_moves`),
    each mapping's net changes (`_ch_<n>`), its deliveries and whether it alone takes the reference's
    path (`_complex_row`)."""
    lookup, moves = [], []
    for table in model.tables:
        tid = ids[table.key]
        plan = ctx.tables[table.key]
        this = f"table = {sql.string(table.key)}"
        before = _identity_json(f"b_{tid}", table, plan.identity)
        after = _identity_json(f"a_{tid}", table, plan.identity)
        lookup.append((this, f"CASE WHEN op = 'I' THEN {after} ELSE {before} END"))
        moves.append((this, f"op = 'U' AND NOT ({_identity_same(f'b_{tid}', f'a_{tid}', table, plan.identity)})"))
    frame = frame.select("*", sql.col(sql.case(lookup), "_lookup"), sql.col(f"coalesce({sql.case(moves)}, FALSE)",
                                                                             "_moves"))
    changes, counts, oks = [], [], []
    for n, mapping in enumerate(sorted(ctx.mappings.values(), key=lambda m: m.id)):
        source = model.table(mapping.source)
        target = model.table(mapping.target)
        assert source is not None and target is not None
        expr, key_ok = _mapping_changes(mapping, source, target, ids, ctx, sql_natively, frame)
        this = f"table = {sql.string(source.key)}"
        changes.append(sql.col(f"CASE WHEN {this} THEN {expr} END", f"_ch_{n}"))
        counts.append(f"CASE WHEN {this} THEN size(_ch_{n}) ELSE 0 END")
        oks.append(f"(NOT {this} OR ({key_ok} AND forall(_ch_{n}, c -> c.ok)))")
    frame = frame.select("*", *changes)
    opaque = [f"table = {sql.string(t.key)}" for t in model.tables if table_opaque(t)]
    complex_row = sql.any_of(["force_python", "_n > 1 AND _moves", f"NOT {sql.all_of(oks)}", *opaque])
    filtered = [f"CASE WHEN table = {sql.string(m.source)} AND size(_ch_{n}) = 0 THEN 1 ELSE 0 END"
                for n, m in enumerate(sorted(ctx.mappings.values(), key=lambda m: m.id))]
    return frame.select("*", sql.col(" + ".join(counts) if counts else "0", "_deliveries"),
                        sql.col(f"coalesce({complex_row}, TRUE)", "_complex_row"),
                        sql.col(" + ".join(filtered) if filtered else "0", "_filtered"))


def _alone(frame: DataFrame) -> DataFrame:
    """`_together` of a transaction of one record: its deliveries are the first of the transaction."""
    return frame.select("*", F.col("_complex_row").alias("_complex"), F.lit(0).cast("bigint").alias("_base"))


def _together(frame: DataFrame) -> DataFrame:
    """Changed records with whether their transaction takes the reference's path (`_complex`) and the
    transaction's deliveries before each record's (`_base`)."""
    # a transaction's deliveries are numbered in `seq` order across its tables (`reference.transaction_chains`:
    # with `scope: transaction` a later change is never examined before an earlier one of another table);
    # the window is ordered as `_numbered`'s, so both read the rows in the order of one sort
    txn = Window.partitionBy("site", "txn")
    before = txn.orderBy("seq", "file_ord", "line").rowsBetween(Window.unboundedPreceding, -1)
    # a transaction that changes one row twice (two records of a table with one identity) takes the
    # reference's path: fewer distinct (table, identity) pairs than records
    touched = F.size(F.collect_set(F.struct("table", "_lookup")).over(txn))
    return frame.select("*", (F.max("_complex_row").over(txn) | ((F.col("_n") > 1) & (touched < F.col("_n"))))
                        .alias("_complex"),
                        F.coalesce(F.sum("_deliveries").over(before), F.lit(0).cast("bigint")).alias("_base"))


def _finished(frame: DataFrame) -> DataFrame:
    """The line's text only where the reference reads it, and none of the working columns: a kept row is
    copied whole by every scan (a table's events read three scans of these rows), and at 1,000,000 records
    what is kept does not all fit in memory (a third went to disk before these were dropped)."""
    frame = frame.withColumn("text", F.when(F.col("_complex"), F.col("text")))
    return frame.select(*(c for c in frame.columns if c not in _WORKING))


_WORKING = ("seq", "commit_ts", "force_python", "_n", "_lookup", "_complex_row")
"""What the transaction window needs and nothing after it reads (the events take `_i` and `_commit`)."""


def _identity_json(image: str, table: Table, identity: tuple[str, ...]) -> str:
    """An image's identity as JSON text, each value as it compares (`types.key_sql`: -0.0 is 0.0, `1.50`
    of a NUMBER is `1.5`), so that two records of one row have one text."""
    fields = ", ".join(f"{sql.string(c)}, {key_sql(f'{image}.{sql.ident(c)}', _type(table, c))}" for c in identity)
    return f"to_json(named_struct({fields}))"


def _identity_same(before: str, after: str, table: Table, identity: tuple[str, ...]) -> str:
    return sql.all_of([f"{key_sql(f'{before}.{sql.ident(c)}', _type(table, c))} <=> "
                       f"{key_sql(f'{after}.{sql.ident(c)}', _type(table, c))}" for c in identity])


def _type(table: Table, name: str) -> SqlType:
    column = table.column(name)
    assert column is not None
    return column.sql_type


def _binding(table: Table, image: str, op: str, spark_kind: Any) -> Binding:
    columns = {c.name: (f"{image}.{sql.ident(c.name)}", c.sql_type) for c in table.columns}
    return Binding(columns, {"site": "site", "commit_ts": "_commit", "txn": "txn", "op": sql.string(op)},
                   "_commit", spark_kind)


def _mapping_changes(mapping: MappingPlan, source: Table, target: Table, ids: dict[str, str], ctx: RunContext,
                     sql_natively: bool, frame: DataFrame) -> tuple[str, str]:
    """The SQL of one mapping's net changes of a record (an array of `{op, old, new, ok}`), and where its
    distribution key is exact (FALSE: the mapping cannot run natively at all)."""
    tid = ids[source.key]

    def spark_kind(bound: str) -> tuple[str, int, int]:
        return spark_kind_of(frame.select(F.expr(bound)).schema.fields[0].dataType)

    uses_sql = mapping.where is not None or any(m.method == "expression" for c in mapping.columns.values()
                                                 for _, m in c.walk())
    native = not table_opaque(source) and not table_opaque(target) and (sql_natively or not uses_sql)
    if not native:  # an empty array of the changes' type: the record goes to the reference
        row = table_type_sql(target)
        return f"CAST(array() AS ARRAY<STRUCT<op: STRING, old: {row}, new: {row}, ok: BOOLEAN>>)", "FALSE"
    def before(op: str) -> Binding:
        return _binding(source, f"b_{tid}", op, spark_kind)

    def after(op: str) -> Binding:
        return _binding(source, f"a_{tid}", op, spark_kind)

    where_b, where_a = where(mapping.where, before("U")), where(mapping.where, after("U"))
    initial = f"(op <> 'I' AND b_{tid} IS NOT NULL AND {where_b})"
    final = f"(op <> 'D' AND a_{tid} IS NOT NULL AND {where_a})"
    if mapping.dkey is not None:
        kb = [cast_value(compile_method(mapping.columns[c], before("U")), target.column(c).sql_type)  # type: ignore[union-attr]
              for c in mapping.dkey]
        ka = [cast_value(compile_method(mapping.columns[c], after("U")), target.column(c).sql_type)  # type: ignore[union-attr]
              for c in mapping.dkey]
        same = [f"{key_sql(b.sql, _type(target, c))} <=> {key_sql(a.sql, _type(target, c))}"
                for c, b, a in zip(mapping.dkey, kb, ka, strict=True)]
        moved = f"NOT {sql.all_of(same)}"
        key_ok = sql.all_of([t.ok for t in (*kb, *ka)])
    else:
        moved, key_ok = "FALSE", "TRUE"

    def change(op: str, old: Binding | None, new: Binding | None) -> str:
        old_sql, old_ok = _mapped(mapping, target, old, op) if old is not None else (_null_row(target), "TRUE")
        new_sql, new_ok = _mapped(mapping, target, new, op) if new is not None else (_null_row(target), "TRUE")
        return f"named_struct('op', '{op}', 'old', {old_sql}, 'new', {new_sql}, 'ok', {sql.all_of([old_ok, new_ok])})"

    empty = f"filter(array({change('I', None, None)}), x -> FALSE)"
    insert = f"array({change('I', None, after('I'))})"
    delete = f"array({change('D', before('D'), None)})"
    update = f"array({change('U', before('U'), after('U'))})"
    both = f"array({change('D', before('D'), None)}, {change('I', None, after('I'))})"
    chosen = (f"CASE WHEN op = 'I' THEN (CASE WHEN {final} THEN {insert} ELSE {empty} END) "
              f"WHEN op = 'D' THEN (CASE WHEN {initial} THEN {delete} ELSE {empty} END) "
              f"ELSE (CASE WHEN {initial} AND {final} THEN (CASE WHEN {moved} THEN {both} ELSE {update} END) "
              f"WHEN {initial} THEN {delete} WHEN {final} THEN {insert} ELSE {empty} END) END")
    return chosen, key_ok


def _null_row(table: Table) -> str:
    return f"CAST(NULL AS {table_type_sql(table)})"


def _mapped(mapping: MappingPlan, target: Table, binding: Binding, op: str) -> tuple[str, str]:
    """The target image a mapping computes (its columns; the others NULL), and where it is exact and fits."""
    fields, oks = [], []
    for column in target.columns:
        method = mapping.columns.get(column.name)
        if method is None:
            fields.append(f"{sql.string(column.name)}, CAST(NULL AS {rep(column.sql_type).ddl})")
            continue
        value: Typed = compile_method(method, binding)
        converted = conform_sql(value, column.sql_type)
        fields.append(f"{sql.string(column.name)}, {converted.sql}")
        oks.append(sql.all_of([value.ok, converted.exact, converted.fits]))
    return f"named_struct({', '.join(fields)})", sql.all_of(oks)


# --- events ---------------------------------------------------------------------------------------------


def _event(kind: str, rank: int, at: str, commit_ts: str, origin: str, txn: str, seq: str, op: str,
           mapping: str, version: str, old: str, new: str, error: str = "CAST(NULL AS STRING)",
           old_json: str = "CAST(NULL AS STRING)", new_json: str = "CAST(NULL AS STRING)") -> str:
    """The select list of an event row (`EVENT_COLUMNS`, in order)."""
    return _select_list(event_values(kind, rank, at, commit_ts, origin, txn, seq, op, mapping, version, old, new,
                                     error, old_json, new_json))


def _select_list(values: dict[str, str]) -> str:
    return ", ".join(sql.named(values[c], c) for c in EVENT_COLUMNS)


def event_values(kind: str, rank: int, at: str, commit_ts: str, origin: str, txn: str, seq: str, op: str,
                 mapping: str, version: str, old: str, new: str, error: str = "CAST(NULL AS STRING)",
                 old_json: str = "CAST(NULL AS STRING)", new_json: str = "CAST(NULL AS STRING)") -> dict[str, str]:
    """Each column of an event row (`EVENT_COLUMNS`) as SQL, typed."""
    return {"kind": sql.string(kind), "rank": str(rank), "at": at, "commit_ts": commit_ts, "origin": origin,
            "txn": txn, "seq": f"CAST({seq} AS BIGINT)", "op": op, "mapping": mapping,
            "version": f"CAST({version} AS INT)", "error": error, "old_json": old_json, "new_json": new_json,
            "old": old, "new": new}


def snapshot_values(table: Table, origin: str | None = None, row: str = "row", seq: str = "seq") -> dict[str, str]:
    """A snapshot row of `table` as an event (`event_values`): `row` last written by `origin` (by default the
    table's own server)."""
    beginning = sql.lit(BEGINNING)
    return event_values("snapshot", 0, beginning, beginning, origin or sql.string(table.server), "''", seq, "'I'",
                        "CAST(NULL AS STRING)", "NULL", _null_row(table), row)


def snapshot_events(rows: str, table: Table) -> str:
    """The query of `rows` (a view or a subquery of `seq`, `row`) as snapshot rows of `table`."""
    return f"SELECT {_select_list(snapshot_values(table))} FROM {rows}"


def _local_events(native: str, table: Table, tid: str) -> str:
    """A transaction's records as local commits at their site; an update that moves the row to another
    identity is a delete and an insert (`reference.local_events`)."""
    ops = (f"CASE WHEN _moves THEN array(named_struct('op', 'D', 'j', 0, 'old', b_{tid}, 'new', {_null_row(table)}),"
           f" named_struct('op', 'I', 'j', 1, 'old', {_null_row(table)}, 'new', a_{tid}))"
           f" ELSE array(named_struct('op', op, 'j', 0, 'old', b_{tid}, 'new', a_{tid})) END")
    columns = _event("local", 1, "_commit", "_commit", "site", "txn", "_i * 2 + _e.j", "_e.op",
                     "CAST(NULL AS STRING)", "version", "_e.old", "_e.new")
    return (f"SELECT {columns} FROM (SELECT *, explode({ops}) AS _e FROM {native} "
            f"WHERE NOT _complex AND `table` = {sql.string(table.key)})")


def _delivery_events(native: str, mapping: MappingPlan, ctx: RunContext, schedule: Schedule) -> str:
    order = sorted(ctx.mappings.values(), key=lambda m: m.id)
    n = order.index(mapping)
    before = [f"size(_ch_{order.index(m)})" for m in ctx.reading(mapping.source) if m.id < mapping.id]
    offset = " + ".join(before) if before else "0"
    at = delivery_time(schedule, ctx.tables[mapping.source].server, ctx.tables[mapping.target].server, "_commit")
    columns = _event("delivery", 2, at, "_commit", "site", "txn", f"_base + {offset} + _pos", "_c.op",
                     sql.string(mapping.id), "NULL", "_c.old", "_c.new")
    return (f"SELECT {columns} FROM (SELECT *, posexplode(_ch_{n}) AS (_pos, _c) FROM {native} "
            f"WHERE NOT _complex AND `table` = {sql.string(mapping.source)})")


def delivery_time(schedule: Schedule, origin: str, destination: str, commit: str) -> str:
    """`schedule.delivery_time` as SQL: the commit time plus the link's delay, moved to the end of the
    outage it falls in (back-to-back and overlapping outages merged, as the reference's loop moves it)."""
    link = schedule.link(origin, destination)
    micros = timedelta(seconds=link.delay_s) // timedelta(microseconds=1)
    at = f"timestamp_micros(unix_micros({commit}) + {micros})"
    merged: list[list[datetime]] = []
    for start, end in link.down:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    if not merged:
        return at
    return sql.case([(f"{at} >= {sql.lit(start)} AND {at} < {sql.lit(end)}", sql.lit(end)) for start, end in merged],
                    at)


def _typed_reference_events(rows: str, table: Table) -> str:
    """The reference's events for one table, their images typed from tokens."""
    rank = "CASE kind WHEN 'snapshot' THEN 0 WHEN 'local' THEN 1 ELSE 2 END"
    columns = [*("kind", sql.named(rank, "rank"), "at", "commit_ts", "origin", "txn", "seq", "op", "mapping",
                 "version", "error", "old_json", "new_json"),
               sql.named(read_row_sql("old_text", table), "old"), sql.named(read_row_sql("new_text", table), "new")]
    return f"SELECT {', '.join(columns)} FROM {rows} WHERE kind <> 'filtered' AND dest = {sql.string(table.key)}"


# --- the reference's path -------------------------------------------------------------------------------





_OUT = pa.schema([("dest", pa.string()), ("kind", pa.string()), ("at", pa.timestamp("us", tz="UTC")),
                  ("commit_ts", pa.timestamp("us", tz="UTC")), ("origin", pa.string()), ("txn", pa.string()),
                  ("seq", pa.int64()), ("op", pa.string()), ("mapping", pa.string()), ("version", pa.int32()),
                  ("error", pa.string()), ("old_text", pa.string()), ("new_text", pa.string()),
                  ("old_json", pa.string()), ("new_json", pa.string()), ("filtered", pa.int64())])


def _reference_path(model_text: str, schedule_text: str) -> Callable[[], Fold]:
    """The reference's run of one transaction (`grouped.fold_groups`)."""
    return lambda: partial(_run_transaction, model_of(model_text), context_of(model_text),
                           schedule_of(schedule_text))


def _run_transaction(model: Model, ctx: RunContext, schedule: Schedule, rows: list[dict[str, Any]]) \
        -> list[dict[str, Any]]:
    """A transaction's records (their lines, in file and line order) -> its events (`REFERENCE_EVENTS`)."""
    accepted = sorted((record_of(r["text"], r["normalized"], r["line"], model) for r in rows), key=lambda r: r.seq)
    if not accepted:
        return []
    txn = Transaction(accepted[0].site, accepted[0].txn, max(r.commit_ts for r in accepted), accepted)
    out: list[dict[str, Any]] = []
    versions = {}
    for i, record in enumerate(accepted):
        versions[2 * i] = versions[2 * i + 1] = record.version
    for event in local_events(txn, ctx):
        out.append(_event_row(event, model, versions.get(event["seq"])))
    deliveries, filtered = transaction_deliveries(txn, ctx, schedule)
    for event in deliveries:
        out.append(_event_row(event, model, None))
    out.append({"dest": None, "kind": "filtered", "filtered": filtered})
    return out


def _event_row(event: dict[str, Any], model: Model, version: int | None) -> dict[str, Any]:
    table = model.table(event["table"])
    assert table is not None
    errored = event.get("error") is not None
    row = {"dest": event["table"], "kind": event["kind"], "at": event["at"], "commit_ts": event["commit_ts"],
           "origin": event["origin"], "txn": event["txn"], "seq": event["seq"], "op": event["op"],
           "mapping": event.get("mapping"), "version": version, "error": event.get("error"),
           "old_text": _canonical_image(event.get("old"), table), "new_text": _canonical_image(event.get("new"), table),
           "old_json": json.dumps(row_to_json(event["old"])) if errored and event.get("old") is not None else None,
           "new_json": json.dumps(row_to_json(event["new"])) if errored and event.get("new") is not None else None,
           "filtered": None}
    return row


def _canonical_image(image: dict[str, Any] | None, table: Table) -> str | None:
    """An image in the table's current types (a value that cannot take one is NULL, as `fold` reads it),
    as canonical tokens keyed by column position."""
    if image is None:
        return None
    out = {}
    for i, column in enumerate(table.columns):
        if column.name not in image:
            continue
        try:
            value = conform(image[column.name], column.sql_type)
        except ConversionError:
            value = None
        out[f"c{i}"] = token(value, column.sql_type)
    return json.dumps(out)


def version_columns(table: Table, version: int | None) -> tuple[str, ...]:
    """The current columns a local commit of `version` carries."""
    types = versions_of(table).get(version)
    names = set(types.types) if types is not None else {c.name for c in table.columns}
    return tuple(c.name for c in table.columns if c.name in names)

