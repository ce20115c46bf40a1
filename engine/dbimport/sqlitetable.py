"""What SQLAlchemy's inspector misreads in a SQLite table: declared types, generated columns, foreign keys' actions.

SQLite keeps no catalog of these beyond the CREATE TABLE text and its pragmas:
- a column's declared type is text SQLite types values by an affinity of (`sqlite_declared_type`);
- the inspector reads a generated column's expression with a pattern that runs to the last parenthesis of the
  whole statement (`upper(name)) VIRTUAL, CONSTRAINT ck CHECK (...`), and misses `d INT AS (b + 1) STORED`;
  here the text is parsed by sqlglot and each expression written back in SQLite's SQL;
- the inspector reads ON DELETE / ON UPDATE only from table-level FOREIGN KEY clauses (an inline
  `REFERENCES customer (id) ON DELETE CASCADE` lost its action); `PRAGMA foreign_key_list` has them all.
"""

from __future__ import annotations

import re
from typing import Any

import sqlglot
from sqlalchemy.engine import Connection
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.core.types import parse_type
from engine.dbimport.constraints import outer_parens_off
from engine.dbimport.types import MappedType
from engine.model.schema import Generated


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sqlite_generated(connection: Connection, schema: str | None, table: str) -> dict[str, Generated] | None:
    """{column: its generation} of the table's generated columns, keyed by name in lower case (SQLite compares
    names so); None when the CREATE TABLE text cannot be parsed."""
    prefix = f"{_quoted(schema)}." if schema else ""
    row = connection.exec_driver_sql(f"SELECT sql FROM {prefix}sqlite_master WHERE type = 'table' AND name = ?",
                                     (table,)).fetchone()
    if row is None or not row[0]:
        return None
    try:
        tree = sqlglot.parse_one(str(row[0]), read="sqlite")
    except (SqlglotError, RecursionError):
        return None
    body = tree.this if isinstance(tree, exp.Create) else None
    if not isinstance(body, exp.Schema):
        return None
    out: dict[str, Generated] = {}
    for item in body.expressions:
        if not isinstance(item, exp.ColumnDef):
            continue
        for constraint in item.args.get("constraints") or []:
            kind = constraint.args.get("kind")
            if isinstance(kind, exp.ComputedColumnConstraint) and kind.this is not None:
                text = outer_parens_off(kind.this.sql(dialect="sqlite"))
                out[item.name.lower()] = Generated(expression=text, stored=bool(kind.args.get("persisted")))
    return out


def sqlite_foreign_keys(connection: Connection, schema: str | None, table: str, reflected: list[Any]) -> list[Any]:
    """The inspector's foreign keys of `table` with their ON DELETE / ON UPDATE actions (`options`) as
    `PRAGMA foreign_key_list` gives them, matched by referenced table and columns."""
    prefix = f"{_quoted(schema)}." if schema else ""
    rows = connection.exec_driver_sql(f"PRAGMA {prefix}foreign_key_list({_quoted(table)})").fetchall()
    by_id: dict[int, dict[str, Any]] = {}
    for row in sorted(rows, key=lambda r: (int(r[0]), int(r[1]))):
        entry = by_id.setdefault(int(row[0]), {"table": str(row[2]).lower(), "columns": [],
                                               "onupdate": str(row[5]), "ondelete": str(row[6])})
        entry["columns"].append(str(row[3]).lower())
    out: list[Any] = []
    for fk in reflected:
        key = (str(fk["referred_table"]).lower(), [c.lower() for c in fk["constrained_columns"]])
        found = next((e for e in by_id.values() if (e["table"], e["columns"]) == key), None)
        if found is None:
            out.append(fk)
            continue
        options = {k: v for k, v in (fk.get("options") or {}).items() if k not in ("ondelete", "onupdate")}
        options |= {k: found[k] for k in ("ondelete", "onupdate") if found[k].upper() != "NO ACTION"}
        out.append({**fk, "options": options})
    return out


def sqlite_declared(connection: Connection, schema: str | None, table: str) -> dict[str, str]:
    """Each column's type as its CREATE TABLE declares it: SQLite keeps the text and types values by an
    affinity read off it (`VARBINARY(16)` and `UUID` have NUMERIC's, `DOUBLE PRECISION` REAL's), and
    SQLAlchemy reflects the affinity, not the declared type."""
    prefix = f"{_quoted(schema)}." if schema else ""
    rows = connection.exec_driver_sql(f"PRAGMA {prefix}table_xinfo({_quoted(table)})").fetchall()
    return {str(row[1]): str(row[2] or "") for row in rows}


SQLITE_SPELLINGS = {"DOUBLE PRECISION": "DOUBLE", "CHARACTER VARYING": "VARCHAR", "CHARACTER": "CHAR",
                    "VARYING CHARACTER": "VARCHAR", "NATIONAL CHARACTER VARYING": "NVARCHAR",
                    "NATIONAL CHARACTER": "NCHAR", "NATIVE CHARACTER": "NCHAR", "INT": "INTEGER",
                    "INT2": "SMALLINT", "INT8": "BIGINT", "BOOL": "BOOLEAN"}
"""SQL's other names of contract types, as a CREATE TABLE may declare them."""


def sqlite_declared_type(declared: str) -> MappedType | None:
    """The contract type a SQLite column's declared type names (`VARBINARY(16)`, `DOUBLE PRECISION`), or None
    when it names none: it is then read by its affinity, and said so."""
    match = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_ ]*?)\s*(\([^()]*\))?\s*", declared)
    if not match:
        return None
    name = " ".join(match[1].upper().split())
    text = SQLITE_SPELLINGS.get(name, name) + (match[2] or "").replace(" ", "")
    try:
        return MappedType(str(parse_type(text)))
    except ValueError:
        return None
