"""A column default as a catalog prints it, made one constant expression in the server's SQL (sqlglot).

Catalogs add casts to a literal (`('new'::character varying)`, `'-1'::integer`): the column's type says as much,
so they are taken off; what is left must be one constant expression (`engine.sqldefaults`), else the caller
keeps the text as written and says so.
"""

from __future__ import annotations

from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from engine.sqldefaults import DefaultProblem, ParsedDefault, parse_default, render_default


def catalog_default(raw: str, read: str, write: str, dbms: str, numeric: bool) -> str | None:
    """`raw` (in sqlglot dialect `read`) as one expression in `write`'s SQL, checked as `dbms`'s default; None
    when it is not one constant SQL expression."""
    tree: exp.Expression | None
    try:
        tree = cast(exp.Expression, sqlglot.parse_one(raw, read=read, error_level=ErrorLevel.RAISE))
    except SqlglotError:
        return None
    tree = _bare_literal(tree, numeric)
    try:
        text = render_default(ParsedDefault(tree), write)
        parse_default(text, dbms)
    except DefaultProblem:
        return None
    return text


def _bare_literal(tree: exp.Expression, numeric: bool) -> exp.Expression:
    """`('new'::character varying)` -> `'new'`; `'-1'::integer` -> `-1`: the column's type says the rest."""
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if isinstance(tree, exp.Cast) and isinstance(tree.this, (exp.Literal, exp.Neg, exp.Paren)):
        inner = tree.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if numeric and isinstance(inner, exp.Literal) and inner.is_string and _is_number(inner.this):
            text = inner.this.strip()
            number = exp.Literal.number(text.lstrip("+-"))
            inner = exp.Neg(this=number) if text.startswith("-") else number
        if isinstance(inner, (exp.Literal, exp.Neg)):
            return inner
    return tree


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")

