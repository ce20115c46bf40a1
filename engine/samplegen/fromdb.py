"""One server's rows read from the user's own database: the snapshot `mapwright sample --from URL` starts from.

The connection is made as `mapwright import` makes it (`engine.dbimport.connect`: the password from the
caller, from `?password_env=NAME`, from the URL or from `prompt`; never shown, every message scrubbed of
it), and set read-only where the dialect has a way to say so. Tables and columns are found as the import
names them: the name as the database stores it, else the one name that differs from it only in case.
Each table is read with one bounded SELECT ordered by its key, and each value is typed as a run's
snapshot reader types it (`engine.core.values.conform`), so the rows are those a run would read back from
a snapshot file. Whatever cannot come over as it is (a table or column the database lacks, a value that
does not fit its column, a NULL or repeated key) is a note; a row is left out whole, never cut.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.core.types import SqlType, TypeFamily
from engine.core.values import ConversionError, conform, is_textual
from engine.dbimport.connect import ImportFailure, Prompt, Source, connected, parse_source
from engine.dbimport.reflect import _sa_schema, _stored, printable
from engine.model.schema import Model, Table
from engine.run.input.keys import hashable, identity_columns

Row = dict[str, Any]
EPOCH_DAY = date(1970, 1, 1)
"""The day a time of day is read on where the model has a timestamp (the import's reading of a TIME column)."""
UNORDERABLE = (TypeFamily.LARGE_OBJECT, TypeFamily.UDT, TypeFamily.COMPLEX)
"""Types not every DBMS orders by (Oracle refuses a LOB, PostgreSQL a json): a table without a key is
ordered by its other columns."""


class SampleSourceError(Exception):
    """The database cannot be read; one line naming the URL (its password hidden) and what failed."""


def read_server_rows(url: str, model: Model, server: str, rows: int, schema: str | None = None, *,
                     password: str | None = None, prompt: Prompt | None = None
                     ) -> tuple[dict[str, list[Row]], list[str]]:
    """Up to `rows` rows of each table of `server` in the model (by table key, `srv.T`), read from the
    database at `url` (`schema`, else the connection's default) and typed by the model's columns; and
    notes, one line each, on what did not come over as it is. A table the database lacks has no entry.

    `password` and `prompt` are `mapwright import`'s: a password typed in the designer, and the question
    asked when the server wants one the URL does not give. Raises `SampleSourceError`.
    """
    if model.server(server) is None:
        known = ", ".join(s.id for s in model.servers) or "none"
        raise SampleSourceError(f"no server {printable(server)!r} in the model (servers: {printable(known)})")
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 0:
        raise SampleSourceError(f"rows must be a whole number, 0 or more, got {rows!r}")
    tables = [t for t in model.tables if t.server == server]
    if not tables:
        return {}, [f"server {printable(server)} has no tables in the model: nothing to read"]
    try:
        source = parse_source(url, password)
        with connected(source, prompt) as (used, connection):
            return _read_all(used, connection, tables, rows, schema)
    except ImportFailure as exc:
        raise SampleSourceError(str(exc)) from None


def _read_all(used: Source, connection: Connection, tables: Sequence[Table], rows: int,
              schema: str | None) -> tuple[dict[str, list[Row]], list[str]]:
    """Every table's rows, on `connection` made read-only first; a database error, or a schema it lacks,
    as one line naming the database."""
    try:
        make_read_only(connection)
        sa_schema = _sa_schema(connection, schema)
        where = f"schema {printable(schema)!r}" if schema else "the default schema"
        inspector = sa.inspect(connection)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sa.exc.SAWarning)  # a type SQLAlchemy does not know: read as it comes
            available = {_stored(connection.dialect, n): n for n in inspector.get_table_names(schema=sa_schema)}
            found: dict[str, str] = {}
            notes: list[str] = []
            for table in tables:
                name = _find(available, table.name)
                if isinstance(name, str):
                    found[table.key] = available[name]
                else:
                    notes.append(_missing_table(table, name, where))
            columns = inspector.get_multi_columns(schema=sa_schema, filter_names=list(found.values())) \
                if found else {}
        out: dict[str, list[Row]] = {}
        for table in tables:
            sa_name = found.get(table.key)
            if sa_name is None:
                continue
            reader = _TableRead(table, sa_name, sa_schema)
            try:
                out[table.key] = reader.read(connection, columns.get((sa_schema, sa_name), []), rows)
            except sa.exc.SQLAlchemyError as exc:  # a table the user may not read, a value the driver refuses
                raise SampleSourceError(printable(f"reading {table.key} from {used.shown}: ")
                                        + _reason(exc, used)) from None
            notes += reader.notes
        return out, notes
    except ImportFailure as exc:
        raise SampleSourceError(f"{used.shown}: {exc}") from None
    except sa.exc.SQLAlchemyError as exc:
        raise SampleSourceError(f"reading {used.shown}: {_reason(exc, used)}") from None


