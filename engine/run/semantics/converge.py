"""Convergence after the last delivery (docs/contract.md §5.6).

For each mapping, the source rows that satisfy its `where`, mapped through it,
are compared with the target rows by DKey, on the mapped columns. A key
diverges when one side lacks it or the values differ. A target row whose key
no source row of this mapping gives counts against this mapping only if no
other mapping into the same target gives that key either (a consolidation
target holds rows of several sources).

Columns computed from the change itself (`system` commit_ts / txn / op, or
an expression reading the current time) have no value on a resting source
row and are not compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.values import ConversionError, conform, row_to_json, same_value, to_json_value
from engine.model.methods import Constant, Expression, Method, System
from engine.run.input.keys import hashable
from engine.run.semantics.context import MappingPlan, RunContext
from engine.run.semantics.fold import row_sort_key
from engine.run.semantics.methods import SystemValues, evaluate_method, where_holds
from engine.sql import evaluate as sql_evaluate  # the module: engine.sql.evaluate imports engine.core.values
from engine.sql.errors import SqlRuntimeError
from engine.sql.lineage import reads_current_time

Row = dict[str, Any]
MAX_EXAMPLES = 20


def event_dependent(method: Method) -> bool:
    """True when a method tree reads the change being sent rather than the row."""
    for _, node in method.walk():
        if isinstance(node, System) and node.name != "site":
            return True
        if isinstance(node, Expression) and expression_reads_current_time(node.sql):
            return True
    return False


def expression_reads_current_time(sql: str) -> bool:
    """True when an expression calls a function of the current time (a column CURRENT_BAL is no such
    call); from the parsed tree, never the text."""
    return reads_current_time(sql_evaluate.parse_sql(sql))


def mapped_source(ctx: RunContext, mapping: MappingPlan, source_rows: Sequence[Row],
                  key_columns: Sequence[str] | None = None) -> dict[tuple[Any, ...], list[Row]]:
    """The source rows that satisfy the `where`, mapped through the mapping, by DKey (its columns in
    the order of `key_columns`, default the mapping's own)."""
    assert mapping.dkey is not None
    key_columns = key_columns or mapping.dkey
    target = ctx.tables[mapping.target]
    system = SystemValues(site=ctx.tables[mapping.source].server)
    out: dict[tuple[Any, ...], list[Row]] = {}
    methods = [(column, method, target.types[column]) for column, method in mapping.columns.items()
               if not event_dependent(method)]
    for row in source_rows:
        try:
            if not where_holds(mapping, row):
                continue
        except SqlRuntimeError:
            continue  # a row the where clause fails on is never sent: its changes were queued
        mapped: Row = {}
        for column, method, column_type in methods:
            try:
                value = evaluate_method(method, row, system, mapping.source_types)
            except SqlRuntimeError:
                value = None  # as the queued change holds it
            try:
                mapped[column] = conform(value, column_type)
            except ConversionError:
                mapped[column] = value
        out.setdefault(tuple(hashable(mapped.get(c)) for c in key_columns), []).append(mapped)
    return out


MappedCache = dict[tuple[str, tuple[str, ...]], dict[tuple[Any, ...], list[Row]]]


def _mapped(ctx: RunContext, mapping: MappingPlan, tables: Mapping[str, Sequence[Row]], key_columns: Sequence[str],
            cache: MappedCache | None) -> dict[tuple[Any, ...], list[Row]]:
    """`mapped_source` of `mapping`'s source rows by `key_columns`, computed once per run when `cache` is given
    (a mapping's rows also explain the keys of every other mapping into its target)."""
    if cache is None:
        return mapped_source(ctx, mapping, tables.get(mapping.source, ()), key_columns)
    key = (mapping.id, tuple(key_columns))
    if key not in cache:
        cache[key] = mapped_source(ctx, mapping, tables.get(mapping.source, ()), key_columns)
    return cache[key]


def compare_mapping(ctx: RunContext, mapping: MappingPlan, tables: Mapping[str, Sequence[Row]],
                    max_examples: int = MAX_EXAMPLES, cache: MappedCache | None = None) -> dict[str, Any]:
    """`{"mapping", "compared", "diverged", "examples"}` for one mapping."""
    if mapping.dkey is None:
        return {"mapping": mapping.id, "compared": 0, "diverged": 0, "examples": [],
                "note": "a journal mapping has no distribution key to compare by"}
    dkey = mapping.dkey
    columns = [c for c, m in mapping.columns.items() if not event_dependent(m)]
    types = ctx.tables[mapping.target].types
    source = _mapped(ctx, mapping, tables, dkey, cache)
    target: dict[tuple[Any, ...], list[Row]] = {}
    for row in tables.get(mapping.target, ()):
        target.setdefault(tuple(hashable(row.get(c)) for c in dkey), []).append({c: row.get(c) for c in columns})
    explained: set[tuple[Any, ...]] = set()
    for other in ctx.into(mapping.target):
        if other.id != mapping.id and other.dkey is not None and set(other.dkey) == set(dkey):
            explained |= set(_mapped(ctx, other, tables, dkey, cache))
    constants = {c: conform(m.value, types[c]) for c, m in mapping.columns.items()
                 if isinstance(m, Constant) and c in types and _fits(m.value, types[c])}
    keys = set(source) | {k for k, rows in target.items() if k not in explained
                          and any(_could_be_written_by(row, constants, types) for row in rows)}
    diverged, examples = 0, list[dict[str, Any]]()
    for key in sorted(keys, key=lambda k: row_sort_key(dict(zip(dkey, k, strict=True)), dkey)):
        have, want = target.get(key, []), source.get(key, [])
        if _same_rows(want, have, columns, types):
            continue
        diverged += 1
        if len(examples) < max_examples:
            examples.append({"dkey": {c: to_json_value(v) for c, v in zip(dkey, key, strict=True)},
                             "source": _shown(want), "target": _shown(have)})
    return {"mapping": mapping.id, "compared": len(keys), "diverged": diverged, "examples": examples}


def _could_be_written_by(row: Row, constants: Mapping[str, Any], types: Mapping[str, Any]) -> bool:
    """False when the row holds, in a column the mapping sets to a constant, another value: the mapping
    never wrote it (HQ's own orders, say, against a mapping that stamps ORIGIN = 'BRANCH')."""
    return all(same_value(row.get(c), v, types.get(c)) for c, v in constants.items())


def _fits(value: Any, sql_type: Any) -> bool:
    try:
        conform(value, sql_type)
    except ConversionError:
        return False
    return True


def _same_rows(source: list[Row], target: list[Row], columns: Sequence[str], types: Mapping[str, Any]) -> bool:
    if len(source) != len(target):
        return False
    unmatched = list(target)
    for row in source:
        match = next((t for t in unmatched
                      if all(same_value(row.get(c), t.get(c), types.get(c)) for c in columns)), None)
        if match is None:
            return False
        unmatched.remove(match)
    return True


def _shown(rows: list[Row]) -> Any:
    if not rows:
        return None
    return row_to_json(rows[0]) if len(rows) == 1 else [row_to_json(r) for r in rows]


def converge(ctx: RunContext, tables: Mapping[str, Sequence[Row]]) -> list[dict[str, Any]]:
    """The convergence report of every mapping, by mapping id."""
    cache: MappedCache = {}
    return [compare_mapping(ctx, ctx.mappings[m], tables, cache=cache) for m in sorted(ctx.mappings)]
