"""Writing model strings into Oracle GoldenGate parameter-file syntax, or refusing them.

A parameter file is read by GoldenGate's own parser: a name or a literal that
carries a quote, a semicolon, `--` or a line break could end a statement early
or start another one. Nothing is escaped here: a string outside the safe sets
below raises `Unsafe`, and the caller lists it as not expressed, so a file is
never broken and never carries text the model smuggled in.

- Object and column names are always double-quoted (case kept, as the DDL
  export writes them), "Parameters and Functions Reference", TABLE | MAP:
  https://docs.oracle.com/en/database/goldengate/core/26/reference/table-map.html
- Literals are single-quoted, and a `where` becomes a WHERE clause of the
  operators GoldenGate documents (column names, numbers, quoted literals,
  @NULL, =, <>, >, <, >=, <=, AND, OR, parentheses; no NOT, no arithmetic):
  https://docs.oracle.com/en/middleware/goldengate/core/19.1/ggcab/selecting-rows-where-clause.html
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.core.types import TypeFamily
from engine.model.schema import ColumnDef

MAX_NAME = 128
MAX_LITERAL = 4000
# Words of letters, digits, _ $ #, joined by single spaces or single hyphens: no quote, no `;`, no `--`.
_NAME = re.compile(r"[A-Za-z0-9_$#]+(?:[ -][A-Za-z0-9_$#]+)*")
_LITERAL_FORBIDDEN = re.compile(r"['\"\\;]|--|[^\x20-\x7e]")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_RESOLUTION_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,29}")
_COMPARISONS: dict[type[exp.Expr], str] = {
    exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=",
}


class Unsafe(ValueError):
    """A model string that cannot be written into a parameter file as it is; the message says why."""


def ident(name: str) -> str:
    """A column or object name as a double-quoted identifier."""
    if len(name) > MAX_NAME or not _NAME.fullmatch(name):
        raise Unsafe(f"the name {shown(name)} cannot be written safely in a parameter file (only letters, digits, "
                     f"_ $ # and single spaces or hyphens between them, at most {MAX_NAME} characters)")
    return f'"{name}"'


def table_name(name: str, schema: str | None = None) -> str:
    """A table name, after its schema where the model gives one; a dotted name (`SALES.CUSTOMER`) without a
    schema is written as schema and table."""
    if schema is not None:
        return f"{ident(schema)}.{ident(name)}"
    return ".".join(ident(part) for part in name.split("."))


def literal(value: str | int | float | bool | None) -> str:
    """A constant as GoldenGate reads it: a quoted string, a number, or NULL through @COLSTAT."""
    if value is None:
        return "@COLSTAT (NULL)"
    if isinstance(value, bool):
        raise Unsafe("a boolean constant has no GoldenGate literal")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(Decimal(repr(value)), "f")  # 1e-07 as 0.0000001: GoldenGate reads plain decimals
    if len(value) > MAX_LITERAL or _LITERAL_FORBIDDEN.search(value):
        raise Unsafe(f"the text {shown(value)} cannot be written safely as a GoldenGate literal (no quotes, "
                     f"backslash, semicolon, `--`, line breaks or non-ASCII characters)")
    return f"'{value}'"


def resolution_name(name: str, fallback: str) -> str:
    """A RESOLVECONFLICT resolution name: the column group's, when it is a plain word."""
    return name if _RESOLUTION_NAME.fullmatch(name) and name.upper() != "DEFAULT" else fallback


def comment(text: str) -> str:
    """Text for a `--` comment line: one line of printable ASCII, anything else as an escape (`\\n`)."""
    return "".join(c if " " <= c <= "~" else ascii(c)[1:-1] for c in text)


def shown(text: str) -> str:
    """A string quoted for a message, cut short, in printable ASCII."""
    return ascii(text if len(text) <= 40 else f"{text[:37]}...")


Resolver = Callable[[str], ColumnDef | None]


class WhereUnsupported(ValueError):
    """A `where` clause with a construct GoldenGate's WHERE has no equivalent of."""


