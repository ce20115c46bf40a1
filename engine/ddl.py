"""Target DDL, built by SQLAlchemy with quoting it controls (`mapwright export --to ddl`).

Nothing from a model is pasted into SQL as text:

- table, column and constraint names are always quoted identifiers (the name in the model is the
  identifier, exactly), escaped by the dialect's own identifier preparer;
- a column `default` is SQL by the contract, so it goes through `engine.sqldefaults`: parsed as exactly
  one constant expression whose value its column can hold (`default_problem`, finding TB003 in validation),
  rendered for the target dialect and checked to parse back the same; anything else is left out with a
  comment (an `INTEGER DEFAULT 99999999999999999999999` made a table that refuses every insert). DDL for
  another DBMS than the server's translates only what has an exact equivalent there (`export_default`):
  `N'x'` is `'x'` for SQLite, SQLite's `X'00'` is `'\\x00'::bytea` for PostgreSQL, and `USER` is left out
  for SQLite;
- names in comments are flattened to one printable line, so a comment cannot be broken out of.

Each target server's DDL is written in its own dialect (from its DBMS), one section per server, unless
one dialect is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import mssql, mysql, postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.engine.default import DefaultDialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.schema import CreateTable
from sqlalchemy.sql.compiler import GenericTypeCompiler
from sqlglot import exp

from engine.core.types import SqlType, TypeFamily
from engine.ddlparts import DdlError as DdlError
from engine.ddlparts import column_parts, partition_options, partition_statements, table_parts
from engine.ddlparts import comment as comment
from engine.ddlparts import ident as _ident
from engine.ddlserver import server_ddl
from engine.exportdefault import export_default
from engine.model.schema import Model, Table
from engine.sqldefaults import (
    SQLGLOT_BY_DBMS,
    SQLGLOT_BY_SQLALCHEMY,
    DefaultProblem,
    ParsedDefault,
    default_problem,
    parse_default,
    render_default,
)

# --- types -----------------------------------------------------------------------------------------


class Serial(sa.Integer):
    """The model's SERIAL: PostgreSQL's own `SERIAL` wherever the column is, not only where SQLAlchemy would
    choose one (a lone integer primary key): elsewhere an INTEGER would lose the column's sequence, and an
    import of the DDL would no longer give the model's table. Other dialects write their integer."""

    __visit_name__ = "mapwright_serial"


class Serial8(sa.BigInteger):
    """The model's SERIAL8: PostgreSQL's `BIGSERIAL` wherever the column is (see `Serial`)."""

    __visit_name__ = "mapwright_serial8"


@compiles(Serial)
def _integer(type_: Serial, compiler: Any, **kw: Any) -> str:
    return str(compiler.process(sa.Integer(), **kw))


@compiles(Serial8)
def _big_integer(type_: Serial8, compiler: Any, **kw: Any) -> str:
    return str(compiler.process(sa.BigInteger(), **kw))


@compiles(Serial, "postgresql")
def _pg_serial(type_: Serial, compiler: Any, **kw: Any) -> str:
    return "SERIAL"


@compiles(Serial8, "postgresql")
def _pg_serial8(type_: Serial8, compiler: Any, **kw: Any) -> str:
    return "BIGSERIAL"


_MYSQL_DATETIME = mysql.DATETIME(fsp=6)
"""MySQL's TIMESTAMP holds 1970 to 2038 only (a birth date of 1958 is refused) and its DATETIME no fraction
of a second unless asked: a model's TIMESTAMP or DATETIME is a DATETIME(6) there."""
_MSSQL_TEXT = mssql.NVARCHAR()  # no length: NVARCHAR(max); SQL Server's TEXT and NTEXT are deprecated
_MSSQL_BINARY = mssql.VARBINARY()  # type: ignore[no-untyped-call]  # VARBINARY(max), not the deprecated IMAGE


def _text() -> sa.types.TypeEngine[Any]:
    return sa.Text().with_variant(_MSSQL_TEXT, "mssql")