def _reason(exc: sa.exc.SQLAlchemyError, used: Source) -> str:
    """The driver's own message (not SQLAlchemy's wrapping with the statement), one line, no password."""
    reason = str(exc.orig) if isinstance(exc, sa.exc.DBAPIError) and exc.orig is not None else str(exc)
    return used.scrub(reason)


def make_read_only(connection: Connection) -> None:
    """Have the database refuse any write on `connection`, where the dialect can say so: SQLite's
    `query_only`, PostgreSQL's and MySQL's session default of READ ONLY transactions (committed at once:
    a session setting held in a transaction would end with it), Oracle's read-only transaction. Other
    dialects only read: nothing here writes, and the connection closes without committing."""
    dialect = connection.dialect.name
    if dialect == "sqlite":
        connection.exec_driver_sql("PRAGMA query_only = ON")
    elif dialect == "postgresql":
        connection.exec_driver_sql("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        connection.commit()
    elif dialect in ("mysql", "mariadb"):
        connection.exec_driver_sql("SET SESSION TRANSACTION READ ONLY")
        connection.commit()
    elif dialect == "oracle":
        connection.commit()
        connection.exec_driver_sql("SET TRANSACTION READ ONLY")


def _find(available: Mapping[str, Any], name: str) -> str | list[str]:
    """The stored name `mapwright import` takes for `name`: `name` itself, else the one name that differs
    from it only in case; otherwise every candidate (none, or those that make it ambiguous)."""
    if name in available:
        return name
    matches = sorted(n for n in available if n.lower() == name.lower())
    return matches[0] if len(matches) == 1 else matches


def _missing_table(table: Table, candidates: list[str], where: str) -> str:
    if candidates:
        return printable(f"{table.key}: {where} has tables {', '.join(candidates)}, which differ from "
                         f"{table.name!r} only in case; none is read (name one exactly in the model)")
    return printable(f"{table.key}: the database has no table {table.name!r} in {where}; no rows read")


@dataclass
class _TableRead:
    """One table's bounded read, and what it notes."""

    table: Table
    sa_name: str
    sa_schema: str | None
    notes: list[str] = field(default_factory=list)
    unfit: list[str] = field(default_factory=list)  # why each row left out for a value did not fit
    rounded: Counter[str] = field(default_factory=Counter)  # by column: DECIMALs rounded to the scale
    times: Counter[str] = field(default_factory=Counter)  # by column: times of day read as timestamps

    def note(self, text: str) -> None:
        self.notes.append(printable(f"{self.table.key}: {text}"))

    def read(self, connection: Connection, reflected: list[Any], rows: int) -> list[Row]:
        """Up to `rows` rows ordered by the table's key, typed; rows that do not fit are left out, counted."""
        dialect = connection.dialect
        in_db = {_stored(dialect, c["name"]): c for c in reflected}
        selected: dict[str, Any] = {}  # model column -> its reflected database column
        for column in self.table.columns:
            name = _find(in_db, column.name)
            if isinstance(name, str):
                selected[column.name] = in_db[name]
            elif name:
                self.note(f"column {column.name}: the database table has {', '.join(name)}, which differ only "
                          "in case; read as NULL")
            else:
                self.note(f"column {column.name}: the database table has no such column; read as NULL")
        if not selected:
            self.note("none of its columns is in the database table; no rows read")
            return []
        source = sa.table(self.sa_name, *(sa.column(c["name"]) for c in selected.values()), schema=self.sa_schema)
        keyed = bool(self.table.primary_key or self.table.unique_indexes)  # a key the database takes is orderable
        order = [source.c[selected[c]["name"]] for c in identity_columns(self.table)
                 if c in selected and (keyed or _family(self.table, c) not in UNORDERABLE)]
        if not order:
            self.note("no key column to order by: the rows are the first the database gives")
        statement = sa.select(*(_as_read(source.c[c["name"]], c, _type(self.table, name), dialect.name)
                                for name, c in selected.items()))
        fetched = connection.execute(statement.order_by(*order).limit(rows)).fetchall()
        return self._typed_rows([dict(zip(selected, r, strict=True)) for r in fetched])

    def _typed_rows(self, raw_rows: list[Row]) -> list[Row]:
        null_key: list[str] = []
        duplicate: Counter[str] = Counter()
        seen: set[tuple[str, tuple[Any, ...]]] = set()
        unique = ([("primary key", tuple(self.table.primary_key))] if self.table.primary_key else []) + \
            [(f"unique index {ux.name}", tuple(ux.columns)) for ux in self.table.unique_indexes]
        out: list[Row] = []
        for raw in raw_rows:
            row = self._typed(raw)
            if row is None:
                continue
            nulls = [c for c in self.table.primary_key if row.get(c) is None]
            if nulls:
                null_key.append(nulls[0])
                continue
            keys = [(name, tuple(hashable(row.get(c)) for c in columns)) for name, columns in unique
                    if all(row.get(c) is not None for c in columns)]  # NULLs never collide in a unique index
            clash = next((name for name, key in keys if (name, key) in seen), None)
            if clash is not None:
                duplicate[clash] += 1
                continue
            seen.update(keys)
            out.append(row)
        if self.unfit:
            self.note(f"{len(self.unfit)} row(s) left out: a value does not fit the model's column "
                      f"(first: {self.unfit[0]})")
        if null_key:
            self.note(f"{len(null_key)} row(s) left out: primary key column {null_key[0]} is NULL")
        for name, n in duplicate.items():
            self.note(f"{n} row(s) left out: their {name} repeats an earlier row's (as the model types it)")
        for column, n in self.rounded.items():
            self.note(f"column {column}: {n} value(s) rounded to the column's scale")
        for column, n in self.times.items():
            self.note(f"column {column}: {n} time(s) of day read as that time on {EPOCH_DAY} (the model's type "
                      "is a timestamp)")
        return out

    def _typed(self, raw: Row) -> Row | None:
        """The row typed by the model's columns (a column the database lacks is NULL), or None after
        recording why a value does not fit."""
        row: Row = {}
        for column in self.table.columns:
            value = raw.get(column.name)
            t = column.sql_type
            if isinstance(value, memoryview):  # psycopg2's bytea
                value = value.tobytes()
            elif isinstance(value, time) and t.family is TypeFamily.DATETIME:
                value = datetime.combine(EPOCH_DAY, value)
                self.times[column.name] += 1
            try:
                row[column.name] = conform(value, t)
            except ConversionError as exc:
                self.unfit.append(f"column {column.name}: {exc}")
                return None
            if _rounded(value, row[column.name], t):
                self.rounded[column.name] += 1
        return row


def _as_read(column: sa.ColumnClause[Any], reflected: dict[str, Any], t: SqlType,
             dialect: str) -> sa.ColumnElement[Any]:
    """A column as it is selected: a money type as a plain number (psycopg gives PostgreSQL's money as text
    in the server's currency format, `$1,234.50`; the import made it DECIMAL(19,4)); on PostgreSQL, an
    interval or a json value the import made text as PostgreSQL writes it (`1 day 02:00:00`, the json as
    stored), not as the driver's Python object prints."""
    name = type(reflected["type"]).__name__.upper()
    if name in ("MONEY", "SMALLMONEY"):
        return sa.cast(column, sa.Numeric(19, 4)).label(column.name)
    if dialect == "postgresql" and is_textual(t) and (name == "INTERVAL" or isinstance(reflected["type"], sa.JSON)):
        return sa.cast(column, sa.Text()).label(column.name)
    return column


def _type(table: Table, column: str) -> SqlType:
    found = table.column(column)
    assert found is not None, column  # a name from the table's own columns
    return found.sql_type


def _family(table: Table, column: str) -> TypeFamily | None:
    found = table.column(column)
    return found.sql_type.family if found is not None else None


def _rounded(raw: Any, typed: Any, t: SqlType) -> bool:
    """Whether a DECIMAL's value lost digits to the column's scale (SQLite holds what it is given)."""
    if t.family is not TypeFamily.EXACT_NUMERIC or not isinstance(typed, Decimal) or isinstance(raw, bool):
        return False
    try:
        exact = Decimal(repr(raw)) if isinstance(raw, float) else Decimal(raw)
    except (ArithmeticError, ValueError, TypeError):
        return False
    return bool(exact != typed)
