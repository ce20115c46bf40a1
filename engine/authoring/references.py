"""Renaming what names a column: method trees, `where` and `expression` SQL, keys and conflict settings.

Pure functions over the JSON form of entities; SQL is rewritten through
sqlglot's tree (never by substring), and left as written when it does not
parse or does not name the column.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType  # type: ignore[attr-defined]  # re-exported; its home moved in 30.x

MethodJson = dict[str, Any] | str


def rename_in_sql(sql: str, old: str, new: str) -> str:
    """`sql` with every column reference `old` (case-insensitive, as Spark resolves them) renamed to `new`.

    The user's text is kept as written: only the spans of the identifier tokens that name the column change
    (a function of that name, a string literal, are left alone); the result is checked against the parsed tree
    (the same columns, `old` now `new`), and rebuilt from the tree in the rare case the two disagree.
    """
    try:
        tree = sqlglot.parse_one(sql, read="spark")
    except SqlglotError:
        return sql
    if tree is None or not any(c.name.lower() == old.lower() for c in tree.find_all(exp.Column)):
        return sql
    expected = [new if c.name.lower() == old.lower() else c.name for c in tree.find_all(exp.Column)]
    by_tokens = _rename_tokens(sql, old, new)
    try:
        check = sqlglot.parse_one(by_tokens, read="spark") if by_tokens is not None else None
    except SqlglotError:
        check = None
    if check is not None and [c.name for c in check.find_all(exp.Column)] == expected:
        return str(by_tokens)
    quote = not _plain_column(new)

    def rename(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and node.name.lower() == old.lower():
            was_quoted = isinstance(node.this, exp.Identifier) and bool(node.this.quoted)
            return exp.column(new, table=node.table or None, quoted=quote or was_quoted)
        return node

    return tree.transform(rename).sql(dialect="spark")


def _rename_tokens(sql: str, old: str, new: str) -> str | None:
    """`sql` with the identifier tokens `old` not followed by "(" (a function call) replaced by `new`."""
    try:
        tokens = Spark().tokenize(sql)
    except SqlglotError:
        return None
    out, at = [], 0
    for i, token in enumerate(tokens):
        calls = i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.L_PAREN
        if token.token_type in (TokenType.VAR, TokenType.IDENTIFIER) and token.text.lower() == old.lower() \
                and not calls:
            quoted = token.token_type == TokenType.IDENTIFIER
            out += [sql[at:token.start], f"`{new}`" if quoted else new]
            at = token.end + 1
    return "".join(out) + sql[at:]


def _plain_column(name: str) -> bool:
    """True when `name` reads back as a column unquoted (not a keyword such as ORDER)."""
    try:
        tree = sqlglot.parse_one(name, read="spark")
    except SqlglotError:
        return False
    return isinstance(tree, exp.Column) and tree.name == name


def rename_in_method(node: MethodJson, old: str, new: str) -> MethodJson:
    """A method tree (JSON) with every source-column input `old` renamed to `new`."""
    if isinstance(node, str):
        return new if node == old else node
    out = dict(node)
    if out.get("method") == "column" and out.get("input") == old:
        out["input"] = new
    elif "inputs" in out:
        out["inputs"] = [rename_in_method(child, old, new) for child in out["inputs"]]
    elif "input" in out:
        out["input"] = rename_in_method(out["input"], old, new)
    if out.get("method") == "expression":
        out["sql"] = rename_in_sql(str(out["sql"]), old, new)
    return out


def renamed(names: list[str], old: str, new: str) -> list[str]:
    return [new if n == old else n for n in names]


def rename_in_conflicts(entry: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """A `conflicts` entry (JSON) with column `old` renamed in its groups, designated columns and compare_old."""
    out = dict(entry)
    out["column_groups"] = [
        {**g, "columns": renamed(g["columns"], old, new),
         "resolution": [{**s, "column": new if s.get("column") == old else s.get("column")}
                        for s in g["resolution"]]}
        for g in entry["column_groups"]]
    out["compare_old"] = {(new if k == old else k): v for k, v in entry["compare_old"].items()}
    return out


def without_in_conflicts(entry: dict[str, Any], column: str, indexes: frozenset[str] | set[str] = frozenset()
                         ) -> dict[str, Any]:
    """A `conflicts` entry (JSON) that no longer names `column` in its groups or compare_old, nor the unique
    `indexes` that went with it."""
    out = dict(entry)
    out["unique"] = [u for u in entry["unique"] if u["index"] not in indexes]
    out["column_groups"] = [{**g, "columns": [c for c in g["columns"] if c != column]}
                            for g in entry["column_groups"]]
    out["compare_old"] = {k: v for k, v in entry["compare_old"].items() if k != column}
    return out
