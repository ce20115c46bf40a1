"""Reflecting a live database's tables into model tables, through SQLAlchemy's inspector.

Columns come with their contract type strings (`engine.dbimport.types`), nullability and server
defaults (parsed by sqlglot, with the casts a catalog adds to a literal taken off, and written in the
server's SQL); tables with their primary keys, unique constraints and unique indexes. Names are kept as
the database stores them (Oracle's upper case, PostgreSQL's lower case). Whatever is not imported
exactly is an `ImportNote`. Tables are read in batches, reporting progress after each.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import sqlalchemy as sa
import sqlglot
from pydantic import ValidationError
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Dialect
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from engine.authoring.errors import AuthoringError
from engine.authoring.schema import checked_name
from engine.dbimport.catalogs import PgFacts, pg_base_type, pg_facts, sqlite_shadow_tables
from engine.dbimport.connect import DBMS_BY_DIALECT, ImportFailure
from engine.dbimport.sqliteunique import sqlite_unique_constraints
from engine.dbimport.types import MappedType, contract_type
from engine.model.io import one_line
from engine.model.schema import ColumnDef, Table, UniqueIndex
from engine.model.types import parse_type
from engine.sqldefaults import (
    SQLGLOT_BY_DBMS,
    SQLGLOT_BY_SQLALCHEMY,
    DefaultProblem,
    ParsedDefault,
    parse_default,
    render_default,
)

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


def printable(text: str) -> str:
    """`text` with each character that is not printable (a line break, a tab) escaped: names from a database
    go into one-line messages."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


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
            raise ImportFailure(f"schema {schema!r} is ambiguous: the database has {_some(sorted(matches))} "
                                "(name one exactly)")
        if not matches:
            raise ImportFailure(f"no schema {schema!r} in the database (schemas: {_some(names)})")
        schema = matches[0]
    dialect = connection.dialect
    return str(dialect.normalize_name(schema)) if getattr(dialect, "requires_name_normalize", False) else schema


def list_tables(connection: Connection, schema: str | None = None) -> list[str]:
    """The names of a schema's tables (the default schema's when None), as the database stores them."""
    inspector = sa.inspect(connection)
    names = inspector.get_table_names(schema=_sa_schema(connection, schema))
    return sorted(_stored(connection.dialect, n) for n in names)


def _some(names: Sequence[str], limit: int = 12) -> str:
    shown = printable(", ".join(names[:limit]))
    return (shown + f", ... ({len(names)} in all)") if len(names) > limit else (shown or "none")


def _pick(available: dict[str, str], wanted: Sequence[str] | None, where: str) -> list[str]:
    """Stored names of the tables asked for (all when None), matching case-insensitively when unambiguous."""
    if wanted is None:
        return sorted(available)
    picked: list[str] = []
    for name in wanted:
        if name in available:
            picked.append(name)
            continue
        matches = [n for n in available if n.lower() == name.lower()]
        if len(matches) > 1:
            raise ImportFailure(f"table {name!r} is ambiguous: {where} has {_some(sorted(matches))} "
                                "(name one exactly)")
        if not matches:
            raise ImportFailure(f"no table {name!r} in {where} (tables: {_some(sorted(available))})")
        picked.append(matches[0])
    return list(dict.fromkeys(picked))


