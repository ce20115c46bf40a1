"""The state every part of the general generator shares: the model's plans, the random source, the value
maker, the replica, the schedule, the schema versions, and the change records written so far."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.core.types import SqlType, TypeFamily
from engine.core.values import ConversionError, conform, to_text
from engine.model.schema import Model
from engine.run.input.records import ChangeRecord, versions_of
from engine.run.input.schedule import Schedule, parse_schedule
from engine.run.semantics.context import RunContext, TablePlan, build_context, default_value
from engine.run.semantics.fold import row_sort_key
from engine.run.semantics.reference import Transaction
from engine.samplegen.options import SampleOptions
from engine.samplegen.replica import Replica
from engine.samplegen.shapes import SplitShape, split_shapes, where_literals
from engine.samplegen.values import DAY, ValueMaker

Row = dict[str, Any]
SNAPSHOT_AT = DAY.replace(hour=6)
OPEN, CLOSE = DAY.replace(hour=8), DAY.replace(hour=18)
OPAQUE = (TypeFamily.UDT, TypeFamily.COMPLEX)


@dataclass
class Written:
    """A transaction as written: its records (typed as the run decodes them) and where it commits."""

    txn: Transaction
    scenario: bool = False


@dataclass
class Broken:
    """A malformed line, written among its site's records at `at`."""

    site: str
    at: datetime
    text: str


