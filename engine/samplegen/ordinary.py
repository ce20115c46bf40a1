"""Ordinary work: inserts, updates, deletes, key changes and multi-row transactions that never conflict.

A transaction is built on rows its site holds now (their true before images), then kept only if it is
clean (`Replica.clean`): no row it touches, here or where it is delivered, has a change in flight or was
used by a conflict scenario, and every delivery would apply with no conflict. So a row is changed again
only once its previous change reached every site.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.run.semantics.reference import Transaction
from engine.samplegen.world import OPAQUE, World

Row = dict[str, Any]
UPDATED = ("UPDATED", "MODIFIED", "CHANGED", "LAST_UPD", "_TS")


def writers(world: World) -> list[str]:
    """Tables whose site writes them: those some mapping reads."""
    return [t for t in sorted(world.ctx.tables) if world.ctx.reading(t)]


def pick_row(world: World, table_key: str, at: datetime, avoid: set[Any]) -> Row | None:
    """A row of the table that is free at `at` (a few random tries)."""
    table = world.replica.table(table_key)
    if not table.rows:
        return None
    ids = list(table.rows)
    for _ in range(6):
        row = table.rows[ids[world.rng.randrange(len(ids))]].values
        key = world.replica.key(table_key, row)
        if key not in avoid and world.replica.free(key, at):
            return dict(row)
    return None


def changeable(world: World, table_key: str) -> list[str]:
    plan = world.plan(table_key)
    return [c for c in plan.columns if c not in plan.identity and plan.types[c].family not in OPAQUE]


def updated(world: World, table_key: str, before: Row, at: datetime, columns: list[str] | None = None) -> Row:
    """`before` with a few columns given new values (fresh ones in unique sets); a column named like a
    change time takes the commit time."""
    plan = world.plan(table_key)
    pool = changeable(world, table_key)
    if not pool:
        return dict(before)
    chosen = columns or world.rng.sample(pool, min(len(pool), world.rng.choice((1, 1, 2, 3))))
    after = dict(before)
    unique = {c for cols in world.unique_sets(table_key) for c in cols}
    for column in chosen:
        for _ in range(3):
            value = world.fresh(table_key, column, at) if column in unique else world.value(table_key, column, at)
            if value != before.get(column):
                after[column] = value
                break
    for column in plan.columns:
        t = plan.types[column]
        if t.family.value == "datetime" and t.name != "DATE" and any(w in column.upper() for w in UPDATED):
            after[column] = at
    return after


def ordinary_txn(world: World, at: datetime, site_tables: list[str]) -> Transaction | None:
    """One clean transaction at `at` on the tables of one site (1 to 4 operations), or None."""
    rng = world.rng
    table_key = rng.choice(site_tables)
    site = world.plan(table_key).server
    same_site = [t for t in site_tables if world.plan(t).server == site]
    size = 1 if rng.random() < 0.8 else rng.randrange(2, 5)
    txn = world.txn_id(site)
    records = []
    used: set[Any] = set()
    for seq in range(1, size + 1):
        table_key = table_key if seq == 1 else rng.choice(same_site)
        op = rng.choices("IUDK", (25, 60, 12, 3))[0]
        before = None if op == "I" else pick_row(world, table_key, at, used)
        if op != "I" and before is None:
            op, before = "I", None
        if op == "I":
            after = world.new_row(table_key, at)
            if after is None or world.taken(table_key, after):
                continue
        elif op == "D":
            after = None
        elif op == "K":
            after = rekeyed(world, table_key, before or {}, at)
            if after is None:
                continue
            op = "U"
        else:
            after = updated(world, table_key, before or {}, at)
            if world.taken(table_key, after, exclude=before):
                continue
        for image in (before, after):
            if image is not None:
                used.add(world.replica.key(table_key, image))
        records.append(world.record(site, txn, seq, at, table_key, "D" if op == "D" else op, before, after))
    if not records:
        world.counters[site] -= 1
        return None
    return Transaction(site, txn, at, records)


def rekeyed(world: World, table_key: str, before: Row, at: datetime) -> Row | None:
    """`before` moved to a fresh key (a key change), or None when the table's key cannot take one."""
    plan = world.plan(table_key)
    if len(plan.identity) == len(plan.columns):
        return None
    column = world.serial_column(table_key, plan.identity)
    value = world.fresh(table_key, column, at)
    if value is None:
        return None
    after = {**before, column: value}
    return None if world.taken(table_key, after, exclude=before) else after