def reflect_tables(connection: Connection, server: str, dbms: str | None = None, schema: str | None = None,
                   tables: Sequence[str] | None = None, progress: Progress | None = None) -> ImportedSchema:
    """Model tables for the tables of `schema` (default: the connection's), all or those named.

    `dbms` defaults to the dialect's; defaults are written in that DBMS's SQL. Raises `ImportFailure`
    for a server id Add server would refuse (`checked_server_id`), an unknown schema or table, or an empty
    schema.
    """
    dialect = connection.dialect
    result = ImportedSchema(checked_server_id(server), dbms or DBMS_BY_DIALECT.get(dialect.name, "other"))
    sa_schema = _sa_schema(connection, schema)
    where = f"schema {schema!r}" if schema else "the default schema"
    inspector = sa.inspect(connection)
    available = {_stored(dialect, n): n for n in inspector.get_table_names(schema=sa_schema)}
    if not available:
        raise ImportFailure(f"{where} has no tables")
    picked = _pick(available, tables, where)
    if dialect.name == "sqlite":  # a virtual table's internals (FTS5's ft_data...): never tables of the model
        shadows = sqlite_shadow_tables(connection, sa_schema)
        for name in [n for n in picked if available[n] in shadows]:
            picked.remove(name)
            result.notes.append(ImportNote(f"{result.server}.{name}", None, "a shadow table, where virtual table "
                                           f"{shadows[available[name]]} keeps its data; not imported"))
    report = progress or (lambda _d, _t, _w: None)
    report(0, len(picked), "")
    reader = _TableReader(dialect, result, SQLGLOT_BY_SQLALCHEMY.get(dialect.name, "postgres"),
                          SQLGLOT_BY_DBMS.get(result.dbms, "postgres"))
    for start in range(0, len(picked), BATCH):
        batch = picked[start:start + BATCH]
        names = [available[n] for n in batch]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", sa.exc.SAWarning)
            columns = inspector.get_multi_columns(schema=sa_schema, filter_names=names)
            keys = inspector.get_multi_pk_constraint(schema=sa_schema, filter_names=names)
            uniques = inspector.get_multi_unique_constraints(schema=sa_schema, filter_names=names)
            indexes = inspector.get_multi_indexes(schema=sa_schema, filter_names=names)
        reader.unknown = _unrecognised(caught)
        reader.pg = pg_facts(connection, sa_schema, names) if dialect.name == "postgresql" else None
        for stored, sa_name in zip(batch, names, strict=True):
            at = (sa_schema, sa_name)
            reader.declared = _sqlite_declared(connection, sa_schema, sa_name) if dialect.name == "sqlite" else {}
            table_uniques: list[Any] = list(uniques.get(at, []))
            if dialect.name == "sqlite":  # inline UNIQUE constraints too, which the inspector leaves out
                table_uniques = sqlite_unique_constraints(connection, sa_schema, sa_name, table_uniques)
            try:
                result.tables.append(reader.table(stored, columns.get(at, []), dict(keys.get(at) or {}),
                                                  table_uniques, indexes.get(at, [])))
            except ValidationError as exc:  # a name no model can hold (an empty one): the rest still come
                first = exc.errors()[0]
                field = ".".join(str(part) for part in first["loc"])
                reader.note(stored, None, f"not imported: {field}: {first['msg']}")
        said = dict.fromkeys(str(w.message).splitlines()[0] for w in caught)  # a dialect may warn twice
        result.notes += [ImportNote(where, None, m) for m in said if not UNRECOGNISED.match(m)]
        report(min(start + BATCH, len(picked)), len(picked), batch[-1])
    return result


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


def _sqlite_declared(connection: Connection, schema: str | None, table: str) -> dict[str, str]:
    """Each column's type as its CREATE TABLE declares it: SQLite keeps the text and types values by an
    affinity read off it (`VARBINARY(16)` and `UUID` have NUMERIC's, `DOUBLE PRECISION` REAL's), and
    SQLAlchemy reflects the affinity, not the declared type."""
    prefix = f"{_quoted(schema)}." if schema else ""
    rows = connection.exec_driver_sql(f"PRAGMA {prefix}table_xinfo({_quoted(table)})").fetchall()
    return {str(row[1]): str(row[2] or "") for row in rows}


