"""PostgreSQL's partitioned tables, read from the catalog for `mapwright import`.

A partitioned table is one model table (the root) whose `partitioning` lists its partitions; the partitions
themselves are the database's storage, not tables of the model: SQLAlchemy's inspector lists them as tables
(and would give each the root's columns, indexes and notes again), so they are left out of every listing
here. The key (`pg_partitioned_table`), the partitions (`pg_inherits`) and each partition's bound
(`pg_get_expr(relpartbound)`) come from the catalog. Names go to it as bound parameters, never into the SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

_PARTITIONS = sa.text("""
SELECT c.relname, p.relname
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_inherits i ON i.inhrelid = c.oid
JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
WHERE c.relispartition AND c.relkind IN ('r', 'p', 'f') AND n.nspname = coalesce(:schema, current_schema())
""")
"""Every partition of the schema (a table: a partitioned index's partitions are indexes), with the table it is a
partition of."""

_KEYS = sa.text("""
SELECT c.relname, pt.partstrat, pg_catalog.pg_get_partkeydef(c.oid),
       ARRAY(SELECT a.attname FROM unnest(pt.partattrs::int2[]) WITH ORDINALITY AS k(attnum, ord)
             LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum AND k.attnum <> 0
             ORDER BY k.ord),
       pt.partexprs IS NOT NULL
FROM pg_catalog.pg_partitioned_table pt
JOIN pg_catalog.pg_class c ON c.oid = pt.partrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = coalesce(:schema, current_schema()) AND c.relname = ANY(:names)
""")
"""The named tables that are partitioned: method, the key as PostgreSQL writes it, its columns."""

_BOUNDS = sa.text("""
SELECT p.relname, c.relname, pg_catalog.pg_get_expr(c.relpartbound, c.oid), c.relkind = 'p', cn.nspname <> pn.nspname
FROM pg_catalog.pg_inherits i
JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid AND c.relispartition AND c.relkind IN ('r', 'p', 'f')
JOIN pg_catalog.pg_namespace cn ON cn.oid = c.relnamespace
JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
WHERE pn.nspname = coalesce(:schema, current_schema()) AND p.relname = ANY(:names)
ORDER BY p.relname, c.relname
""")
"""The partitions of the named tables, each with its bound (`FOR VALUES FROM (1) TO (1000)`, `DEFAULT`)."""

Method = Literal["range", "list", "hash"]
METHODS: dict[str, Method] = {"r": "range", "l": "list", "h": "hash"}


@dataclass
class PgPartitioning:
    """How one table is partitioned: `columns` None where the key holds an expression (the model's key is
    columns only)."""

    method: Method
    key: str  # as PostgreSQL writes it: RANGE (placed)
    columns: list[str] | None
    partitions: list[tuple[str, str]] = field(default_factory=list)  # (name, bound)
    subpartitioned: list[str] = field(default_factory=list)  # partitions that are partitioned again
    elsewhere: list[str] = field(default_factory=list)  # partitions in another schema


def pg_partitions(connection: Connection, schema: str | None) -> dict[str, str]:
    """{partition: the table it is a partition of} of every partition in `schema` (the current one if None)."""
    return {str(child): str(parent) for child, parent in connection.execute(_PARTITIONS, {"schema": schema})}


def pg_partitioning(connection: Connection, schema: str | None, tables: Sequence[str]) -> dict[str, PgPartitioning]:
    """`PgPartitioning` of each of `tables` (in `schema`) that is partitioned."""
    params: dict[str, Any] = {"schema": schema, "names": list(tables)}
    found: dict[str, PgPartitioning] = {}
    for table, strategy, key, columns, expressions in connection.execute(_KEYS, params):
        method = METHODS.get(str(strategy))
        if method is None:
            continue
        plain = not expressions and bool(columns) and all(c is not None for c in columns)
        found[str(table)] = PgPartitioning(method, str(key), [str(c) for c in columns] if plain else None)
    for parent, child, bound, partitioned, elsewhere in connection.execute(_BOUNDS, params):
        info = found.get(str(parent))
        if info is None:
            continue
        info.partitions.append((str(child), str(bound)))
        if partitioned:
            info.subpartitioned.append(str(child))
        if elsewhere:
            info.elsewhere.append(str(child))
    return found
