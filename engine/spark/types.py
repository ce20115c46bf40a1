"""How the model's column types are held in Spark, and how the Python paths read and write them over Arrow.

Each column type has one Spark representation (`Rep`), the typed counterpart of the reference's Python
values (`engine.core.values`):

| family | Spark | reference value |
|---|---|---|
| CHAR, VARCHAR..., TEXT, CLOB, LONG | string | `str` |
| SMALLINT / INTEGER, INT, SERIAL / BIGINT, SERIAL8 | short / int / long | `int` |
| DECIMAL(p,s), p <= 38 | decimal(p,s) | `Decimal` with exponent -s |
| REAL, FLOAT, DOUBLE | double (a REAL too: the reference holds a Python float) | `float` |
| DATE, TIMESTAMP, DATETIME | timestamp (UTC) | `datetime` in UTC |
| BOOLEAN, BIT | boolean | `bool` |
| BINARY..., BLOB, BYTE, LONG RAW | binary | `bytes` |
| UDT, complex, DECIMAL without precision or over 38 digits | string: the exact text | JSON value / `Decimal` |

The last row is *opaque*: Spark holds the value exactly, but only the reference's own code reads its
meaning, so a table with an opaque column is resolved by the reference over Arrow (`Rep.opaque`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from decimal import Decimal
from functools import lru_cache
from typing import Any

import pyarrow as pa
from pyspark.sql import types as T

from engine.core.types import SqlType, TypeFamily
from engine.core.values import INTEGER_TYPES, is_binary, is_textual, quantized
from engine.model.schema import Model, Table

Row = dict[str, Any]
MAX_PRECISION = 38

_INTEGERS: dict[str, T.DataType] = {"SMALLINT": T.ShortType(), "INTEGER": T.IntegerType(), "INT": T.IntegerType(),
                                    "SERIAL": T.IntegerType(), "BIGINT": T.LongType(), "SERIAL8": T.LongType()}


@dataclass(frozen=True)
class Rep:
    """A column type's Spark representation: its `kind` (text, int, decimal, double, timestamp, bool, binary,
    opaque), its Spark type, and the `SqlType` it holds."""

    kind: str
    spark: T.DataType
    sql: SqlType

    @property
    def opaque(self) -> bool:
        return self.kind == "opaque"

    @property
    def ddl(self) -> str:
        return self.spark.simpleString()


@lru_cache(maxsize=1024)
def rep(t: SqlType) -> Rep:
    """The Spark representation of a column type."""
    if is_textual(t):
        return Rep("text", T.StringType(), t)
    if t.family is TypeFamily.EXACT_NUMERIC:
        if t.name in INTEGER_TYPES:
            return Rep("int", _INTEGERS[t.name], t)
        if t.precision is not None and t.precision <= MAX_PRECISION:
            return Rep("decimal", T.DecimalType(t.precision, t.scale or 0), t)
        return Rep("opaque", T.StringType(), t)
    if t.family is TypeFamily.APPROX_NUMERIC:
        return Rep("double", T.DoubleType(), t)
    if t.family is TypeFamily.DATETIME:
        return Rep("timestamp", T.TimestampType(), t)
    if t.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return Rep("bool", T.BooleanType(), t)
    if is_binary(t):
        return Rep("binary", T.BinaryType(), t)
    return Rep("opaque", T.StringType(), t)


def same_rep(a: SqlType | None, b: SqlType | None) -> bool:
    """Whether two column types hold the same values the same way (a replication definition's type against
    the table's current one): same Spark type but for a decimal's precision."""
    if a is None or b is None:
        return a is b
    ra, rb = rep(a), rep(b)
    if ra.kind != rb.kind:
        return False
    if ra.kind == "decimal":
        return bool(ra.spark.scale == rb.spark.scale)  # type: ignore[attr-defined]
    if ra.kind == "opaque":
        return str(a) == str(b)
    return ra.spark == rb.spark


def table_struct(table: Table) -> T.StructType:
    """A row of `table` as a Spark struct, its current columns in order."""
    return T.StructType([T.StructField(c.name, rep(c.sql_type).spark, True) for c in table.columns])


def table_type_sql(table: Table) -> str:
    """A row of `table` as a Spark SQL type, to CAST to: `struct<`unit price`:decimal(12,2),...>`."""
    return type_sql(table_struct(table))


def type_sql(t: T.DataType) -> str:
    """A Spark type as SQL text, every struct field's name quoted (`simpleString` leaves a name like
    `unit price`, `Größe` or `a.b` bare, which Spark's parser then refuses)."""
    if isinstance(t, T.StructType):
        return "struct<" + ",".join(f"`{f.name.replace('`', '``')}`:{type_sql(f.dataType)}" for f in t.fields) + ">"
    if isinstance(t, T.ArrayType):
        return f"array<{type_sql(t.elementType)}>"
    if isinstance(t, T.MapType):
        return f"map<{type_sql(t.keyType)},{type_sql(t.valueType)}>"
    return t.simpleString()


def is_number_text(t: SqlType) -> bool:
    """Whether a column's values are numbers Spark holds as text (a DECIMAL without precision, or wider
    than 38 digits: `opaque_text`'s plain digits, `-123.450`)."""
    return rep(t).opaque and t.family is TypeFamily.EXACT_NUMERIC


def number_text_sql(value: str) -> str:
    """SQL of a number's plain text (`opaque_text`) in one spelling a value: no trailing zero after the point,
    no point without digits after it, no negative zero (`1.50`, `1.5` -> `1.5`; `2.0` -> `2`; `-0.00` -> `0`)."""
    trimmed = f"regexp_replace({value}, '([.][0-9]*[1-9])0+$|[.]0*$', '$1')"
    return f"regexp_replace({trimmed}, '^-0$', '0')"


def key_sql(value: str, t: SqlType) -> str:
    """SQL of a value as it compares (`values.same_value`: equal numbers are equal whatever their scale and
    sign of zero, docs/contract.md §7), for a key to group, join or hash by: a double's -0.0 as 0.0, a number
    held as text in one spelling (`number_text_sql`); any other value as itself. Its type is the value's."""
    r = rep(t)
    if r.kind == "double":
        return f"(CASE WHEN {value} = 0 THEN CAST(0 AS DOUBLE) ELSE {value} END)"
    if is_number_text(t):
        return number_text_sql(value)
    return value


def finite_sql(value: str) -> str:
    """Whether a double `value` is NULL or a finite number, as SQL."""
    return f"({value} IS NULL OR (NOT isnan({value}) AND abs({value}) < CAST('Infinity' AS DOUBLE)))"


def same_sql(a: str, b: str, t: SqlType) -> str:
    """Null-safe equality as `values.same_value` has it; a double that is not finite is left to the
    reference (Python's comparison of NaN and the infinities differs from Spark's)."""
    if rep(t).kind == "double":
        return f"({a} <=> {b} AND {finite_sql(a)})"
    return f"({key_sql(a, t)} <=> {key_sql(b, t)})"  # a number held as text: by value


def order_sql(value: str, t: SqlType) -> list[str]:
    """SQL sort keys (each ascending, NULL first) ordering a column's values as the reference orders them
    (`fold.sort_key`: NULL first, numbers by value). A number held as text is ordered by its sign, then by
    its integer digits' count and digits and its fraction's digits (ascending for a positive number,
    descending for a negative one); any other value by itself."""
    if not is_number_text(t):
        return [value]
    number = number_text_sql(value)
    negative = f"startswith({number}, '-')"
    digits = f"regexp_replace({number}, '^-', '')"
    whole = f"substring_index({digits}, '.', 1)"
    fraction = f"CASE WHEN contains({digits}, '.') THEN substring_index({digits}, '.', -1) ELSE '' END"
    # a negative number's parts in descending order: its integer digits' count negated, and its digits
    # complemented (9 - d) with a terminator above every digit, so that text order is their reverse
    flipped = "translate({0}, '0123456789', '9876543210')"
    parts = [f"length({whole})", whole, fraction]
    descending = [f"-length({whole})", flipped.format(whole), f"concat({flipped.format(fraction)}, ':')"]
    return [f"CASE WHEN {value} IS NULL THEN 0 WHEN {negative} THEN 1 ELSE 2 END",
            *(f"CASE WHEN {negative} THEN {d} END" for d in descending),
            *(f"CASE WHEN NOT {negative} THEN {p} END" for p in parts)]


def table_opaque(table: Table) -> bool:
    return any(rep(c.sql_type).opaque for c in table.columns)


def table_ids(model: Model) -> dict[str, str]:
    """A short, safe column name for each table key (`t0`, `t1`...), in model order."""
    return {table.key: f"t{i}" for i, table in enumerate(model.tables)}


def quoted(name: str) -> str:
    """`name` as a Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


# --- Arrow <-> the reference's values (the Python paths) ----------------------------------------------------


def from_arrow(value: Any, r: Rep) -> Any:
    """A value Spark handed over Arrow (`to_pylist`), as the reference holds it."""
    if value is None:
        return None
    if r.kind == "timestamp":
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if r.kind == "opaque":
        return _opaque_value(value, r.sql)
    if r.kind == "binary":
        return bytes(value)
    return value


def to_arrow(value: Any, r: Rep) -> Any:
    """A reference value as Arrow takes it for the column's Spark type."""
    if value is None:
        return None
    if r.kind == "decimal":
        return quantized(value, r.spark.scale)  # type: ignore[attr-defined]
    if r.kind == "opaque":
        return opaque_text(value)
    if r.kind == "int" and isinstance(value, Decimal):
        return int(value)
    if r.kind == "double" and not isinstance(value, float):
        return float(value)
    if r.kind == "text" and not isinstance(value, str):
        return json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else str(value)
    return value


def opaque_text(value: Any) -> str:
    """The text an opaque value is held as: an unbounded decimal's digits, a UDT's canonical JSON."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, str) and not isinstance(value, dict | list):
        return json.dumps(value)
    return json.dumps(value, sort_keys=True)


def _opaque_value(text: str, t: SqlType) -> Any:
    if t.family is TypeFamily.EXACT_NUMERIC:
        return Decimal(text)
    return json.loads(text)


def arrow_type(r: Rep) -> pa.DataType:
    """The Arrow type Spark exchanges a representation as."""
    spark = r.spark
    if isinstance(spark, T.ShortType):
        return pa.int16()
    if isinstance(spark, T.IntegerType):
        return pa.int32()
    if isinstance(spark, T.LongType):
        return pa.int64()
    if isinstance(spark, T.DecimalType):
        return pa.decimal128(spark.precision, spark.scale)
    if isinstance(spark, T.DoubleType):
        return pa.float64()
    if isinstance(spark, T.TimestampType):
        return pa.timestamp("us", tz="UTC")
    if isinstance(spark, T.BooleanType):
        return pa.bool_()
    if isinstance(spark, T.BinaryType):
        return pa.binary()
    return pa.string()




def row_from_arrow(values: Row | None, table: Table, columns: Sequence[str] | None = None) -> Row | None:
    """A struct Spark handed over Arrow as a reference row; `columns` keeps only those (in that order)."""
    if values is None:
        return None
    names = columns if columns is not None else [c.name for c in table.columns]
    reps = {c.name: rep(c.sql_type) for c in table.columns}
    return {name: from_arrow(values.get(name), reps[name]) for name in names}


def binary_fits(data: str, t: SqlType) -> str:
    """Whether bytes `data` fit the length of a BINARY/VARBINARY/RAW column (`values.check_bytes`)."""
    if t.family is TypeFamily.BINARY and t.length is not None:
        return f"octet_length({data}) <= {t.length}"
    return "TRUE"
