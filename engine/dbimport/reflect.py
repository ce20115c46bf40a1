"""Reflecting a live database's tables into model tables, through SQLAlchemy's inspector.

Columns come with their contract type strings (`engine.dbimport.types`), nullability and server
defaults (parsed by sqlglot, with the casts a catalog adds to a literal taken off, and written in the
server's SQL), comments, identity or serial sequences, generated expressions and enumerated values; tables
with their schema, comment, primary keys, unique constraints and indexes, other indexes, foreign keys, check
constraints (`engine.dbimport.constraints`) and PostgreSQL partitioning (`engine.dbimport.pgpartitions`).
Views and partitions are no tables of the model (`engine.dbimport.relations`). Names are kept as the
database stores them (Oracle's upper case, PostgreSQL's lower case). Whatever is not imported exactly is an
`ImportNote`, said once. Tables are read in batches, reporting progress after each.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from pydantic import ValidationError
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Dialect

from engine.authoring.errors import AuthoringError
from engine.authoring.schema import checked_name
from engine.core.types import parse_type
from engine.dbimport import constraints
from engine.dbimport.catalogs import PgFacts, pg_base_type, pg_facts, sqlite_shadow_tables
from engine.dbimport.connect import DBMS_BY_DIALECT, ImportFailure
from engine.dbimport.defaults import catalog_default
from engine.dbimport.pgpartitions import PgPartitioning, pg_partitioning
from engine.dbimport.relations import pick, read_relations, some
from engine.dbimport.relations import printable as printable
from engine.dbimport.sqlitetable import sqlite_declared, sqlite_declared_type, sqlite_foreign_keys, sqlite_generated
from engine.dbimport.sqliteunique import sqlite_unique_constraints
from engine.dbimport.types import MappedType, contract_type
from engine.model.io import one_line
from engine.model.schema import ColumnDef, Generated, Identity, Partition, Partitioning, Table, UniqueIndex
from engine.sqldefaults import SQLGLOT_BY_DBMS, SQLGLOT_BY_SQLALCHEMY

Progress = Callable[[int, int, str], None]
"""progress(done, total, what): called after each batch of tables (and once at the start)."""

BATCH = 50


@dataclass(frozen=True)
class ImportNote:
    """Something the import could not carry over exactly: a type, a default, an index."""

    table: str
    column: str | None
    message: str

    def __str__(self) -> str:
        """One line, whatever the names hold: a line break or tab in a name is shown escaped (`\\n`), so a
        name can neither split a note nor pass for another line."""
        return printable(f"{self.table}{'.' + self.column if self.column else ''}: {self.message}")


@dataclass
class ImportedSchema:
    """What a reflection found: model tables (of server `server`) and notes."""

    server: str
    dbms: str
    tables: list[Table] = field(default_factory=list)
    notes: list[ImportNote] = field(default_factory=list)


def checked_server_id(server: str) -> str:
    """`server` as Add server takes a server id (stripped), or an `ImportFailure` with Add server's reason:
    an id with a dot or a space (a tab, a line break) would make table keys (`server.TABLE`) ambiguous. Nor may
    it hold a character the model's messages escape (`engine.model.io.one_line`: a control, a bidirectional
    override such as U+202E that shows the rest of a line reversed) or any other unprintable one."""
    try:
        name = checked_name(server, "server")
    except AuthoringError as exc:
        raise ImportFailure(str(exc)) from None
    if one_line(name) != name or not name.isprintable():  # what the model's messages escape, never echoed raw
        raise ImportFailure(f"a server name cannot hold a control or bidirectional character: {printable(name)}")
    return name


def _stored(dialect: Dialect, name: str) -> str:
    """The name as the database stores it (SQLAlchemy lower-cases Oracle's and DB2's case-insensitive names)."""
    if getattr(dialect, "requires_name_normalize", False):
        return str(dialect.denormalize_name(name))
    return name


def list_schemas(connection: Connection) -> tuple[str | None, list[str]]:
    """(the default schema, every schema name)."""
    inspector = sa.inspect(connection)
    default = inspector.default_schema_name
    return (_stored(connection.dialect, default) if default else None,
            [_stored(connection.dialect, s) for s in inspector.get_schema_names()])


def _sa_schema(connection: Connection, schema: str | None) -> str | None:
    """The schema as SQLAlchemy names it, checked to exist; raises `ImportFailure`."""
    if schema is None:
        return None
    default, names = list_schemas(connection)
    if schema not in names:
        matches = [n for n in names if n.lower() == schema.lower()]
        if len(matches) > 1:
            raise ImportFailure(f"schema {schema!r} is ambiguous: the database has {some(sorted(matches))} "
                                "(name one exactly)")
        if not matches:
            raise ImportFailure(f"no schema {schema!r} in the database (schemas: {some(names)})")
        schema = matches[0]
    dialect = connection.dialect
    return str(dialect.normalize_name(schema)) if getattr(dialect, "requires_name_normalize", False) else schema


def list_tables(connection: Connection, schema: str | None = None) -> list[str]:
    """The names of a schema's tables (the default schema's when None), as the database stores them: not its
    views, nor the partitions of its partitioned tables."""
    dialect = connection.dialect
    relations = read_relations(connection, sa.inspect(connection), _sa_schema(connection, schema),
                               lambda n: _stored(dialect, n))
    return sorted(relations.tables)


def reflect_tables(connection: Connection, server: str, dbms: str | None = None, schema: str | None = None,
                   tables: Sequence[str] | None = None, progress: Progress | None = None) -> ImportedSchema:
    """Model tables for the tables of `schema` (default: the connection's), all or those named.

    `dbms` defaults to the dialect's; defaults are written in that DBMS's SQL. Raises `ImportFailure`
    for a server id Add server would refuse (`checked_server_id`), an unknown schema or table (a view or a
    partition asked for is said to be one), or a schema without tables.
    """
    dialect = connection.dialect
    result = ImportedSchema(checked_server_id(server), dbms or DBMS_BY_DIALECT.get(dialect.name, "other"))
    sa_schema = _sa_schema(connection, schema)
    where = f"schema {schema!r}" if schema else "the default schema"
    inspector = sa.inspect(connection)
    relations = read_relations(connection, inspector, sa_schema, lambda n: _stored(dialect, n))
    available = relations.tables
    if not available:
        others = [f"views: {some(relations.views)}"] if relations.views else []
        if relations.partitions:
            others.append(f"partitions of other schemas' tables: {some(sorted(relations.partitions))}")
        raise ImportFailure(f"{where} has no tables" + (f" ({'; '.join(others)})" if others else ""))
    picked = pick(relations, tables, where)
    if tables is None and relations.views:
        result.notes.append(ImportNote(where, None, f"{len(relations.views)} view(s) not imported (views are not "
                                                    f"tables): {some(relations.views)}"))
    if dialect.name == "sqlite":  # a virtual table's internals (FTS5's ft_data...): never tables of the model
        shadows = sqlite_shadow_tables(connection, sa_schema)
        for name in [n for n in picked if available[n] in shadows]:
            picked.remove(name)
            result.notes.append(ImportNote(f"{result.server}.{name}", None, "a shadow table, where virtual table "
                                           f"{shadows[available[name]]} keeps its data; not imported"))
    report = progress or (lambda _d, _t, _w: None)
    report(0, len(picked), "")
    reader = _TableReader(dialect, result, SQLGLOT_BY_SQLALCHEMY.get(dialect.name, "postgres"),
                          SQLGLOT_BY_DBMS.get(result.dbms, "postgres"), readable=set(picked),
                          sa_schema=sa_schema if sa_schema is not None else inspector.default_schema_name)
    if dialect.name != "sqlite":  # the schema read, as the database names it; SQLite's are files, not schemas
        named = sa_schema if sa_schema is not None else inspector.default_schema_name
        reader.schema = _stored(dialect, named) if named else None
    for start in range(0, len(picked), BATCH):
        batch = picked[start:start + BATCH]
        names = [available[n] for n in batch]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", sa.exc.SAWarning)
            found = _read_batch(inspector, sa_schema, names)
        reader.unknown = _unrecognised(caught)
        reader.pg = pg = pg_facts(connection, sa_schema, names) if dialect.name == "postgresql" else None
        if pg is not None:  # the catalog's referenced schema, not a guess from the search path
            _referenced_as_the_catalog_says(found, pg)
        partitioned = pg_partitioning(connection, sa_schema, names) if dialect.name == "postgresql" else {}
        for stored, sa_name in zip(batch, names, strict=True):
            reflected = found[sa_name]
            reader.declared, reader.generated = {}, None
            if dialect.name == "sqlite":  # what the inspector misreads or leaves out of SQLite's CREATE TABLE
                reader.declared = sqlite_declared(connection, sa_schema, sa_name)
                reader.generated = sqlite_generated(connection, sa_schema, sa_name)
                reflected.uniques = sqlite_unique_constraints(connection, sa_schema, sa_name, reflected.uniques)
                reflected.foreign_keys = sqlite_foreign_keys(connection, sa_schema, sa_name, reflected.foreign_keys)
            try:
                result.tables.append(reader.table(stored, reflected, partitioned.get(sa_name)))
            except ValidationError as exc:  # a name no model can hold (an empty one): the rest still come
                first = exc.errors()[0]
                field = ".".join(str(part) for part in first["loc"])
                reader.note(stored, None, f"not imported: {field}: {first['msg']}")
        said = dict.fromkeys(str(w.message).splitlines()[0] for w in caught)  # a dialect may warn twice
        result.notes += [ImportNote(where, None, m) for m in said if not UNRECOGNISED.match(m)]
        report(min(start + BATCH, len(picked)), len(picked), batch[-1])
    result.notes = list(dict.fromkeys(result.notes))  # each thing said once
    return result


def _referenced_as_the_catalog_says(found: dict[str, _Reflected], pg: PgFacts) -> None:
    """Each foreign key's referenced schema and table from PostgreSQL's catalog: the inspector leaves the schema
    out when it is on the search path (a table of schema sales referencing public.customer reads `customer`)."""
    for sa_name, reflected in found.items():
        for fk in reflected.foreign_keys:
            fk["referred_schema"], fk["referred_table"] = pg.references.get(
                (sa_name, fk.get("name") or ""), (fk.get("referred_schema"), fk["referred_table"]))


@dataclass
class _Reflected:
    """What the inspector says of one table."""

    columns: list[Any]
    pk: dict[str, Any]
    uniques: list[Any]
    indexes: list[Any]
    foreign_keys: list[Any]
    checks: list[Any]
    comment: str | None


def _read_batch(inspector: sa.Inspector, schema: str | None, names: list[str]) -> dict[str, _Reflected]:
    """The inspector's reflection of the named tables, by SQLAlchemy's name (what a dialect cannot reflect,
    such as SQLite's table comments, is empty)."""
    def multi(getter: Callable[..., dict[tuple[str | None, str], Any]]) -> dict[tuple[str | None, str], Any]:
        try:
            return getter(schema=schema, filter_names=names)
        except NotImplementedError:
            return {}

    columns, keys = multi(inspector.get_multi_columns), multi(inspector.get_multi_pk_constraint)
    uniques, indexes = multi(inspector.get_multi_unique_constraints), multi(inspector.get_multi_indexes)
    fks, checks = multi(inspector.get_multi_foreign_keys), multi(inspector.get_multi_check_constraints)
    comments = multi(inspector.get_multi_table_comment)
    return {n: _Reflected(list(columns.get((schema, n), [])), dict(keys.get((schema, n)) or {}),
                          list(uniques.get((schema, n), [])), list(indexes.get((schema, n), [])),
                          list(fks.get((schema, n), [])), list(checks.get((schema, n), [])),
                          (comments.get((schema, n)) or {}).get("text") or None) for n in names}


UNRECOGNISED = re.compile(r"Did not recognize type '(?P<type>.*)' of column '(?P<column>.*)'$")
"""SQLAlchemy's warning for a type it does not know (the column then has NullType): the only place that
names the database's type."""


def _unrecognised(caught: Sequence[warnings.WarningMessage]) -> dict[str, set[str]]:
    """Column name -> the type names SQLAlchemy did not recognise for a column of that name (in one batch)."""
    found: dict[str, set[str]] = {}
    for w in caught:
        match = UNRECOGNISED.match(str(w.message).splitlines()[0])
        if match:
            found.setdefault(match["column"], set()).add(match["type"])
    return found


def _free_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`...: a generated index name that no other index of the table has."""
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass
class _TableReader:
    dialect: Dialect
    result: ImportedSchema
    read: str  # sqlglot dialect of the catalog's SQL
    write: str  # sqlglot dialect of the server's SQL in the model
    unknown: dict[str, set[str]] = field(default_factory=dict)  # this batch's unrecognised types, by column
    declared: dict[str, str] = field(default_factory=dict)  # SQLite: the table's declared types, by column
    pg: PgFacts | None = None  # PostgreSQL: this batch's domains' sized base types and serial columns
    sa_schema: str | None = None  # the schema read, as SQLAlchemy names it (the default one's name, if known)
    readable: set[str] = field(default_factory=set)  # the tables this import reads: foreign keys may name them
    schema: str | None = None  # the schema read, as the database names it, for each table's `db_schema`
    generated: dict[str, Generated] | None = None  # SQLite: the table's generated columns, by lower-case name

    def note(self, table: str, column: str | None, message: str) -> None:
        self.result.notes.append(ImportNote(f"{self.result.server}.{table}", column, message))

    def name(self, name: str) -> str:
        return _stored(self.dialect, name)

    def table(self, name: str, reflected: _Reflected, partitioning: PgPartitioning | None) -> Table:
        cols = [self.column(name, c) for c in reflected.columns]
        uniques, indexes = reflected.uniques, reflected.indexes
        unique_indexes: list[UniqueIndex] = []
        taken = {self.name(n) for n in (u.get("name") for u in [*uniques, *indexes]) if n}
        for uc in uniques:
            uname = self.name(uc["name"]) if uc.get("name") else _free_name(
                f"UQ_{name}_{'_'.join(self.name(c) for c in uc['column_names'])}", taken)
            unique_indexes.append(UniqueIndex(name=uname, columns=[self.name(c) for c in uc["column_names"]]))
            taken.add(uname)
            self._nulls_not_distinct(name, f"unique constraint {uname}", uc)
        constraint_names = {u.name for u in unique_indexes}
        for ix in indexes:
            if not ix.get("unique") or ix.get("duplicates_constraint") or self.name(ix["name"]) in constraint_names:
                continue
            iname = self.name(ix["name"])
            if ix.get("expressions") or any(c is None for c in ix["column_names"]):
                self.note(name, None, f"unique index {iname} is on an expression; not imported")
                continue
            if any(k.endswith("_where") and v is not None for k, v in (ix.get("dialect_options") or {}).items()):
                self.note(name, None, f"unique index {iname} is partial (WHERE ...); imported on all rows")
            self._nulls_not_distinct(name, f"unique index {iname}", ix)
            unique_indexes.append(UniqueIndex(name=iname, columns=[self.name(c) for c in ix["column_names"]]))

        def said(message: str) -> None:
            self.note(name, None, message)

        return Table(server=self.result.server, name=name, columns=cols,
                     primary_key=[self.name(c) for c in reflected.pk.get("constrained_columns") or []],
                     unique_indexes=unique_indexes, db_schema=self.schema, comment=reflected.comment,
                     indexes=constraints.indexes(indexes, self.name, said),
                     foreign_keys=constraints.foreign_keys(reflected.foreign_keys, self.sa_schema, self.readable,
                                                           self.name, said),
                     checks=constraints.checks(reflected.checks, self.name, said),
                     partitioning=self._partitioning(name, partitioning) if partitioning is not None else None)

    def _partitioning(self, table: str, found: PgPartitioning) -> Partitioning | None:
        """The model's partitioning of a partitioned table: its key's columns and its partitions, each thing the
        model cannot hold said once for the table (never once per partition)."""
        if found.columns is None:
            self.note(table, None, f"partitioned by an expression ({found.key}); imported without its partitioning "
                                   f"({len(found.partitions)} partition(s))")
            return None
        if found.subpartitioned:
            self.note(table, None, f"partition(s) {some(found.subpartitioned)} are partitioned again; their own "
                                   "partitions are not kept")
        if found.elsewhere:
            self.note(table, None, f"partition(s) {some(found.elsewhere)} live in another schema; imported by name")
        return Partitioning(method=found.method, columns=[self.name(c) for c in found.columns],
                            partitions=[Partition(name=n, bound=b) for n, b in found.partitions])

    def _nulls_not_distinct(self, table: str, what: str, reflected: dict[str, Any]) -> None:
        """PostgreSQL 15's NULLS NOT DISTINCT lets one row only have NULL there; the model's unique index lets
        many (the standard): a difference in what the database accepts, so it is said."""
        if any(k.endswith("_nulls_not_distinct") and v for k, v in (reflected.get("dialect_options") or {}).items()):
            self.note(table, None, f"{what} is NULLS NOT DISTINCT; imported as a plain unique index (NULLs distinct)")

    def column(self, table: str, info: dict[str, Any]) -> ColumnDef:
        name = self.name(info["name"])
        declared = self.declared.get(info["name"], "").strip()
        exact = sqlite_declared_type(declared) if declared else None
        if exact is not None:
            mapped = exact
        elif isinstance(info["type"], sa.types.NullType) and "BLOB" in declared.upper():
            mapped = MappedType("BLOB", f"{declared} is no contract type; imported as BLOB (SQLite's BLOB affinity)")
        elif isinstance(info["type"], sa.types.NullType):
            mapped = MappedType("TEXT", f"{self._unknown(info['name'])}; imported as TEXT")
        else:
            mapped = contract_type(self._sized_domain(table, info), self.dialect)
            if declared and mapped.note is None:  # what SQLite's affinity made of a type the contract does
                mapped = MappedType(mapped.type, f"{declared} is no contract type: imported as {mapped.type} "
                                                 "(SQLite's type affinity)")  # not have: never silently
        if mapped.note:
            self.note(table, name, mapped.note)
        type_, raw = mapped.type, info.get("default")
        serial = {"INTEGER": "SERIAL", "BIGINT": "SERIAL8"}.get(type_)
        sequenced = info.get("autoincrement") is True and isinstance(raw, str) and raw.lower().startswith("nextval(")
        owned = self.pg is None or (table, info["name"]) in self.pg.own_sequence
        identity: Identity | None = None
        if sequenced and not owned and not info.get("identity"):  # numbered from another column's sequence
            self.note(table, name, f"default {raw} takes numbers from a sequence the column does not own; "
                                   f"imported as {type_} without that default")
            raw = None
        elif (info.get("identity") or sequenced) and type_ not in ("SMALLINT", "INTEGER", "BIGINT"):
            self.note(table, name, f"{'identity' if info.get('identity') else 'serial'} column of type {type_}: "
                                   f"imported as {type_} without its sequence")
            raw = None
        elif info.get("identity"):  # an identity column: SERIAL (as the rules know a numbered key), its settings kept
            type_, raw = serial or type_, None
            identity = self._identity(table, name, info["identity"])
        elif sequenced:  # PostgreSQL's serial: an integer whose default is its own sequence (never that default:
            # it names this database's sequence). A 2-byte one has no SERIAL type: SMALLINT with its sequence.
            start, step = self.pg.own_sequence[(table, info["name"])] if self.pg is not None else (1, 1)
            identity = Identity(start=start, increment=step) if (start, step) != (1, 1) or not serial else None
            type_, raw = serial or type_, None
        default = self.default(table, name, raw, parse_type(type_).is_numeric) if raw is not None else None
        return ColumnDef(name=name, type=type_, nullable=bool(info.get("nullable", True)), default=default,
                         generated=self._generated(table, name, info.get("computed")), identity=identity,
                         enum=mapped.enum, comment=info.get("comment") or None)

    def _identity(self, table: str, column: str, found: dict[str, Any]) -> Identity:
        """An identity column's settings; what the model does not keep of them (CYCLE) is said."""
        if found.get("cycle"):
            self.note(table, column, "identity column CYCLEs; imported without CYCLE")
        return Identity(always=bool(found.get("always", False)), start=int(found.get("start") or 1),
                        increment=int(found.get("increment") or 1))

    def _generated(self, table: str, column: str, computed: dict[str, Any] | None) -> Generated | None:
        """A generated column's expression in the server's SQL, stored or virtual. SQLite's comes from its
        CREATE TABLE text (the inspector misreads it); one that cannot be read is a plain column, said so."""
        if self.generated is not None:
            return self.generated.get(column.lower())
        if computed is None:
            return None
        text = constraints.outer_parens_off(str(computed.get("sqltext") or ""))
        if text and self.dialect.name != "sqlite":
            return Generated(expression=text, stored=computed.get("persisted") is not False)
        self.note(table, column, "generated column (GENERATED ALWAYS AS ...) whose expression could not be read; "
                                 "imported as a plain column")
        return None

    def _sized_domain(self, table: str, info: dict[str, Any]) -> Any:
        """The reflected type, a PostgreSQL domain given its base type with its size from the catalog (the
        inspector drops it: a domain over varchar(200) had come in as TEXT, said to have no length)."""
        text = self.pg.domain_bases.get((table, info["name"])) if self.pg is not None else None
        base = pg_base_type(self.dialect, text) if text is not None else None
        if base is None or not hasattr(info["type"], "data_type"):
            return info["type"]
        return postgresql.DOMAIN(info["type"].name, base, schema=getattr(info["type"], "schema", None))

    def _unknown(self, column: str) -> str:
        """What is known of a type SQLAlchemy did not recognise: its name from the warning, if only one
        column of that name had one in the batch; SQLite's column without a declared type says so."""
        names = sorted(self.unknown.get(column, ()))
        if len(names) == 1:
            return f"{names[0]} is a type SQLAlchemy does not know"
        if names:
            return f"the type (one of {', '.join(names)}) is one SQLAlchemy does not know"
        if self.dialect.name == "sqlite":
            return "the column has no declared type"
        return "the type is one SQLAlchemy does not know"

    def default(self, table: str, column: str, raw: str, numeric: bool) -> str:
        """The catalog's default as one expression in the server's SQL (`catalog_default`), else as written, said."""
        text = catalog_default(raw, self.read, self.write, self.result.dbms, numeric)
        if text is None:
            self.note(table, column, f"default {raw!r} is not one constant SQL expression; kept as written (TB003)")
        return raw if text is None else text
