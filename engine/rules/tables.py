"""Rules on one table (keys, replication definitions, seed 002) and on table hierarchies (seed 001)."""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.schema import Model, Table
from engine.model.types import parse_type
from engine.rules.constraints import check_constraints
from engine.rules.findings import Finding, Location
from engine.rules.nativetypes import native_types
from engine.sqldefaults import default_problem


def check_table(model: Model, table: Table) -> list[Finding]:
    return [*key_columns(table), *parent_exists(model, table), *replication_definitions(table),
            *column_defaults(model, table), *names_apart(table), *keys_name_once(table),
            *check_constraints(model, table), *native_types(model, table)]


def names_apart(table: Table) -> Iterator[Finding]:
    """TB004: no two columns of a table have names that differ only in case. Spark resolves names without
    case, and so does every database for a name that is not quoted: a run could not tell them apart."""
    first: dict[str, str] = {}
    for column in table.columns:
        folded = column.name.casefold()
        if folded in first and first[folded] != column.name:
            yield Finding("TB004", f"{column.name} and {first[folded]} differ only in case; Spark and most "
                          "databases do not tell them apart: rename one", Location(table=table.key, column=column.name))
        first.setdefault(folded, column.name)


def keys_name_once(table: Table) -> Iterator[Finding]:
    """TB005: a primary key or index names each column once (DDL refuses a repeated key column)."""
    named = _keys_and_indexes(table)
    for what, index, columns in named:
        for column in sorted({c for c in columns if columns.count(c) > 1}):
            label = f"{what} {index}" if index else what
            yield Finding("TB005", f"{label} names {column} more than once",
                          Location(table=table.key, column=column, index=index))


def _keys_and_indexes(table: Table) -> list[tuple[str, str | None, list[str]]]:
    """(what, index name, columns) of the primary key, each unique index and each (non-unique) index."""
    return [("primary key", None, table.primary_key),
            *(("unique index", ux.name, ux.columns) for ux in table.unique_indexes),
            *(("index", ix.name, ix.columns) for ix in table.indexes)]


def key_columns(table: Table) -> Iterator[Finding]:
    """TB001: the primary key, unique indexes and indexes name real columns."""
    named = _keys_and_indexes(table)
    for what, index, columns in named:
        for column in columns:
            if table.column(column) is None:
                label = f"{what} {index}" if index else what
                yield Finding("TB001", f"{label} names {column!r}, which {table.key} does not have",
                              Location(table=table.key, column=column, index=index))


def column_defaults(model: Model, table: Table) -> Iterator[Finding]:
    """TB003: a default is one constant SQL expression in its server's dialect (DDL can hold nothing else)."""
    server = model.server(table.server)
    dbms = server.dbms if server else "other"
    for column in table.columns:
        problem = default_problem(column, dbms)
        if problem:
            yield Finding("TB003", f"default of {column.name} cannot be used in DDL: {problem}",
                          Location(table=table.key, column=column.name))


def parent_exists(model: Model, table: Table) -> Iterator[Finding]:
    """TB002 (unknown parent); cycles are found over the whole hierarchy in `hierarchy_rules`."""
    if table.parent and model.table(f"{table.server}.{table.parent}") is None:
        yield Finding("TB002", f"parent {table.parent!r} is not a table on server {table.server}",
                      Location(table=table.key))


def replication_definitions(table: Table) -> Iterator[Finding]:
    """SC002 (versions and names), then SC001 (the table against its latest definition; types are compared
    with their synonyms folded, `SqlType.comparable`: NUMERIC(10,2) is DECIMAL(10,2))."""
    defs = table.replication_definitions
    if not defs:
        return
    for before, after in zip(defs, defs[1:], strict=False):
        if after.version <= before.version:
            yield Finding("SC002", f"replication definition versions must increase: {after.version} follows "
                          f"{before.version}", Location(table=table.key))
    for d in defs:
        seen: set[str] = set()
        for listed in d.columns:
            if listed.name in seen:
                yield Finding("SC002", f"replication definition version {d.version} lists {listed.name} twice",
                              Location(table=table.key, column=listed.name))
            seen.add(listed.name)
    latest = table.latest_definition()
    assert latest is not None
    in_def = {c.name: c for c in latest.columns}
    for col in table.columns:
        spec = in_def.get(col.name)
        if spec is None:
            yield Finding("SC001", f"{col.name} is in the table but not in replication definition version "
                          f"{latest.version}: its values would not replicate (data loss)",
                          Location(table=table.key, column=col.name))
        elif spec.type is not None and parse_type(spec.type).comparable() != col.sql_type.comparable():
            yield Finding("SC001", f"{col.name} is {col.sql_type} in the table but {parse_type(spec.type)} in "
                          f"replication definition version {latest.version}",
                          Location(table=table.key, column=col.name))
    for name in in_def:
        if table.column(name) is None:
            yield Finding("SC001", f"{name} is in replication definition version {latest.version} but no longer in "
                          "the table: replicating it would fail", Location(table=table.key, column=name))


def hierarchy_rules(model: Model) -> list[Finding]:
    """CR009 (uniform conflict resolution across a hierarchy) and TB002 (circular parents)."""
    findings: list[Finding] = []
    parent_of = {t.key: f"{t.server}.{t.parent}" for t in model.tables if t.parent}
    roots: dict[str, str] = {}
    root_of: dict[str, str | None] = {}  # a table's root, or None when its chain runs into a cycle
    for key in [t.key for t in model.tables]:
        if key not in root_of:  # walk up until a root, a cycle, or a table already placed: linear overall
            path, on_path, here = [], set(), key
            result: str | None
            while here not in root_of:
                path.append(here)
                on_path.add(here)
                parent = parent_of.get(here)
                if parent is None or model.table(parent) is None:
                    result = here
                    break
                if parent in on_path:
                    result = None
                    break
                here = parent
            else:
                result = root_of[here]
            root_of.update(dict.fromkeys(path, result))
        root = root_of[key]
        if root is None:
            findings.append(Finding("TB002", f"table hierarchy is circular: {_cycle_text(key, parent_of)}",
                                    Location(table=key)))
        else:
            roots[key] = root
    families: dict[str, list[str]] = {}
    for key, root in roots.items():
        families.setdefault(root, []).append(key)
    with_cr = {c.table for c in model.conflicts}
    for root, members in sorted(families.items()):
        if len(members) < 2:
            continue
        have = sorted(m for m in members if m in with_cr)
        lack = sorted(m for m in members if m not in with_cr)
        if have and lack:
            findings.append(Finding("CR009", f"hierarchy under {root} must resolve conflicts on every table or none: "
                                    f"{', '.join(have)} do, {', '.join(lack)} do not", Location(table=root)))
    return findings


def _cycle_text(key: str, parent_of: dict[str, str], shown: int = 8) -> str:
    """`A -> B -> C -> A`: the chain from `key` until it repeats, cut after `shown` tables."""
    path, here = [key], key
    while len(path) <= shown:
        here = parent_of[here]
        if here in path:
            return " -> ".join([*path, here])
        path.append(here)
    return " -> ".join(path) + " -> ..."
