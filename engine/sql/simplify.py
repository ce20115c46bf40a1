"""Spark's boolean simplifications, made on the tree the reference evaluates and Spark is given.

Spark's optimizer rewrites conditions before it runs them, and a rewrite that drops or moves a part decides
whether that part is evaluated, so whether it can fail: in `B OR (x AND B)` it never evaluates `x`, so
`x`'s division by zero never happens where `B` is NULL. These are the rewrites that change what is
evaluated (checked against Spark 4.3's optimized plans, tests/sql), each of which keeps the value wherever
nothing fails:

- BooleanSimplification: `TRUE AND e` is `e`, `FALSE AND e` is FALSE (and so for OR); `a AND a` is `a`;
  common factors: `(a OR b) AND (a OR c)` is `a OR (b AND c)`, `a AND (a OR c)` is `a`, `(a AND b) AND a`
  is `a AND b`, and so for OR: `NULL OR (x AND NULL)` is NULL; NOT is pushed into AND, OR, NOT and the
  comparisons (`NOT a > b` is `a <= b`), where it may find more;
- SimplifyBinaryComparison: `a <=> a` is TRUE, and so is `a = a` (`a >= a`, `a <= a`; `a > a` and `a < a`
  are FALSE) where `a` is never NULL; `a = TRUE` is `a`, `a = FALSE` is `NOT a`;
- NullPropagation: `x IS NULL` is FALSE (and `x IS NOT NULL` TRUE) where `x` is never NULL, and
  `x <=> NULL` is `x IS NULL`;
- PushFoldableIntoBranches: an operator between a conditional of constant branches (all but one, at most)
  and a constant goes into each branch, `if(c, 1, 2) * 0` is `if(c, 1 * 0, 2 * 0)`, which is 0 without
  `c` (`folding.one_value`); so for `abs`, `length`, a cast, `IS NULL` of such a conditional.

"Equal" is Spark's semantic equality and "never NULL" its nullability, as `canonical` models them. Spark
is given the rewritten tree, so both sides evaluate one tree: where `canonical` finds two parts equal that
Spark would not, Spark still runs what the reference runs. The rewrites that keep what is evaluated and
its order (`a AND NOT a`, the rules for operands that are never NULL) are not made. What
SimplifyConditionals and ReplaceNullWithFalseInPredicate decide, `folding` marks instead.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import reduce

from sqlglot import exp

from engine.core.types import SqlType
from engine.sql import canonical
from engine.sql.canonical import Fold, nullable
from engine.sql.coercion import static_type
from engine.sql.replaces import rewritten

_PASSES = 12
"""Spark's rules run until nothing changes; a snippet within the limits settles in a few passes."""

_OPPOSITE: dict[type[exp.Expr], type[exp.Expr]] = {exp.GT: exp.LTE, exp.GTE: exp.LT, exp.LT: exp.GTE,
                                                   exp.LTE: exp.GT, exp.NEQ: exp.EQ, exp.NullSafeNEQ: exp.NullSafeEQ}
_SELF_COMPARED: dict[type[exp.Expr], bool] = {exp.EQ: True, exp.GTE: True, exp.LTE: True, exp.GT: False,
                                              exp.LT: False, exp.NEQ: False}
_ATOMS = (exp.Column, exp.Literal, exp.Boolean, exp.Null, exp.Paren)
_PUSHED_UNARY = (exp.Abs, exp.Floor, exp.Ceil, exp.Sign, exp.Upper, exp.Lower, exp.Initcap, exp.Length, exp.Cast)
"""The allow-list's operators of one operand PushFoldableIntoBranches pushes (`supportedUnaryExpression`;
a TryCast is a Cast); and `x IS NULL`."""
_PUSHED_BINARY = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ, exp.Add,
                  exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.StartsWith, exp.EndsWith, exp.Contains,
                  exp.Like, exp.RegexpLike, exp.DateDiff)
"""And of two (`supportedBinaryExpression`): comparisons, arithmetic, text predicates, LIKE and RLIKE,
`datediff`; and `round`, whose second operand sqlglot keeps apart."""
_UNKNOWN = object()


def simplified(tree: exp.Expr, fold: Fold, types: Mapping[str, SqlType] | None = None) -> exp.Expr:
    """`tree` rewritten, in place, by the rules above until none applies; `types`, the columns' types where
    known, tell what Spark takes for equal by type (`canonical.key`)."""
    for _ in range(_PASSES):
        rules = _Rules(fold, types or {})
        tree = rewritten(tree, rules.apply)
        if not rules.changed:
            break
    return tree