def _blob() -> sa.types.TypeEngine[Any]:
    return sa.LargeBinary().with_variant(_MSSQL_BINARY, "mssql")


def _datetime(standard: sa.types.TypeEngine[Any], sqlserver: sa.types.TypeEngine[Any]) -> sa.types.TypeEngine[Any]:
    return standard.with_variant(sqlserver, "mssql").with_variant(_MYSQL_DATETIME, "mysql", "mariadb")


def sqlalchemy_type(t: SqlType) -> sa.types.TypeEngine[Any]:
    """The SQLAlchemy type that renders the model's type in each dialect; user and complex types become text
    (an ARRAY is PostgreSQL's array, elsewhere the JSON text it is held as, `type_note`). SQL Server gets its
    current types (DATE, NVARCHAR(max), VARBINARY(max), `load_dialect`), MySQL a DATETIME(6) for a TIMESTAMP,
    DATETIME or TIMESTAMPTZ."""
    if t.name == "UUID":
        return sa.CHAR(36).with_variant(postgresql.UUID(), "postgresql").with_variant(mssql.UNIQUEIDENTIFIER(), "mssql")
    if t.name == "ARRAY" and t.elements:
        element = t.elements[0]
        inner = _text() if element.family is TypeFamily.COMPLEX else sqlalchemy_type(element)
        return _text().with_variant(postgresql.ARRAY(inner), "postgresql")
    if t.family is TypeFamily.CHARACTER:
        if t.name == "NCHAR":
            return sa.NCHAR(t.length)
        if t.name == "NVARCHAR":
            return sa.Unicode(t.length)
        return sa.CHAR(t.length) if t.name == "CHAR" else sa.String(t.length)
    if t.family is TypeFamily.BINARY:
        return sa.LargeBinary(t.length)
    if t.family is TypeFamily.EXACT_NUMERIC and t.precision is not None:
        return (sa.DECIMAL if t.name == "DECIMAL" else sa.Numeric)(t.precision, t.scale or 0)
    simple: dict[str, sa.types.TypeEngine[Any]] = {
        "SMALLINT": sa.SmallInteger(), "INTEGER": sa.Integer(), "SERIAL": Serial(), "BIGINT": sa.BigInteger(),
        "SERIAL8": Serial8(), "NUMERIC": sa.Numeric(), "DECIMAL": sa.DECIMAL(), "NUMBER": sa.Numeric(),
        "REAL": sa.REAL(), "FLOAT": sa.Float(), "DOUBLE": sa.Double(), "DATE": sa.Date(),
        "TIMESTAMP": _datetime(sa.TIMESTAMP(), mssql.DATETIME2()),  # type: ignore[no-untyped-call]
        "TIMESTAMPTZ": _datetime(sa.TIMESTAMP(timezone=True), mssql.DATETIMEOFFSET()),  # type: ignore[no-untyped-call]
        "DATETIME": _datetime(sa.DateTime(), sa.DateTime()), "BOOLEAN": sa.Boolean(), "BIT": sa.Boolean(),
        "BLOB": _blob(), "BYTE": _blob(), "LONG RAW": _blob(), "TEXT": _text(), "CLOB": _text(), "LONG": _text(),
    }
    return simple.get(t.name, _text())


def type_note(t: SqlType, dialect: str) -> str | None:
    """Why the type `dialect` writes for `t` is not quite the model's, or None."""
    if t.name == "ARRAY" and dialect != "postgresql":
        return f"written as text: {dialect} has no arrays, and the model holds an array as its JSON text"
    if t.name == "TIMESTAMPTZ" and dialect in ("mysql", "mariadb"):
        return "written as DATETIME(6), which holds no time zone: write its values as UTC"
    return None


# --- dialects --------------------------------------------------------------------------------------

SQLALCHEMY_BY_DBMS = {"postgresql": "postgresql", "oracle": "oracle", "mssql": "mssql", "mysql": "mysql",
                      "sqlite": "sqlite", "db2": "db2", "ase": "sybase", "informix": "informix"}
