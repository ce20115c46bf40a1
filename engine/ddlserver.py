"""One server's section of the DDL: its tables in an order in which every foreign key resolves.

The tables are built into one SQLAlchemy `MetaData`, and SQLAlchemy's own `create_all` is run against a
connection that only collects the statements (`MockConnection`), so the order is SQLAlchemy's
(`sort_tables_and_constraints`): parents before children, and a foreign key of a cycle added by `ALTER
TABLE` after its tables (inline where the dialect has no ALTER, as SQLite, which checks keys only on
writes). PostgreSQL enum types come first (`CREATE TYPE ... AS ENUM`), after the schemas the tables live
in (`CREATE SCHEMA IF NOT EXISTS`); each partition of a partitioned table follows its root.
"""

from __future__ import annotations

from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.engine.mock import MockConnection
from sqlalchemy.schema import CreateSchema, CreateTable

from engine.ddlparts import DdlError, add_foreign_keys, comment, ident, partition_statements
from engine.model.schema import Table

SCHEMA_IF_NOT_EXISTS = frozenset({"postgresql", "mysql", "mariadb"})
"""The dialects that write `CREATE SCHEMA IF NOT EXISTS`; elsewhere a comment says the schema must exist."""


class TableBuilder(Protocol):
    """`engine.ddl.build_table` for one target: the table in `metadata`, and its comments."""

    def __call__(self, table: Table, *, metadata: sa.MetaData,
                 types: dict[str, sa.types.TypeEngine[Any]] | None = None) -> tuple[sa.Table, list[str]]: ...


def enum_types(tables: list[Table], metadata: sa.MetaData) -> dict[str, dict[str, sa.types.TypeEngine[Any]]]:
    """PostgreSQL's enum type of each named enumeration (by table, then column), one object per type name
    and schema so each is created once; one name with two lists of values is a `DdlError`."""
    made: dict[tuple[str | None, str], tuple[list[str], postgresql.ENUM]] = {}
    by_table: dict[str, dict[str, sa.types.TypeEngine[Any]]] = {}
    for table in tables:
        for c in table.columns:
            if c.enum is None or c.enum.name is None:
                continue
            key = (table.db_schema, c.enum.name)
            if key not in made:
                schema = ident(table.db_schema) if table.db_schema else None
                made[key] = (c.enum.values, postgresql.ENUM(*c.enum.values, name=ident(c.enum.name), schema=schema,
                                                            metadata=metadata))
            elif made[key][0] != c.enum.values:
                raise DdlError(f"{table.key}.{c.name}: enum type {c.enum.name} has other values in another column")
            by_table.setdefault(table.name, {})[c.name] = made[key][1]
    return by_table


def _schemas(tables: list[Table], dialect: Dialect) -> list[str]:
    """`CREATE SCHEMA IF NOT EXISTS` for each schema a table lives in, or a comment that it must exist."""
    out = []
    for schema in dict.fromkeys(t.db_schema for t in tables if t.db_schema):
        if dialect.name in SCHEMA_IF_NOT_EXISTS:
            out.append(str(CreateSchema(ident(schema), if_not_exists=True).compile(dialect=dialect)) + ";\n")
        elif dialect.name != "sqlite":
            out.append(comment(f"schema {schema} must exist: {dialect.name} has no CREATE SCHEMA IF NOT EXISTS"))
    return out


def server_ddl(tables: list[Table], dialect: Dialect, build: TableBuilder) -> str:
    """The DDL of `tables` (one server's) in `dialect`: schemas, enum types, then each table preceded by a
    comment naming it and the comments of `build`, its partitions, indexes and comments, and last the
    foreign keys of a cycle."""
    metadata = sa.MetaData()
    types = enum_types(tables, metadata) if dialect.name == "postgresql" else {}
    written: dict[str, tuple[Table, sa.Table]] = {}
    notes: dict[int, list[str]] = {}
    for table in tables:
        sa_table, table_notes = build(table, metadata=metadata, types=types.get(table.name))
        written[table.name] = (table, sa_table)
        notes[id(sa_table)] = table_notes
    partitions: dict[int, list[str]] = {}
    for table, sa_table in written.values():
        notes[id(sa_table)] += [comment(n) for n in add_foreign_keys(table, sa_table, written, dialect.name)]
        if table.partitioning is not None and dialect.name == "postgresql":
            statements, part_notes = partition_statements(table, sa_table, dialect.identifier_preparer)
            partitions[id(sa_table)] = statements
            notes[id(sa_table)] += [comment(n) for n in part_notes]
    keys = {id(sa_table): table.key for table, sa_table in written.values()}
    collected: list[Any] = []
    metadata.create_all(MockConnection(dialect, lambda element, *_: collected.append(element)), checkfirst=False)
    schemas = _schemas(tables, dialect)
    out = ["\n", *schemas] if schemas else []
    for element in collected:
        table_id = id(element.element) if isinstance(element, CreateTable) else None
        try:
            sql = str(element.compile(dialect=dialect)).strip()
        except sa.exc.SQLAlchemyError as exc:
            where = keys.get(table_id, "DDL") if table_id is not None else "DDL"
            raise DdlError(f"{where}: {str(exc).splitlines()[0]}") from None
        if table_id is None:
            out.append(sql + ";\n")
            continue
        out += ["\n", comment(keys[table_id]), *notes[table_id], sql + ";\n"]
        out += [s + ";\n" for s in partitions.get(table_id, [])]
    return "".join(out)
