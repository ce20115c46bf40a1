"""The parts of a table's DDL beyond its columns' types and defaults: identity and generated columns, check
constraints, enumerations, indexes, foreign keys and partitions, each as a SQLAlchemy construct (or, for a
PostgreSQL partition, a statement of quoted names and a checked bound).

What a dialect cannot hold as the model says is written the nearest way it can, or left out, with a note
(returned as text, written by `engine.ddl` as a comment line above the table): a virtual generated column
on PostgreSQL is stored, a foreign key's `ON UPDATE CASCADE` is left out for Oracle, a check whose SQL is
not one condition (`engine.ddlexpr`) is left out.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql import quoted_name

from engine.ddlexpr import ExprProblem, column_expression, partition_bound
from engine.model.schema import ColumnDef, ForeignKey, Table


class DdlError(Exception):
    """DDL that cannot be made (an unknown dialect, a name the dialect cannot hold)."""


def comment(text: str) -> str:
    """An SQL line comment holding `text` flattened to one printable line (it cannot end early)."""
    flat = "".join(ch if ch.isprintable() else " " for ch in text)
    return f"-- {flat}\n"


def ident(name: str) -> quoted_name:
    """The model's name as an always-quoted identifier, exactly; a NUL (which no identifier holds) is refused."""
    if "\x00" in name:
        raise DdlError(f"the name {name!r} holds a NUL character, which no SQL identifier can")
    return quoted_name(name, quote=True)


def sql_text(text: str) -> sa.TextClause:
    """Checked SQL as a text clause; a colon would otherwise read as a bind parameter."""
    return sa.text(text.replace(":", "\\:"))


IDENTITY_DIALECTS = frozenset({"postgresql", "oracle", "mssql", "ibm_db_sa"})
"""The SQLAlchemy dialects that write an identity column (`sa.Identity`); SQL Server and DB2 only for the
column `auto_numbered` chose, MySQL numbers it with AUTO_INCREMENT and SQLite with its INTEGER PRIMARY KEY."""
ONE_IDENTITY = frozenset({"mssql", "ibm_db_sa"})


def column_parts(c: ColumnDef, table: Table, dialect: str, write: str, dbms: str,
                 numbered: set[str]) -> tuple[list[sa.schema.SchemaItem], list[str]]:
    """The identity or generated-column construct of `c` for `dialect` (sqlglot dialect `write`), and notes."""
    parts: list[sa.schema.SchemaItem] = []
    notes: list[str] = []
    i = c.identity
    if i is not None and c.sql_type.is_serial:
        if dialect == "postgresql" and (i.start, i.increment) != (1, 1):
            notes.append(f"column {c.name} ({c.sql_type}) numbered from 1 by 1: the sequence of a PostgreSQL "
                         f"{c.sql_type} starts so (the model says start {i.start}, increment {i.increment})")
    elif i is not None and dialect in IDENTITY_DIALECTS and (dialect not in ONE_IDENTITY or c.name in numbered):
        parts.append(sa.Identity(always=i.always, start=i.start, increment=i.increment))
    g = c.generated
    if g is None:
        return parts, notes
    try:
        text = column_expression(g.expression, table.column_names(), dbms, write, condition=False)
    except ExprProblem as exc:
        return parts, [*notes, f"generated column {c.name} written as a plain column: {exc}"]
    persisted: bool | None = g.stored
    if dialect == "postgresql" and not g.stored:
        notes.append(f"generated column {c.name} written STORED: PostgreSQL computes a generated column only "
                     "when a row is written (the model says virtual)")
        persisted = True
    elif dialect == "oracle":
        if g.stored:
            notes.append(f"generated column {c.name} written VIRTUAL: Oracle computes a generated column only "
                         "when it is read (the model says stored)")
        persisted = None
    parts.append(sa.Computed(sql_text(text), persisted=persisted))
    return parts, notes


def table_parts(table: Table, write: str, dbms: str,
                native_enums: set[str]) -> tuple[list[sa.schema.SchemaItem], list[str]]:
    """Check constraints (the model's, and `col IN (...)` for each enumerated column not in `native_enums`)
    and non-unique indexes; a check that is not one condition, or an index of a column the table lacks,
    is left out with a note."""
    parts: list[sa.schema.SchemaItem] = []
    notes: list[str] = []
    columns = table.column_names()
    for n, ck in enumerate(table.checks, 1):
        try:
            text = column_expression(ck.sql, columns, dbms, write, condition=True)
        except ExprProblem as exc:
            label = ck.name if ck.name is not None else f"#{n}"
            notes.append(f"check {label} of table {table.name} left out: {exc}")
            continue
        parts.append(sa.CheckConstraint(sql_text(text), name=ident(ck.name) if ck.name is not None else None))
    for c in table.columns:
        if c.enum is not None and c.name not in native_enums:
            parts.append(sa.CheckConstraint(sa.column(ident(c.name)).in_(c.enum.values)))
    for ix in table.indexes:
        missing = [name for name in ix.columns if name not in columns]
        if missing:
            notes.append(f"index {ix.name} left out: the table has no column {missing[0]}")
            continue
        parts.append(sa.Index(ident(ix.name), *[ident(name) for name in ix.columns]))
    return parts, notes