@dataclass
class World:
    model: Model
    options: SampleOptions
    ctx: RunContext = field(init=False)
    rng: random.Random = field(init=False)
    values: ValueMaker = field(init=False)
    schedule_doc: dict[str, Any] = field(init=False)
    schedule: Schedule = field(init=False)
    replica: Replica = field(init=False)
    written: list[Written] = field(default_factory=list)
    broken: list[Broken] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    close: datetime = CLOSE
    shapes: dict[tuple[str, str], SplitShape] = field(init=False)
    literals: dict[str, list[str]] = field(init=False)
    _nullable: dict[tuple[str, str], bool] = field(default_factory=dict)
    _versions: dict[str, tuple[list[int], dict[int | None, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ctx = build_context(self.model)
        self.rng = random.Random(self.options.seed)
        self.values = ValueMaker(self.options.seed, self.rng, priority_choices(self.model))
        self.schedule_doc = schedule_doc(self.model, self.ctx, self.rng, self.options)
        self.schedule = parse_schedule(self.schedule_doc)
        self.replica = Replica(self.ctx, self.schedule)
        self.shapes = split_shapes(self.ctx)
        self.literals = where_literals(self.ctx)

    # --- rows -----------------------------------------------------------------------------------------

    def plan(self, table_key: str) -> TablePlan:
        return self.ctx.tables[table_key]

    def unique_sets(self, table_key: str) -> list[tuple[str, ...]]:
        plan = self.plan(table_key)
        sets = [cols for _, cols in plan.unique_sets]
        if plan.identity not in sets and len(plan.identity) < len(plan.columns):
            sets.insert(0, plan.identity)
        return sets

    def serial_column(self, table_key: str, columns: Sequence[str]) -> str:
        """The column of a key or unique set that takes a fresh value: an integer, else text, else any."""
        types = self.plan(table_key).types

        def rank(c: str) -> int:
            t = types[c]
            return 0 if t.family is TypeFamily.EXACT_NUMERIC and t.scale in (None, 0) else \
                1 if t.family is TypeFamily.CHARACTER and (t.length or 99) >= 4 else 2
        return min(columns, key=lambda c: (rank(c), -(types[c].length or 0), list(columns).index(c)))

    def value(self, table_key: str, column: str, at: datetime, nullable_share: float = 0.05) -> Any:
        """A realistic value for `column` (its default now and then, NULL now and then where allowed)."""
        plan = self.plan(table_key)
        nullable = self.nullable(table_key, column)
        t = plan.types[column]
        if column in plan.defaults and self.rng.random() < 0.3:
            try:
                default = default_value(plan, column, at)
            except Exception:  # noqa: BLE001 - a default the run cannot evaluate: make a value instead
                default = None
            if default is not None:
                return default
        if t.family in OPAQUE:
            return None if nullable else {}
        if nullable and self.rng.random() < nullable_share:
            return None
        shape = self.shapes.get((table_key, column))
        if shape is not None and t.family is TypeFamily.CHARACTER:
            parts = [to_text(self.values.value(name, pt, at) if pt is not None else self.values.value(name, t, at))
                     for name, pt in shape.parts]
            return self.values.fit(shape.sep.join(p or "" for p in parts), t)
        hints = self.literals.get(column.upper())
        if hints and t.family is TypeFamily.CHARACTER and self.rng.random() < 0.25:
            return self.values.fit(self.rng.choice(hints), t)
        return self.values.value(column, t, at)

    def nullable(self, table_key: str, column: str) -> bool:
        known = self._nullable.get((table_key, column))
        if known is None:
            model_table = self.model.table(table_key)
            definition = model_table.column(column) if model_table else None
            known = self._nullable[(table_key, column)] = definition is None or definition.nullable
        return known

    def fresh(self, table_key: str, column: str, at: datetime) -> Any:
        return self.values.fresh(column, self.plan(table_key).types[column], at)

    def new_row(self, table_key: str, at: datetime) -> Row | None:
        """A new row of the table: realistic values, a fresh key and fresh unique values (None when a key
        column's type has no fresh value left)."""
        plan = self.plan(table_key)
        row = {c: self.value(table_key, c, at) for c in plan.columns}
        for columns in self.unique_sets(table_key):
            serial = self.serial_column(table_key, columns)
            row[serial] = self.fresh(table_key, serial, at)
            if row[serial] is None:
                return None
            for c in columns:
                if row[c] is None and c in plan.identity:
                    row[c] = self.values.value(c, plan.types[c], at)
        if any(row[c] is None for c in plan.identity if self.model_not_null_key(table_key)):
            return None
        return row

    def model_not_null_key(self, table_key: str) -> bool:
        table = self.model.table(table_key)
        return bool(table and (table.primary_key or table.unique_indexes))

    def taken(self, table_key: str, row: Row, exclude: Row | None = None) -> bool:
        """True when a unique set of `row` (no NULL in it) is held by another row of the table."""
        table = self.replica.table(table_key)
        for columns in self.unique_sets(table_key):
            values = [row.get(c) for c in columns]
            if any(v is None for v in values):
                continue
            if exclude is not None and all(exclude.get(c) == v for c, v in zip(columns, values, strict=True)):
                continue
            if table.find(columns, values):
                return True
        return False

    # --- records --------------------------------------------------------------------------------------

    def txn_id(self, site: str) -> str:
        self.counters[site] = self.counters.get(site, 0) + 1
        return f"{site}-{self.counters[site]:05d}"

    def version(self, table_key: str, at: datetime) -> tuple[int | None, dict[str, SqlType | None]]:
        """The replication definition a record of `table_key` at `at` carries: with several, the day is cut
        in equal parts, older versions earlier (Debezium events carry no version: always the latest)."""
        cached = self._versions.get(table_key)
        if cached is None:
            table = self.model.table(table_key)
            assert table is not None
            versions = versions_of(table)
            cached = self._versions[table_key] = (sorted(v for v in versions if v is not None), versions)
        numbers, versions = cached
        if not numbers:
            return None, dict(versions[None].types)
        if self.options.debezium or len(numbers) == 1:
            number = numbers[-1]
        else:
            part = (at - OPEN) / max(self.close - OPEN, timedelta(seconds=1))
            number = numbers[min(len(numbers) - 1, max(0, int(part * len(numbers))))]
        return number, dict(versions[number].types)

    def record(self, site: str, txn: str, seq: int, at: datetime, table_key: str, op: str,
               before: Row | None, after: Row | None) -> ChangeRecord:
        """A change record as the run decodes it: images in its version's columns and types (a value the
        version's type cannot hold falls back to the latest version)."""
        number, types = self.version(table_key, at)
        current = self.plan(table_key).types
        try:
            images = [None if image is None else {c: image.get(c) if t == current.get(c) else conform(image.get(c), t)
                                                  for c, t in types.items()}
                      for image in (before, after)]
        except ConversionError:
            number, types = None, {c: self.plan(table_key).types[c] for c in self.plan(table_key).columns}
            table = self.model.table(table_key)
            latest = table.latest_definition() if table else None
            number = latest.version if latest else None
            images = [None if image is None else {c: image.get(c) for c in types} for image in (before, after)]
        return ChangeRecord("", 0, site, txn, seq, at, table_key, op, images[0], images[1], number, tuple(types))


def priority_choices(model: Model) -> dict[str, list[str]]:
    """Text values a column should take so that priority_group can decide: its priorities, by column name."""
    out: dict[str, list[str]] = {}
    for entry in model.conflicts:
        for group in entry.column_groups:
            for step in group.resolution:
                if step.method == "priority_group" and step.column and step.priorities:
                    out.setdefault(step.column, [])
                    out[step.column] += [v for v in step.priorities if v not in out[step.column]]
    return out


def schedule_doc(model: Model, ctx: RunContext, rng: random.Random, options: SampleOptions) -> dict[str, Any]:
    """Delays (2 s to a minute) on every link a mapping uses, both ways where mappings go both ways, and the
    outage windows of `options` on every link from and to their site."""
    pairs = sorted({(ctx.tables[m.source].server, ctx.tables[m.target].server) for m in ctx.mappings.values()}
                   | {(o.site, s.id) for o in options.outages for s in model.servers if s.id != o.site}
                   | {(s.id, o.site) for o in options.outages for s in model.servers if s.id != o.site})
    links = []
    for origin, destination in pairs:
        if origin == destination:
            continue
        link: dict[str, Any] = {"from": origin, "to": destination, "delay_s": rng.randrange(2, 61)}
        down = [[_stamp(o.start), _stamp(o.end)] for o in options.outages if o.site in (origin, destination)]
        if down:
            link["down"] = sorted(down)
        links.append(link)
    return {"links": links}


def _stamp(moment: Any) -> str:
    return datetime.combine(DAY.date(), moment, tzinfo=UTC).isoformat().replace("+00:00", "Z")


def safe_name(name: str) -> bool:
    """Whether `name` (a server, a table, a site) can name a file or folder of the sample as it is."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\0" not in name


def ordered(world: World, table_key: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`rows` of `table_key` in the order the sample's files list them: by the table's identity."""
    identity = world.plan(table_key).identity
    return sorted(rows, key=lambda r: row_sort_key(r, identity))
