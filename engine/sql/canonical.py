"""When Spark's optimizer takes two expressions for the same one, and when it knows one is never NULL.

`key` is a stand-in for Spark's `semanticEquals`, its comparison of canonicalized expressions: parentheses
and the case of column names do not count, AND, OR, `=`, `<=>`, `+` and `*` do not keep the order of their
operands, `a > b` is `b < a`, `a <> b` is `NOT a = b`, NOT of a comparison is the opposite comparison, an
IN list is a set, BETWEEN is its two comparisons, an integral `x + 0` and `x * 1` are `x` (which Spark
4.3 folds; not a DOUBLE's or a DECIMAL's, nor `x - 0`), and a LIKE pattern Spark's LikeSimplification reads as
`startswith`, `endswith`, `contains` or `=` is that (`S LIKE 'a%'` is `startswith(S, 'a')`, which Spark's
optimizer then takes for a written `startswith(S, 'a')`). A part that reads no column is its value, as
ConstantFolding makes it (`CAST(NULL AS BOOLEAN)` is NULL, `1 = 1` TRUE). Two expressions of one key have
one value on every row.

`nullable` is Spark's: whether an expression may be NULL when every column may be (the pipeline's are),
checked against Spark 4.3 (tests/sql). It is sound, never False for what may be NULL: where Spark's
reasons are not modelled it answers True.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from sqlglot import exp

from engine.core.types import SqlType
from engine.sql.coercion import SparkType, cast_target, static_type

Fold = Callable[[exp.Expr], Any]
"""The evaluator's value of a node that reads no column; raises where it fails."""

_COMMUTATIVE = (exp.And, exp.Or, exp.EQ, exp.NullSafeEQ, exp.Add, exp.Mul)
_FLIPPED: dict[type[exp.Expr], type[exp.Expr]] = {exp.GT: exp.LT, exp.GTE: exp.LTE}
_OPPOSITE: dict[type[exp.Expr], type[exp.Expr]] = {exp.GT: exp.LTE, exp.GTE: exp.LT, exp.LT: exp.GTE,
                                                   exp.LTE: exp.GT}
_NEGATED: dict[type[exp.Expr], type[exp.Expr]] = {exp.NEQ: exp.EQ, exp.NullSafeNEQ: exp.NullSafeEQ}
_ALWAYS_NULLABLE = (exp.Div, exp.IntDiv, exp.Mod, exp.Round, exp.Floor, exp.Ceil, exp.Sign, exp.TryCast, exp.Right,
                    exp.Column, exp.Null)
_NEVER_NULL = (exp.Literal, exp.Boolean, exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ, exp.CurrentDate,
               exp.CurrentTimestamp)
_DATE_READERS = (exp.TsOrDsToDate, exp.TsOrDsAdd, exp.Hour, exp.Minute, exp.Second, exp.DateDiff, exp.Year, exp.Month,
                 exp.Day, exp.DayOfMonth)
_DATED = ("date", "timestamp")
_LIKE_FORMS = ((re.compile(r"([^_%]+)%", re.S), "startswith"), (re.compile(r"%([^_%]+)", re.S), "endswith"),
               (re.compile(r"%([^_%]+)%", re.S), "contains"), (re.compile(r"([^_%]*)", re.S), "eq"))
_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_IDENTITY: dict[type[exp.Expr], int] = {exp.Add: 0, exp.Mul: 1}
_UNFOLDED = object()


