"""The snapshot: every table at every site, consistent through the model's mappings.

Root tables make their own rows: every table a mapping reads (its site writes it) and every table no
mapping feeds; a table reachable from the `initial` rows of a live database makes none. Each new row is
carried at once through every mapping path from its table (the run's `map_image`, so `concat`, `cast`,
`expression`... give exactly what a run gives; `where` decides where it goes), each table reached once: the
sites start consistent. A row whose images do not fit (a value too long for a target column, a key taken)
is dropped with its images.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.core.values import ConversionError, conform
from engine.run.semantics.context import RunModelError, default_value
from engine.run.semantics.methods import SystemValues, map_image, where_holds
from engine.samplegen.world import SNAPSHOT_AT, World
from engine.sql.errors import UnsupportedSql

Row = dict[str, Any]
Progress = Callable[[int, int], None]


def reach(world: World, table_key: str) -> set[str]:
    """The tables a row of `table_key` reaches through mappings, itself included."""
    seen, frontier = {table_key}, [table_key]
    while frontier:
        for mapping in world.ctx.reading(frontier.pop()):
            if mapping.target not in seen:
                seen.add(mapping.target)
                frontier.append(mapping.target)
    return seen


def roots(world: World, initial: Mapping[str, list[Row]]) -> dict[str, int]:
    """Tables that make their own rows, and how many: about `rows` per table in all, shared among the roots
    whose rows meet in one table."""
    ctx = world.ctx
    given = {t for t in initial if t in ctx.tables}
    fed_from_given = set().union(*(reach(world, t) for t in given)) if given else set()
    made = [t for t in sorted(ctx.tables) if t not in fed_from_given
            and (ctx.reading(t) or not ctx.into(t))]
    reaches = {t: reach(world, t) for t in made}
    sources = {t: sum(1 for r in made if t in reaches[r]) + (1 if t in fed_from_given else 0) for t in ctx.tables}
    rows = world.options.rows
    return {t: (rows // max(sources[x] for x in reaches[t]) if rows else 0) or (1 if rows else 0) for t in made}


def build_snapshot(world: World, initial: Mapping[str, list[Row]], progress: Progress) -> dict[str, list[Row]]:
    """Fill the replica with the snapshot; returns the rows by table, in the order made."""
    out: dict[str, list[Row]] = {key: [] for key in world.ctx.tables}
    counts = roots(world, initial)
    total, done = sum(counts.values()) + sum(len(v) for v in initial.values()), 0
    for table_key in sorted(initial):
        if table_key not in world.ctx.tables:
            continue
        plan = world.plan(table_key)
        for raw in initial[table_key]:
            try:
                row = {c: conform(raw.get(c), plan.types[c]) for c in plan.columns}
            except ConversionError:
                continue
            carry(world, table_key, row, out)
            done += 1
            if done % 200 == 0:
                progress(done, total)
    for table_key, count in counts.items():
        misses = 0
        made = 0
        while made < count and misses < 20 + count:
            made_row = world.new_row(table_key, SNAPSHOT_AT)
            if made_row is not None and carry(world, table_key, made_row, out):
                made += 1
            else:
                misses += 1
            done += 1
            if done % 200 == 0:
                progress(done, total)
    return out


def carry(world: World, table_key: str, row: Row, out: dict[str, list[Row]]) -> bool:
    """Put `row` and its images along every mapping path in the replica (and `out`); False, and nothing
    put, when an image does not fit or a key or unique value is taken."""
    placed: list[tuple[str, Row]] = [(table_key, row)]
    frontier = [(table_key, row)]
    visited = {table_key}
    try:
        while frontier:
            source, image = frontier.pop(0)
            server = world.plan(source).server
            for mapping in world.ctx.reading(source):
                if mapping.target in visited or not where_holds(mapping, image, SNAPSHOT_AT):
                    continue
                target = world.plan(mapping.target)
                mapped = map_image(mapping, target, image, SystemValues(server, SNAPSHOT_AT, "", "I"))
                full = {c: mapped[c] if c in mapped else default_value(target, c, SNAPSHOT_AT) for c in target.columns}
                visited.add(mapping.target)
                placed.append((mapping.target, full))
                frontier.append((mapping.target, full))
        if not close_loops(world, placed):
            return False
        reached = {key for key, _ in placed}
        if any(world.ctx.into(key) and not any(m.source in reached for m in world.ctx.into(key)) for key in reached):
            return False  # a row that mappings into its table would not have put there
    except (ConversionError, UnsupportedSql, RunModelError):
        return False
    for key, image in placed:
        plan = world.plan(key)
        if world.model_not_null_key(key) and any(image[c] is None for c in plan.identity):
            return False
        if world.taken(key, image):
            return False
    for key, image in placed:
        world.replica.put_snapshot(key, image)
        out[key].append(image)
    return True


def close_loops(world: World, placed: list[tuple[str, Row]]) -> bool:
    """Make the placed rows agree along the mappings the carrying did not follow (a lossy mapping back to a
    table already reached: `branch -> hq` leaves out STATUS, so branch takes hq's): each mapping between
    two placed tables then maps its source row onto its target row. False when they cannot agree (a key
    would change, a `where` would not hold, no agreement in a few passes)."""
    rows = dict(placed)
    servers = {key: world.plan(key).server for key in rows}
    for _ in range(4):
        changed = False
        for source, image in list(rows.items()):
            for mapping in world.ctx.reading(source):
                target = rows.get(mapping.target)
                if target is None:
                    continue
                if not where_holds(mapping, image, SNAPSHOT_AT):
                    return False
                mapped = map_image(mapping, world.plan(mapping.target), image,
                                   SystemValues(servers[source], SNAPSHOT_AT, "", "I"))
                if all(target.get(c) == v for c, v in mapped.items()):
                    continue
                identity = world.plan(mapping.target).identity
                if any(c in mapped and mapped[c] != target.get(c) for c in identity):
                    return False
                target.update(mapped)
                changed = True
        if not changed:
            placed[:] = [(key, rows[key]) for key, _ in placed]
            return True
    return False
