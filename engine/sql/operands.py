"""How the reference evaluator's handlers read their operands: in Spark's order, as text, by written name.

Each handler module (`logic`, `text`, `numbers`, `dates`, `conditionals`) maps sqlglot node types to a
`Handler`, a function of the evaluator and the node; `engine.sql.evaluate` joins them into one table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from engine.sql import casts  # the module: engine.sql.casts imports engine.run.values, which may be loading

if TYPE_CHECKING:
    from engine.sql.evaluate import Evaluator

Handler = Callable[["Evaluator", Any], Any]
"""A node type's evaluation: its value on the evaluator's row."""


def operands(ev: Evaluator, node: exp.Expr, divisor_first: bool = False) -> tuple[Any, Any] | None:
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
