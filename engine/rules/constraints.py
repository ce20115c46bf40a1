"""Rules on a table's database constraints and column features: foreign keys (TB006) and indexes, checks,
partitioning, generated, identity and enumerated columns (TB007).

They read the table and, for a foreign key, the table it references on the same server: the validator
re-checks a table when a table it references changes (`referenced_keys`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from engine.model.schema import ColumnDef, ForeignKey, Model, Table
from engine.model.types import TypeFamily
from engine.rules.findings import Finding, Location

INTEGER_TYPES = ("SMALLINT", "INTEGER", "BIGINT", "SERIAL", "SERIAL8")
DECIMAL_TYPES = ("DECIMAL", "NUMERIC", "NUMBER")
# servers whose unique keys on a partitioned table must hold every partition key column
PARTITION_KEY_IN_UNIQUE = ("postgresql", "mysql")
# servers on which a foreign key may reference columns that are not exactly a primary key or unique index
ANY_INDEXED_REFERENCE = ("mysql", "other")  # MySQL: any indexed columns; other: unknown


def referenced_key(table: Table, fk: ForeignKey) -> str:
    """The model key of the table `fk` references: a table of that name on `table`'s server."""
    return f"{table.server}.{fk.references}"


def referenced_keys(table: Table) -> set[str]:
    """Keys of the tables `table`'s foreign keys reference (known to the model or not)."""
    return {referenced_key(table, fk) for fk in table.foreign_keys}


def check_constraints(model: Model, table: Table) -> list[Finding]:
    server = model.server(table.server)
    dbms = server.dbms if server else "other"
    return [*foreign_keys(model, table, dbms), *indexes_and_checks(table), *partitioning(table, dbms),
            *column_features(table, dbms)]


def fk_label(table: Table, fk: ForeignKey) -> str:
    """`foreign key NAME of s.T`, or by its columns where it has no name."""
    return f"foreign key {fk.name if fk.name else '(' + ', '.join(fk.columns) + ')'} of {table.key}"


def foreign_keys(model: Model, table: Table, dbms: str) -> Iterator[Finding]:
    """TB006: a foreign key names columns its table has, a table on the same server, columns that table has,
    as many as its own, and (where the DBMS requires it, as PostgreSQL does) exactly the referenced table's
    primary key or one of its unique indexes: DDL refuses anything else."""
    for fk in table.foreign_keys:
        label = fk_label(table, fk)

        def at(column: str | None = None, fk: ForeignKey = fk) -> Location:
            return Location(table=table.key, column=column, index=fk.name)

        for column in fk.columns:
            if table.column(column) is None:
                yield Finding("TB006", f"{label} names {column!r}, which the table does not have", at(column))
        parent = model.table(referenced_key(table, fk))
        if parent is None:
            yield Finding("TB006", f"{label} references {fk.references!r}, which is not a table on server "
                          f"{table.server}", at())
            continue
        missing = [c for c in fk.referenced_columns if parent.column(c) is None]
        for column in missing:
            yield Finding("TB006", f"{label} references {parent.key}.{column}, which {parent.key} does not have",
                          at())
        if len(fk.columns) != len(fk.referenced_columns):
            yield Finding("TB006", f"{label} has {len(fk.columns)} column(s) ({', '.join(fk.columns)}) but "
                          f"references {len(fk.referenced_columns)} ({', '.join(fk.referenced_columns)})", at())
        elif not missing and dbms not in ANY_INDEXED_REFERENCE \
                and set(fk.referenced_columns) not in [set(s) for s in parent.unique_sets()]:
            yield Finding("TB006", f"{label} references ({', '.join(fk.referenced_columns)}) of {parent.key}, "
                          "which is not its primary key or a unique index: the database refuses it", at())