"""The SQLAlchemy dialect of each DBMS; db2, sybase and informix come from third-party packages
(ibm_db_sa, sqlalchemy-sybase, sqlalchemy-informix) and are used when installed."""
DBMS_BY_SQLALCHEMY = {**{v: k for k, v in SQLALCHEMY_BY_DBMS.items()}, "mariadb": "mysql", "ibm_db_sa": "db2"}
"""The DBMS a SQLAlchemy dialect (by its name) writes for; any other is `other` (standard SQL)."""


class _StandardTypes(GenericTypeCompiler):
    def visit_datetime(self, type_: Any, **kw: Any) -> str:
        return "TIMESTAMP"

    def visit_text(self, type_: Any, **kw: Any) -> str:
        return "CLOB"

    def visit_large_binary(self, type_: Any, **kw: Any) -> str:
        return "BLOB"


class StandardDialect(DefaultDialect):
    """Standard SQL, for a DBMS whose SQLAlchemy dialect is not installed (CLOB, BLOB, TIMESTAMP)."""

    name = "standard"
    type_compiler_cls = _StandardTypes
    supports_native_boolean = True


@dataclass(frozen=True)
class TargetDialect:
    """A SQLAlchemy dialect to write in, the sqlglot dialect for its defaults, how to say which it is, and
    the DBMS it writes for (a default in another DBMS's SQL is translated, `export_default`)."""

    sqlalchemy: Dialect
    sqlglot: str
    label: str
    dbms: str = "other"


DBMS_BY_NAME = {"postgresql": "postgresql", "postgres": "postgresql", "pg": "postgresql", "oracle": "oracle",
                "mssql": "mssql", "sqlserver": "mssql", "sql-server": "mssql", "mysql": "mysql", "mariadb": "mysql",
                "sqlite": "sqlite", "db2": "db2"}
"""The dialect names `--dialect` takes (any case) and the DBMS each writes for (`dialect_for_dbms`: DB2 is
standard SQL unless its SQLAlchemy dialect is installed)."""
MSSQL_VERSION = (16, 0)
"""SQL Server 2022: SQLAlchemy, not connected, writes for SQL Server 2000 (DATE as DATETIME, TEXT, IMAGE)."""


def load_dialect(name: str) -> TargetDialect:
    """A SQLAlchemy dialect by name (`postgresql`, `oracle`, ...); raises `DdlError` when unknown."""
    try:
        dialect = sa.dialects.registry.load(name)(paramstyle="qmark")  # DDL binds nothing: a `%` stays one
    except Exception:
        raise DdlError(f"unknown SQL dialect {name!r} (try {', '.join(DBMS_BY_NAME)})") from None
    if dialect.name == "mssql":
        dialect.server_version_info = MSSQL_VERSION
        dialect.deprecate_large_types = True  # VARCHAR(max), VARBINARY(max), not TEXT and IMAGE
        dialect.default_schema_name = "dbo"  # where a table without a schema is, for its comment's procedure call
    return TargetDialect(dialect, SQLGLOT_BY_SQLALCHEMY.get(dialect.name, "postgres"), dialect.name,
                         DBMS_BY_SQLALCHEMY.get(dialect.name, "other"))


def dialect_for_dbms(dbms: str) -> TargetDialect:
    """The dialect of a server's DBMS, or standard SQL when its SQLAlchemy dialect is not installed."""
    name = SQLALCHEMY_BY_DBMS.get(dbms)
    if name is not None:
        try:
            return replace(load_dialect(name), dbms=dbms)
        except DdlError:
            pass
    why = f"no SQLAlchemy dialect for {dbms} is installed" if name else f"DBMS {dbms!r} names no SQL dialect"
    return TargetDialect(StandardDialect(), SQLGLOT_BY_DBMS.get(dbms, "postgres"), f"standard SQL ({why})", dbms)


def named_dialect(name: str) -> TargetDialect:
    """The dialect a user names (`--dialect`): one of `DBMS_BY_NAME` in any case, else a SQLAlchemy dialect
    by its registry name; raises `DdlError` naming the accepted names when it is neither."""
    dbms = DBMS_BY_NAME.get(name.strip().lower())
    return dialect_for_dbms(dbms) if dbms is not None else load_dialect(name)


