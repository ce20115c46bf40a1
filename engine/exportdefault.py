"""A column default written for another DBMS than its own: only forms with a checked equivalent there.

DDL for a server of one DBMS may hold a default written in another's SQL (a model imported from Oracle,
exported for PostgreSQL). sqlglot's transpiling is not trusted for it (`export_default`); what has no
checked equivalent is left out, and DDL says so in a comment. Parsing and checking a default in its own
DBMS's SQL is `engine.sqldefaults`.
"""

from __future__ import annotations

from typing import cast

import sqlglot
from sqlglot import exp

from engine.core.types import SqlType, TypeFamily
from engine.sqldefaults import (
    DBMS_NAMES,
    HEX_IS_BINARY,
    USER_FUNCTIONS,
    DefaultProblem,
    ParsedDefault,
    bit_string_problem,
    empty_text,
    is_string,
)

_USER_NAMES = frozenset({"USER", "SESSION_USER"})
"""The user functions that give the user's name wherever they exist; `SYSTEM_USER` is the login in SQL Server and
`method:identity` in PostgreSQL 16, so it is written only for its own DBMS."""


def export_default(parsed: ParsedDefault, target: str, column: SqlType) -> ParsedDefault:
    """The default as DDL for a `column` on DBMS `target` must say it to keep its value, else
    `DefaultProblem` naming what has no equivalent there (DDL then leaves it out, with a comment).

    For the default's own DBMS, the tree as it is: it is that DBMS's SQL. For another, sqlglot's transpiling
    is not trusted: it writes a hex blob as a bit string for PostgreSQL and as 0 for Oracle, `N'x'` and
    `USER` where SQLite refuses them, a function of one DBMS where the next has none, `1 / 2` where the
    next divides otherwise. So the tree is rebuilt from forms with a checked equivalent in `target` only
    (`_portable`): literals, NULL, arithmetic on numbers, joined text, the current date and time in a
    datetime column, the user's name, a binary column's hex literal. PostgreSQL's bit string is its one bit
    in a BIT column (written BOOLEAN) for every DBMS, PostgreSQL too, and the text of its digits in a
    character column (`_bits`)."""
    tree = _unwrapped(parsed.tree)
    if isinstance(tree, exp.BitString):
        return ParsedDefault(_bits(tree, parsed.dbms == target, target, column), target)
    if parsed.dbms == target:
        return parsed
    source = parsed.dbms or "other"
    if _binary(column):
        return ParsedDefault(_blob(tree, target), target)
    if isinstance(tree, exp.HexString):
        raise DefaultProblem(f"X'{tree.this}' is a binary value, written for another DBMS only in a binary column")
    if column.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return ParsedDefault(_truth(tree), target)
    if source == "oracle" and empty_text(tree):
        return ParsedDefault(exp.Null(), target)  # Oracle reads '' as NULL
    return ParsedDefault(_portable(parsed.tree, source, target, column), target)


def _unwrapped(tree: exp.Expression) -> exp.Expression:
    """The tree without its outer parentheses, and `CAST(NULL AS ...)` as NULL (no value has no type)."""
    while isinstance(tree, (exp.Paren, exp.Cast, exp.TryCast)):
        if isinstance(tree, (exp.Cast, exp.TryCast)) and not isinstance(_unwrapped(tree.this), exp.Null):
            return tree
        tree = tree.this
    return tree


def _binary(column: SqlType) -> bool:
    return column.family is TypeFamily.BINARY or column.name in ("BLOB", "BYTE", "LONG RAW")


def _blob(tree: exp.Expression, target: str) -> exp.Expression:
    """A binary column's default for another DBMS: NULL, or a hex literal in the target's own form. Text
    is not translated: each DBMS reads it as other bytes (PostgreSQL `'\\x00'` as one byte 0, SQLite as
    four characters)."""
    if isinstance(tree, exp.Null):
        return exp.Null()
    if not isinstance(tree, exp.HexString):
        raise DefaultProblem("a binary column's default is written for another DBMS only from a hex literal "
                             "(X'...'): each DBMS reads other text as different bytes")
    digits = tree.this
    if target in HEX_IS_BINARY:
        return exp.HexString(this=digits)
    if target == "postgresql":  # X'..' would be a bit string there; bytea reads '\x..' as hex bytes
        return exp.Cast(this=exp.Literal.string("\\x" + digits), to=exp.DataType.build("BYTEA", dialect="postgres"))
    if target == "oracle" and digits:  # Oracle reads an empty RAW as NULL
        return exp.Anonymous(this="HEXTORAW", expressions=[exp.Literal.string(digits)])
    raise DefaultProblem(f"X'{digits}' has no checked equivalent in {DBMS_NAMES.get(target, target)} SQL")


def _bits(node: exp.BitString, same: bool, target: str, column: SqlType) -> exp.Expression:
    """PostgreSQL's bit-string default for `target`: in a BIT column (which DDL writes BOOLEAN, as the run
    reads it) its one bit as TRUE or FALSE; in a character column the text of its digits, which is what
    PostgreSQL's assignment gives (kept as written for PostgreSQL itself)."""
    problem = bit_string_problem(node, column)
    if problem:
        raise DefaultProblem(problem)
    if column.family is TypeFamily.BIT:
        return exp.Boolean(this=node.this == "1")
    return node.copy() if same else _text(exp.Literal.string(node.this), "postgresql", target, column)


