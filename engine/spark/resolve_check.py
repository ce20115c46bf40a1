"""The native check of a key-grouped table's events (docs/contract.md §5, step 5): Spark's windows carry the
row from event to event, judge each delivery, resolve the update conflicts `resolve_native` can, and say
where the reference takes a group over (`resolve` reads this)."""

from __future__ import annotations

import zlib
from typing import Any

from engine.model.schema import Table
from engine.run.semantics.context import RunContext, TablePlan
from engine.spark import resolve_native
from engine.spark import sqltext as sql
from engine.spark.canonical import token
from engine.spark.neteffect import EVENT_COLUMNS, snapshot_values, version_columns
from engine.spark.types import finite_sql, key_sql, rep, same_sql, table_opaque, table_type_sql


def checked(events: str, table: Table, ctx: RunContext, rounds: int | None = None) -> str:
    """The query of a key-grouped table's events with the row's state carried along, whether each event
    applies as the native fold says, whether the group's first event the native fold cannot take
    is this one or before it (`_past`: a group whose last event is not past is folded natively whole),
    which site last wrote the row (`_writer`), and the row after the event (`_after`) at the group's last
    event (`_last`) and at the event just before the first it cannot take (`_cut`). Three window layers
    over one sort: whether the row exists before the event, the columns' states, and the judgement.

    A delivered update that meets update conflicts the windows can resolve (`resolve_native`) is not an
    event the native fold cannot take: each of `resolve_native.ROUNDS` rounds of states resolves a group's
    first such delivery where the round before left the row (`_fix<n>`: the row after it), and the final
    states take each resolved row as set there (`rounds` of them: `resolve_native.ROUNDS` unless given; 0
    leaves every conflict to the reference). A resolved delivery's conflicts (`_conflicts`: the groups'
    records, the row before and after) are read where conflicts are written."""
    plan = ctx.tables[table.key]
    key = "CASE WHEN new IS NOT NULL THEN new ELSE old END"
    order = "PARTITION BY _key ORDER BY at, rank, commit_ts, origin, txn, seq"
    before = f"{order} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"
    upto = f"{order} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    mapped = {m.id: set(m.columns) for m in ctx.into(table.key)}
    versions = {number: set(version_columns(table, number)) for number in _versions(table)}
    wrapped: dict[str, str] = {}
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
        wrapped[name] = f"CASE WHEN {sets} THEN named_struct('v', {value}) END"

    def states(source: str, fix: str | None, s: str, a: str) -> str:
        """The columns' states before (`<s><column>`) and after (`<a><column>`) each event, a resolved
        delivery setting the row it leaves (`fix`)."""
        carried, setting = [], []
        for column in table.columns:
            name = _safe(column.name)
            sets = f"_set_{name}" if fix is None else \
                f"CASE WHEN {fix} IS NOT NULL THEN named_struct('v', {fix}.{sql.ident(column.name)}) " \
                f"ELSE _set_{name} END"
            carried.append(sql.named(f"last({sets}, TRUE) OVER ({before})", f"{s}{name}"))
            # the state after the event: the event's own value where it sets the column, else the state
            # before it (one window per column, not two: the frame up to the current row adds only the row)
            setting.append(sql.named(f"coalesce({sets}, {s}{name})", f"{a}{name}"))
        return f"SELECT *, {', '.join(setting)} FROM (SELECT *, {', '.join(carried)} FROM ({source}))"

    def judgement(s: str, a: str, fix: str | None) -> tuple[str, str]:
        """Whether an event is one the native fold cannot take, and whether it writes the row, as SQL."""
        checks = []
        for mapping_id, columns in mapped.items():
            same = sql.all_of([same_sql(f"old.{sql.ident(c)}", f"{s}{_safe(c)}.v", _type(table, c))
                               for c in sorted(columns)])
            checks.append((f"mapping = {sql.string(mapping_id)}", same))
        # one comparison where every mapping carries the same columns (the usual case), not one a mapping
        matched = checks[0][1] if checks and len({same for _, same in checks}) == 1 else None
        compared = sql.case(checks, "FALSE") if matched is None else \
            f"({sql.any_of([when for when, _ in checks])} AND {matched})"
        delivered = (f"error IS NULL AND (CASE WHEN op = 'I' THEN NOT _exists "
                     f"ELSE _exists AND {compared} END)")
        ok = f"CASE WHEN kind = 'delivery' THEN coalesce({delivered}, FALSE) ELSE TRUE END"
        if fix is not None:
            ok = f"({fix} IS NOT NULL OR {ok})"
        # a delivered update writes the row (and makes its origin the row's writer, which site priority
        # reads) only where it changes a value (`detect.Delivery._resolve_groups`); a double that is not
        # finite is compared otherwise by the reference, so such an update ends what Spark folds of the group
        changes = sql.any_of([f"NOT ({s}{_safe(c.name)}.v <=> {a}{_safe(c.name)}.v)" for c in table.columns])
        unsure = sql.any_of([f"NOT {finite_sql(f'{state}{_safe(c.name)}.v')}" for c in table.columns
                             if rep(c.sql_type).kind == "double" for state in (s, a)])
        writes = (f"CASE WHEN kind = 'snapshot' THEN TRUE WHEN kind = 'local' THEN op <> 'D' "
                  f"WHEN op = 'I' THEN TRUE WHEN op = 'U' THEN {changes} ELSE FALSE END")
        # a second snapshot row of one group (a key with a NULL part, or a table with no key: no duplicate,
        # and each row is its own) is the reference's to fold, which keeps every row
        bad = f"(NOT ({ok}) OR (kind = 'delivery' AND op = 'U' AND {unsure}) OR (kind = 'snapshot' AND _exists))"
        return bad, writes

    keyed = f"SELECT *, {key_struct(key, table, plan.identity)} AS _key FROM {events}"
    existed = f"SELECT *, coalesce(lag(op) OVER ({order}) <> 'D', FALSE) AS _exists FROM ({keyed})"
    # what each event sets of each column (a struct, NULL where it sets nothing), once for every round
    source = f"SELECT *, {', '.join(sql.named(w, f'_set_{_safe(c)}') for c, w in wrapped.items())} FROM ({existed})"
    fix: str | None = None
    rounds = resolve_native.ROUNDS if rounds is None else rounds
    for n in range(1, rounds + 1 if resolve_native.resolvable(table, ctx) else 1):
        # one projection a step, each naming what the next reads: Spark's optimizer then inlines none of
        # them into another (it would copy each judgement into every column that reads it)
        s, a, p = f"_s{n}_", f"_a{n}_", f"_r{n}_"
        bad, writes = judgement(s, a, fix)
        native = resolve_native.resolution(table, ctx, lambda c, s=s: f"{s}{_safe(c)}.v", f"{p}writer", p)  # type: ignore[misc]
        flagged = f"SELECT *, {bad} AS {p}bad, {writes} AS {p}writes FROM ({states(source, fix, s, a)})"
        judged = (f"SELECT *, coalesce(max({p}bad) OVER ({before}), FALSE) AS {p}seen, "
                  f"last(CASE WHEN {p}writes THEN origin END, TRUE) OVER ({before}) AS {p}writer FROM ({flagged})")
        # judged only where the round may resolve: a group's first update the native fold cannot take
        judged = (f"SELECT *, NOT {p}seen AND {p}bad AND kind = 'delivery' AND op = 'U' AND _exists AS {p}gate "
                  f"FROM ({judged})")
        for columns in (native.sums, native.judged):
            if columns:
                gated = [sql.named(f"CASE WHEN {p}gate THEN {expr} END", name) for expr, name in columns]
                judged = f"SELECT *, {', '.join(gated)} FROM ({judged})"
        first = sql.all_of([f"{p}gate", native.candidate])
        judged = f"SELECT *, {first} AS {p}first FROM ({judged})"
        kept_fix = f"CASE WHEN {fix} IS NOT NULL THEN {fix} " if fix is not None else "CASE "
        kept_groups = f"CASE WHEN {fix} IS NOT NULL THEN _groups{n - 1} " if fix is not None else "CASE "
        source = (f"SELECT *, {kept_fix}WHEN {p}first THEN {native.row} END AS _fix{n}, "
                  f"{kept_groups}WHEN {p}first THEN {native.conflicts} END AS _groups{n} FROM ({judged})")
        fix = f"_fix{n}"
    bad, writes = judgement("_s_", "_a_", fix)
    flagged = f"SELECT *, {bad} AS _bad, {writes} AS _writes FROM ({states(source, fix, '_s_', '_a_')})"
    judged = (f"SELECT *, lead(op) OVER ({order}) IS NULL AS _last, max(_bad) OVER ({upto}) AS _past, "
              f"coalesce(lead(_bad) OVER ({order}), FALSE) AS _next_bad, "
              f"last(CASE WHEN _writes THEN origin END, TRUE) OVER ({upto}) AS _writer FROM ({flagged})")
    kept = ", ".join([*EVENT_COLUMNS, "_key", "_last", "_past", "_writer"])
    cut = "(NOT _past AND op <> 'D' AND _next_bad)"
    after = ", ".join(f"{sql.string(c.name)}, _a_{_safe(c.name)}.v" for c in table.columns)
    prior = ", ".join(f"{sql.string(c.name)}, _s_{_safe(c.name)}.v" for c in table.columns)
    groups = f"_groups{rounds}" if fix is not None else None
    conflicts = (f"CASE WHEN size({groups}) > 0 THEN named_struct('groups', {groups}, 'local', named_struct({prior}), "
                 f"'result', named_struct({after})) END" if groups is not None else "CAST(NULL AS BOOLEAN)")
    # the row after an event only where it is read: a group's last event and the event at its cut (a struct
    # of every column on each of a table's events is most of what the kept check holds)
    return (f"SELECT {kept}, {cut} AS _cut, CASE WHEN _last OR {cut} THEN named_struct({after}) END AS _after, "
            f"{conflicts} AS _conflicts FROM ({judged})")


