"""CR: conflict resolution (seed 003): CR001-CR010 (declared in `catalog.cr`).

CR001-CR008 and CR010 read one table's conflict settings (`check_conflicts`); CR009 reads the model's table
hierarchies. A column or index that CR010 reports is left out of the other rules, so one typo gives one
finding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from engine.core.types import TypeFamily
from engine.model.schema import (
    DESIGNATED_COLUMN_METHODS,
    TIMESTAMP_METHODS,
    ColumnGroup,
    Model,
    Table,
    TableConflicts,
)
from engine.rules.context import Context
from engine.rules.findings import Finding, Location
from engine.rules.hierarchy import Hierarchies
from engine.rules.registry import emits

NEEDS_BACKUP = ("latest_timestamp", "earliest_timestamp", "minimum", "maximum")
NOT_CONVERGENT = ("overwrite", "discard", "average", "earliest_timestamp", "site_priority")
SUBSET_SAFE = ("discard", "site_priority")
APPEND_METHODS = ("append_site_name", "append_sequence")


@emits("CR010")
def check_conflicts(ctx: Context, entry: TableConflicts) -> list[Finding]:
    table = ctx.model.table(entry.table)
    if table is None:
        return [Finding("CR010", f"conflict settings name table {entry.table!r}, which is not in the model",
                        Location(table=entry.table))]
    findings = list(unknown_names(table, entry))
    # a group whose every column is unknown is left to CR010 alone: one typo, one finding
    groups = [k for g in entry.column_groups if (k := _known_part(table, g)).columns or not g.columns]
    for rule in (overlapping_groups, arithmetic_groups, designated_columns, missing_backups):
        for group in groups:
            findings.extend(rule(table, group, groups))
    findings.extend(append_on_character(table, entry))
    findings.extend(convergence(ctx, table, groups))
    findings.extend(site_priorities(ctx, table, groups))
    findings.extend(column_subsetting(ctx, table, groups))
    return findings


def _at(table: Table, group: str | None = None, column: str | None = None, **extra: str) -> Location:
    return Location(table=table.key, group=group, column=column, **extra)


def _known_part(table: Table, group: ColumnGroup) -> ColumnGroup:
    """The group without the columns CR010 reports."""
    known = [c for c in group.columns if table.column(c) is not None]
    return group if known == group.columns else group.model_copy(update={"columns": known})


@emits("CR010")
def unknown_names(table: Table, entry: TableConflicts) -> Iterator[Finding]:
    """CR010."""
    def missing(column: str, where: str, group: str | None = None) -> Finding:
        return Finding("CR010", f"{where} names column {column!r}, which {table.key} does not have",
                       _at(table, group, column))
    for group in entry.column_groups:
        for column in group.columns:
            if table.column(column) is None:
                yield missing(column, f"column group {group.name}", group.name)
        for step in group.resolution:
            if step.column is not None and table.column(step.column) is None:
                yield missing(step.column, f"{step.method} in group {group.name}", group.name)
    for column in entry.compare_old:
        if table.column(column) is None:
            yield missing(column, "compare_old")
    indexes = {ux.name for ux in table.unique_indexes}
    for unique in entry.unique:
        if unique.index not in indexes:
            yield Finding("CR010", f"unique resolution names index {unique.index!r}, which {table.key} does not have",
                          _at(table, index=unique.index))


@emits("CR001")
def overlapping_groups(table: Table, group: ColumnGroup, groups: list[ColumnGroup]) -> Iterator[Finding]:
    """CR001, reported once per column, on the later group."""
    earlier = groups[: next(i for i, g in enumerate(groups) if g is group)]
    taken = Counter(c for g in earlier for c in set(g.columns))
    for column in dict.fromkeys(group.columns):
        if taken[column]:
            owner = next(g.name for g in earlier if column in g.columns)
            yield Finding("CR001", f"{column} is in column groups {owner} and {group.name}; a column belongs to one",
                          _at(table, group.name, column))


@emits("CR002")
def arithmetic_groups(table: Table, group: ColumnGroup, groups: list[ColumnGroup]) -> Iterator[Finding]:
    """CR002: additive and average need a group of exactly one numeric column."""
    for step in group.resolution:
        if step.method not in ("additive", "average"):
            continue
        cols = [table.column(c) for c in dict.fromkeys(group.columns)]  # a column named twice is one column
        if len(cols) != 1 or cols[0] is None or not cols[0].sql_type.is_numeric:
            shape = ", ".join(f"{c.name} {c.sql_type}" for c in cols if c) or "no columns"
            yield Finding("CR002", f"{step.method} needs a group of exactly one numeric column; "
                          f"{group.name} has {shape}", _at(table, group.name))


@emits("CR004")
def designated_columns(table: Table, group: ColumnGroup, groups: list[ColumnGroup]) -> Iterator[Finding]:
    """CR004."""
    for step in group.resolution:
        if step.method not in DESIGNATED_COLUMN_METHODS:
            continue
        if step.column is None:
            yield Finding("CR004", f"{step.method} in group {group.name} needs a designated column",
                          _at(table, group.name))
            continue
        col = table.column(step.column)
        if col is None:
            continue  # CR010
        if step.column not in group.columns:
            yield Finding("CR004", f"{step.method} compares {step.column}, which is not in group {group.name}",
                          _at(table, group.name, step.column))
        elif step.method in TIMESTAMP_METHODS and col.sql_type.family is not TypeFamily.DATETIME:
            yield Finding("CR004", f"{step.method} needs a date or timestamp column; {step.column} is "
                          f"{col.sql_type}", _at(table, group.name, step.column))
        elif step.method == "priority_group" and not step.priorities:
            yield Finding("CR004", f"priority_group on {step.column} needs a map of values to priorities",
                          _at(table, group.name, step.column))


@emits("CR005")
def missing_backups(table: Table, group: ColumnGroup, groups: list[ColumnGroup]) -> Iterator[Finding]:
    """CR005: a method that can tie should not end the chain."""
    if group.resolution and group.resolution[-1].method in NEEDS_BACKUP:
        last = group.resolution[-1].method
        yield Finding("CR005", f"{last} ends the chain of {group.name}: a tie will go to the error queue; "
                      "add a backup such as site_priority", _at(table, group.name))


@emits("CR003")
def append_on_character(table: Table, entry: TableConflicts) -> Iterator[Finding]:
    """CR003: append_site_name and append_sequence work on character columns only."""
    indexes = {ux.name: ux for ux in table.unique_indexes}
    for unique in entry.unique:
        ux = indexes.get(unique.index)
        if ux is None or unique.resolution not in APPEND_METHODS:
            continue
        bad = [c for c in ux.columns if (col := table.column(c)) is not None
               and col.sql_type.family is not TypeFamily.CHARACTER]
        if bad:
            yield Finding("CR003", f"{unique.resolution} on {ux.name} needs character columns; "
                          f"{', '.join(bad)} is not", _at(table, index=ux.name))


@emits("CR006")
def convergence(ctx: Context, table: Table, groups: list[ColumnGroup]) -> Iterator[Finding]:
    """CR006: methods that cannot converge when more than one master writes the table."""
    masters = ctx.graph.masters(table.key)
    if len(masters) < 2:
        return
    for group in groups:
        after_latest = False
        for step in group.resolution:
            if step.method in NOT_CONVERGENT and not after_latest:
                yield Finding("CR006", f"{step.method} in {group.name} cannot guarantee convergence with "
                              f"{len(masters)} masters ({', '.join(sorted(masters))})", _at(table, group.name))
            after_latest = after_latest or step.method == "latest_timestamp"


@emits("CR007")
def site_priorities(ctx: Context, table: Table, groups: list[ColumnGroup]) -> Iterator[Finding]:
    """CR007: site priority needs a priority on every server that writes the table."""
    if not any(step.method == "site_priority" for g in groups for step in g.resolution):
        return
    for server_id in sorted(ctx.graph.writers(table.key)):
        server = ctx.model.server(server_id)
        if server is not None and server.priority is None:
            yield Finding("CR007", f"site_priority is used on {table.key}, but server {server_id}, which writes "
                          "to it, has no priority", _at(table))


@emits("CR008")
def column_subsetting(ctx: Context, table: Table, groups: list[ColumnGroup]) -> Iterator[Finding]:
    """CR008: a mapping that carries part of a group breaks every method but discard and site priority."""
    for mapping_id in ctx.graph.mappings_writing(table.key):
        mapping = ctx.model.mapping(mapping_id)
        if mapping is None or ctx.model.table(mapping.source) is None:
            continue  # an unknown source is MP002, and that mapping gets no other finding
        for group in groups:
            carried = [c for c in group.columns if c in mapping.columns]
            if not carried or len(carried) == len(group.columns):
                continue
            unsafe = [s.method for s in group.resolution if s.method not in SUBSET_SAFE]
            if unsafe:
                left = [c for c in group.columns if c not in mapping.columns]
                yield Finding("CR008", f"{mapping_id} carries {', '.join(carried)} but not {', '.join(left)} of "
                              f"{group.name}, whose {unsafe[0]} needs the whole group",
                              _at(table, group.name, mapping=mapping_id))


@emits("CR009")
def uneven_hierarchies(model: Model, walk: Hierarchies) -> Iterator[Finding]:
    """CR009: the tables of one hierarchy all have conflict settings, or none has."""
    families: dict[str, list[str]] = {}
    for key, root in walk.roots.items():
        families.setdefault(root, []).append(key)
    with_cr = {c.table for c in model.conflicts}
    for root, members in sorted(families.items()):
        if len(members) < 2:
            continue
        have = sorted(m for m in members if m in with_cr)
        lack = sorted(m for m in members if m not in with_cr)
        if have and lack:
            yield Finding("CR009", f"hierarchy under {root} must resolve conflicts on every table or none: "
                          f"{', '.join(have)} do, {', '.join(lack)} do not", Location(table=root))