def _free_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`...: a generated index name that no other index of the table has."""
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


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


@dataclass
class _TableReader:
    dialect: Dialect
    result: ImportedSchema
    read: str  # sqlglot dialect of the catalog's SQL
    write: str  # sqlglot dialect of the server's SQL in the model
    unknown: dict[str, set[str]] = field(default_factory=dict)  # this batch's unrecognised types, by column
    declared: dict[str, str] = field(default_factory=dict)  # SQLite: the table's declared types, by column
    pg: PgFacts | None = None  # PostgreSQL: this batch's domains' sized base types and serial columns

    def note(self, table: str, column: str | None, message: str) -> None:
        self.result.notes.append(ImportNote(f"{self.result.server}.{table}", column, message))

    def name(self, name: str) -> str:
        return _stored(self.dialect, name)

    def table(self, name: str, columns: list[Any], pk: dict[str, Any], uniques: list[Any],
              indexes: list[Any]) -> Table:
        cols = [self.column(name, c) for c in columns]
        unique_indexes: list[UniqueIndex] = []
        taken = {self.name(n) for n in (u.get("name") for u in [*uniques, *indexes]) if n}
        for uc in uniques:
            uname = self.name(uc["name"]) if uc.get("name") else _free_name(
                f"UQ_{name}_{'_'.join(self.name(c) for c in uc['column_names'])}", taken)
            unique_indexes.append(UniqueIndex(name=uname, columns=[self.name(c) for c in uc["column_names"]]))
            taken.add(uname)
            self._nulls_not_distinct(name, f"unique constraint {uname}", uc)
        constraints = {u.name for u in unique_indexes}
        for ix in indexes:
            if not ix.get("unique") or ix.get("duplicates_constraint") or self.name(ix["name"]) in constraints:
                continue
            iname = self.name(ix["name"])
            if ix.get("expressions") or any(c is None for c in ix["column_names"]):
                self.note(name, None, f"unique index {iname} is on an expression; not imported")
                continue
            if any(k.endswith("_where") and v is not None for k, v in (ix.get("dialect_options") or {}).items()):
                self.note(name, None, f"unique index {iname} is partial (WHERE ...); imported on all rows")
            self._nulls_not_distinct(name, f"unique index {iname}", ix)
            unique_indexes.append(UniqueIndex(name=iname, columns=[self.name(c) for c in ix["column_names"]]))
        return Table(server=self.result.server, name=name, columns=cols,
                     primary_key=[self.name(c) for c in pk.get("constrained_columns") or []],
                     unique_indexes=unique_indexes)

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
        if info.get("computed") is not None:
            self.note(table, name, "generated column (GENERATED ALWAYS AS ...) imported as a plain column, "
                                   "without its expression")
        type_, raw = mapped.type, info.get("default")
        serial = {"INTEGER": "SERIAL", "BIGINT": "SERIAL8"}.get(type_)
        sequenced = info.get("autoincrement") is True and isinstance(raw, str) and raw.lower().startswith("nextval(")
        owned = self.pg is None or (table, info["name"]) in self.pg.own_sequence
        if info.get("identity") and serial:
            self.note(table, name, f"identity column imported as {serial}")
            type_, raw = serial, None
        elif sequenced and not owned:  # numbered from another column's sequence: no serial of its own
            self.note(table, name, f"default {raw} takes numbers from a sequence the column does not own; "
                                   f"imported as {type_} without that default")
            raw = None
        elif serial and sequenced:
            type_, raw = serial, None  # PostgreSQL's serial: an integer whose default is its own sequence
        elif info.get("identity") or sequenced:
            # smallserial or a smallint identity: the contract has no 2-byte serial, and a default naming the
            # database's own sequence would make DDL that fails on any other database
            self.note(table, name, f"{'identity column' if info.get('identity') else 'serial column'} of type "
                                   f"{type_}: the contract has no serial of that size; imported as {type_} "
                                   "without its sequence")
            raw = None
        default = self.default(table, name, raw, parse_type(type_).is_numeric) if raw is not None else None
        return ColumnDef(name=name, type=type_, nullable=bool(info.get("nullable", True)), default=default)

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
        """The catalog's default as one expression in the server's SQL, the literal's own cast taken off."""
        tree: exp.Expression | None
        try:
            tree = cast(exp.Expression, sqlglot.parse_one(raw, read=self.read, error_level=ErrorLevel.RAISE))
        except SqlglotError:
            tree = None
        if tree is not None:
            tree = _bare_literal(tree, numeric)
            try:
                text = render_default(ParsedDefault(tree), self.write)
                parse_default(text, self.result.dbms)
                return text
            except DefaultProblem:
                pass
        self.note(table, column, f"default {raw!r} is not one constant SQL expression; kept as written (TB003)")
        return raw


def _bare_literal(tree: exp.Expression, numeric: bool) -> exp.Expression:
    """`('new'::character varying)` -> `'new'`; `'-1'::integer` -> `-1`: the column's type says the rest."""
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if isinstance(tree, exp.Cast) and isinstance(tree.this, (exp.Literal, exp.Neg, exp.Paren)):
        inner = tree.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if numeric and isinstance(inner, exp.Literal) and inner.is_string and _is_number(inner.this):
            text = inner.this.strip()
            number = exp.Literal.number(text.lstrip("+-"))
            inner = exp.Neg(this=number) if text.startswith("-") else number
        if isinstance(inner, (exp.Literal, exp.Neg)):
            return inner
    return tree


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")

