"""Rewriting a parsed snippet in place, and the functions Spark replaces before it optimizes.

Both the reference evaluator and Spark read the rewritten tree (`engine.sql.spark` regenerates Spark's SQL
from it), so a rewrite here changes what both run, never one side alone.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp


def rewritten(tree: exp.Expr, rewrite: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    """`tree`, changed in place, with `rewrite` applied to every node, children first, so a node `rewrite`
    replaces still has its children rewritten (sqlglot's `transform` skips a new node's)."""
    nodes: list[exp.Expr] = list(tree.walk(bfs=False))
    for node in reversed(nodes):  # every child before its parent
        new = rewrite(node)
        if new is not node:
            if node is tree:
                return new
            node.replace(new)
    return tree


def as_spark_replaces(node: exp.Expr) -> exp.Expr:
    """The functions Spark replaces by other expressions before it optimizes (RuntimeReplaceable), replaced
    so here too, so that the reference folds and skips them as Spark's optimizer does (`folding`: an `if`
    whose branches are both NULL is NULL, a NULL condition is FALSE...), and Spark is given the same:
    `isnull(x)` is `x IS NULL`, `isnotnull(x)` `NOT x IS NULL`, `nvl2(x, a, b)` `if(x IS NOT NULL, a, b)`,
    `nullif(a, b)` `if(a = b, NULL, a)`."""
    if isinstance(node, exp.Anonymous) and node.name.lower() in ("isnull", "isnotnull"):
        null = exp.Is(this=exp.Paren(this=node.expressions[0]), expression=exp.Null())
        return exp.Paren(this=null if node.name.lower() == "isnull" else exp.Not(this=null))
    if isinstance(node, exp.Nvl2):  # (parenthesized: sqlglot writes `a = b IS NULL` for `a = (b IS NULL)`)
        test = exp.Not(this=exp.Is(this=exp.Paren(this=node.this), expression=exp.Null()))
        return exp.If(this=test, true=node.args.get("true"), false=node.args.get("false") or exp.Null())
    if isinstance(node, exp.Nullif):
        same = exp.EQ(this=exp.Paren(this=node.this.copy()), expression=exp.Paren(this=node.expression))
        return exp.If(this=same, true=exp.Null(), false=node.this)
    return node
