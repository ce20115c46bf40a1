"""How the reference evaluator's handlers read their operands: in Spark's order, as text, by written name.

Each handler module (`logic`, `text`, `numbers`, `dates`, `conditionals`) maps sqlglot node types to a
`Handler`, a function of the evaluator and the node; `engine.sql.evaluate` joins them into one table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Protocol

from sqlglot import exp

from engine.core.types import SqlType
from engine.sql import casts


class RowEvaluator(Protocol):
    """What a handler sees of the evaluator (`engine.sql.evaluate.Evaluator`): the row, its column types, the
    run's time, and `eval` for the node's operands. A protocol, so the handlers never import the evaluator
    that imports them."""

    row: Mapping[str, Any]
    now: datetime | None
    types: Mapping[str, SqlType]
    first_fold: bool

    def eval(self, node: exp.Expr) -> Any: ...

    def args(self, node: exp.Expr) -> list[Any]: ...


Handler = Callable[[RowEvaluator, Any], Any]
"""A node type's evaluation: its value on the evaluator's row."""


def operands(ev: RowEvaluator, node: exp.Expr, divisor_first: bool = False) -> tuple[Any, Any] | None:
    """Both operands of a binary operator, or None when one is NULL, in Spark's order of evaluation: the
    left one first, and a NULL there leaves the right one unevaluated (so `NULL + 1/0` is NULL); for
    `/`, DIV and `%`, the divisor first."""
    first, second = (node.expression, node.this) if divisor_first else (node.this, node.expression)
    a = ev.eval(first)
    if a is None:
        return None
    b = ev.eval(second)
    if b is None:
        return None
    return (b, a) if divisor_first else (a, b)


def text_of(value: Any) -> str:
    """A non-NULL value as Spark's SQL reads it as text (`casts.sql_text`)."""
    return casts.sql_text(value) or ""


def written(node: exp.Expression) -> str | None:
    """The function name the snippet wrote for `node` (`allowlist.mark_written_names`), if kept."""
    return node.meta.get("written") if node.meta else None