# --- tables and the whole file ---------------------------------------------------------------------


_PLAIN_DEFAULTS = (exp.Literal, exp.Boolean, exp.Null, exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime)
_MYSQL_PLAIN_DEFAULTS = (exp.Literal, exp.Boolean, exp.Null, exp.CurrentTimestamp)
"""MySQL takes `CURRENT_TIMESTAMP` bare (for a DATETIME or TIMESTAMP column), but `CURRENT_DATE` and
`CURRENT_TIME` only as an expression, in parentheses."""


def _server_default(parsed: ParsedDefault, target: TargetDialect,
                    column: SqlType) -> sa.TextClause | sa.ColumnElement[Any]:
    """A literal goes in as written; an expression in parentheses (MySQL and SQLite need them, the others
    accept them). The text is sqlglot's rendering of a checked tree, never the model's string, and a
    default of another DBMS's SQL is first translated for the target (`export_default`)."""
    exported = export_default(parsed, target.dbms, column)
    text = render_default(exported, target.sqlglot)
    tree = exported.tree.this if isinstance(exported.tree, exp.Neg) else exported.tree
    if target.dbms == "mysql" and isinstance(tree, exp.CurrentTimestamp) and column.name in ("TIMESTAMP", "DATETIME"):
        text = "CURRENT_TIMESTAMP(6)"  # a DATETIME(6) takes only a default of its own precision (Invalid default)
    if isinstance(tree, _MYSQL_PLAIN_DEFAULTS if target.dbms == "mysql" else _PLAIN_DEFAULTS):
        return sa.text(text.replace(":", "\\:"))  # a colon would otherwise read as a bind parameter
    return sa.literal_column(f"({text})")


PG_MAX_LENGTH = 10_485_760
PG_MAX_PRECISION = 1000
"""PostgreSQL's largest CHAR/VARCHAR length and NUMERIC precision: a larger one is refused by the server."""


def check_fits(table: Table, target: TargetDialect) -> None:
    """Raise `DdlError` for a name longer than the dialect holds (PostgreSQL cuts a name to 63 bytes, so two
    long names could become one) or, for PostgreSQL, a size it refuses: DDL a server would not take as the
    model says is not written."""
    dialect = target.sqlalchemy
    limit = dialect.max_identifier_length
    postgres = dialect.name == "postgresql"
    parts = table.partitioning.partitions if table.partitioning else []
    names = [table.name, *table.column_names(), *(ux.name for ux in table.unique_indexes),
             *(ix.name for ix in table.indexes), *(fk.name for fk in table.foreign_keys if fk.name),
             *(ck.name for ck in table.checks if ck.name), *(part.name for part in parts),
             *(c.enum.name for c in table.columns if c.enum and c.enum.name), *filter(None, [table.db_schema])]
    for name in names:
        size = len(name.encode()) if postgres else len(name)
        if limit and size > limit:
            unit = "bytes" if postgres else "characters"
            raise DdlError(f"{table.key}: the name {name!r} is longer than {target.label}'s {limit} {unit} "
                           "(the server would cut it); shorten it")
    if postgres:
        for c in table.columns:
            t = c.sql_type
            if t.family is TypeFamily.CHARACTER and t.length is not None and t.length > PG_MAX_LENGTH:
                raise DdlError(f"{table.key}.{c.name}: {t} is longer than PostgreSQL's {PG_MAX_LENGTH}")
            if t.precision is not None and t.precision > PG_MAX_PRECISION and t.is_numeric:
                raise DdlError(f"{table.key}.{c.name}: {t} has more digits than PostgreSQL's {PG_MAX_PRECISION}")


AUTO_NUMBERED = {"mssql": ("SQL Server", "IDENTITY"), "sybase": ("ASE", "IDENTITY"), "ibm_db_sa": ("DB2", "identity"),
                 "informix": ("Informix", "SERIAL"), "mysql": ("MySQL", "AUTO_INCREMENT")}
