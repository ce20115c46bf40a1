"""A mapping's column methods, `where` clause and conversions as Spark SQL over typed columns.

Each compiles to a `Typed`: the SQL of the value, its representation kind, and `ok`, a SQL condition that
holds where Spark computes exactly what the reference computes (`engine.run.semantics.methods`, `engine.core.values`).
Where `ok` is FALSE for a row (a value whose text Python and Spark render differently, text a cast reads
otherwise, a value that does not fit its target column), the row's transaction takes the reference's
path (`neteffect`): native where it is exact, the reference where it is not, and never a guess.

The three conversions of the reference:
- `to_text`: how `concat` and casts to text render a value (`values.to_text`);
- `cast_value`: a `cast` method, and the distribution key's columns (a try-cast: NULL when it fails);
- `conform`: a mapped value taking its target column's type (`values.conform`; a failure is not NULL but a
  change that cannot be applied, which the reference queues with its reason).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import assert_never

from engine.core.types import SqlType, TypeFamily, parse_type
from engine.core.values import INTEGER_BITS, REAL_MAX
from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Expression,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)
from engine.spark import sqltext as sql
from engine.spark.types import binary_fits, rep
from engine.sql.spark import bound_sql

DOUBLE_MAX = 1.7976931348623157e308
_INT_TEXT = r"^[+-]?([0-9]{1,19}(\.[0-9]{0,18})?|\.[0-9]{1,18})\z"
_DECIMAL_TEXT = r"^[+-]?([0-9]{1,38}(\.[0-9]{0,38})?|\.[0-9]{1,38})\z"
_DOUBLE_TEXT = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?\z"
_BOOL_TEXT = r"^(?i)(true|false|t|f|0|1)\z"
_HEX_TEXT = r"^(0[xX])?([0-9a-fA-F]{2})*\z"
_ISO_TEXT = (r"^[1-8][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
             r"([T ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?"
             r"(Z|[+-](0[0-9]|1[0-7]):[0-5][0-9])?)?\z")
r"""Java's `$` also matches before a final line terminator: each pattern Spark runs ends at `\z`."""


@dataclass(frozen=True)
class Typed:
    """A value as SQL: `kind` is its representation (`types.Rep.kind`, or `null`), `scale` a decimal's,
    `precision` a decimal's digits; `ok` holds where it is the reference's value exactly."""

    sql: str
    kind: str
    ok: str = "TRUE"
    scale: int = 0
    precision: int = 38

    def both(self, other_ok: str) -> str:
        return _and(self.ok, other_ok)


NULL = Typed("NULL", "null")


def _and(a: str, b: str) -> str:
    if a == "TRUE":
        return b
    if b == "TRUE":
        return a
    if "FALSE" in (a, b):
        return "FALSE"
    return f"({a} AND {b})"


@dataclass(frozen=True)
class Binding:
    """What a method reads: each source column's SQL and type, the `system` values' SQL, and the SQL of
    the current time (the transaction's commit time) for `CURRENT_TIMESTAMP`."""

    columns: Mapping[str, tuple[str, SqlType]]
    system: Mapping[str, str]
    now: str
    spark_kind: Callable[[str], tuple[str, int, int]] | None = None
    """The kind, scale and precision Spark gives a bound SQL expression (asked of Spark once per expression)."""

    def column(self, name: str) -> tuple[str, SqlType] | None:
        if name in self.columns:
            return self.columns[name]
        return next((v for k, v in self.columns.items() if k.lower() == name.lower()), None)


def typed_column(sql_text: str, t: SqlType) -> Typed:
    r = rep(t)
    scale = t.scale or 0 if r.kind == "decimal" else 0
    return Typed(sql_text, r.kind, "TRUE", scale, t.precision or 38)


# --- methods --------------------------------------------------------------------------------------------


