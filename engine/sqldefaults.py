"""Column defaults: SQL by the contract, accepted only as exactly one constant expression.

A default is parsed by sqlglot in its server's SQL dialect; it may be a literal, a cast, arithmetic or a
function call, and nothing else (no columns, queries, statements or parameters). It is written for a
target dialect from the parsed tree, and the text is parsed back to check it says the same. Rule TB003
reports a default this refuses; DDL export never writes one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from engine.model.schema import ColumnDef
from engine.sql import limit_problem

SQLGLOT_BY_DBMS = {"postgresql": "postgres", "oracle": "oracle", "mssql": "tsql", "ase": "tsql",
                   "mysql": "mysql", "sqlite": "sqlite", "db2": "postgres", "informix": "postgres",
                   "other": "postgres"}
"""The sqlglot dialect a server's SQL is read in. sqlglot has no DB2 or Informix dialect; PostgreSQL's is
the closest to the standard SQL they share for defaults."""

SQLGLOT_BY_SQLALCHEMY = {"postgresql": "postgres", "oracle": "oracle", "mssql": "tsql", "sybase": "tsql",
                         "mysql": "mysql", "mariadb": "mysql", "sqlite": "sqlite"}

_SPECIAL_REGISTERS = {"CURRENT TIMESTAMP": "CURRENT_TIMESTAMP", "CURRENT DATE": "CURRENT_DATE",
                      "CURRENT TIME": "CURRENT_TIME",  # DB2 and Informix spell these with a space
                      "TODAY": "CURRENT_DATE", "CURRENT": "CURRENT_TIMESTAMP"}  # Informix
_INFORMIX_CURRENT = re.compile(r"CURRENT (YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|FRACTION)"
                               r" TO (YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|FRACTION)( ?\( ?[1-5] ?\))?")
"""Informix's `CURRENT YEAR TO SECOND` (a DATETIME with its qualifier): the current timestamp."""
_USER_REGISTERS = frozenset({"USER", "SESSION_USER", "SYSTEM_USER"})
"""The standard's niladic user functions, written without parentheses by Oracle, DB2, Informix, SQL Server
and PostgreSQL alike; sqlglot would read them as column names."""

_CONSTANT_NODES: tuple[type[Any], ...] = (
    exp.Literal, exp.National, exp.Boolean, exp.Null, exp.Neg, exp.Paren, exp.Cast, exp.TryCast, exp.DataType,
    exp.DataTypeParam, exp.Func, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.DPipe, exp.Interval, exp.Var,
)
_FORBIDDEN_NODES: tuple[type[Any], ...] = (
    exp.Query, exp.Subquery, exp.DDL, exp.DML, exp.Command, exp.Placeholder, exp.Parameter, exp.Star)


class DefaultProblem(ValueError):
    """A column default that is not exactly one constant SQL expression; the message says why."""


@dataclass(frozen=True)
class ParsedDefault:
    tree: exp.Expression


def parse_default(value: str | int | float | bool, dbms: str) -> ParsedDefault:
    """Parse a model's column default, written in its server's SQL; raises `DefaultProblem`."""
    if isinstance(value, bool):
        return ParsedDefault(exp.Boolean(this=value))
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            raise DefaultProblem(f"{value} is not a number SQL can hold")
        literal = exp.Literal.number(abs(value))
        return ParsedDefault(exp.Neg(this=literal) if value < 0 else literal)
    return ParsedDefault(_parse_text(value, SQLGLOT_BY_DBMS.get(dbms, "postgres")))


@lru_cache(maxsize=4096)
def _parse_text(text: str, read: str) -> exp.Expression:
    source = text.strip()
    if not source:
        raise DefaultProblem("the default is empty")
    upper = " ".join(source.upper().split())
    if upper in _USER_REGISTERS:
        return exp.Var(this=upper)
    if _INFORMIX_CURRENT.fullmatch(upper):
        upper = "CURRENT"
    source = _SPECIAL_REGISTERS.get(upper, source)
    too_big = limit_problem(source)  # sqlglot recurses per level: 50 parentheses ran out of stack
    if too_big:
        raise DefaultProblem(f"the default {too_big}")
    try:
        trees = sqlglot.parse(source, read=read, error_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        raise DefaultProblem(f"not one SQL expression ({_first_line(str(exc))})") from None
    found = [cast(exp.Expression, t) for t in trees if t is not None]
    if len(found) != 1:
        raise DefaultProblem(f"{len(found)} SQL statements where one expression belongs")
    tree = found[0]
    for node in tree.walk():
        if isinstance(node, exp.Column):
            raise DefaultProblem(f"it names a column ({node.sql()}); a default is a constant or a function call")
        if isinstance(node, _FORBIDDEN_NODES) or not isinstance(node, (*_CONSTANT_NODES, exp.Identifier)):
            raise DefaultProblem(f"a {type(node).__name__.lower()} is not a constant expression")
        if isinstance(node, exp.Identifier) and not isinstance(node.parent, exp.DataType):
            raise DefaultProblem(f"{node.sql()!r} is not a constant")
    return tree


def render_default(parsed: ParsedDefault, write: str) -> str:
    """The default as SQL text of the sqlglot dialect `write`, checked to parse back to the same tree."""
    tree = parsed.tree
    if write in ("tsql", "oracle"):  # no boolean literals there: BIT / NUMBER(1) columns take 1 and 0
        tree = tree.transform(lambda n: exp.Literal.number(int(n.this)) if isinstance(n, exp.Boolean) else n)
    try:
        text = tree.sql(dialect=write, unsupported_level=ErrorLevel.RAISE)
        again = sqlglot.parse(text, read=write, error_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        raise DefaultProblem(f"cannot be written in {write} SQL ({_first_line(str(exc))})") from None
    if len(again) != 1 or again[0] is None or again[0].sql(dialect=write) != text:
        raise DefaultProblem(f"does not survive being written in {write} SQL")
    return text


def run_default(value: str | int | float | bool, dbms: str) -> str | int | float | bool:
    """The default as a run evaluates it: text in its server's SQL rewritten as Spark SQL, the dialect the
    run's evaluator reads, so that Oracle's `'it''s'` is `it's` (not two literals joined), and `SYSDATE`,
    `getdate()` or DB2's `CURRENT TIMESTAMP` the change's time. A default TB003 refuses is left as written
    (the run reads it as before)."""
    if not isinstance(value, str):
        return value
    try:
        return render_default(parse_default(value, dbms), "spark")
    except DefaultProblem:
        return value


def is_null_default(value: str | int | float | bool, dbms: str) -> bool:
    """Whether a default is SQL NULL (`NULL`, `(NULL)`, `CAST(NULL AS ...)`): no value at all. A default TB003
    refuses is not one (TB003 reports it)."""
    try:
        tree = parse_default(value, dbms).tree
    except DefaultProblem:
        return False
    while isinstance(tree, (exp.Paren, exp.Cast, exp.TryCast)):
        tree = tree.this
    return isinstance(tree, exp.Null)


def default_problem(column: ColumnDef, dbms: str) -> str | None:
    """Why a column's default cannot be used (TB003), or None."""
    if column.default is None:
        return None
    try:
        parse_default(column.default, dbms)
    except DefaultProblem as exc:
        return str(exc)
    return None


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "syntax error"
    return line.replace("\x1b[4m", "").replace("\x1b[0m", "")