class _Rules:
    """One pass of the rules over a tree, children first; keys are kept for the nodes of the pass."""

    def __init__(self, fold: Fold, types: Mapping[str, SqlType]) -> None:
        self.fold, self.types, self.changed = fold, types, False
        self._keys: dict[int, tuple[exp.Expr, Hashable]] = {}

    def apply(self, node: exp.Expr) -> exp.Expr:
        new = self._rewrite(node)
        if new is not node:
            self.changed = True
        return new

    def key(self, node: exp.Expr) -> Hashable:
        while isinstance(node, exp.Paren):
            node = node.this
        if node.meta and node.meta.get("null"):  # a NULL literal once NullPropagation has run
            return ("value", "NoneType", "None")
        kept = self._keys.get(id(node))
        if kept is not None and kept[0] is node:
            return kept[1]
        found = canonical.key(node, self.fold, self.types)
        self._keys[id(node)] = (node, found)
        return found

    def truth(self, node: exp.Expr) -> object:
        """True, False or None (NULL) where `node` is that constant once ConstantFolding has run; else
        `_UNKNOWN` (it reads a column, or fails and is left unfolded)."""
        if node.meta and node.meta.get("null"):
            return None
        if any(isinstance(n, exp.Column) for n in node.walk()):
            return _UNKNOWN
        try:
            value = self.fold(node)
        except Exception:  # noqa: BLE001  a constant that fails is not folded
            return _UNKNOWN
        return value if value is None or isinstance(value, bool) else _UNKNOWN

    def _rewrite(self, node: exp.Expr) -> exp.Expr:
        pushed = self._pushed_into_branches(node)
        if pushed is not None:
            return pushed
        if isinstance(node, exp.Not):
            return self._not(node)
        if isinstance(node, exp.And | exp.Or):
            return self._connective(node)
        if isinstance(node, exp.Is):
            return self._is(node)
        if isinstance(node, exp.NullSafeEQ | exp.NullSafeNEQ):
            return self._null_safe(node)
        if type(node) in _SELF_COMPARED:
            return self._comparison(node)
        return node

    def _pushed_into_branches(self, node: exp.Expr) -> exp.Expr | None:
        """PushFoldableIntoBranches: `op(if(c, a, b), k)` is `if(c, op(a, k), op(b, k))` where `k` is a constant
        and at most one branch is not (a CASE likewise, its missing ELSE a NULL); None where it does not apply.
        Spark is then given the pushed form, and `folding` finds the branches that became one value."""
        if isinstance(node, _PUSHED_UNARY) or (isinstance(node, exp.Is) and isinstance(node.expression, exp.Null)):
            places = ["this"]
        elif isinstance(node, exp.Round):  # `round(x)` is Spark's `round(x, 0)`
            digits = node.args.get("decimals")
            places = ["this"] if digits is None or _constant(digits) else []
        elif isinstance(node, _PUSHED_BINARY):
            places = [p for p, other in (("this", "expression"), ("expression", "this"))
                      if node.args.get(other) is not None and _constant(node.args[other])]
        else:
            return None
        for place in places:
            conditional = _unwrapped(node.args[place])
            if not isinstance(conditional, exp.If | exp.Case):
                continue
            values = _branch_values(conditional)
            if sum(not _constant(v) for v in values) > 1 or not self._one_type(values):
                continue
            pushed = conditional.copy()
            for value in _branch_values(pushed):
                copy = node.copy()
                copy.set(place, _wrapped(value.copy()))
                value.replace(_wrapped(copy))
            if isinstance(pushed, exp.If) and pushed.args.get("false") is None:
                pushed.set("false", _with(node, place, exp.Null()))
            if isinstance(pushed, exp.Case) and pushed.args.get("default") is None:
                pushed.set("default", _with(node, place, exp.Null()))
            return pushed
        return None

    def _one_type(self, values: list[exp.Expr]) -> bool:
        """Whether the branches have one type already: Spark pushes into branches its analysis has cast to
        the conditional's type, so `if(c, 1, 2.5) / 3` divides DECIMALs there, where `1 / 3` is a DOUBLE."""
        found = {static_type(v, self.types) for v in values}
        return len(found) == 1 and None not in found

    def _not(self, node: exp.Not) -> exp.Expr:
        """NOT TRUE, NOT FALSE, NOT NOT e, and NOT pushed into AND, OR and the comparisons."""
        inner = _unwrapped(node.this)
        truth = self.truth(inner)
        if isinstance(truth, bool):
            return exp.Boolean(this=not truth)
        if isinstance(inner, exp.Not):
            twice: exp.Expr = inner.this
            return twice
        if isinstance(inner, exp.Like | exp.ILike) and inner.args.get("negate"):  # sqlglot's NOT LIKE
            return type(inner)(this=inner.this, expression=inner.expression)
        opposite = _OPPOSITE.get(type(inner))
        if opposite is not None:
            return opposite(this=inner.this, expression=inner.expression)
        if isinstance(inner, exp.And | exp.Or):
            other = exp.Or if isinstance(inner, exp.And) else exp.And
            return other(this=_wrapped(exp.Not(this=_wrapped(inner.this))),
                         expression=_wrapped(exp.Not(this=_wrapped(inner.expression))))
        return node

    def _connective(self, node: exp.And | exp.Or) -> exp.Expr:
        """BooleanSimplification on an AND (an OR): constants, `a AND a`, then common factors."""
        is_and = isinstance(node, exp.And)
        a: exp.Expr = node.this
        b: exp.Expr = node.expression
        left, right = self.truth(a), self.truth(b)
        if left is is_and:  # TRUE AND e, FALSE OR e
            return b
        if right is is_and:
            return a
        if left is (not is_and) or right is (not is_and):  # FALSE AND e, TRUE OR e
            return exp.Boolean(this=not is_and)
        if self.key(a) == self.key(b):
            return a
        inner, outer = (exp.Or, exp.And) if is_and else (exp.And, exp.Or)
        lhs, rhs = _operands(a, inner), _operands(b, inner)
        right_keys = {self.key(e) for e in rhs}
        common = [e for e in lhs if self.key(e) in right_keys]
        if common:
            common_keys = {self.key(e) for e in common}
            left_rest = [e for e in lhs if self.key(e) not in common_keys]
            right_rest = [e for e in rhs if self.key(e) not in common_keys]
            if not left_rest or not right_rest:  # (a OR b) AND a is a (absorption)
                return _joined(common, inner)
            rest = outer(this=_wrapped(_joined(left_rest, inner)), expression=_wrapped(_joined(right_rest, inner)))
            return _joined([*common, rest], inner)  # (a OR b) AND (a OR c) is a OR (b AND c)
        every = _operands(a, outer) + _operands(b, outer)
        distinct: dict[Hashable, exp.Expr] = {}
        for e in every:
            distinct.setdefault(self.key(e), e)
        if len(distinct) == len(every):
            return node
        return _joined(list(distinct.values()), outer)  # (a AND b) AND a is a AND b

    def _is(self, node: exp.Is) -> exp.Expr:
        """NullPropagation: `x IS NULL` of what is never NULL is FALSE; SimplifyBinaryComparison: `x IS TRUE`
        (Spark's `x <=> TRUE`) of what is never NULL is `x`, `x IS FALSE` is `NOT x`."""
        target, tested = node.expression, node.this
        assert isinstance(tested, exp.Expr)
        if nullable(tested):
            return node
        if isinstance(target, exp.Null):
            return exp.Boolean(this=False)
        if isinstance(target, exp.Boolean):
            return tested if target.this else exp.Not(this=_wrapped(tested))
        return node

    def _null_safe(self, node: exp.NullSafeEQ | exp.NullSafeNEQ) -> exp.Expr:
        """`a <=> a` is TRUE; `x <=> NULL` is `x IS NULL` (IS DISTINCT FROM: their negations)."""
        negated = isinstance(node, exp.NullSafeNEQ)
        a, b = node.this, node.expression
        if self.key(a) == self.key(b):
            return exp.Boolean(this=not negated)
        for side, other in ((a, b), (b, a)):
            if self.truth(other) is None:
                test = exp.Is(this=_wrapped(side), expression=exp.Null())
                return exp.Not(this=_wrapped(test)) if negated else test
        return node

    def _comparison(self, node: exp.Expr) -> exp.Expr:
        """`a = a` (and the others) of what is never NULL; `a = TRUE` is `a`, `a = FALSE` is `NOT a`."""
        a, b = node.this, node.expression
        if self.key(a) == self.key(b) and not nullable(a) and not nullable(b):
            return exp.Boolean(this=_SELF_COMPARED[type(node)])
        if isinstance(node, exp.EQ):
            for side, other in ((a, b), (b, a)):
                if isinstance(_unwrapped(other), exp.Boolean):
                    truth = self.truth(other)
                    return side if truth is True else exp.Not(this=_wrapped(side))
        return node