def handed_over(checked: str, table: Table) -> str:
    """What the reference folds of a natively checked table: each group's events from the first delivery
    that may meet a conflict (`_past`), and where the group was folded natively up to there (`_cut`), the
    row as it stands then, as a snapshot row of the site that last wrote it (what `fold` knows of a row;
    a snapshot row comes first at its site, `schedule.event_order`). One projection of the kept check, not
    a union of two: each group's rows stay in the partition the check's window put them in."""
    snapshot = snapshot_values(table, origin="_writer", row=f"CAST(_after AS {table_type_sql(table)})", seq="0")
    columns = [sql.named(f"CASE WHEN _cut THEN {snapshot[c]} ELSE {sql.ident(c)} END", c) for c in EVENT_COLUMNS]
    return f"(SELECT {', '.join(columns)}, _key FROM {checked} WHERE _past OR _cut) AS _handed"


def key_struct(image: str, table: Table, identity: tuple[str, ...]) -> str:
    """SQL of an image's identity as a struct to group a row's events by: each value as it compares
    (`types.key_sql`: `1.50` and `1.5` of a NUMBER, -0.0 and 0.0 of a DOUBLE are one key)."""
    fields = ", ".join(f"{sql.string(c)}, {key_sql(f'({image}).{sql.ident(c)}', _type(table, c))}" for c in identity)
    return f"named_struct({fields})"


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