ACTIONS = {"no_action": None, "restrict": "RESTRICT", "cascade": "CASCADE", "set_null": "SET NULL",
           "set_default": "SET DEFAULT"}
NO_ACTION: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "oracle": (frozenset({"restrict", "set_default"}), frozenset(ACTIONS) - {"no_action"}),
    "mssql": (frozenset({"restrict"}), frozenset({"restrict"})),
    "mysql": (frozenset({"set_default"}), frozenset({"set_default"})),
}
"""The referential actions a dialect lacks (on delete, on update), written as NO ACTION: Oracle has only ON
DELETE CASCADE and SET NULL, SQL Server no RESTRICT, and MySQL's InnoDB refuses SET DEFAULT."""


def _action(fk: ForeignKey, label: str, dialect: str, notes: list[str]) -> tuple[str | None, str | None]:
    lacks_delete, lacks_update = NO_ACTION.get(dialect, (frozenset(), frozenset()))
    actions: list[str | None] = []
    for event, action, lacks in (("DELETE", fk.on_delete, lacks_delete), ("UPDATE", fk.on_update, lacks_update)):
        if action in lacks:
            notes.append(f"{label}: ON {event} {ACTIONS[action]} written as NO ACTION, which {dialect} has instead")
            action = "no_action"
        actions.append(ACTIONS[action])
    return actions[0], actions[1]


def add_foreign_keys(table: Table, sa_table: sa.Table, written: dict[str, tuple[Table, sa.Table]],
                     dialect: str) -> list[str]:
    """Add `table`'s foreign keys to `sa_table`, referencing the tables `written` (by model name) in the
    same DDL; one referencing another table, or columns either table lacks, is left out with a note."""
    notes: list[str] = []
    columns = set(table.column_names())
    for fk in table.foreign_keys:
        label = f"foreign key {fk.name}" if fk.name else f"foreign key ({', '.join(fk.columns)})"
        parent = written.get(fk.references)
        if parent is None:
            notes.append(f"{label} left out: table {fk.references} is not in this DDL")
            continue
        referenced, sa_parent = parent
        missing = [c for c in fk.columns if c not in columns]
        missing += [c for c in fk.referenced_columns if c not in referenced.column_names()]
        if missing or len(fk.columns) != len(fk.referenced_columns):
            why = f"no column {missing[0]}" if missing else "a different number of columns than it references"
            notes.append(f"{label} left out: it names {why}")
            continue
        ondelete, onupdate = _action(fk, label, dialect, notes)
        sa_table.append_constraint(sa.ForeignKeyConstraint(
            [ident(c) for c in fk.columns], [sa_parent.c[c] for c in fk.referenced_columns],
            name=ident(fk.name) if fk.name else None, ondelete=ondelete, onupdate=onupdate))
    return notes


def partition_options(table: Table, dialect: Any) -> tuple[dict[str, Any], list[str]]:
    """`postgresql_partition_by` (`RANGE ("a", "b")`, quoted by the dialect) for a partitioned table on
    PostgreSQL; elsewhere a note that it is written as one table."""
    p = table.partitioning
    if p is None:
        return {}, []
    if dialect.name != "postgresql":
        return {}, [f"table {table.name} written as one table: the model partitions it by {p.method} of "
                    f"{', '.join(p.columns)} ({len(p.partitions)} partitions), as PostgreSQL does"]
    missing = [c for c in p.columns if c not in table.column_names()]
    if missing:
        raise DdlError(f"{table.key}: the table is partitioned by {missing[0]}, which is none of its columns")
    names = ", ".join(dialect.identifier_preparer.quote_identifier(ident(c)) for c in p.columns)
    return {"postgresql_partition_by": f"{p.method.upper()} ({names})"}, []


def partition_statements(table: Table, sa_table: sa.Table, preparer: Any) -> tuple[list[str], list[str]]:
    """`CREATE TABLE p PARTITION OF root <bound>` for each partition of a PostgreSQL table, and notes for
    those left out (a bound that is not one FOR VALUES clause of constants, `engine.ddlexpr`)."""
    statements: list[str] = []
    notes: list[str] = []
    root = preparer.format_table(sa_table)
    for part in table.partitioning.partitions if table.partitioning else []:
        try:
            bound = partition_bound(part.bound)
        except ExprProblem as exc:
            notes.append(f"partition {part.name} of table {table.name} left out: {exc}")
            continue
        name = preparer.format_table(sa.Table(ident(part.name), sa.MetaData(), schema=sa_table.schema))
        statements.append(f"CREATE TABLE {name} PARTITION OF {root} {bound}")
    return statements, notes