def _constant(node: exp.Expr) -> bool:
    """Spark's `foldable`: reads no column (nor the current time, which Spark takes for a constant too)."""
    return not any(isinstance(n, exp.Column) for n in node.walk())


def _branch_values(node: exp.If | exp.Case) -> list[exp.Expr]:
    """The values a conditional may take, as they stand in the tree (a missing ELSE is not one)."""
    if isinstance(node, exp.If):
        return [v for v in (node.args.get("true"), node.args.get("false")) if v is not None]
    default = node.args.get("default")
    return [b.args["true"] for b in node.args.get("ifs") or []] + ([default] if default is not None else [])


def _with(node: exp.Expr, place: str, value: exp.Expr) -> exp.Expr:
    """A copy of `node` with `value` at `place`."""
    copy = node.copy()
    copy.set(place, value)
    return copy


def _unwrapped(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _wrapped(node: exp.Expr) -> exp.Expr:
    """`node`, parenthesized unless it is a name, a literal or parenthesized already: sqlglot writes a tree
    back without the parentheses its nesting needs."""
    return node if isinstance(node, _ATOMS) else exp.Paren(this=node)


def _operands(node: exp.Expr, kind: type[exp.Expr]) -> list[exp.Expr]:
    """The operands of a chain of `kind` (AND or OR), left to right, through parentheses."""
    node = _unwrapped(node)
    if isinstance(node, kind):
        return _operands(node.this, kind) + _operands(node.expression, kind)
    return [node]


def _joined(parts: list[exp.Expr], kind: type[exp.Expr]) -> exp.Expr:
    """The parts joined by `kind`, left to right (Spark's `reduce`: evaluated in this order)."""
    return reduce(lambda a, b: kind(this=_wrapped(a), expression=_wrapped(b)), parts)
