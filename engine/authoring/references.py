"""Renaming what names a column: method trees, `where` and `expression` SQL, keys and conflict settings.

Pure functions over the JSON form of entities; SQL is rewritten through
sqlglot's tree (never by substring), and left as written when it does not
parse or does not name the column.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

MethodJson = dict[str, Any] | str


def rename_in_sql(sql: str, old: str, new: str) -> str:
    """`sql` with every column reference `old` (case-insensitive, as Spark resolves them) renamed to `new`."""
    try:
        tree = sqlglot.parse_one(sql, read="spark")
    except SqlglotError:
        return sql
    if tree is None or not any(c.name.lower() == old.lower() for c in tree.find_all(exp.Column)):
        return sql

    quote = not _plain_column(new)

    def rename(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and node.name.lower() == old.lower():
            was_quoted = isinstance(node.this, exp.Identifier) and bool(node.this.quoted)
            return exp.column(new, table=node.table or None, quoted=quote or was_quoted)
        return node

    return tree.transform(rename).sql(dialect="spark")


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


def without_in_conflicts(entry: dict[str, Any], column: str) -> dict[str, Any]:
    """A `conflicts` entry (JSON) that no longer names `column` in its groups or compare_old."""
    out = dict(entry)
    out["column_groups"] = [{**g, "columns": [c for c in g["columns"] if c != column]}
                            for g in entry["column_groups"]]
    out["compare_old"] = {k: v for k, v in entry["compare_old"].items() if k != column}
    return out
