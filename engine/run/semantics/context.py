"""What a run needs to know of the model, precomputed once: table plans and mapping plans.

A `RunContext` is built from a `Model` and holds only plain, immutable data,
so it can be built again on a Spark executor from the model JSON and handed
to the same pure functions there.
"""

from __future__ import annotations

from collections.abc import Mapping as MappingT
from dataclasses import dataclass, field
from typing import Any

from engine.core.types import SqlType, TypeFamily
from engine.core.values import ConversionError, conform
from engine.keys import distribution_key
from engine.model.methods import Method
from engine.model.schema import Model, Resolution, Table, TableConflicts
from engine.run.input.keys import identity_columns
from engine.run.semantics.replica import unknown_old_columns
from engine.sql import evaluate as sql_evaluate  # the module: engine.sql.evaluate imports engine.core.values
from engine.sql.errors import UnsupportedSql
from engine.sqldefaults import run_default


class RunModelError(ValueError):
    """A model the run cannot execute (an unknown table, a mapping with no distribution key...)."""


@dataclass(frozen=True)
class GroupPlan:
    """A column group and its resolution chain; the shadow group has name None and no chain."""

    name: str | None
    columns: tuple[str, ...]
    chain: tuple[Resolution, ...] = ()


@dataclass(frozen=True)
class TablePlan:
    """A table with its conflict policies (the defaults when the model gives none)."""

    key: str
    server: str
    columns: tuple[str, ...]
    types: MappingT[str, SqlType]
    defaults: MappingT[str, Any]
    identity: tuple[str, ...]
    unique_sets: tuple[tuple[str, tuple[str, ...]], ...]
    groups: tuple[GroupPlan, ...]
    shadow: GroupPlan
    compare_old_off: frozenset[str] = frozenset()
    unique_resolution: MappingT[str, str] = field(default_factory=dict)
    on_insert_exists: str = "error"
    on_update_missing: str = "error"
    on_delete_missing: str = "error"
    scope: str = "row"

    def all_groups(self) -> tuple[GroupPlan, ...]:
        return (*self.groups, self.shadow)

    def character_length(self, column: str) -> int | None:
        t = self.types.get(column)
        return t.length if t is not None and t.family is TypeFamily.CHARACTER else None


@dataclass(frozen=True)
class MappingPlan:
    """A mapping: its source and target plans, column methods and distribution key."""

    id: str
    source: str
    target: str
    columns: MappingT[str, Method]
    dkey: tuple[str, ...] | None
    where: str | None
    journal: bool
    source_types: MappingT[str, SqlType] = field(default_factory=dict)  # what its SQL reads, typed
    unknown_old: frozenset[str] = frozenset()  # target columns whose old value its origin does not capture


@dataclass(frozen=True)
class RunContext:
    """Tables, mappings and server priorities of one model."""

    tables: MappingT[str, TablePlan]
    mappings: MappingT[str, MappingPlan]
    priorities: MappingT[str, float | None]

    def reading(self, table_key: str) -> list[MappingPlan]:
        """The mappings whose source is `table_key`, by id."""
        return sorted((m for m in self.mappings.values() if m.source == table_key), key=lambda m: m.id)

    def into(self, table_key: str) -> list[MappingPlan]:
        """The mappings whose target is `table_key`, by id."""
        return sorted((m for m in self.mappings.values() if m.target == table_key), key=lambda m: m.id)


def build_context(model: Model) -> RunContext:
    """Plans for every table and mapping; raises `RunModelError` for what a run cannot execute."""
    dbms = {s.id: s.dbms for s in model.servers}
    tables = {t.key: table_plan(t, model.conflicts_for(t.key), dbms.get(t.server, "other")) for t in model.tables}
    mappings: dict[str, MappingPlan] = {}
    for m in model.mappings:
        for end in (m.source, m.target):
            if end not in tables:
                raise RunModelError(f"mapping {m.id}: unknown table {end} (MP002)")
        key = None if m.journal else distribution_key(model, m)  # a journal appends every change
        if key is None and not m.journal:
            raise RunModelError(f"mapping {m.id} has no distribution key (DK001)")
        target = tables[m.target]
        for column in m.columns:
            if column not in target.types:
                raise RunModelError(f"mapping {m.id}: target {m.target} has no column {column!r}")
        if key is not None:
            for column in key.columns:
                if column not in m.columns:
                    raise RunModelError(f"mapping {m.id}: distribution key column {column!r} is not mapped")
        source = model.table(m.source)
        assert source is not None  # checked above
        mappings[m.id] = MappingPlan(m.id, m.source, m.target, dict(m.columns), key.columns if key else None,
                                     m.where, m.journal, tables[m.source].types,
                                     unknown_old_columns(model, source, m.columns))
    priorities = {s.id: s.priority for s in model.servers}
    return RunContext(tables, mappings, priorities)


def table_plan(table: Table, conflicts: TableConflicts | None, dbms: str = "other") -> TablePlan:
    """A table's plan; with no conflicts entry, the default policies and every column in the shadow group.
    Its column defaults are read in the SQL of its server's `dbms` (`sqldefaults.run_default`)."""
    names = tuple(table.column_names())
    entry = conflicts or TableConflicts(table=table.key)
    groups = tuple(GroupPlan(g.name, tuple(c for c in g.columns if c in names), tuple(g.resolution))
                   for g in entry.column_groups)
    grouped = {c for g in groups for c in g.columns}
    shadow = GroupPlan(None, tuple(c for c in names if c not in grouped))
    unique_sets: list[tuple[str, tuple[str, ...]]] = []
    if table.primary_key:
        unique_sets.append(("PRIMARY KEY", tuple(table.primary_key)))
    unique_sets += [(ux.name, tuple(ux.columns)) for ux in table.unique_indexes]
    return TablePlan(
        key=table.key, server=table.server, columns=names,
        types={c.name: c.sql_type for c in table.columns},
        defaults={c.name: run_default(c.default, dbms) for c in table.columns if c.default is not None},
        identity=identity_columns(table), unique_sets=tuple(unique_sets), groups=groups, shadow=shadow,
        compare_old_off=frozenset(c for c, on in entry.compare_old.items() if not on),
        unique_resolution={u.index: u.resolution for u in entry.unique},
        on_insert_exists=entry.on_insert_exists, on_update_missing=entry.on_update_missing,
        on_delete_missing=entry.on_delete_missing, scope=entry.scope,
    )


def default_value(plan: TablePlan, column: str, now: Any) -> Any:
    """The value an insert gives a column it does not carry: its default (a SQL literal or the current
    date or time, evaluated at `now`) as its column's type holds it (`values.conform`: `CURRENT_DATE` in a
    TIMESTAMP column is that day at midnight, `CURRENT_TIMESTAMP` in a character column the text a cast
    gives, `2026-01-05 10:00:00`), else NULL. The Spark fold writes the same (`resolve_check.default_value_sql`).
    A default the evaluator cannot run is kept as written; one whose value does not fit the column is
    refused by TB003 (`sqldefaults.default_problem`) and raises `RunModelError` here."""
    raw = plan.defaults.get(column)
    value = raw
    if isinstance(raw, str):
        try:
            value = sql_evaluate.evaluate_sql(raw, {}, now)
        except UnsupportedSql:
            value = raw
    try:
        return conform(value, plan.types.get(column))
    except ConversionError as exc:
        raise RunModelError(f"table {plan.key}: the default of {column} does not fit its type (TB003): {exc}") from None
