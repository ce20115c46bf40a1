"""Conflict scenarios: one row changed at two sites within the propagation delay, so that a run meets a conflict.

For a table D that two sites write into ("sides": D's own site when a mapping reads D, and the source table
of each keyed mapping into D), a scenario is one of:

- `update`: both sides update one row's column group; the resolution chain's designated columns are set
  so that the methods before a chosen one tie (equal timestamps, equal priorities...) and the chosen one
  decides: so every method and every backup of a chain gets to decide;
- `insert`: both insert a row with the same distribution key (`on_insert_exists`; `as_update` resolves
  the groups as above);
- `unique`: both insert different rows with the same value in a unique index (its `unique` entry);
- `delete_update`: one deletes the row the other updates (a delete conflict; `on_update_missing`);
- `delete_delete`: both delete the row (`on_delete_missing`).

A side's values reach D through its mapping; only columns the mapping copies can be set from there.
The rows a scenario touches are retired: ordinary work never changes them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from engine.core.values import ConversionError
from engine.model.methods import Column
from engine.model.schema import Resolution
from engine.run.semantics.context import GroupPlan, MappingPlan, default_value
from engine.run.semantics.methods import SystemValues, map_image, replication_key
from engine.run.semantics.reference import Transaction
from engine.samplegen.ordinary import updated
from engine.samplegen.world import World
from engine.sql.errors import UnsupportedSql

Row = dict[str, Any]
KINDS = ("update", "insert", "unique", "delete_update", "delete_delete")


@dataclass(frozen=True)
class Side:
    """A table whose site writes into D: D itself (`mapping` None) or the source of a mapping into D."""

    table: str
    mapping: MappingPlan | None

    def source_of(self, column: str) -> str | None:
        """The column of this side's table that sets D's `column` (a copy), or None."""
        if self.mapping is None:
            return column
        method = self.mapping.columns.get(column)
        return method.input if isinstance(method, Column) else None


@dataclass(frozen=True, eq=False)
class Target:
    """What a scenario aims at: `kind` on table D, a group and the step of its chain that should decide, or
    an index; `signature` is that of the conflict record that shows it decided."""

    kind: str
    table: str
    group: GroupPlan | None = None
    step: int = 0
    index: str | None = None
    signature: tuple[Any, ...] = ()


def sides(world: World, table_key: str) -> list[Side]:
    ctx = world.ctx
    local = ctx.reading(table_key) or world.model.conflicts_for(table_key) is not None
    out = [Side(table_key, None)] if local else []  # a replica's own edits meet its conflicts entry too
    out += [Side(m.source, m) for m in ctx.into(table_key)
            if m.dkey is not None and ctx.tables[m.source].server != ctx.tables[table_key].server]
    return out


def signature(conflict: dict[str, Any]) -> tuple[Any, ...]:
    """What a conflict record shows decided: (table, group, index, method, missing row's operation)."""
    reason = str(conflict.get("reason") or "")
    missing = "update" if "row to update is missing" in reason else "delete" if "to delete is missing" in reason \
        else None
    return conflict["table"], conflict["column_group"], conflict.get("index"), conflict["method"], missing


def targets(world: World) -> list[Target]:
    """Every method, backup and policy the model's conflicts configure where two sides can meet."""
    out: list[Target] = []
    for table_key in sorted(world.ctx.tables):
        if len(sides(world, table_key)) < 2:
            continue
        plan = world.plan(table_key)
        for group in plan.groups:
            for step, res in enumerate(group.chain):
                out.append(Target("update", table_key, group, step,
                                  signature=(table_key, group.name, None, res.method, None)))
        for index, policy in sorted(plan.unique_resolution.items()):
            if policy != "error":
                out.append(Target("unique", table_key, index=index, signature=(table_key, None, index, policy, None)))
        if plan.on_insert_exists not in ("error", "as_update"):
            out.append(Target("insert", table_key, signature=(table_key, None, None, plan.on_insert_exists, None)))
        if plan.on_update_missing != "error":
            out.append(Target("delete_update", table_key,
                              signature=(table_key, None, None, plan.on_update_missing, "update")))
        if plan.on_delete_missing != "error":
            out.append(Target("delete_delete", table_key,
                              signature=(table_key, None, None, plan.on_delete_missing, "delete")))
        out.append(Target("insert", table_key))
        out.append(Target("delete_update", table_key))
    return out


def scenario(world: World, target: Target, at: datetime) -> list[Transaction] | None:
    """The two transactions of a scenario on `target` at `at`, or None when no rows fit now."""
    pair = list(sides(world, target.table))
    world.rng.shuffle(pair)
    if target.kind in ("insert", "unique"):
        pair.sort(key=lambda s: s.mapping is None)  # a remote side first: its new row is the pattern
    elif target.kind == "delete_update" and target.signature:
        pair.sort(key=lambda s: s.mapping is not None)  # D deletes, the update reaches it: the row is missing
    try:
        if target.kind == "update":
            return _update(world, target, pair[0], pair[1], at)
        if target.kind == "insert":
            return _insert(world, target, pair[0], pair[1], at)
        if target.kind == "unique":
            return _unique(world, target, pair[0], pair[1], at)
        return _delete(world, target, pair[0], pair[1], at, both=target.kind == "delete_delete")
    except (ConversionError, UnsupportedSql, KeyError):
        return None


def _rows(world: World, target: Target, first: Side, second: Side, at: datetime) -> list[Row] | None:
    """One free row at each side that is the same row at D (found through the first remote side's key)."""
    anchor = first if first.mapping is not None else second
    other = second if anchor is first else first
    assert anchor.mapping is not None
    table = world.replica.table(anchor.table)
    if not table.rows:
        return None
    ids = list(table.rows)
    dest = world.plan(target.table)
    for _ in range(5):
        row = dict(table.rows[ids[world.rng.randrange(len(ids))]].values)
        key = replication_key(anchor.mapping, dest, row, SystemValues(dest.server, at, "", "U"))
        if key is None or any(k is None for k in key):
            continue
        found = world.replica.table(target.table).find(anchor.mapping.dkey or (), list(key))
        if len(found) != 1:
            continue
        local = dict(world.replica.table(target.table).rows[found[0]].values)
        if other.mapping is None:
            match: Row | None = local
        else:
            match = next((dict(r.values) for r in world.replica.table(other.table).rows.values()
                          if replication_key(other.mapping, dest, r.values) == key), None)
        if match is None:
            continue
        rows = [row, match] if anchor is first else [match, row]
        keys = [world.replica.key(s.table, r) for s, r in zip((first, second), rows, strict=True)]
        keys.append(world.replica.key(target.table, local))
        if all(world.replica.free(k, at) for k in keys):
            return rows
    return None


def _values(world: World, target: Target, first: Side, second: Side, at: datetime) -> list[Row] | None:
    """New values of D's group columns for each side, so that the chain's steps before `target.step` tie and
    that step decides; None when a designated column cannot be set from a side."""
    group = target.group
    if group is None:
        return None
    plan = world.plan(target.table)
    chain: tuple[Resolution, ...] = group.chain
    out: list[Row] = [{}, {}]
    for column in group.columns:
        if any(s.source_of(column) is None for s in (first, second)):
            continue
        a, b = world.value(target.table, column, at, 0), world.value(target.table, column, at, 0)
        for _ in range(4):
            if a != b:
                break
            b = world.value(target.table, column, at, 0)
        out[0][column], out[1][column] = a, b
    for step, res in enumerate(chain[: target.step + 1]):
        if res.column is None:
            continue
        if res.column not in out[0]:
            return None
        tie = step < target.step
        t = plan.types[res.column]
        if res.method == "priority_group" and res.priorities:
            ranked = sorted(res.priorities, key=lambda v: res.priorities[v] if res.priorities else 0)
            a = world.rng.choice(ranked)
            b = a if tie else next((v for v in ranked if res.priorities[v] != res.priorities[a]), None)
            if b is None:
                return None
        elif t.family.value == "datetime":
            base = (at - timedelta(seconds=world.rng.randrange(30, 600))).replace(microsecond=0)
            a, b = base, base if tie else base - timedelta(seconds=world.rng.randrange(60, 3600))
            a, b = world.values.fit(a, t), world.values.fit(b, t)
        else:
            a = world.value(target.table, res.column, at, 0)
            b = a if tie else world.value(target.table, res.column, at, 0)
            if not tie and a == b:
                return None
        out[0][res.column], out[1][res.column] = a, b
    return out if out[0] else None


def _set(world: World, side: Side, row: Row, values: Row) -> Row:
    """`row` of `side` with D's column values set through its mapping's copies, in the side's types."""
    plan = world.plan(side.table)
    after = dict(row)
    for column, value in values.items():
        source = side.source_of(column)
        if source is not None and source in plan.types:
            after[source] = world.values.fit(value, plan.types[source])
    return after


def _txn(world: World, side: Side, at: datetime, op: str, before: Row | None, after: Row | None) -> Transaction:
    site = world.plan(side.table).server
    txn = world.txn_id(site)
    return Transaction(site, txn, at, [world.record(site, txn, 1, at, side.table, op, before, after)])


def _update(world: World, target: Target, first: Side, second: Side, at: datetime) -> list[Transaction] | None:
    rows = _rows(world, target, first, second, at)
    values = _values(world, target, first, second, at)
    if rows is None or values is None:
        return None
    out = []
    for side, row, new in zip((first, second), rows, values, strict=True):
        after = _set(world, side, row, new)
        if after == row or world.taken(side.table, after, exclude=row):
            return None
        out.append(_txn(world, side, at, "U", row, after))
    return out


def _image(world: World, mapping: MappingPlan, row: Row, at: datetime, origin: str) -> Row:
    target = world.plan(mapping.target)
    mapped = map_image(mapping, target, row, SystemValues(origin, at, "", "I"))
    return {c: mapped[c] if c in mapped else default_value(target, c, at) for c in target.columns}


def _new_pair(world: World, target: Target, first: Side, second: Side, at: datetime) -> list[Row] | None:
    """A new row at the remote `first` side and, at `second`, a row that D sees with the same key."""
    if first.mapping is None:
        return None
    row = world.new_row(first.table, at)
    if row is None or world.taken(first.table, row):
        return None
    at_d = _image(world, first.mapping, row, at, world.plan(first.table).server)
    if second.mapping is None:
        return [row, at_d]
    copies = {c: at_d[c] for c in at_d if second.source_of(c) is not None}
    other = world.new_row(second.table, at)
    if other is None:
        return None
    other = _set(world, second, other, copies)
    dest = world.plan(target.table)
    if replication_key(second.mapping, dest, other) != replication_key(first.mapping, dest, row):
        return None
    return [row, other]


def _insert(world: World, target: Target, first: Side, second: Side, at: datetime) -> list[Transaction] | None:
    rows = _new_pair(world, target, first, second, at)
    if rows is None:
        return None
    group = target.group or next((g for g in world.plan(target.table).groups), None)
    values = _values(world, Target("update", target.table, group, target.step), first, second, at) \
        if group is not None else None
    if values is None:
        changed = updated(world, second.table, rows[1], at)
        rows[1] = changed
    else:
        rows = [_set(world, s, r, v) for s, r, v in zip((first, second), rows, values, strict=True)]
    if any(world.taken(s.table, r) for s, r in zip((first, second), rows, strict=True)):
        return None
    return [_txn(world, s, at, "I", None, r) for s, r in zip((first, second), rows, strict=True)]


def _unique(world: World, target: Target, first: Side, second: Side, at: datetime) -> list[Transaction] | None:
    """Two new rows, different keys, one unique index's values the same at D."""
    if first.mapping is None or target.index is None:
        return None
    columns = dict(world.plan(target.table).unique_sets).get(target.index)
    row = world.new_row(first.table, at)
    other = world.new_row(second.table, at)
    if columns is None or row is None or other is None:
        return None
    at_d = _image(world, first.mapping, row, at, world.plan(first.table).server)
    if any(at_d.get(c) is None or second.source_of(c) is None for c in columns):
        return None
    other = _set(world, second, other, {c: at_d[c] for c in columns})
    if world.taken(first.table, row) or world.taken(second.table, other):
        return None
    return [_txn(world, first, at, "I", None, row), _txn(world, second, at, "I", None, other)]


def _delete(world: World, target: Target, first: Side, second: Side, at: datetime,
            both: bool) -> list[Transaction] | None:
    rows = _rows(world, target, first, second, at)
    if rows is None:
        return None
    out = [_txn(world, first, at, "D", rows[0], None)]
    if both:
        out.append(_txn(world, second, at, "D", rows[1], None))
    else:
        after = updated(world, second.table, rows[1], at)
        if after == rows[1] or world.taken(second.table, after, exclude=rows[1]):
            return None
        out.append(_txn(world, second, at, "U", rows[1], after))
    return out
