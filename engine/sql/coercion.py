"""Spark's static type of an expression, and the one type its ANSI mode widens a conditional's branches to.

Spark gives an `if`, a CASE and a `coalesce` (and `nvl2`, `ifnull`, which are those) one type, the wider
type of their branches (`AnsiTypeCoercion.findWiderTypeForTwo`, folded left to right over a CASE's
values), and casts each branch to it: `if(c, 1, 2.5)` is `1.0` where `c` holds, `CASE WHEN c THEN 1 ELSE
'a' END` is a BIGINT, so `'a'` fails where it is taken. Checked against Spark 4.3 (tests/sql):

| with | integral | FLOAT | DOUBLE | DECIMAL | STRING | DATE | TIMESTAMP |
|---|---|---|---|---|---|---|---|
| integral | the wider | DOUBLE | DOUBLE | DECIMAL | BIGINT | - | - |
| DECIMAL | DECIMAL | DOUBLE | DOUBLE | DECIMAL | DOUBLE | - | - |
| STRING | BIGINT | DOUBLE | DOUBLE | DOUBLE | STRING | DATE | TIMESTAMP |
| DATE | - | - | - | - | DATE | DATE | TIMESTAMP |

BOOLEAN meets BOOLEAN and STRING (as BOOLEAN), NULL anything; "-" is refused by Spark's analysis (the
reference then leaves the value as it is). An integral type takes part in a DECIMAL as DECIMAL(3,0),
(5,0), (10,0) or (20,0); two DECIMALs give the larger integral part and scale, at most 38 digits, giving
up scale first (`boundedPreferIntegralDigits`).

`static_type` answers None where it cannot tell (a column whose type it is not given and whose value is
NULL on the row, a function whose type it does not follow): the branches are then left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlglot import exp

from engine.core.types import SqlType, TypeFamily
from engine.core.values import is_textual
from engine.sql import casts
from engine.sql.decimals import MAX_PRECISION, decimal_type, literal_type, result_type
from engine.sql.floats import Float32, as_double

_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_INTEGRAL_DIGITS = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}
_FRACTIONAL = ("float", "double")
_COLUMN_INTEGRAL = {"SMALLINT": "smallint", "INTEGER": "int", "INT": "int", "SERIAL": "int", "BIGINT": "bigint",
                    "SERIAL8": "bigint"}
_CAST_TARGETS = {"BOOLEAN": "boolean", "TINYINT": "tinyint", "SMALLINT": "smallint", "INT": "int",
                 "BIGINT": "bigint", "FLOAT": "float", "DOUBLE": "double", "TEXT": "string", "VARCHAR": "string",
                 "CHAR": "string", "DATE": "date", "TIMESTAMP": "timestamp", "TIMESTAMPTZ": "timestamp"}
_BOOLEAN_NODES = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ, exp.And,
                  exp.Or, exp.Not, exp.Is, exp.In, exp.Between, exp.Like, exp.ILike, exp.RegexpLike, exp.StartsWith,
                  exp.EndsWith, exp.Contains)
_STRING_NODES = (exp.Upper, exp.Lower, exp.Trim, exp.Substring, exp.Concat, exp.DPipe, exp.ConcatWs,
                 exp.RegexpReplace, exp.Pad, exp.Replace, exp.Left, exp.Right, exp.Reverse, exp.Initcap)
_INT_NODES = (exp.Length, exp.StrPosition, exp.Year, exp.Month, exp.Day, exp.DayOfMonth, exp.Hour, exp.Minute,
              exp.Second, exp.DateDiff)


@dataclass(frozen=True)
class SparkType:
    """A Spark SQL type: `name` is one of null, boolean, tinyint, smallint, int, bigint, float, double, decimal,
    string, date, timestamp; `precision` and `scale` are a decimal's."""

    name: str
    precision: int = 0
    scale: int = 0


NULL = SparkType("null")