def _truth(tree: exp.Expression) -> exp.Expression:
    """A boolean column's default for another DBMS: NULL, TRUE or FALSE, also from SQL Server's and
    Oracle's 1 and 0 (PostgreSQL refuses an integer default for a boolean column). Written as 1 and 0 again
    where there are no boolean literals (`render_default`)."""
    if isinstance(tree, (exp.Null, exp.Boolean)):
        return tree.copy()
    if isinstance(tree, exp.Literal) and not tree.is_string and tree.this in ("0", "1"):
        return exp.Boolean(this=tree.this == "1")
    raise DefaultProblem("a boolean column's default is written for another DBMS only as TRUE, FALSE, 1 or 0")


_TEXT_CASTS = frozenset({exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR, exp.DataType.Type.NVARCHAR})
_NOW = (exp.CurrentTimestamp, exp.Systimestamp, exp.CurrentDate)


def _portable(node: exp.Expression, source: str, target: str, column: SqlType) -> exp.Expression:
    """`node` rebuilt of forms with a checked equivalent in `target`; `DefaultProblem` for anything else."""
    def again(child: exp.Expression) -> exp.Expression:
        return _portable(child, source, target, column)

    name = DBMS_NAMES.get(target, target)
    if isinstance(node, exp.Paren):
        return exp.Paren(this=again(node.this))
    if isinstance(node, (exp.Null, exp.Boolean)):
        return node.copy()
    if is_string(node):
        return _text(node, source, target, column)
    if isinstance(node, exp.Literal):
        return node.copy()
    if isinstance(node, exp.Neg) and _number(node.this):
        return exp.Neg(this=again(node.this))
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)) and _number(node.this) and _number(node.expression):
        return type(node)(this=again(node.this), expression=again(node.expression))
    if isinstance(node, exp.DPipe) and _textual(node.this) and _textual(node.expression):
        return exp.DPipe(this=again(node.this), expression=again(node.expression), safe=node.args.get("safe"))
    if isinstance(node, (exp.Cast, exp.TryCast)):
        if isinstance(_unwrapped(node), exp.Null):
            return exp.Null()
        if node.to.this in _TEXT_CASTS and not node.to.expressions and _textual(node.this):
            return again(node.this)  # `'new'::character varying`: text stays text, not cut to a length
        raise DefaultProblem(f"a cast to {node.to.sql()} has no checked equivalent in {name} SQL")
    if isinstance(node, exp.Var) and node.name in _USER_NAMES:
        if node.name in USER_FUNCTIONS.get(target, USER_FUNCTIONS["other"]):
            return node.copy()
        raise DefaultProblem(f"{node.name} has no equivalent in {name} SQL")
    if isinstance(node, _NOW):
        return _now(node, source, target, column)
    raise DefaultProblem(f"{_described(node)} has no checked equivalent in {name} SQL")


def _number(node: exp.Expression) -> bool:
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        return _number(node.this) and _number(node.expression)
    return isinstance(node, exp.Literal) and not node.is_string


def _textual(node: exp.Expression) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.DPipe):
        return _textual(node.this) and _textual(node.expression)
    return is_string(node)


def _text(node: exp.Expression, source: str, target: str, column: SqlType) -> exp.Expression:
    """A string literal for `target`: `N'...'` where it keeps characters a plain literal could lose (SQL
    Server's code pages), a plain literal where `N` is not SQL (SQLite). Not an empty one to or from Oracle,
    which reads '' as NULL, nor a date string for Oracle, which reads one by the session's NLS format."""
    value = node.this
    if value == "" and "oracle" in (source, target):
        raise DefaultProblem("'' has no equivalent: Oracle reads it as NULL")
    if target == "oracle" and column.family is TypeFamily.DATETIME:
        raise DefaultProblem(f"Oracle reads the date string {node.sql()} by the session's NLS_DATE_FORMAT")
    national = isinstance(node, exp.National) or (target == "mssql" and not value.isascii())
    if national and target in ("mssql", "oracle", "mysql"):
        return exp.National(this=value)
    return exp.Literal.string(value)


def _now(node: exp.Expression, source: str, target: str, column: SqlType) -> exp.Expression:
    """The current date or time for a datetime column (as text, each DBMS writes it its own way): today for
    a DATE column or from `CURRENT_DATE`, else the current timestamp. Oracle's `CURRENT_DATE` is the date and
    the time of day; a precision is left to the column's type."""
    if column.family is not TypeFamily.DATETIME:
        raise DefaultProblem(f"{_described(node)} in a {column} column reads differently in each DBMS")
    today = column.name == "DATE" or (isinstance(node, exp.CurrentDate) and source != "oracle")
    if not today:
        return exp.CurrentTimestamp()
    if target == "mssql":  # SQL Server has no CURRENT_DATE; GETDATE() has the time of day
        return exp.Cast(this=exp.CurrentTimestamp(), to=exp.DataType.build("DATE"))
    if target == "ase":  # GETDATE() has the time of day, and ASE's own ways to cut it are not checked here
        raise DefaultProblem("the current date has no checked equivalent in ASE SQL")
    if target == "oracle":  # Oracle's CURRENT_DATE has the time of day
        return cast(exp.Expression, sqlglot.parse_one("TRUNC(CURRENT_DATE)", read="oracle"))
    return exp.CurrentDate()


_OPERATORS: dict[type[exp.Expression], str] = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/",
                                               exp.Mod: "%", exp.DPipe: "||"}


def _described(node: exp.Expression) -> str:
    """A short name for a part of a default, for a message: a function by its name, an operator by its sign."""
    if type(node) in _OPERATORS:
        return f"the operator {_OPERATORS[type(node)]}"
    if isinstance(node, exp.Anonymous):
        return f"the function {node.name}()"
    if isinstance(node, exp.Func):
        return f"the function {node.sql_name()}()"
    if isinstance(node, exp.Var):
        return node.name
    return f"a {type(node).__name__.lower()}"
