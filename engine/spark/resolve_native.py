"""Update conflicts a key group's windows resolve natively (docs/contract.md §5.5, issue 38).

`detect.Delivery._resolve_groups` on a delivered update whose old image differs from the row, as SQL over
one event of the native check (`resolve_check.checked`): the row as it stands before the event (`state(c)`,
typed), the site that last wrote it (`writer`), the event's `old` and `new` images. Each column group the
update changes takes the remote values where its old values are the row's, and where they are not its
chain decides, the first method that decides winning: `latest_timestamp`, `earliest_timestamp`, `maximum`,
`minimum` (an order statistic of one column), `site_priority`, `overwrite`, `discard`, `priority_group`
(of a text column) and `additive` (a sum). What no expression here gives exactly is the reference's:
`average` (rounded halves), an ordering of text or doubles (Python's order, NaN), a shadow group's conflict
(unresolved: the error queue), a chain that ends undecided, an old value the origin does not capture or a
column `compare_old` turns off. An event that needs any of these is not a candidate, and the reference
folds its group from there (`resolve_check.handed_over`).

The window can resolve only a group's first conflict: past it the carried state is wrong. So the check
runs in rounds (`ROUNDS`): each resolves the first conflict the states of the round before leave, as a
whole row after the event (`fix`) that the next round's states take as set there. Spark writes the
resolved conflicts too (`conflict_json`), Python only those whose text it cannot show it writes exactly
(`resolve_conflicts`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.core.types import SqlType
from engine.model.schema import Resolution, Table
from engine.run.semantics.context import GroupPlan, MappingPlan, RunContext, TablePlan
from engine.spark import sqltext as sql
from engine.spark.types import rep, same_sql

ROUNDS = 2
"""Conflicts a key group's windows resolve, one a round; the reference folds a group from its next one.
B2 meets at most two in a group (a burst of three sites: a local change, then two deliveries), so 2
resolves all of B2's natively, to the byte. The rounds run only over what the first check hands over
(`resolve.resolve`): rounds over every event of a table had cost more than the reference's fold they
saved (B2 at 100,000 events: resolve 44.9-55.6 s with none, 62.4-99.8 s with 2); over the tenth of B2's
events handed over, at 1,000,000 events resolve took 44.3-45.2 s against 50.0-51.5 s with the reference
folding them (benchmarks/results, stop 45)."""

ROUNDS_FROM_EVENTS = 50_000
"""How many events a table's first check must hand over for the rounds to run over them (where the check
counted them, `resolve.resolve(observe=True)`): below, the reference's fold of them costs less than
planning and compiling the second check and its conflicts' writing. B2 at 100,000 events, where each table
hands over about 10,500: resolve 11.8 s with the reference folding them, 17.8 s with the rounds; at
1,000,000, about 106,000 a table: 50.0-51.5 s against 44.3-45.2 s (benchmarks/results, stop 45)."""

SMALL_ROUNDS = 0
"""`ROUNDS` of a small run (`pipeline.configure`): its few conflicts cost the reference's fold less than
planning a second check and its conflicts' encoding (the bundled sample's warm run, resolve 5.9 s with
none, 9.2 s with 2)."""

ORDERED = ("int", "decimal", "timestamp")
"""The kinds whose order Spark and `values.compare` agree on (text and doubles are the reference's)."""

MAX_ADDED_PRECISION = 28
"""The widest DECIMAL `additive` adds natively: Python's decimal context rounds past 28 digits."""

State = Callable[[str], str]
"""SQL of a column's value in the row as it stands before the event."""


@dataclass(frozen=True)
class Native:
    """One round's native resolution of a delivered update, as three projections over the round's states:
    the sums `additive` would take (`sums`: (expr, name)), each column group's judgement (`judged`:
    whether the update changes it, whether its old values differ from the row's, which step decided and
    how), then whether the event is one the windows resolve (`candidate`), the whole row after it (`row`: a
    struct of the table's columns) and its conflicts (`conflicts`: an array of structs `g`, `tried`,
    `method`, `outcome`, one per column group in conflict, in the reference's order)."""

    sums: list[tuple[str, str]]
    judged: list[tuple[str, str]]
    candidate: str
    row: str
    conflicts: str


def resolvable(table: Table, ctx: RunContext) -> bool:
    """Whether any delivery into `table` may have its update conflicts resolved natively."""
    return any(_eligible(m, ctx.tables[table.key], table) for m in ctx.into(table.key))


def resolution(table: Table, ctx: RunContext, state: State, writer: str, prefix: str) -> Native:
    """The native resolution of a delivered update into `table` (a key-grouped table with a native check
    and a mapping `resolvable`), its columns named from `prefix`."""
    plan = ctx.tables[table.key]
    mappings = [m for m in ctx.into(table.key) if _eligible(m, plan, table)]
    types = {c.name: c.sql_type for c in table.columns}
    sums = {c.name: f"{prefix}sum_{n}" for n, c in enumerate(table.columns) if _summed(c.sql_type) is not None}
    values = {c.name: state(c.name) for c in table.columns}
    judged: list[tuple[str, str]] = []
    fine: list[str] = []
    records: list[str] = []
    for i, group in enumerate(plan.all_groups()):
        per = {m.id: [c for c in group.columns if c in m.columns] for m in mappings}
        if not any(per.values()):
            continue
        changed, differs = f"{prefix}changed{i}", f"{prefix}differs{i}"
        judged.append((by_mapping({m: sql.any_of([
            f"NOT {same_sql(f'new.{sql.ident(c)}', f'old.{sql.ident(c)}', types[c])}" for c in cols])
            for m, cols in per.items()}), changed))
        judged.append((by_mapping({m: sql.any_of([
            f"NOT {same_sql(f'old.{sql.ident(c)}', state(c), types[c])}" for c in cols]) for m, cols in per.items()}),
            differs))
        conflict = f"({changed} AND {differs})"
        covered = [c for c in group.columns if any(c in cols for cols in per.values())]
        carried = {m.id: set(m.columns) for m in mappings}
        chains = {m: _chain(group, cols, carried[m], table, state, writer, ctx.priorities, sums)
                  if group.name and cols else None for m, cols in per.items()}
        if group.name is None or any(chains[m] is None for m, cols in per.items() if cols):
            fine.append(f"NOT {conflict}")  # the reference's: a shadow group's conflict, a chain not native
            for c in covered:
                values[c] = f"CASE WHEN {_has(per, c)} AND {changed} THEN new.{sql.ident(c)} ELSE {values[c]} END"
            continue
        step, outcome = f"{prefix}step{i}", f"{prefix}outcome{i}"
        judged.append((by_mapping({m: sql.case([(f"{d} IS NOT NULL", str(n + 1)) for n, d in enumerate(ds)],
                                                          "0") for m, ds in chains.items() if ds is not None}), step))
        judged.append((by_mapping({m: f"coalesce({', '.join(ds)}, 'unresolved')"
                                             for m, ds in chains.items() if ds is not None}), outcome))
        fine.append(f"(NOT {conflict} OR {outcome} <> 'unresolved')")
        steps: list[str] = [s.method for s in group.chain]
        tried = sql.case([(f"{step} = {n + 1}", _array(steps[:n + 1])) for n in range(len(steps))], _array(steps))
        method = sql.case([(f"{step} = {n + 1}", sql.string(name)) for n, name in enumerate(steps)],
                          "CAST(NULL AS STRING)")
        for c in covered:
            new = f"new.{sql.ident(c)}"
            taken = [(f"NOT ({_has(per, c)} AND {changed})", values[c]), (f"NOT {differs}", new),
                     (f"{outcome} = 'remote'", new)]
            if c in sums:
                taken.append((f"{outcome} = 'merged'", sums[c]))
            values[c] = sql.case(taken, state(c))
        records.append(f"CASE WHEN {conflict} THEN named_struct('g', {sql.string(group.name)}, 'tried', {tried}, "
                       f"'method', {method}, 'outcome', {outcome}) END")
    row = "named_struct(" + ", ".join(f"{sql.string(c.name)}, {values[c.name]}" for c in table.columns) + ")"
    listed = f"filter(array({', '.join(records)}), x -> x IS NOT NULL)" if records else \
        "CAST(array() AS ARRAY<STRUCT<g: STRING, tried: ARRAY<STRING>, method: STRING, outcome: STRING>>)"
    eligible = sql.any_of([f"mapping = {sql.string(m.id)}" for m in mappings])
    candidate = sql.all_of(["kind = 'delivery'", "op = 'U'", "error IS NULL", "_exists", eligible, *fine])
    summed = [(f"try_cast({_summed(types[c])} AS {rep(types[c]).ddl})".format(
        local=state(c), new=f"new.{sql.ident(c)}", old=f"old.{sql.ident(c)}"), name) for c, name in sums.items()]
    return Native(summed, judged, candidate, row, listed)


def _eligible(mapping: MappingPlan, plan: TablePlan, table: Table) -> bool:
    """Whether a mapping's deliveries compare old images with the row as Spark does: every old value known
    and compared, the distribution key the identity, no double (Python's NaN) among the columns."""
    return (not mapping.unknown_old and not plan.compare_old_off and mapping.dkey is not None
            and set(mapping.dkey) == set(plan.identity)
            and all(rep(c.sql_type).kind not in ("double", "opaque") for c in table.columns))


def by_mapping(by: dict[str, str], default: str = "NULL") -> str:
    """One expression where every mapping's is the same (the usual case), else a CASE over the mapping."""
    if len(set(by.values())) == 1:
        return next(iter(by.values()))
    return sql.case([(f"mapping = {sql.string(m)}", expr) for m, expr in by.items()], default)


def _has(per: dict[str, list[str]], column: str) -> str:
    """Whether the event's mapping carries `column` (of a group), as SQL."""
    having = [m for m, cols in per.items() if column in cols]
    return "TRUE" if len(having) == len(per) else sql.any_of([f"mapping = {sql.string(m)}" for m in having])


def _summed(t: SqlType) -> str | None:
    """current + (new - old) in a type wide enough (`{local}`, `{new}`, `{old}` to fill in), for a column
    `additive` sums natively: an integer, a DECIMAL Python's context adds exactly."""
    r = rep(t)
    if r.kind not in ("int", "decimal"):
        return None
    scale = int(getattr(r.spark, "scale", 0) or 0) if r.kind == "decimal" else 0
    precision = int(getattr(r.spark, "precision", 20) or 20) if r.kind == "decimal" else 20
    if precision > MAX_ADDED_PRECISION:
        return None
    wide = f"DECIMAL({precision + 4}, {scale})"
    return f"CAST({{local}} AS {wide}) + (CAST({{new}} AS {wide}) - CAST({{old}} AS {wide}))"


def _array(items: list[str]) -> str:
    return f"array({', '.join(sql.string(i) for i in items)})"


def _chain(group: GroupPlan, columns: list[str], carried: set[str], table: Table, state: State, writer: str,
           priorities: Mapping[str, float | None], sums: dict[str, str]) -> list[str] | None:
    """Each step's decision as SQL ('remote', 'local', 'merged' or NULL: a tie or undecided, the next step
    decides); None when a step is not native."""
    decisions: list[str] = []
    for step in group.chain:
        decision = _step(step, columns, carried, table, state, writer, priorities, sums)
        if decision is None:
            return None
        decisions.append(decision)
    return decisions


def _step(step: Resolution, columns: list[str], carried: set[str], table: Table, state: State, writer: str,
          priorities: Mapping[str, float | None], sums: dict[str, str]) -> str | None:
    """One method's decision (`resolve.apply_method`) as SQL; None when not native. `columns` are the
    group's the delivery carries, `carried` all it carries (its mapping's)."""
    name = step.method
    if name == "overwrite":
        return "'remote'"
    if name == "discard":
        return "'local'"
    if name == "site_priority":
        return _by_order(_priority(priorities, "origin"), _priority(priorities, writer))
    if name in ("latest_timestamp", "earliest_timestamp", "maximum", "minimum", "priority_group"):
        column = table.column(step.column) if step.column is not None else None
        if column is None or column.name not in carried:
            return "CAST(NULL AS STRING)"  # undecided: the delivery carries no such column
        remote, local = f"new.{sql.ident(column.name)}", state(column.name)
        if name == "priority_group":
            if rep(column.sql_type).kind != "text":
                return None  # a number listed under another spelling: the reference's
            return _by_order(_listed(step.priorities or {}, remote), _listed(step.priorities or {}, local))
        if rep(column.sql_type).kind not in ORDERED:
            return None
        higher, lower = ("'remote'", "'local'") if name in ("latest_timestamp", "maximum") else ("'local'", "'remote'")
        return (f"CASE WHEN {remote} IS NULL AND {local} IS NULL THEN NULL WHEN {local} IS NULL THEN {higher} "
                f"WHEN {remote} IS NULL THEN {lower} WHEN {remote} > {local} THEN {higher} "
                f"WHEN {remote} < {local} THEN {lower} END")
    if name == "additive":
        kinds = [rep(_type(table, c)).kind for c in columns]
        if any(k in ("text", "bool", "timestamp", "binary") for k in kinds):
            return "CAST(NULL AS STRING)"  # a value that is no number: always undecided
        if any(c not in sums for c in columns):
            return None
        return f"CASE WHEN {sql.all_of([f'{sums[c]} IS NOT NULL' for c in columns])} THEN 'merged' END"
    return None  # average: the reference's


def _type(table: Table, name: str) -> SqlType:
    column = table.column(name)
    assert column is not None
    return column.sql_type


def _by_order(remote: str, local: str) -> str:
    """Higher wins, equal is a tie, an unknown side is undecided (`engine.run.semantics.resolve._by_order`)."""
    return (f"CASE WHEN {remote} IS NULL OR {local} IS NULL THEN NULL WHEN {remote} > {local} THEN 'remote' "
            f"WHEN {remote} < {local} THEN 'local' END")


def _priority(priorities: Mapping[str, float | None], site: str) -> str:
    listed = [(f"{site} = {sql.string(s)}", f"CAST('{float(p)!r}' AS DOUBLE)") for s, p in priorities.items()
              if p is not None]
    return sql.case(listed, "CAST(NULL AS DOUBLE)")


def _listed(priorities: Mapping[str, int | float], value: str) -> str:
    listed = [(f"{value} = {sql.string(k)}", f"CAST('{float(p)!r}' AS DOUBLE)") for k, p in priorities.items()]
    return sql.case(listed, "CAST(NULL AS DOUBLE)")