"""The SQLAlchemy dialects that number a serial column (`autoincrement`), their DBMS and what the numbered
column is there, which the DBMS allows once per table: SQL Server, ASE and DB2 one identity column, MySQL
one AUTO_INCREMENT column (which must lead a key), Informix one SERIAL and one SERIAL8. The others number
no column or any number of them: PostgreSQL's SERIAL is a type with its own sequence; SQLite numbers only
its INTEGER PRIMARY KEY; SQLAlchemy's Oracle dialect writes no identity column without an explicit
`Identity` (Oracle too allows one)."""


def auto_numbered(table: Table, dialect: str) -> tuple[set[str], list[str]]:
    """The serial and identity columns of `table` that `dialect` is to number, and a comment for each other
    such column it would have numbered, which is written as a plain integer instead. Where a DBMS numbers one column per
    table, the first serial column of the primary key keeps it (an identity column is the row's surrogate
    key, and MySQL's must lead a key), else the first serial column: one IDENTITY for each made DDL that
    SQL Server refuses (`Multiple identity columns specified for table`). Never two in one table, which
    SQLAlchemy refuses in a primary key whatever the dialect, and none in SQLite's primary key of two."""
    key = table.primary_key
    serials = sorted((c for c in table.columns if c.sql_type.is_serial or c.identity is not None),
                     key=lambda c: key.index(c.name) if c.name in key else len(key))  # stable: then column order
    dbms, what = AUTO_NUMBERED.get(dialect, (dialect, None))
    numbered: dict[str, str] = {}
    notes: list[str] = []
    for c in serials:
        slot = c.sql_type.name if dialect == "informix" else ""  # Informix: a SERIAL and a SERIAL8
        if dialect == "mysql" and key[:1] != [c.name]:  # SQLAlchemy numbers only a key column; InnoDB the first
            if c.name in key:
                notes.append(comment(f"column {c.name} ({c.sql_type}) written without AUTO_INCREMENT: MySQL "
                                     "numbers a column only where it leads a key, and it is not the primary "
                                     "key's first column"))
        elif slot not in numbered and not (dialect == "sqlite" and len(key) > 1):
            numbered[slot] = c.name
        elif what is not None:
            size = " of its size" if dialect == "informix" else ""
            notes.append(comment(f"column {c.name} ({c.sql_type}) written without {what}: {dbms} allows one "
                                 f"{what} column{size} per table, and it is {numbered[slot]}"))
    return set(numbered.values()), notes


def build_table(table: Table, target: TargetDialect, dbms: str, metadata: sa.MetaData,
                types: dict[str, sa.types.TypeEngine[Any]] | None = None) -> tuple[sa.Table, list[str]]:
    """The SQLAlchemy table of `table` in `metadata` (`types`: a column's type other than its model type, a
    PostgreSQL enum), and a comment for each default left out, each serial column its DBMS cannot number
    (`auto_numbered`) and each part written otherwise than the model says (`engine.ddlparts`)."""
    check_fits(table, target)
    dialect = target.sqlalchemy.name
    numbered, notes = auto_numbered(table, dialect)
    said: list[str] = []
    columns = []
    for c in table.columns:
        t = c.sql_type
        server_default = None
        problem = default_problem(c, dbms)  # TB003's check: a value the column cannot hold is not written
        if problem is not None:
            notes.append(comment(f"default of column {c.name} left out: {problem}"))
        elif c.default is not None:
            try:
                server_default = _server_default(parse_default(c.default, dbms), target, t)
            except DefaultProblem as exc:
                notes.append(comment(f"default of column {c.name} left out: {exc}"))
        if (note := type_note(t, dialect)) is not None:
            said.append(f"column {c.name} ({t}) {note}")
        parts, part_notes = column_parts(c, table, dialect, target.sqlglot, dbms, numbered)
        said += part_notes
        columns.append(sa.Column(_ident(c.name), (types or {}).get(c.name) or sqlalchemy_type(t), *parts,
                                 nullable=c.nullable, server_default=server_default,
                                 autoincrement=_autoincrement(c.name in numbered, parts), comment=c.comment))
    known = set(table.column_names())
    constraints: list[sa.schema.SchemaItem] = []
    if table.primary_key and set(table.primary_key) <= known:
        constraints.append(sa.PrimaryKeyConstraint(*[_ident(c) for c in table.primary_key]))
    constraints += [sa.UniqueConstraint(*[_ident(c) for c in ux.columns], name=_ident(ux.name))
                    for ux in table.unique_indexes if set(ux.columns) <= known]
    extra, extra_notes = table_parts(table, target.sqlglot, dbms, set(types or {}))
    options, partition_notes = partition_options(table, target.sqlalchemy)
    schema = table.db_schema if dialect != "sqlite" else None
    if table.db_schema and schema is None:
        said.append(f"table {table.name} written without its schema {table.db_schema}: SQLite has none")
    sa_table = sa.Table(_ident(table.name), metadata, *columns, *constraints, *extra, comment=table.comment,
                        schema=_ident(schema) if schema else None, **options)
    return sa_table, notes + [comment(n) for n in said + extra_notes + partition_notes]