def static_type(node: exp.Expr, types: Mapping[str, SqlType], row: Mapping[str, Any] | None = None) -> \
        SparkType | None:
    """Spark's type of `node`: a column's from `types` (as the pipeline holds it, `engine.spark.types.rep`),
    else from its value on `row`; None where it cannot tell."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Null):
        return NULL
    if isinstance(node, (exp.Boolean, *_BOOLEAN_NODES)):
        return SparkType("boolean")
    if isinstance(node, exp.Literal):
        return SparkType("string") if node.is_string else _number_literal(node.this)
    if isinstance(node, exp.Column):
        return _column_type(node.name, types, row)
    if isinstance(node, exp.Cast | exp.TryCast):
        return cast_target(node.to)
    if isinstance(node, _STRING_NODES):
        return SparkType("string")
    if isinstance(node, _INT_NODES):
        return SparkType("int")
    if isinstance(node, exp.TsOrDsToDate | exp.TsOrDsAdd | exp.CurrentDate):
        return SparkType("date")
    if isinstance(node, exp.CurrentTimestamp):
        return SparkType("timestamp")
    if isinstance(node, exp.Sign):
        return SparkType("double")
    if isinstance(node, exp.Abs | exp.Neg | exp.Floor | exp.Ceil | exp.Round):
        return _numeric_function_type(node, static_type(node.this, types, row))
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Mod | exp.Div | exp.IntDiv):
        return _arithmetic_type(node, types, row)
    if isinstance(node, exp.If):
        return wider_of([node.args.get("true"), node.args.get("false") or exp.Null()], types, row)
    if isinstance(node, exp.Case):
        values = [branch.args.get("true") for branch in node.args.get("ifs") or []]
        return wider_of([*values, node.args.get("default") or exp.Null()], types, row)
    if isinstance(node, exp.Coalesce | exp.Greatest | exp.Least):
        return wider_of([node.this, *node.expressions], types, row)
    return None


def wider_of(nodes: Iterable[exp.Expr | None], types: Mapping[str, SqlType],
             row: Mapping[str, Any] | None = None) -> SparkType | None:
    """The type Spark gives a conditional of these branches (`findWiderCommonType`: left to right), or None
    where one's type is not known or two do not meet."""
    found: SparkType | None = NULL
    for node in nodes:
        branch = static_type(node, types, row) if node is not None else None
        if found is None or branch is None:
            return None
        found = wider(found, branch)
    return found


def wider(a: SparkType, b: SparkType) -> SparkType | None:
    """Spark's `findWiderTypeForTwo` under ANSI (see the module's table); None where Spark refuses the two."""
    if a.name == "null" or a == b and a.name != "decimal":
        return b
    if b.name == "null":
        return a
    if b.name == "string" and a.name != "string":
        a, b = b, a
    if a.name == "string":
        if b.name in _INTEGRAL:
            return SparkType("bigint")
        if b.name in ("decimal", *_FRACTIONAL):
            return SparkType("double")
        return b if b.name in ("boolean", "date", "timestamp") else None
    if {a.name, b.name} == {"date", "timestamp"}:
        return SparkType("timestamp")
    numeric = (*_INTEGRAL, "decimal", *_FRACTIONAL)
    if a.name not in numeric or b.name not in numeric:
        return None
    if a.name in _INTEGRAL and b.name in _INTEGRAL:
        return a if _INTEGRAL.index(a.name) >= _INTEGRAL.index(b.name) else b
    if a.name in _FRACTIONAL or b.name in _FRACTIONAL:
        return SparkType("float") if a.name == b.name == "float" else SparkType("double")
    p1, s1 = _as_decimal(a)
    p2, s2 = _as_decimal(b)
    scale, whole = max(s1, s2), max(p1 - s1, p2 - s2)
    if whole + scale <= MAX_PRECISION:
        return SparkType("decimal", whole + scale, scale)
    return SparkType("decimal", MAX_PRECISION, max(0, scale - (whole + scale - MAX_PRECISION)))


def widened(value: Any, to: SparkType | None) -> Any:
    """`value` cast to the type `to` Spark widened it to (an ANSI cast: text that does not read as a number
    is an error); unchanged where `to` is not known, or is already the value's."""
    if value is None or to is None or to.name in ("null", "string"):
        return value
    if to.name in _INTEGRAL:
        return casts.cast_to(value, "BIGINT") if isinstance(value, str) else value
    if to.name == "double":
        return as_double(value) if isinstance(value, float) else casts.cast_to(value, "DOUBLE")
    if to.name == "float":
        return value
    if to.name == "decimal":
        return casts.cast_to(value, "DECIMAL", to.precision, to.scale)
    return casts.cast_to(value, to.name.upper()) if isinstance(value, str | date) else value


def cast_target(to: exp.DataType) -> SparkType | None:
    name = to.this.name
    if name == "DECIMAL":
        params = [int(p.name) for p in to.expressions] if to.expressions else []
        return SparkType("decimal", params[0] if params else 10, params[1] if len(params) > 1 else 0)
    found = _CAST_TARGETS.get(name)
    return SparkType(found) if found else None


def _as_decimal(t: SparkType) -> tuple[int, int]:
    return (t.precision, t.scale) if t.name == "decimal" else (_INTEGRAL_DIGITS[t.name], 0)


def _number_literal(text: str) -> SparkType | None:
    digits = text.lstrip("+-")
    if digits.isdigit():
        whole = int(text)
        return SparkType("int") if -2**31 <= whole < 2**31 else SparkType("bigint") if -2**63 <= whole < 2**63 \
            else SparkType("decimal", len(digits.lstrip("0")) or 1, 0)
    found = decimal_type(exp.Literal.number(text), {})
    return SparkType("decimal", found[0], found[1]) if found is not None and found[2] else None


