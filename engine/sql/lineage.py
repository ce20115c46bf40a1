"""Column lineage of a parsed snippet: which source columns it reads, from the tree, never from text."""

from __future__ import annotations

from sqlglot import exp


def columns_read(tree: exp.Expr) -> tuple[str, ...]:
    """The names of the columns `tree` reads, each once, in the order they first appear."""
    return tuple(dict.fromkeys(column.name for column in tree.find_all(exp.Column, bfs=False)))


def reads_current_time(tree: exp.Expr) -> bool:
    """True when `tree` calls a function of the current time (CURRENT_TIMESTAMP, NOW(), ...), whatever
    its columns are called (a column CURRENT_BAL is a column)."""
    return any(True for _ in tree.find_all(exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime,
                                           exp.CurrentDatetime))
