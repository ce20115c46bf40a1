"""Whether a `where` clause is a condition: an expression whose type is BOOLEAN.

Spark's Filter refuses any other type when the query is analysed (DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN),
with no implicit cast: `WHERE ID`, `WHERE ''`, `WHERE 5` and `WHERE A + 1` parse, and fail the run. The
check is conservative: it types only the clause's top-level expression (through parentheses), and only
where the type is certain: a literal that is not TRUE, FALSE or NULL, a column whose type is held as
something other than a Spark boolean (every family but BOOLEAN and BIT, `engine.spark.types`),
arithmetic, string concatenation, a cast to a type other than BOOLEAN, and the allow-list's functions of
a fixed type (`upper`, `length`, `round`, `year`, `to_date`...). Anything else (CASE, `if`, `coalesce`,
comparisons, logic) is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.core.types import SqlType, TypeFamily

_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Neg)
_NUMBER_FUNCTIONS = (exp.Abs, exp.Round, exp.Length, exp.Floor, exp.Ceil, exp.Sign, exp.Year, exp.Month, exp.Day,
                     exp.DayOfMonth, exp.Hour, exp.Minute, exp.Second, exp.DateDiff, exp.StrPosition)
_TEXT = (exp.DPipe, exp.Concat, exp.ConcatWs, exp.Upper, exp.Lower, exp.Trim, exp.Substring, exp.RegexpReplace,
         exp.Pad, exp.Replace, exp.Left, exp.Right, exp.Reverse, exp.Initcap)
_DATE = (exp.TsOrDsToDate, exp.CurrentDate, exp.TsOrDsAdd)
_BOOLEAN_FAMILIES = (TypeFamily.BOOLEAN, TypeFamily.BIT)


def not_a_condition(text: str, types: Mapping[str, SqlType]) -> str | None:
    """Why `text`, a `where` clause that parses, is certainly not BOOLEAN, as a sentence end (`ID is a
    column of type INTEGER, not a BOOLEAN`); None when it is, or may be. `types` are the source columns' types
    (SQL names match without case); a column not among them is left to the unknown-column finding."""
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except SqlglotError:
        return None  # the parse finding says it
    while isinstance(tree, exp.Paren):
        tree = tree.this
    what = _certain_type(tree, types)
    if what is None:
        return None
    return f"{_clip(tree.sql(dialect='spark'))} is {what}, not a BOOLEAN"


def _certain_type(node: exp.Expr, types: Mapping[str, SqlType]) -> str | None:
    """What `node` certainly is when that is not a BOOLEAN ("a number", "text"...), or None."""
    if isinstance(node, exp.Literal):
        return "a string" if node.is_string else "a number"
    if isinstance(node, exp.Column):
        t = _column_type(node.name, types)
        if t is None or t.family in _BOOLEAN_FAMILIES:
            return None
        return f"a column of type {t}"
    if isinstance(node, exp.Cast | exp.TryCast):
        to = node.to
        return None if to.is_type(exp.DataType.Type.BOOLEAN) else f"a cast to {to.sql(dialect='spark')}"
    if isinstance(node, _ARITHMETIC):
        return "arithmetic"
    if isinstance(node, _NUMBER_FUNCTIONS):
        return "a number"
    if isinstance(node, _TEXT):
        return "text"
    if isinstance(node, exp.CurrentTimestamp):
        return "a timestamp"
    if isinstance(node, _DATE):
        return "a date"
    return None


def _column_type(name: str, types: Mapping[str, SqlType]) -> SqlType | None:
    found = types.get(name)
    if found is not None:
        return found
    folded = name.lower()
    return next((t for key, t in types.items() if key.lower() == folded), None)


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."
