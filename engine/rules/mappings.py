"""Rules on one mapping: references, distribution key (seed 000), nulls, reversibility, data types (seed 001).

Each rule is a small function returning findings; `check_mapping` runs them
in the order of CONTRACT section 3, after making sure both tables exist
(MP002 silences every other rule for the mapping).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.methods import Column, Expression
from engine.model.schema import Mapping, Table
from engine.model.types import TypeFamily, default_decimal_precision
from engine.reversibility import explain, survives
from engine.rules.context import Context
from engine.rules.findings import Finding, Location
from engine.rules.landing import check_landing
from engine.rules.typecompat import type_compatibility
from engine.sql import parse_expression
from engine.sql.backtracking import backtracking_risk, pattern_literals
from engine.sql.conditions import not_a_condition
from engine.sqldefaults import is_null_default

MEDIUM_CHAR_LIMIT = {"db2": 254, "mssql": 255}
DKEY_BYTE_LIMIT = 256
NOT_NULL_KEY_DBMS = ("oracle", "db2")


def check_mapping(ctx: Context, mapping: Mapping) -> list[Finding]:
    source, target = ctx.model.table(mapping.source), ctx.model.table(mapping.target)
    if source is None or target is None:
        return list(unknown_endpoints(ctx, mapping))
    findings: list[Finding] = []
    for rule in (method_inputs, where_clause, backtracking_patterns, distribution_key_rules, null_rules,
                 reverse_rules, type_rules):
        findings.extend(rule(ctx, mapping, source, target))
    findings.extend(type_compatibility(mapping, source, target))
    findings.extend(check_landing(ctx, mapping, source, target))
    return findings


def _at(mapping: Mapping, table: Table | str | None = None, column: str | None = None) -> Location:
    key = table.key if isinstance(table, Table) else table
    return Location(mapping=mapping.id, table=key, column=column)


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
        yield Finding("MP002", f"{role} {ref!r} is unknown: {why}", _at(mapping, ref))


def method_inputs(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """MP001, MP004, MP005: every method reads real source columns and writes a real target column; an
    expression parses and can run."""
    known = set(source.column_names())
    known_folded = {c.lower() for c in known}
    for target_col, method in mapping.columns.items():
        if target.column(target_col) is None:
            yield Finding("MP005", f"{target.key} has no column {target_col!r} to map into",
                          _at(mapping, target, target_col))
        for _, node in method.walk():
            if isinstance(node, Column) and node.input not in known:
                yield Finding("MP001", f"{target_col} reads {node.input!r}, which {source.key} does not have",
                              _at(mapping, target, target_col))
            elif isinstance(node, Expression):
                parsed = parse_expression(node.sql)
                if parsed.error:
                    yield Finding("MP004", f"expression for {target_col} does not parse: {parsed.error}",
                                  _at(mapping, target, target_col))
                elif parsed.problem:
                    yield Finding("MP004", f"expression for {target_col} {parsed.problem}",
                                  _at(mapping, target, target_col))
                for name in parsed.columns:
                    if name.lower() not in known_folded:
                        yield Finding("MP001", f"expression for {target_col} reads {name!r}, "
                                      f"which {source.key} does not have", _at(mapping, target, target_col))


def where_clause(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """MP003: the replicate WHERE clause parses, can run (its regular expressions compile), names only
    source columns and is a condition (`engine.sql.conditions`: Spark refuses a filter that is not BOOLEAN)."""
    if mapping.where is None:
        return
    for message, column in where_problems(mapping.where, source):
        yield Finding("MP003", message, _at(mapping, source, column))


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
                              _at(mapping, table, column))


def _shown(pattern: str) -> str:
    return repr(pattern if len(pattern) <= 60 else pattern[:57] + "...")


def distribution_key_rules(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """DK001-DK011, NN001, TY003.

    DK003 adds up each key column once (the key is a set) by the byte lengths of CONTRACT section 1. A
    DECIMAL, NUMERIC or NUMBER declared without a precision has the target server's default one (the key
    lives there): db2 5, mssql 18, ase 18, informix 16, mysql 10, oracle 38, any other DBMS 38
    (`engine.model.types.DEFAULT_DECIMAL_PRECISION`)."""
    dkey = ctx.dkey(mapping)
    if dkey is None:
        if not mapping.journal:
            why = ("the mapping's distribution_key is empty (name its columns, or leave it out for the default "
                   "rule," if mapping.distribution_key == [] else
                   f"{target.key} has no primary key or unique index and the mapping names none (set one,")
            yield Finding("DK001", f"no distribution key: {why} or mark it a journal mapping)", _at(mapping, target))
        return
    target_dbms = ctx.dbms_of(target)
    complete = True
    total_bytes = 0
    assumed: list[str] = []  # decimals without a precision, counted at the DBMS's default
    for name in dkey.columns:
        col = target.column(name)
        if col is None:
            complete = False
            yield Finding("DK011", f"distribution key names {name!r}, which {target.key} does not have",
                          _at(mapping, target, name))
            continue
        if name not in mapping.columns:
            complete = False
            yield Finding("DK002", f"distribution-key column {name} has no column map", _at(mapping, target, name))
        t = col.sql_type
        total_bytes += t.key_bytes(target_dbms) or 0
        if t.family is TypeFamily.EXACT_NUMERIC and t.byte_length is None and t.key_bytes(target_dbms) is not None:
            assumed.append(f"{name} {t} as {t.name}({default_decimal_precision(target_dbms)}), "
                           f"the default on {target_dbms or 'its server'}")
        family_rule = {
            TypeFamily.LARGE_OBJECT: ("DK004", f"{name} is {t}, a large object, and cannot be in a distribution key"),
            TypeFamily.BIT: ("DK006", f"{name} is BIT and cannot be in a distribution key"),
            TypeFamily.BINARY: ("DK007", f"{name} is {t}, a binary type, and cannot be in a distribution key"),
            TypeFamily.APPROX_NUMERIC: ("DK008", f"{name} is {t}: approximate numbers make unreliable keys"),
        }.get(t.family)
        if family_rule:
            yield Finding(family_rule[0], family_rule[1], _at(mapping, target, name))
        limit = MEDIUM_CHAR_LIMIT.get(target_dbms or "")
        if limit is not None and t.family is TypeFamily.CHARACTER and (t.length or 0) > limit:
            yield Finding("DK005", f"{name} is {t}: on {target_dbms} a key column may hold at most {limit} characters",
                          _at(mapping, target, name))
    if ctx.dbms_of(source) != "oracle" and total_bytes > DKEY_BYTE_LIMIT:
        counted = f" (counting {'; '.join(assumed)})" if assumed else ""
        yield Finding("DK003", f"distribution key ({', '.join(dkey.columns)}) is {total_bytes} bytes{counted}; "
                      f"the limit is {DKEY_BYTE_LIMIT} when the source is not Oracle", _at(mapping, target))
    serial = [n for n in dkey.columns if (c := target.column(n)) is not None and c.sql_type.is_serial]
    if serial and len(ctx.graph.masters(target.key)) > 1:
        for name in serial:
            yield Finding("TY003", f"{name} is {target.column(name).sql_type} in the key of {target.key}, "  # type: ignore[union-attr]
                          "which several masters write: their serial values will collide", _at(mapping, target, name))
    if not complete:
        return
    feeding = ctx.feeding(mapping, dkey.columns)
    if not source.is_unique(feeding):
        fed = ", ".join(sorted(feeding)) or "no source column"
        yield Finding("DK009", f"the key is fed by {fed}, which is not a primary key or unique index of "
                      f"{source.key}: duplicates would reach the target", _at(mapping, source))
    if not target.is_unique(set(dkey.columns)):
        yield Finding("DK010", f"distribution key ({', '.join(dkey.columns)}) is not the primary key or a unique "
                      f"index of {target.key}: an update or delete may hit several rows", _at(mapping, target))
    yield from _protected_not_null(ctx, mapping, source, target, dkey.columns, feeding)


def _protected_not_null(ctx: Context, mapping: Mapping, source: Table, target: Table,
                        key: tuple[str, ...], feeding: set[str]) -> Iterator[Finding]:
    """NN001: in protected replication with Oracle or DB2, each side needs a NOT NULL key column."""
    if not ctx.model.protected:
        return
    if not ({ctx.dbms_of(source), ctx.dbms_of(target)} & set(NOT_NULL_KEY_DBMS)):
        return
    sides = []
    if not any((c := target.column(n)) is not None and not c.nullable for n in key):
        sides.append(f"target {target.key} ({', '.join(key)})")
    if feeding and not any((c := source.column(n)) is not None and not c.nullable for n in feeding):
        sides.append(f"source {source.key} ({', '.join(sorted(feeding))})")
    if sides:
        yield Finding("NN001", "protected replication with Oracle or DB2 needs a NOT NULL distribution-key "
                      f"column on each server; none on {' and '.join(sides)}", _at(mapping, target))


def null_rules(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """NL001, NL002. A default of SQL NULL (`NULL`, `CAST(NULL AS ...)`) is no default: it gives the NOT NULL
    column the NULL it refuses. A generated column is the database's to fill (MP007 if mapped)."""
    for col in target.columns:
        if col.nullable or col.generated is not None:
            continue
        method = mapping.columns.get(col.name)
        if method is None:
            if col.default is None:
                yield Finding("NL001", f"{col.name} is NOT NULL with no default, and the mapping leaves it empty",
                              _at(mapping, target, col.name))
            elif is_null_default(col.default, ctx.dbms_of(target) or "other"):
                yield Finding("NL001", f"{col.name} is NOT NULL and its default is NULL, and the mapping leaves "
                              "it empty", _at(mapping, target, col.name))
        elif isinstance(method, Column):
            src = source.column(method.input)
            if src is not None and src.nullable:
                yield Finding("NL002", f"{col.name} is NOT NULL but copied from {source.key}.{src.name}, "
                              "which allows NULL", _at(mapping, target, col.name))