def table_ddl(table: Table, target: TargetDialect, dbms: str) -> str:
    """`CREATE TABLE` for one table alone, then on PostgreSQL its partitions, preceded by the comments of
    `build_table`: an enumeration is a check, and its foreign keys, indexes and comments are left out
    (`model_ddl` writes every part)."""
    sa_table, notes = build_table(table, target, dbms, sa.MetaData())
    try:
        sql = str(CreateTable(sa_table).compile(dialect=target.sqlalchemy)).strip()
    except sa.exc.SQLAlchemyError as exc:
        raise DdlError(f"{table.key}: {str(exc).splitlines()[0]}") from None
    partitions: list[str] = []
    if table.partitioning is not None and target.sqlalchemy.name == "postgresql":
        partitions, said = partition_statements(table, sa_table, target.sqlalchemy.identifier_preparer)
        notes += [comment(n) for n in said]
    return "".join(notes) + "".join(f"{s};\n" for s in [sql, *partitions])


def model_ddl(model: Model, dialect: str | None = None, server: str | None = None) -> str:
    """CREATE TABLE for every table a mapping writes to (or, given `server`, every table of that server): a
    section per server, each in its server's dialect, or all in `dialect` when given."""
    forced = named_dialect(dialect) if dialect is not None else None  # `--dialect ""` is a mistake, not "each its own"
    if server is not None:
        if model.server(server) is None:
            raise DdlError(f"no server {server!r} in the model (servers: {', '.join(s.id for s in model.servers)})")
        targets = [t for t in model.tables if t.server == server]
    else:
        targets = [t for t in (model.table(k) for k in dict.fromkeys(m.target for m in model.mappings)) if t]
    by_server: dict[str, list[Table]] = {}
    for table in targets:
        by_server.setdefault(table.server, []).append(table)
    what = f"the tables of server {server}" if server is not None else "the tables its mappings write to"
    parts = [comment(f"Mapwright DDL of model {model.name or 'untitled'}: {what}"),
             comment("one section per target server, in " + (
                 f"the {forced.label} dialect" if forced else "the SQL dialect of the server's DBMS"))]
    for server_id, tables in by_server.items():
        entry = model.server(server_id)
        dbms = entry.dbms if entry else "other"
        target = forced or dialect_for_dbms(dbms)
        parts.append("\n" + comment(f"server {server_id} ({dbms}): {target.label}"))
        parts.append(server_ddl(tables, target.sqlalchemy, partial(build_table, target=target, dbms=dbms)))
    return "".join(parts)


def _autoincrement(numbered: bool, parts: list[Any]) -> bool | Literal["auto"]:
    """SQLAlchemy refuses `autoincrement=False` beside an `Identity`: the identity says it all."""
    if numbered:
        return True
    return "auto" if any(isinstance(p, sa.Identity) for p in parts) else False
