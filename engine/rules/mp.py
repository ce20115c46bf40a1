"""MP: what a mapping reads and writes, and the SQL it carries: MP001-MP007 (declared in `catalog.mp`).

MP002 (an unknown source or target) silences every other rule of the mapping (`scopes.check_mapping`).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.methods import Column, Expression
from engine.model.schema import Mapping, Table
from engine.rules.context import Context
from engine.rules.findings import Finding, Location
from engine.rules.registry import emits
from engine.sql import parse_expression
from engine.sql.backtracking import backtracking_risk, pattern_literals
from engine.sql.conditions import not_a_condition


def at(mapping: Mapping, table: Table | str | None = None, column: str | None = None) -> Location:
    """A finding's location on `mapping`, at a table (or table key) and column."""
    key = table.key if isinstance(table, Table) else table
    return Location(mapping=mapping.id, table=key, column=column)


@emits("MP002")
def unknown_endpoints(ctx: Context, mapping: Mapping) -> Iterator[Finding]:
    for role, ref in (("source", mapping.source), ("target", mapping.target)):
        if ctx.model.table(ref) is not None:
            continue
        # the longest server id the reference starts with: an id may hold a dot (`hq.eu.T`)
        server_id = max((s.id for s in ctx.model.servers if ref.startswith(f"{s.id}.")), key=len, default=None)
        server_id, name = (server_id, ref[len(server_id) + 1:]) if server_id else ref.partition(".")[::2]
        server = ctx.model.server(server_id)
        if server is None:
            why = f"server {server_id!r} is not in the model"
        else:
            names = sorted(t.name for t in ctx.model.tables if t.server == server_id)
            why = f"server {server_id} has no table {name!r}" + (f" (it has {', '.join(names)})" if names else "")
        yield Finding("MP002", f"{role} {ref!r} is unknown: {why}", at(mapping, ref))


@emits("MP001", "MP004", "MP005")
def method_inputs(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """MP001, MP004, MP005: every method reads real source columns and writes a real target column; an
    expression parses and can run."""
    known = set(source.column_names())
    known_folded = {c.lower() for c in known}
    for target_col, method in mapping.columns.items():
        if target.column(target_col) is None:
            yield Finding("MP005", f"{target.key} has no column {target_col!r} to map into",
                          at(mapping, target, target_col))
        for _, node in method.walk():
            if isinstance(node, Column) and node.input not in known:
                yield Finding("MP001", f"{target_col} reads {node.input!r}, which {source.key} does not have",
                              at(mapping, target, target_col))
            elif isinstance(node, Expression):
                parsed = parse_expression(node.sql)
                if parsed.error:
                    yield Finding("MP004", f"expression for {target_col} does not parse: {parsed.error}",
                                  at(mapping, target, target_col))
                elif parsed.problem:
                    yield Finding("MP004", f"expression for {target_col} {parsed.problem}",
                                  at(mapping, target, target_col))
                for name in parsed.columns:
                    if name.lower() not in known_folded:
                        yield Finding("MP001", f"expression for {target_col} reads {name!r}, "
                                      f"which {source.key} does not have", at(mapping, target, target_col))


@emits("MP003")
def where_clause(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """MP003: the replicate WHERE clause parses, can run (its regular expressions compile), names only
    source columns and is a condition (`engine.sql.conditions`: Spark refuses a filter that is not BOOLEAN)."""
    if mapping.where is None:
        return
    for message, column in where_problems(mapping.where, source):
        yield Finding("MP003", message, at(mapping, source, column))


def where_problems(where: str, source: Table) -> list[tuple[str, str | None]]:
    """What MP003 says of `where` over `source`: (message, the unknown column or None) each; [] when clean.

    The designer's `where` editor calls this as the user types."""
    parsed = parse_expression(where)
    if parsed.error:
        return [(f"where clause does not parse: {parsed.error}", None)]
    if parsed.problem:
        return [(f"where clause {parsed.problem}", None)]
    known = {c.lower() for c in source.column_names()}
    problems: list[tuple[str, str | None]] = [
        (f"where clause names {name!r}, which {source.key} does not have", name)
        for name in parsed.columns if name.lower() not in known]
    why = not_a_condition(where, {c.name: c.sql_type for c in source.columns})
    if why:
        problems.append((f"where clause is not a condition: {why}", None))
    if parsed.reads_clock:
        problems.append(("where clause reads the current time (current_timestamp, current_date): which rows the "
                         "mapping sends would change with the clock, so no run could say whether it converges", None))
    return problems


@emits("MP006")
def backtracking_patterns(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """MP006 (a warning): a literal regular expression of the `where` clause or of an `expression` that may
    backtrack exponentially (`engine.sql.backtracking`): one row that almost matches stalls the run. Only SQL
    that parses and can run is read (else MP003 or MP004 says why)."""
    snippets: list[tuple[str, str, Table, str | None]] = \
        [("where clause", mapping.where, source, None)] if mapping.where else []
    snippets += [(f"expression for {column}", node.sql, target, column) for column, method in mapping.columns.items()
                 for _, node in method.walk() if isinstance(node, Expression)]
    for what, sql, table, column in snippets:
        if ("rlike" not in sql.lower() and "regexp" not in sql.lower()) or parse_expression(sql).problem \
                or parse_expression(sql).error:
            continue
        for pattern in pattern_literals(sql):
            risk = backtracking_risk(pattern)
            if risk:
                yield Finding("MP006", f"{what}: the regular expression {_shown(pattern)} may take exponential "
                              f"time on a row that almost matches: {risk}; rewrite it without nesting (`(a+)+` "
                              "is `a+`), or make the inner part possessive (`a++`) or atomic (`(?>...)`)",
                              at(mapping, table, column))


def _shown(pattern: str) -> str:
    return repr(pattern if len(pattern) <= 60 else pattern[:57] + "...")


@emits("MP007")
def generated_targets(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """MP007: no column map writes a generated column of the target: the database computes its value and
    refuses one given to it."""
    for name in mapping.columns:
        column = target.column(name)
        if column is not None and column.generated is not None:
            yield Finding("MP007", f"{name} is a generated column of {target.key}: the database computes it and "
                          "refuses a written value; remove its column map", at(mapping, target, name))
