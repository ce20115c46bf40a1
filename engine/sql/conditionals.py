"""`coalesce`, `CASE` and `if` in the reference evaluator (`nvl2` and `nullif` are `if`s by then,
`replaces`): a branch is evaluated only where it is taken, a conditional whose branches all give one value
takes it without its conditions, as Spark's SimplifyConditionals leaves it (`folding.one_value`), and the
value taken is cast to the one type Spark gives the conditional (`coercion`: `if(c, 1, 2.5)` is 1.0)."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from engine.sql.coercion import widened, wider_of
from engine.sql.folding import one_value
from engine.sql.logic import order
from engine.sql.operands import Handler, RowEvaluator


def _coalesce(ev: RowEvaluator, node: exp.Coalesce) -> Any:
    arguments = [node.this, *node.expressions]
    for child in arguments:
        value = ev.eval(child)
        if value is not None:
            return widened(value, wider_of(arguments, ev.types, ev.row))
    return None


def _case(ev: RowEvaluator, node: exp.Case) -> Any:
    return widened(_case_value(ev, node), wider_of(_case_values(node), ev.types, ev.row))


def _case_values(node: exp.Case) -> list[exp.Expr | None]:
    """A CASE's values in Spark's order, its ELSE (NULL without one) last."""
    return [*(b.args.get("true") for b in node.args.get("ifs") or []), node.args.get("default") or exp.Null()]


def _case_value(ev: RowEvaluator, node: exp.Case) -> Any:
    same = None if ev.first_fold else one_value(node)  # then its conditions are never evaluated, as in Spark
    if same is not None:
        return ev.eval(same)
    subject = node.this
    base = ev.eval(subject) if subject is not None else None
    for branch in node.args.get("ifs") or []:
        if subject is not None:  # `subject = value`: NULL, the value unevaluated, where the subject is NULL
            hit = base is not None and order(base, ev.eval(branch.this)) == 0
        else:
            hit = ev.eval(branch.this) is True
        if hit:
            return ev.eval(branch.args["true"])
    default = node.args.get("default")
    return ev.eval(default) if default is not None else None


def _if(ev: RowEvaluator, node: exp.If) -> Any:
    to = wider_of([node.args.get("true"), node.args.get("false") or exp.Null()], ev.types, ev.row)
    same = None if ev.first_fold else one_value(node)
    if same is not None:
        return widened(ev.eval(same), to)
    if ev.eval(node.this) is True:
        return widened(ev.eval(node.args["true"]), to)
    other = node.args.get("false")
    return widened(ev.eval(other), to) if other is not None else None


HANDLERS: dict[type[exp.Expr], Handler] = {
    exp.Coalesce: _coalesce,
    exp.Case: _case,
    exp.If: _if,
}
