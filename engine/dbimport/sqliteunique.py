"""A SQLite table's UNIQUE constraints, inline (`email varchar(80) unique`) and table-level alike.

SQLite keeps no catalog of constraints: each UNIQUE constraint is an automatic index
(`sqlite_autoindex_<table>_N`, origin `u` in `PRAGMA index_list`), and a constraint's name lives only in the
CREATE TABLE text. SQLAlchemy's inspector reads table-level `UNIQUE (...)` from that text and leaves the
automatic indexes out, so an inline UNIQUE came in as nothing and DK009 could not see it. Here the automatic
indexes say which constraints exist (and their columns), and the CREATE TABLE text, parsed by sqlglot, says
their names where it gives one.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlalchemy.engine import Connection
from sqlglot import exp
from sqlglot.errors import SqlglotError


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _key(columns: list[str]) -> tuple[str, ...]:
    """Columns compared as SQLite compares names: ignoring ASCII case."""
    return tuple(c.lower() for c in columns)


def sqlite_unique_constraints(connection: Connection, schema: str | None, table: str,
                              reflected: list[Any]) -> list[Any]:
    """Every UNIQUE constraint of `table`, each once, as the inspector's `{"name", "column_names"}` (name
    None when the constraint has none). `reflected` is the inspector's own list: its names are used where
    the CREATE TABLE text cannot be parsed; it is returned as it is when SQLite reports no automatic index
    (an old or unusual file)."""
    prefix = f"{_quoted(schema)}." if schema else ""
    found: list[list[str]] = []
    for row in connection.exec_driver_sql(f"PRAGMA {prefix}index_list({_quoted(table)})").fetchall():
        if row[3] != "u":  # 'c': CREATE INDEX (the inspector's indexes), 'pk': the primary key
            continue
        info = connection.exec_driver_sql(f"PRAGMA {prefix}index_info({_quoted(str(row[1]))})").fetchall()
        columns = [str(r[2]) for r in sorted(info, key=lambda r: int(r[0])) if r[2] is not None]
        if columns:
            found.append(columns)
    if not found:
        return reflected
    found.reverse()  # index_list lists the newest index first; the constraints' order is the text's
    names = _declared_names(connection, prefix, table) or [
        (str(uc["name"]), _key(list(uc["column_names"]))) for uc in reflected if uc.get("name")]
    out: list[dict[str, Any]] = []
    for columns in found:
        at = next((i for i, (_n, cols) in enumerate(names) if cols == _key(columns)), None)
        out.append({"name": names.pop(at)[0] if at is not None else None, "column_names": columns})
    return out


def _declared_names(connection: Connection, prefix: str, table: str) -> list[tuple[str, tuple[str, ...]]]:
    """(name, columns) of each named UNIQUE constraint in the table's CREATE TABLE text, inline or table-level;
    none when the text cannot be parsed (the constraints then come in unnamed, never lost)."""
    row = connection.exec_driver_sql(f"SELECT sql FROM {prefix}sqlite_master WHERE type = 'table' AND name = ?",
                                     (table,)).fetchone()
    if row is None or not row[0]:
        return []
    try:
        tree = sqlglot.parse_one(str(row[0]), read="sqlite")
    except (SqlglotError, RecursionError):
        return []
    schema = tree.this if isinstance(tree, exp.Create) else None
    if not isinstance(schema, exp.Schema):
        return []
    out: list[tuple[str, tuple[str, ...]]] = []
    for item in schema.expressions:
        if isinstance(item, exp.ColumnDef):
            for c in item.args.get("constraints") or []:
                if isinstance(c.args.get("kind"), exp.UniqueColumnConstraint) and c.this is not None:
                    out.append((c.this.name, _key([item.name])))
        elif isinstance(item, exp.Constraint) and item.this is not None:
            for unique in item.expressions:
                if isinstance(unique, exp.UniqueColumnConstraint) and isinstance(unique.this, exp.Schema):
                    out.append((item.this.name, _key([e.name for e in unique.this.expressions])))
    return out