def compile_method(method: Method, binding: Binding) -> Typed:
    """The value a method tree gives on a source row (`engine.run.semantics.methods.evaluate_method`)."""
    match method:
        case Column():
            found = binding.column(method.input)
            return typed_column(*found) if found is not None else NULL
        case Constant():
            return constant(method.value)
        case System():
            if method.name == "commit_ts":
                return Typed(binding.system["commit_ts"], "timestamp")
            return Typed(binding.system[method.name], "text")
        case Concat():
            parts = [to_text(compile_method(m, binding)) for m in method.inputs]
            ok = "TRUE"
            pieces: list[str] = []
            for i, part in enumerate(parts):
                if i:
                    pieces.append(sql.string(method.sep))
                pieces.append(part.sql)
                ok = _and(ok, part.ok)
            return Typed(f"concat({', '.join(pieces)})", "text", ok)
        case Expression():
            return expression(method.sql, binding)
        case Cast():
            return cast_value(compile_method(method.input, binding), parse_type(method.type))
        case Split() | Substring() | Upper() | Lower() | Trim():
            return _text_function(method, to_text(compile_method(method.input, binding)))
        case _:
            assert_never(method)


def _text_function(method: Split | Substring | Upper | Lower | Trim, text: Typed) -> Typed:
    """A method that reads its input as text, over the input's text."""
    match method:
        case Split():
            pattern = re.escape(method.sep)
            return Typed(f"try_element_at(split({text.sql}, {sql.string(pattern)}, -1), {method.index + 1})",
                         "text", text.ok)
        case Substring():
            length = f", {method.length}" if method.length is not None else ""
            return Typed(f"substring({text.sql}, {method.start}{length})", "text", text.ok)
        case Upper():
            return Typed(f"upper({text.sql})", "text", text.ok)
        case Lower():
            return Typed(f"lower({text.sql})", "text", text.ok)
        case Trim():
            return Typed(f"trim({text.sql})", "text", text.ok)
        case _:
            assert_never(method)


def constant(value: object) -> Typed:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return Typed(sql.lit(value), "bool")
    if isinstance(value, int):
        return Typed(sql.lit(value), "int") if -(2**63) <= value < 2**63 else replace(NULL, ok="FALSE")
    if isinstance(value, float):
        return Typed(sql.lit(value), "double")
    return Typed(sql.string(str(value)), "text")


def expression(text: str, binding: Binding) -> Typed:
    """An `expression` method: its Spark SQL over the bound columns (Spark's semantics, which the
    reference evaluator follows)."""
    bound = bind_sql(text, binding)
    if binding.spark_kind is None:
        return Typed(bound, "opaque", "FALSE")
    kind, scale, precision = binding.spark_kind(bound)
    return Typed(bound, kind, "TRUE" if kind != "opaque" else "FALSE", scale, precision)


def where(text: str | None, binding: Binding) -> str:
    """A `where` clause as a boolean that is TRUE only where the clause holds (NULL and FALSE do not)."""
    if text is None:
        return "TRUE"
    return f"coalesce({bind_sql(text, binding)}, FALSE)"


def bind_sql(text: str, binding: Binding) -> str:
    """The model's Spark SQL over the binding's columns (`engine.sql.spark.bound_sql`)."""
    def column(name: str) -> str | None:
        found = binding.column(name)
        return found[0] if found is not None else None
    return bound_sql(text, column, binding.now)


# --- the three conversions ------------------------------------------------------------------------------


def to_text(value: Typed) -> Typed:
    """How the reference renders a value as text (`values.to_text`)."""
    kind = value.kind
    if kind in ("text", "null"):
        return value
    if kind in ("int", "decimal", "bool"):
        return Typed(f"CAST({value.sql} AS STRING)", "text", value.ok)
    if kind == "timestamp":
        v = value.sql
        micros = f"(unix_micros({v}) % 1000000 + 1000000) % 1000000"
        digits = f"concat('.', lpad(CAST({micros} AS STRING), 6, '0'))"
        fraction = f"CASE WHEN {micros} = 0 THEN '' ELSE TRIM(TRAILING '0' FROM {digits}) END"
        return Typed(f"concat(date_format({v}, 'y-MM-dd HH:mm:ss'), {fraction})", "text", value.ok)
    if kind == "binary":
        return Typed(f"lower(hex({value.sql}))", "text", value.ok)
    return Typed("CAST(NULL AS STRING)", "text", "FALSE")  # a double's repr, an opaque value: the reference's


