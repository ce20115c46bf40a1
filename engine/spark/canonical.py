"""Canonical tokens: how a typed value crosses between Spark and the reference's Python as JSON.

Where the reference's code runs over Arrow (a line only it can read, a transaction it runs, a group it
folds that no native check handed over: one schema for every table), rows travel as JSON objects keyed by
column position (`c0`, `c1`...), each value a token that reads back exactly: text, integers and booleans
as themselves, decimals, doubles and timestamps as text (`"1.50"`, `"1.0E20"`, `"2026-01-05 10:00:00.5"`),
bytes as hex, opaque values as their canonical text.
Spark reads a token into the column's Spark type (`typed_sql`), Python into the reference's value
(`value_of`); Spark writes one (`token_sql`), Python too (`token`). Both readers take both writers'
spellings. A group of one table a native check hands to the fold crosses typed, as the table's structs
(`typed_row_reader`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.core.types import SqlType
from engine.core.values import decode_value, parse_timestamp
from engine.model.schema import Table
from engine.spark import sqltext as sql
from engine.spark.types import from_arrow, opaque_text, rep, table_type_sql

READ_AS = {"text": "string", "int": "bigint", "decimal": "string", "double": "string", "timestamp": "string",
           "bool": "boolean", "binary": "string", "opaque": "string"}
"""The Spark type a token of each representation kind is read as from a VARIANT."""


def token(value: Any, t: SqlType | None) -> Any:
    """A reference value as a token (Python's spelling)."""
    if value is None:
        return None
    kind = rep(t).kind if t is not None else "opaque"
    if kind in ("text", "int", "bool"):
        return value
    if kind == "decimal":
        return format(Decimal(value), "f")
    if kind == "double":
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(float(value))
    if kind == "timestamp":
        return value.isoformat()
    if kind == "binary":
        return bytes(value).hex()
    return opaque_text(value)


_AS_WRITTEN: dict[str, type] = {"text": str, "int": int, "bool": bool}
"""The token kinds whose JSON value is the reference's value itself."""


def value_of(raw: Any, t: SqlType) -> Any:
    """A token (either spelling) as the reference's value of type `t`."""
    if raw is None:
        return None
    r = rep(t)
    kind = r.kind
    if type(raw) is _AS_WRITTEN.get(kind):  # text, an integer, a boolean: written by either side exactly
        return raw
    if kind == "decimal" and type(raw) is str:
        with contextlib.suppress(InvalidOperation):
            number = Decimal(raw)
            scale = r.spark.scale  # type: ignore[attr-defined]
            if number.is_finite() and number.as_tuple().exponent == -scale and not (number.is_signed() and not number):
                return number  # a token at the column's scale, as both sides write one
    if kind == "double":
        return float(raw)
    if kind == "timestamp":
        return parse_timestamp(raw)
    if kind == "binary":
        return bytes.fromhex(raw)
    if kind == "opaque":
        return from_arrow(raw, rep(t))
    return decode_value(raw, t)


def row_tokens(values: dict[str, Any], table: Table) -> str:
    """A row as a JSON object of tokens keyed by column position."""
    return row_writer(table)(values)


def row_writer(table: Table) -> Callable[[dict[str, Any]], str]:
    """`row_tokens` of `table`, with the work per column done once: for a caller that writes many rows of
    one table (a fold's final rows, a snapshot's)."""
    # each column: its token's key, its name, and its type where its token is not the value itself
    columns = [(f"c{i}", c.name, None if rep(t).kind in _AS_WRITTEN else t)
               for i, c in enumerate(table.columns) for t in [c.sql_type]]

    def write(values: dict[str, Any]) -> str:
        return json.dumps({position: value if t is None or value is None else token(value, t)
                           for position, name, t in columns for value in [values.get(name)]})
    return write


def row_values(text: str | None, table: Table, present: Iterable[str] | None = None) -> dict[str, Any] | None:
    """A JSON object of tokens as a reference row holding exactly the `present` columns (all, if None)."""
    return row_reader(table, present)(text)


def row_reader(table: Table, present: Iterable[str] | None = None) -> Callable[[str | None], dict[str, Any] | None]:
    """`row_values` of `table` and `present`, with the work per column done once: for a caller that reads
    many rows of one table (a fold reads two images an event)."""
    # each kept column, in `present`'s order (a delivery's image has its mapping's, as `map_image` makes it):
    # its name, its token's key, its type, and the Python type a token of it is the value itself as
    # (`value_of`'s first case)
    position = {c.name: (i, c.sql_type) for i, c in enumerate(table.columns)}
    names = [c.name for c in table.columns] if present is None else [n for n in present if n in position]
    columns = [(name, f"c{i}", t, _AS_WRITTEN.get(rep(t).kind)) for name in names for i, t in [position[name]]]

    def read(text: str | None) -> dict[str, Any] | None:
        if text is None:
            return None
        doc = json.loads(text)
        return {name: raw if raw is None or type(raw) is exact else value_of(raw, t)
                for name, position, t, exact in columns for raw in [doc.get(position)]}
    return read


# --- SQL ------------------------------------------------------------------------------------------------


def typed_row_reader(table: Table, present: Iterable[str]) -> Callable[[dict[str, Any] | None], dict[str, Any] | None]:
    """An image of `table` as Arrow hands a struct of its columns over (`to_pylist`) -> the reference's row
    of the `present` columns, in their order (a delivery's image has its mapping's, as `map_image` makes
    it). A value is the reference's as it is but a timestamp (in UTC, zoned) and bytes."""
    types = {c.name: c.sql_type for c in table.columns}
    columns = [(name, r if r.kind in ("timestamp", "binary") else None)
               for name in present if name in types for r in [rep(types[name])]]

    def read(image: dict[str, Any] | None) -> dict[str, Any] | None:
        if image is None:
            return None
        return {name: value if r is None or value is None else from_arrow(value, r)
                for name, r in columns for value in [image[name]]}
    return read


def typed_sql(value: str, t: SqlType) -> str:
    """SQL reading a token (read from a VARIANT as `READ_AS`) into the column's Spark type."""
    r = rep(t)
    if r.kind in ("decimal", "double", "int"):
        return f"CAST({value} AS {r.ddl})"
    if r.kind == "timestamp":
        return f"try_cast({value} AS TIMESTAMP)"
    if r.kind == "binary":
        return f"unhex(regexp_replace({value}, '^0[xX]', ''))"
    return value


def token_sql(value: str, t: SqlType) -> str:
    """SQL writing a typed Spark value as a token (Spark's spelling)."""
    kind = rep(t).kind
    if kind in ("decimal", "double", "timestamp"):
        return f"CAST({value} AS STRING)"
    if kind == "binary":
        return f"lower(hex({value}))"
    return value


def struct_ddl(table: Table, columns: Iterable[str] | None = None) -> str:
    """The struct a row of tokens is read as from a VARIANT (`c0`... of the table's or the given columns)."""
    names = list(columns) if columns is not None else [c.name for c in table.columns]
    types = {c.name: c.sql_type for c in table.columns}
    return "struct<" + ", ".join(f"c{i}: {READ_AS[rep(types[n]).kind]}" for i, n in enumerate(names)) + ">"


def read_row_sql(text: str, table: Table) -> str:
    """SQL of a row of tokens (JSON text, positions of the table's columns) as a struct of the table."""
    raw = f"try_variant_get(parse_json({text}), '$', {sql.string(struct_ddl(table))})"
    fields = ", ".join(f"{sql.string(c.name)}, CAST({typed_sql(f'_tok.c{i}', c.sql_type)} AS {rep(c.sql_type).ddl})"
                       for i, c in enumerate(table.columns))
    empty = f"CAST(NULL AS {table_type_sql(table)})"
    typed = f"transform(array({raw}), _tok -> named_struct({fields}))[0]"  # `raw` read once, as `_tok`
    return f"(CASE WHEN {text} IS NULL THEN {empty} ELSE {typed} END)"


def write_row_sql(row: str, table: Table) -> str:
    """SQL of a struct of the table as a row of tokens (JSON text; NULL for a NULL row)."""
    fields = ", ".join(f"{sql.string(f'c{i}')}, {token_sql(f'{row}.{sql.ident(c.name)}', c.sql_type)}"
                       for i, c in enumerate(table.columns))
    return f"CASE WHEN {row} IS NULL THEN NULL ELSE to_json(named_struct({fields})) END"