def key(node: exp.Expr, fold: Fold, types: Mapping[str, SqlType] | None = None) -> Hashable:
    """A key equal for two expressions exactly where Spark's `semanticEquals` (as modelled here) holds;
    `types`, the columns' types where known, tell an integral `x + 0`."""
    types = types or {}
    while isinstance(node, exp.Paren):
        node = node.this
    if not any(isinstance(n, exp.Column) for n in node.walk()):
        value = _folded(node, fold)
        if value is not _UNFOLDED:
            return ("value", type(value).__name__, str(value))
    if isinstance(node, exp.Column):
        return ("column", node.name.lower())
    same = _identity_operand(node, fold, types)
    if same is not None:
        return key(same, fold, types)

    def sub(child: exp.Expr) -> Hashable:
        return key(child, fold, types)

    if isinstance(node, exp.Not):
        return _not_key(node.this, fold, types)
    if type(node) in _NEGATED:
        return ("not", sub(_NEGATED[type(node)](this=node.this, expression=node.expression)))
    if type(node) in _FLIPPED:
        return (_FLIPPED[type(node)].__name__, sub(node.expression), sub(node.this))
    if isinstance(node, exp.And | exp.Or):
        return (type(node).__name__, *sorted(map(repr, (sub(n) for n in _flattened(node, type(node))))))
    if isinstance(node, _COMMUTATIVE):
        return (type(node).__name__, *sorted(map(repr, (sub(node.this), sub(node.expression)))))
    if isinstance(node, exp.In):
        return ("In", sub(node.this), *sorted(repr(sub(n)) for n in node.expressions))
    if isinstance(node, exp.Between):
        low, high = node.args["low"], node.args["high"]
        return ("And", *sorted(map(repr, (("LTE", sub(low), sub(node.this)),
                                          ("LTE", sub(node.this), sub(high))))))
    if isinstance(node, exp.StartsWith | exp.EndsWith | exp.Contains):  # as a simplified LIKE's
        return (type(node).__name__.lower(), sub(node.this), sub(node.expression))
    if isinstance(node, exp.Like | exp.ILike):
        simplified = _like_key(node, fold, types)
        if simplified is not None:
            return ("not", simplified) if node.args.get("negate") else simplified
    return _generic_key(node, fold, types)


def nullable(node: exp.Expr) -> bool:
    """Whether Spark takes `node` to be possibly NULL (every column is)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, _NEVER_NULL):
        return False
    if isinstance(node, _ALWAYS_NULLABLE):
        return True
    children = [c for c in node.iter_expressions() if not isinstance(c, exp.DataType)]
    if isinstance(node, exp.Cast):
        return nullable(node.this) or _cast_may_be_null(node)
    if isinstance(node, exp.Coalesce | exp.Greatest | exp.Least):
        return all(nullable(c) for c in children)
    if isinstance(node, exp.ConcatWs):
        return not children or nullable(children[0])
    if isinstance(node, exp.If):
        other = node.args.get("false")
        return other is None or nullable(node.args["true"]) or nullable(other)
    if isinstance(node, exp.Case):
        values = [b.args["true"] for b in node.args.get("ifs") or []]
        default = node.args.get("default")
        return default is None or any(nullable(v) for v in [*values, default])
    if isinstance(node, exp.StrPosition) and (node.meta or {}).get("written") != "instr":
        return nullable(node.this) or nullable(node.args["substr"])  # a NULL position is 0
    if isinstance(node, _DATE_READERS):
        read = static_type(node.this, {})
        if read is None or read.name not in _DATED:  # text read as a date may not be one
            return True
    if isinstance(node, exp.Add | exp.Sub) and _decimal_operand(node):
        return True  # DECIMAL + and - are nullable in Spark, ANSI or not
    if isinstance(node, exp.Anonymous | exp.Func) and not children:
        return True
    return any(nullable(c) for c in children)


def _identity_operand(node: exp.Expr, fold: Fold, types: Mapping[str, SqlType]) -> exp.Expr | None:
    """`x` of an integral `x + 0`, `0 + x`, `x * 1` or `1 * x`, which Spark 4.3's optimizer makes `x`."""
    identity = _IDENTITY.get(type(node))
    if identity is None:
        return None
    whole = static_type(node, types)
    if whole is None or whole.name not in _INTEGRAL:
        return None
    for side, other in ((node.this, node.expression), (node.expression, node.this)):
        if not any(isinstance(n, exp.Column) for n in other.walk()):
            value = _folded(other, fold)
            if type(value) is int and value == identity:
                operand: exp.Expr = side
                return operand
    return None