def _column_type(name: str, types: Mapping[str, SqlType], row: Mapping[str, Any] | None) -> SparkType | None:
    t = types.get(name) or next((v for k, v in types.items() if k.lower() == name.lower()), None)
    if t is not None:
        return _held_as(t)
    if row is None:
        return None
    value = row[name] if name in row else next((v for k, v in row.items() if k.lower() == name.lower()), None)
    return value_type(value)


def _held_as(t: SqlType) -> SparkType | None:
    """How the pipeline holds a column of this type in Spark (`engine.spark.types.rep`)."""
    if is_textual(t):
        return SparkType("string")
    if t.family is TypeFamily.EXACT_NUMERIC:
        if t.name in _COLUMN_INTEGRAL:
            return SparkType(_COLUMN_INTEGRAL[t.name])
        if t.precision is not None and t.precision <= MAX_PRECISION:
            return SparkType("decimal", t.precision, t.scale or 0)
        return SparkType("string")
    if t.family is TypeFamily.APPROX_NUMERIC:
        return SparkType("double")
    if t.family is TypeFamily.DATETIME:
        return SparkType("timestamp")
    if t.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return SparkType("boolean")
    return None


def value_type(value: Any) -> SparkType | None:
    """The type a value of a column whose type is not given is taken to be (an integer is a BIGINT, a decimal
    has the digits of its value); None for NULL."""
    if isinstance(value, bool):
        return SparkType("boolean")
    if isinstance(value, int):
        return SparkType("bigint")
    if isinstance(value, Float32):
        return SparkType("float")
    if isinstance(value, float):
        return SparkType("double")
    if isinstance(value, Decimal) and value.is_finite():
        exponent = value.as_tuple().exponent
        scale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return SparkType("decimal", max(len(value.as_tuple().digits), scale, 1), scale)
    if isinstance(value, str):
        return SparkType("string")
    if isinstance(value, datetime):
        return SparkType("timestamp")
    if isinstance(value, date):
        return SparkType("date")
    return None


def _numeric_function_type(node: exp.Expr, operand: SparkType | None) -> SparkType | None:
    """`abs`, unary `-`, `floor`, `ceil`, `round(x, d)` of an operand of that type (Spark 4.3): text is read as
    a DOUBLE; `floor` and `ceil` give a BIGINT, of a DECIMAL(p, s) a DECIMAL(p - s + 1, 0); `round` keeps
    the type, of a DECIMAL(p, s) a DECIMAL(p - s + t + 1, t), t = min(max(d, 0), s)."""
    if operand is None or operand.name not in (*_INTEGRAL, *_FRACTIONAL, "decimal", "string"):
        return None
    if operand.name == "string":
        operand = SparkType("double")
    if isinstance(node, exp.Floor | exp.Ceil):
        return SparkType("decimal", operand.precision - operand.scale + 1, 0) if operand.name == "decimal" \
            else SparkType("bigint")
    if isinstance(node, exp.Round) and operand.name == "decimal":
        digits = node.args.get("decimals")
        if digits is None:
            kept = 0
        elif isinstance(digits, exp.Literal) and not digits.is_string and digits.this.lstrip("-").isdigit():
            kept = min(max(int(digits.this), 0), operand.scale)
        elif isinstance(digits, exp.Neg) and isinstance(digits.this, exp.Literal):
            kept = 0
        else:
            return None
        return SparkType("decimal", operand.precision - operand.scale + kept + 1, kept)
    return operand


def _arithmetic_type(node: exp.Binary, types: Mapping[str, SqlType], row: Mapping[str, Any] | None) -> \
        SparkType | None:
    """`+ - * / DIV %`: integers give the wider integer (`/` a DOUBLE, DIV a BIGINT), a DOUBLE or text a
    DOUBLE, DECIMALs Spark's DecimalPrecision (`decimals`)."""
    if isinstance(node, exp.IntDiv):
        return SparkType("bigint")
    left, right = static_type(node.this, types, row), static_type(node.expression, types, row)
    if left is None or right is None:
        return None
    names = {left.name, right.name}
    if "null" in names:
        return None
    if names & {"string", "double"}:
        return SparkType("double")
    if "float" in names:
        return SparkType("float") if names == {"float"} and not isinstance(node, exp.Div) else SparkType("double")
    if names <= set(_INTEGRAL):
        return SparkType("double") if isinstance(node, exp.Div) else wider(left, right)
    if "decimal" in names and names <= {"decimal", *_INTEGRAL}:
        shapes = [_decimal_operand(n, t) for n, t in ((node.this, left), (node.expression, right))]
        precision, scale = result_type(type(node), shapes[0], shapes[1])
        return SparkType("decimal", precision, scale)
    return None


def _decimal_operand(node: exp.Expr, t: SparkType) -> tuple[int, int]:
    """An operand of DECIMAL arithmetic as (precision, scale): an integer literal with its fewest digits."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        found = literal_type(node.this)
        if found is not None:
            return found[0], found[1]
    return _as_decimal(t)
