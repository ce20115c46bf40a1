"""TB: one table's own definition: keys and indexes, parents, defaults, names (TB001-TB005), foreign keys
(TB006) and database features: indexes, checks, partitioning, generated, identity and enumerated columns
(TB007). Declared in `catalog.tb`.

They read the table and, for a foreign key, the table it references on the same server: the validator
re-checks a table when a table it references changes (`referenced_keys`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from engine.core.types import TypeFamily
from engine.model.schema import ColumnDef, ForeignKey, Model, Table
from engine.rules.findings import Finding, Location
from engine.rules.hierarchy import Hierarchies, cycle_text
from engine.rules.registry import emits
from engine.sqldefaults import default_problem

INTEGER_TYPES = ("SMALLINT", "INTEGER", "BIGINT", "SERIAL", "SERIAL8")
DECIMAL_TYPES = ("DECIMAL", "NUMERIC", "NUMBER")
# servers whose unique keys on a partitioned table must hold every partition key column
PARTITION_KEY_IN_UNIQUE = ("postgresql", "mysql")
# servers on which a foreign key may reference columns that are not exactly a primary key or unique index
ANY_INDEXED_REFERENCE = ("mysql", "other")  # MySQL: any indexed columns; other: unknown


@emits("TB004")
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


@emits("TB005")
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


@emits("TB001")
def key_columns(table: Table) -> Iterator[Finding]:
    """TB001: the primary key, unique indexes and indexes name real columns."""
    named = _keys_and_indexes(table)
    for what, index, columns in named:
        for column in columns:
            if table.column(column) is None:
                label = f"{what} {index}" if index else what
                yield Finding("TB001", f"{label} names {column!r}, which {table.key} does not have",
                              Location(table=table.key, column=column, index=index))


@emits("TB003")
def column_defaults(model: Model, table: Table) -> Iterator[Finding]:
    """TB003: a default is one constant SQL expression in its server's dialect (DDL can hold nothing else)."""
    server = model.server(table.server)
    dbms = server.dbms if server else "other"
    for column in table.columns:
        problem = default_problem(column, dbms)
        if problem:
            yield Finding("TB003", f"default of {column.name} cannot be used in DDL: {problem}",
                          Location(table=table.key, column=column.name))


@emits("TB002")
def parent_exists(model: Model, table: Table) -> Iterator[Finding]:
    """TB002 (unknown parent); cycles are found over the whole hierarchy (`circular_parents`)."""
    if table.parent and model.table(f"{table.server}.{table.parent}") is None:
        yield Finding("TB002", f"parent {table.parent!r} is not a table on server {table.server}",
                      Location(table=table.key))


def referenced_key(table: Table, fk: ForeignKey) -> str:
    """The model key of the table `fk` references: a table of that name on `table`'s server."""
    return f"{table.server}.{fk.references}"


def referenced_keys(table: Table) -> set[str]:
    """Keys of the tables `table`'s foreign keys reference (known to the model or not)."""
    return {referenced_key(table, fk) for fk in table.foreign_keys}


def fk_label(table: Table, fk: ForeignKey) -> str:
    """`foreign key NAME of s.T`, or by its columns where it has no name."""
    return f"foreign key {fk.name if fk.name else '(' + ', '.join(fk.columns) + ')'} of {table.key}"


@emits("TB006")
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


@emits("TB007")
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


@emits("TB007")
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


@emits("TB007")
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


@emits("TB002")
def circular_parents(model: Model, walk: Hierarchies) -> Iterator[Finding]:
    """TB002 for each table whose chain of parents runs into a cycle (a model-scope rule: the cycle is
    found over the whole hierarchy)."""
    for key in walk.circular:
        yield Finding("TB002", f"table hierarchy is circular: {cycle_text(key, walk.parent_of)}", Location(table=key))