def cast_value(value: Typed, target: SqlType) -> Typed:
    """`values.cast_value`: a try-cast (NULL where it fails)."""
    r = rep(target)
    kind, v = value.kind, value.sql
    if kind == "null":
        return Typed(f"CAST(NULL AS {r.ddl})", r.kind, value.ok, target.scale or 0)
    if r.kind == "text":
        text = to_text(value)
        return Typed(text.sql, "text", text.ok)
    if r.kind == "opaque" or kind == "opaque":
        return Typed(f"CAST(NULL AS {r.ddl})", r.kind, "FALSE")
    if r.kind == "int":
        if kind == "text":
            guard = f"{v} RLIKE {sql.string(_INT_TEXT)}"
            return Typed(f"try_cast(try_cast(try_cast({v} AS DECIMAL(38,18)) AS BIGINT) AS {r.ddl})", "int",
                         value.both(f"coalesce({guard}, TRUE)"))
        if kind == "double":  # Spark's cast saturates at 2^63; the reference's integer does not fit: NULL
            return Typed(f"CASE WHEN {v} >= -9.223372036854775808E18 AND {v} < 9.223372036854775808E18 "
                         f"THEN try_cast({v} AS {r.ddl}) END", "int", value.ok)
        if kind == "decimal":  # by BIGINT: Spark rounds a wide decimal's cast to INT (99999999.9999999999 -> 1E8)
            return Typed(f"try_cast(try_cast({v} AS BIGINT) AS {r.ddl})", "int", value.ok)
        if kind == "int":
            return Typed(f"try_cast({v} AS {r.ddl})", "int", value.ok)
        return Typed(f"CAST(NULL AS {r.ddl})", "int", value.ok)  # a boolean, a timestamp, bytes: no integer
    converted = conform(value, target)
    return Typed(f"CASE WHEN {converted.fits} THEN {converted.sql} END", r.kind, converted.exact,
                 target.scale or 0, target.precision or 38)


@dataclass(frozen=True)
class Conformed:
    """A value in its target column's Spark type (`sql`), whether it fits (`fits`: else the reference
    raises `ConversionError`), and where both are the reference's exactly (`exact`)."""

    sql: str
    fits: str
    exact: str


def conform(value: Typed, target: SqlType) -> Conformed:
    """`values.conform`: the value taking the target column's type, or not fitting it (a NULL fits)."""
    converted = _conform(value, target)
    if converted.fits == "TRUE" or value.kind == "null":
        return converted
    fits = f"({value.sql} IS NULL)" if converted.fits == "FALSE" else \
        f"({value.sql} IS NULL OR coalesce({converted.fits}, FALSE))"
    return Conformed(converted.sql, fits, converted.exact)


