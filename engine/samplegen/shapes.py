"""What the model's mappings say a column's values look like, so made-up rows travel through them.

- A column a mapping `split`s (`CUST_KEY` split on `-` into REGION and CUST_NO) is made of parts joined by
  the separator, each part a value of the column (or `cast` type) it feeds: `NO-10417`.
- A column a `where` compares with a literal (`STATUS <> 'void'`, `ORIGIN = 'WEB'`) takes that literal now
  and then, so rows on both sides of the clause exist.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.core.types import SqlType, parse_type
from engine.model.methods import Cast, Column, Method, Split
from engine.run.semantics.context import RunContext

_LITERAL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|<>|!=)\s*'((?:[^']|'')*)'")


@dataclass(frozen=True)
class SplitShape:
    """A column's value as `sep`-joined parts; `parts[i]` is (the column name, the type) part i feeds."""

    sep: str
    parts: tuple[tuple[str, SqlType | None], ...]


def split_shapes(ctx: RunContext) -> dict[tuple[str, str], SplitShape]:
    """(table, column) -> its shape, for columns some mapping reading the table splits."""
    found: dict[tuple[str, str], tuple[str, dict[int, tuple[str, SqlType | None]]]] = {}
    for mapping in sorted(ctx.mappings.values(), key=lambda m: m.id):
        target = ctx.tables[mapping.target]
        for column, method in mapping.columns.items():
            _visit(method, None, column, target.types.get(column), mapping.source, found)
    return {key: SplitShape(sep, tuple(parts.get(i, (f"PART{i}", None)) for i in range(max(parts) + 1)))
            for key, (sep, parts) in found.items() if parts}


def _visit(method: Method, cast: SqlType | None, column: str, t: SqlType | None, table: str,
           found: dict[tuple[str, str], tuple[str, dict[int, tuple[str, SqlType | None]]]]) -> None:
    if isinstance(method, Cast):
        try:
            inner: SqlType | None = parse_type(method.type)
        except ValueError:
            inner = None
        _visit(method.input, inner, column, t, table, found)
        return
    if isinstance(method, Split) and isinstance(method.input, Column):
        key = (table, method.input.input)
        sep, parts = found.setdefault(key, (method.sep, {}))
        if sep == method.sep:
            parts.setdefault(method.index, (column, cast or t))
        return
    for child in method.inputs_of():
        _visit(child, None, column, t, table, found)


def where_literals(ctx: RunContext) -> dict[str, list[str]]:
    """Column name (upper case) -> the text literals `where` clauses compare it with."""
    out: dict[str, list[str]] = {}
    for mapping in sorted(ctx.mappings.values(), key=lambda m: m.id):
        for name, literal in _LITERAL.findall(mapping.where or ""):
            values = out.setdefault(name.upper(), [])
            text = literal.replace("''", "'")
            if text not in values:
                values.append(text)
    return out
