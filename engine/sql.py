"""Spark SQL snippets (`where` clauses, `expression` methods) read without a JVM, through sqlglot."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError


@dataclass(frozen=True)
class ParsedSql:
    """Column names an expression reads, or the reason it does not parse."""

    columns: tuple[str, ...] = ()
    error: str | None = None


@lru_cache(maxsize=4096)
def parse_expression(text: str) -> ParsedSql:
    """Parse one scalar Spark SQL expression (not a query)."""
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except SqlglotError as exc:
        return ParsedSql(error=_first_line(str(exc)))
    if tree is None:
        return ParsedSql(error="empty expression")
    if isinstance(tree, (exp.Query, exp.Command, exp.DDL, exp.DML)):
        return ParsedSql(error="a query or statement where an expression belongs")
    names = dict.fromkeys(c.name for c in tree.find_all(exp.Column))
    return ParsedSql(columns=tuple(names))


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "syntax error"
    return line.replace("\x1b[4m", "").replace("\x1b[0m", "")