def _conform(value: Typed, target: SqlType) -> Conformed:
    r = rep(target)
    kind, v, ok = value.kind, value.sql, value.ok
    null = f"CAST(NULL AS {r.ddl})"
    if kind == "null":
        return Conformed(null, "TRUE", ok)
    if r.kind == "text":
        text = to_text(value)
        fits = f"char_length({text.sql}) <= {target.length}" \
            if target.family is TypeFamily.CHARACTER and target.length is not None else "TRUE"
        return Conformed(text.sql, f"coalesce({fits}, TRUE)", text.ok)
    if r.kind == "opaque" or kind == "opaque" or kind == "double" and r.kind in ("decimal", "int"):
        return Conformed(null, "FALSE", "FALSE")
    if r.kind == "int":
        bits = INTEGER_BITS.get(target.name, 64)
        low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        if kind == "int":
            return Conformed(f"try_cast({v} AS {r.ddl})", f"{v} BETWEEN {low} AND {high}", ok)
        if kind == "decimal":
            whole = f"({v} = floor({v}) AND {v} BETWEEN {low} AND {high})"
            return Conformed(f"try_cast({v} AS {r.ddl})", whole, ok)
        if kind == "text":
            number = f"try_cast({v} AS DECIMAL(38,18))"
            guard = f"{v} RLIKE {sql.string(_INT_TEXT)}"
            fits = f"({number} = floor({number}) AND {number} BETWEEN {low} AND {high})"
            return Conformed(f"try_cast({number} AS {r.ddl})", f"coalesce({fits}, FALSE)", _and(ok, guard))
        return Conformed(null, "FALSE", ok)  # booleans, timestamps, bytes are no integers
    if r.kind == "decimal":
        precision, scale = target.precision or 38, target.scale or 0
        cast = f"try_cast({v} AS DECIMAL({precision},{scale}))"
        if kind in ("int", "decimal"):
            return Conformed(cast, f"{cast} IS NOT NULL", ok)
        if kind == "text":
            guard = f"{v} RLIKE {sql.string(_DECIMAL_TEXT)}"
            return Conformed(cast, f"{cast} IS NOT NULL", _and(ok, guard))
        return Conformed(null, "FALSE", ok)
    if r.kind == "double":
        limit = REAL_MAX if target.name == "REAL" else DOUBLE_MAX
        if kind in ("int", "double") or kind == "decimal" and value.precision <= 15:
            cast = f"CAST({v} AS DOUBLE)"
            within = f"abs({cast}) <= {sql.lit(limit)}"
            if kind == "double":  # a double may be NaN or infinite, as REAL/FLOAT/DOUBLE hold them
                within = f"(isnan({cast}) OR {within} OR abs({cast}) = CAST('Infinity' AS DOUBLE))"
            return Conformed(cast, within, ok)
        if kind == "text":
            cast = f"try_cast({v} AS DOUBLE)"
            guard = f"{v} RLIKE {sql.string(_DOUBLE_TEXT)}"
            return Conformed(cast, f"coalesce(abs({cast}) <= {sql.lit(limit)}, FALSE)", _and(ok, guard))
        if kind == "bool":
            return Conformed(null, "FALSE", ok)
        return Conformed(null, "FALSE", "FALSE")
    if r.kind == "timestamp":
        if kind == "timestamp":
            return Conformed(v, "TRUE", ok)
        if kind == "text":
            guard = f"{v} RLIKE {sql.string(_ISO_TEXT)}"
            cast = f"try_cast({v} AS TIMESTAMP)"
            return Conformed(cast, f"{cast} IS NOT NULL", _and(ok, guard))
        return Conformed(null, "FALSE", ok)
    if r.kind == "bool":
        if kind == "bool":
            return Conformed(v, "TRUE", ok)
        if kind == "int":
            return Conformed(f"({v} = 1)", f"{v} IN (0, 1)", ok)
        if kind == "text":
            guard = f"{v} RLIKE {sql.string(_BOOL_TEXT)}"
            return Conformed(f"lower({v}) IN ('true', 't', '1')", "TRUE", _and(ok, guard))
        return Conformed(null, "FALSE", ok)
    if r.kind == "binary":
        if kind == "binary":
            return Conformed(v, binary_fits(v, target), ok)
        if kind == "text":
            guard = f"{v} RLIKE {sql.string(_HEX_TEXT)}"
            data = f"unhex(regexp_replace({v}, '^0[xX]', ''))"
            return Conformed(data, binary_fits(data, target), _and(ok, guard))
        return Conformed(null, "FALSE", ok)
    return Conformed(null, "FALSE", "FALSE")


def spark_kind_of(data_type: object) -> tuple[str, int, int]:
    """The representation kind of a Spark type an expression gives (its scale and precision)."""
    from pyspark.sql import types as T

    if isinstance(data_type, T.StringType):
        return "text", 0, 0
    if isinstance(data_type, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return "int", 0, 0
    if isinstance(data_type, T.DecimalType):
        return "decimal", data_type.scale, data_type.precision
    if isinstance(data_type, (T.DoubleType, T.FloatType)):
        return "double", 0, 0
    if isinstance(data_type, T.BooleanType):
        return "bool", 0, 0
    if isinstance(data_type, T.TimestampType):
        return "timestamp", 0, 0
    if isinstance(data_type, T.BinaryType):
        return "binary", 0, 0
    if isinstance(data_type, T.NullType):
        return "null", 0, 0
    return "opaque", 0, 0