def reverse_rules(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """BI001, BI002: the reverse mapping exists, goes back, and gives back the key. BI002 only when this
    mapping has a DKey (CONTRACT section 3): without one (DK001) neither direction is reported on it."""
    if mapping.reverse is None:  # none given; an empty name is given, and names no mapping (BI001)
        return
    back = ctx.model.mapping(mapping.reverse)
    if back is None:
        yield Finding("BI001", f"reverse mapping {mapping.reverse!r} does not exist", _at(mapping))
        return
    if back.source != mapping.target or back.target != mapping.source:
        yield Finding("BI001", f"reverse mapping {back.id} goes {back.source} -> {back.target}, "
                      f"not {mapping.target} -> {mapping.source}", _at(mapping))
        return
    if ctx.dkey(mapping) is None:
        return
    yield from _key_round_trip(ctx, mapping, back, source, "")
    if back.reverse != mapping.id:
        yield from _key_round_trip(ctx, back, mapping, target, f" (the {back.id} direction)", report_on=mapping)


def _key_round_trip(ctx: Context, forward: Mapping, back: Mapping, source: Table, note: str,
                    report_on: Mapping | None = None) -> Iterator[Finding]:
    dkey = ctx.dkey(forward)
    if dkey is None:
        return
    owner = report_on or forward
    for key_col in dkey.columns:
        if key_col not in forward.columns:
            continue
        lost = sorted(c for c in ctx.graph.feeding_columns(forward.id, key_col)
                      if not survives(forward, back, source, c))
        if lost:
            reasons = "; ".join(explain(forward, back, c) for c in lost)
            yield Finding("BI002", f"key column {key_col}{note} is not reversible: {forward.id} then {back.id} "
                          f"does not give back {', '.join(lost)} ({reasons})",
                          Location(mapping=owner.id, table=forward.target, column=key_col))


def type_rules(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """TY001, TY002, TY004: user types, floating point across formats, large objects.

    A column counts as read when a method copies it or an `expression`'s SQL names it (its lineage, matched
    without case as SQL names are: `ctx.feeding`)."""
    reads = {target_col: sorted(ctx.feeding(mapping, [target_col])) for target_col in mapping.columns}
    read = [c for name in dict.fromkeys(n for names in reads.values() for n in names)
            if (c := source.column(name)) is not None]
    written = [c for name in mapping.columns if (c := target.column(name)) is not None]
    sides = [(source, col) for col in read] + [(target, col) for col in written]
    for table, col in sides:
        if col.sql_type.holds_udt and not col.stream_support:
            yield Finding("TY001", f"{table.key}.{col.name} is {col.sql_type}; replicating it needs stream support "
                          "(streamwrite/streamread) declared with stream_support: true", _at(mapping, table, col.name))
    src_server, tgt_server = ctx.server_of(source), ctx.server_of(target)
    formats = (src_server.float_format if src_server else None, tgt_server.float_format if tgt_server else None)
    if ctx.model.float_transfer is None and all(formats) and not _same_label(formats[0], formats[1]):
        for target_col in mapping.columns:
            tcol = target.column(target_col)
            approx = tcol is not None and tcol.sql_type.family is TypeFamily.APPROX_NUMERIC
            approx = approx or any((s := source.column(n)) is not None and s.sql_type.family
                                   is TypeFamily.APPROX_NUMERIC for n in reads[target_col])
            if approx:
                yield Finding("TY002", f"{target_col} carries a floating-point value from {formats[0]} to "
                              f"{formats[1]} format; set float_transfer (ieee or canonical)",
                              _at(mapping, target, target_col))
    if mapping.changed_columns_only:
        for table, col in sides:
            if col.sql_type.family is TypeFamily.LARGE_OBJECT and col.storage in ("blobspace", "sbspace"):
                yield Finding("TY004", f"{table.key}.{col.name} is stored in a {col.storage}; with changed columns "
                              "only it may not be updated at the target", _at(mapping, table, col.name))


def _same_label(a: str | None, b: str | None) -> bool:
    """Whether two float_format labels name one format: `ieee` and `IEEE` do (labels, not identifiers)."""
    return (a or "").strip().casefold() == (b or "").strip().casefold()