def indexes_and_checks(table: Table) -> Iterator[Finding]:
    """TB007: index names are unique within the table (unique indexes included); a check has a condition.
    (An index naming an unknown or repeated column is TB001 / TB005, as for keys.)"""
    seen: set[str] = set()
    for name in [ux.name for ux in table.unique_indexes] + [ix.name for ix in table.indexes]:
        if name in seen:
            yield Finding("TB007", f"two indexes of {table.key} are named {name}: the database refuses the second",
                          Location(table=table.key, index=name))
        seen.add(name)
    for check in table.checks:
        if not check.sql.strip():
            yield Finding("TB007", f"check {check.name or '(unnamed)'} of {table.key} has an empty condition",
                          Location(table=table.key, index=check.name))


def partitioning(table: Table, dbms: str) -> Iterator[Finding]:
    """TB007: a partitioned table's key names real columns, each once; its partitions have distinct names;
    on PostgreSQL and MySQL its primary key and every unique index hold each partition key column."""
    part = table.partitioning
    if part is None:
        return
    for column in dict.fromkeys(part.columns):
        if table.column(column) is None:
            yield Finding("TB007", f"partition key of {table.key} names {column!r}, which it does not have",
                          Location(table=table.key, column=column))
        elif part.columns.count(column) > 1:
            yield Finding("TB007", f"partition key of {table.key} names {column} more than once",
                          Location(table=table.key, column=column))
    names: set[str] = set()
    for partition in part.partitions:
        if partition.name in names:
            yield Finding("TB007", f"two partitions of {table.key} are named {partition.name}",
                          Location(table=table.key))
        names.add(partition.name)
    if dbms not in PARTITION_KEY_IN_UNIQUE:
        return
    keys: list[tuple[str, str | None, list[str]]] = [("primary key", None, table.primary_key)] \
        if table.primary_key else []
    keys += [("unique index", ux.name, ux.columns) for ux in table.unique_indexes]
    for what, index, columns in keys:
        lacking = [c for c in dict.fromkeys(part.columns) if c not in columns and table.column(c) is not None]
        if lacking:
            label = f"{what} {index}" if index else what
            yield Finding("TB007", f"{label} of partitioned table {table.key} lacks partition key column(s) "
                          f"{', '.join(lacking)}: {dbms} requires every unique key to hold the partition key",
                          Location(table=table.key, column=lacking[0], index=index))


def _identity_fits(column: ColumnDef, dbms: str) -> bool:
    """An identity counts whole numbers: an integer type, or (outside PostgreSQL) a decimal of scale 0."""
    t = column.sql_type
    if t.name in INTEGER_TYPES:
        return True
    return dbms != "postgresql" and t.name in DECIMAL_TYPES and not t.scale


def column_features(table: Table, dbms: str) -> Iterator[Finding]:
    """TB007: a generated column has no default or identity (the database computes it); an identity has no
    default and is on a whole-number column; an enum is on a character column and lists each value once."""
    for column in table.columns:
        at = Location(table=table.key, column=column.name)
        if column.generated is not None:
            also = [what for what, there in (("a default", column.default is not None),
                                             ("an identity", column.identity is not None)) if there]
            if also:
                yield Finding("TB007", f"{column.name} is generated and also has {' and '.join(also)}: a "
                              "generated column's value comes only from its expression", at)
        elif column.identity is not None and column.default is not None:
            yield Finding("TB007", f"{column.name} has an identity and also a default: the database refuses "
                          "both on one column", at)
        if column.identity is not None and not _identity_fits(column, dbms):
            yield Finding("TB007", f"{column.name} is {column.sql_type} but has an identity: identity columns "
                          f"are whole numbers ({', '.join(INTEGER_TYPES[:3])})", at)
        if column.enum is not None:
            label = f"enum {column.enum.name}" if column.enum.name else "enum"
            if column.sql_type.family is not TypeFamily.CHARACTER and column.sql_type.name != "TEXT":
                yield Finding("TB007", f"{column.name} is {column.sql_type} but has an {label}: an enumerated "
                              "column's type is a character type (VARCHAR(n) or TEXT)", at)
            repeated = sorted(v for v, n in Counter(column.enum.values).items() if n > 1)
            if repeated:
                yield Finding("TB007", f"{label} of {column.name} lists {', '.join(map(repr, repeated))} more "
                              "than once", at)