def _folded(node: exp.Expr, fold: Fold) -> Any:
    try:
        return fold(node)
    except Exception:  # noqa: BLE001  a constant that fails is not folded (ConstantFolding leaves it)
        return _UNFOLDED


def _not_key(inner: exp.Expr, fold: Fold, types: Mapping[str, SqlType]) -> Hashable:
    """NOT of `inner`: Spark canonicalizes NOT of a comparison to the opposite comparison."""
    while isinstance(inner, exp.Paren):
        inner = inner.this
    opposite = _OPPOSITE.get(type(inner))
    if opposite is not None:
        return key(opposite(this=inner.this, expression=inner.expression), fold, types)
    return ("not", key(inner, fold, types))


def _flattened(node: exp.Expr, kind: type[exp.Expr]) -> list[exp.Expr]:
    """The operands of a chain of ANDs (or of ORs), through parentheses."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, kind):
        return _flattened(node.this, kind) + _flattened(node.expression, kind)
    return [node]


def _like_key(node: exp.Like | exp.ILike, fold: Fold, types: Mapping[str, SqlType]) -> Hashable | None:
    """A LIKE (an ILIKE: LIKE of both sides lowered) as Spark's LikeSimplification rewrites it, if it does:
    a pattern of one run of plain characters with `%` at either end or both, or none."""
    pattern = node.expression
    while isinstance(pattern, exp.Paren):
        pattern = pattern.this
    if not isinstance(pattern, exp.Literal) or not pattern.is_string or node.args.get("escape") is not None:
        return None
    text = pattern.this.lower() if isinstance(node, exp.ILike) else pattern.this
    if "\\" in text:
        return None
    subject = key(node.this, fold, types)
    if isinstance(node, exp.ILike):
        subject = ("Lower", subject)
    for form, name in _LIKE_FORMS:
        found = form.fullmatch(text)
        if found is not None:
            literal = ("value", "str", found.group(1))
            return ("EQ", *sorted(map(repr, (subject, literal)))) if name == "eq" else (name, subject, literal)
    return None


def _generic_key(node: exp.Expr, fold: Fold, types: Mapping[str, SqlType]) -> Hashable:
    parts: list[Hashable] = [type(node).__name__, (node.meta or {}).get("written")]
    for name in sorted(node.args):
        value = node.args[name]
        if isinstance(value, exp.DataType):
            parts.append((name, value.sql("spark")))
        elif isinstance(value, exp.Expression):
            parts.append((name, key(value, fold, types)))
        elif isinstance(value, list):
            parts.append((name, tuple(key(v, fold, types) if isinstance(v, exp.Expression) else repr(v)
                                      for v in value)))
        elif value is not None and value is not False:
            parts.append((name, repr(value)))
    return tuple(parts)


def _cast_may_be_null(node: exp.Cast) -> bool:
    """Spark's `Cast.forceNullable` for the allow-list's casts: text to anything but text, a fractional number
    to an integer, anything but a DATE or TIMESTAMP to a DATE, a number to a DECIMAL that may not hold it."""
    source, target = static_type(node.this, {}), cast_target(node.to)
    if source is None or target is None:
        return True
    if target.name == "string":
        return False
    if source.name == "string":
        return True
    if target.name == "date":
        return source.name not in _DATED
    if source.name == "date":
        return target.name != "timestamp"
    if target.name == "decimal":
        return not _fits_decimal(source, target)
    return source.name in ("float", "double", "decimal") and target.name in ("tinyint", "smallint", "int", "bigint")


def _fits_decimal(source: SparkType, target: SparkType) -> bool:
    digits = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}
    if source.name in digits:
        return target.precision - target.scale >= digits[source.name]
    if source.name == "decimal":
        return target.precision - target.scale >= source.precision - source.scale and target.scale >= source.scale
    return source.name == "boolean"


def _decimal_operand(node: exp.Binary) -> bool:
    types = [static_type(node.this, {}), static_type(node.expression, {})]
    return any(t is None or t.name == "decimal" for t in types)