def where_clause(sql: str, resolve: Resolver) -> str:
    """The mapping's `where` (Spark SQL) as the condition of a MAP's WHERE option.

    A comparison TRUE in Spark SQL only when its columns are not NULL; so each nullable
    column compared is guarded with `<> @NULL`. Without NOT, AND and OR keep that exact.
    """
    try:
        tree = sqlglot.parse_one(sql, read="spark")
    except SqlglotError:
        raise WhereUnsupported("the where clause does not parse") from None
    if tree is None:
        raise WhereUnsupported("the where clause is empty")
    return _condition(tree, resolve, top=True)


def _condition(node: exp.Expr, resolve: Resolver, top: bool = False) -> str:
    if isinstance(node, exp.Paren):
        return _condition(node.this, resolve, top)
    if isinstance(node, (exp.And, exp.Or)):
        word = "AND" if isinstance(node, exp.And) else "OR"
        text = f"{_condition(node.left, resolve)} {word} {_condition(node.right, resolve)}"
        return text if top else f"({text})"
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return f"{_column(node.this, resolve)[0]} = @NULL"
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is) and isinstance(node.this.expression, exp.Null):
        return f"{_column(node.this.this, resolve)[0]} <> @NULL"
    if isinstance(node, exp.Between):  # x BETWEEN a AND b is x >= a AND x <= b
        low = exp.GTE(this=node.this.copy(), expression=node.args["low"].copy())
        high = exp.LTE(this=node.this.copy(), expression=node.args["high"].copy())
        return _condition(exp.And(this=low, expression=high), resolve, top)
    if isinstance(node, exp.In) and node.expressions and not node.args.get("query"):  # x IN (a, b): x = a OR x = b
        tree: exp.Expr = exp.EQ(this=node.this.copy(), expression=node.expressions[0].copy())
        for value in node.expressions[1:]:
            tree = exp.Or(this=tree, expression=exp.EQ(this=node.this.copy(), expression=value.copy()))
        return _condition(exp.Paren(this=tree), resolve, top)
    operator = _COMPARISONS.get(type(node))
    if operator is None:
        raise WhereUnsupported(f"GoldenGate's WHERE has no equivalent of {_clip(node.sql(dialect='spark'))}")
    assert isinstance(node, exp.Binary)
    left, guard_left = _operand(node.left, resolve)
    right, guard_right = _operand(node.right, resolve)
    guards = [f"{g} <> @NULL" for g in dict.fromkeys(g for g in (guard_left, guard_right) if g)]
    text = " AND ".join([*guards, f"{left} {operator} {right}"])
    return text if top or not guards else f"({text})"


def _operand(node: exp.Expr, resolve: Resolver) -> tuple[str, str | None]:
    """An operand and, for a nullable column, its name to guard."""
    if isinstance(node, exp.Paren):
        return _operand(node.this, resolve)
    if isinstance(node, exp.Column):
        return _column(node, resolve)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return literal(node.this), None
        if _NUMBER.fullmatch(node.this):
            return node.this, None
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string \
            and _NUMBER.fullmatch(node.this.this):
        return f"-{node.this.this}", None
    raise WhereUnsupported(f"GoldenGate's WHERE compares only columns, numbers and literals, not "
                           f"{_clip(node.sql(dialect='spark'))}")


def _column(node: exp.Expr, resolve: Resolver) -> tuple[str, str | None]:
    if not isinstance(node, exp.Column) or node.table:
        raise WhereUnsupported(f"GoldenGate's WHERE tests only a column for NULL, not "
                               f"{_clip(node.sql(dialect='spark'))}")
    column = resolve(node.name)
    if column is None:
        raise WhereUnsupported(f"the where clause reads {shown(node.name)}, which the source table does not have")
    if column.sql_type.family is TypeFamily.APPROX_NUMERIC:
        raise WhereUnsupported(f"GoldenGate's WHERE does not support floating-point columns ({column.name})")
    name = ident(column.name)
    return name, (name if column.nullable else None)


def _clip(text: str) -> str:
    return shown(text)
