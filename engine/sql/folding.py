"""What Spark's optimizer folds before it reads a row, so the reference evaluator never evaluates (and never
fails on) what Spark never evaluates, and fails where Spark fails before any row: NullPropagation over
NULL-intolerant operators, ConstantFolding of column-free nodes, SimplifyConditionals,
ReplaceNullWithFalseInPredicate. `mark_static_nulls` marks the nodes that are NULL whatever the row
(`meta["null"]`; `meta["early_null"]` for those Spark's first NullPropagation already makes a NULL literal,
before anything is folded), the conditionals whose branches all give one value (`meta["one_value"]`) and the
parts of a conditional's conditions (or of `x IS TRUE`) that are FALSE once a NULL there is FALSE
(`meta["false"]`); `static_failure` finds the constant whose folding fails the whole query; `evaluate`
computes a column-free node (the evaluator's, passed in to keep one direction of imports).

Checked against Spark 4.3 (tests/sql): its optimizer runs NullPropagation, then ConstantFolding, then
BooleanSimplification, SimplifyConditionals and ReplaceNullWithFalseInPredicate, and again until nothing
changes. ConstantFolding folds every child of a conditional (an `if`, a CASE, a `coalesce`: its condition
and first argument too) as a branch that may never run, so a failure there is left for the rows; and a
node that failed so is never tried again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from sqlglot import exp

from engine.sql.coercion import widened, wider_of

Evaluate = Callable[[exp.Expr], Any]
Key = Callable[[exp.Expr], Hashable]
"""Spark's semantic equality of expressions as a key (`canonical.key`)."""

_NULL_INTOLERANT = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Neg, exp.Abs, exp.Length,
                    exp.Upper, exp.Lower, exp.Trim, exp.Substring, exp.Cast, exp.EQ, exp.NEQ, exp.GT, exp.GTE,
                    exp.LT, exp.LTE, exp.Like, exp.ILike, exp.RegexpLike, exp.RegexpReplace, exp.Round, exp.Not,
                    exp.Floor, exp.Ceil, exp.Sign, exp.Year, exp.Month, exp.Day, exp.DayOfMonth, exp.Hour,
                    exp.Minute, exp.Second, exp.TsOrDsToDate, exp.DateDiff, exp.TsOrDsAdd, exp.StartsWith,
                    exp.EndsWith, exp.Contains, exp.Pad, exp.Replace, exp.Left, exp.Right, exp.Reverse,
                    exp.Initcap)
"""Operators that are NULL whenever an operand is (Spark's `NullIntolerant`, or a function Spark replaces
by such operators: `left` is a `substring`). Not `locate` (a NULL position is 0): `instr`, which Spark is
given as INSTR, is (`mark_static_nulls`)."""

_NOT_EARLY = (exp.Right,)
"""NULL-intolerant here, but not an operator Spark's NullPropagation folds: `right(s, n)` is an `if` there."""


def mark_static_nulls(tree: exp.Expr, evaluate: Evaluate, same: Key | None = None) -> None:
    """Mark the nodes that are NULL whatever the row (`meta["null"]`), as Spark's optimizer folds them
    (NullPropagation) before anything runs: `NULL / (1 % 0)` is NULL, not an error."""
    for node in reversed(list(tree.walk(bfs=False))):  # every child before its parent
        children = [c for c in node.iter_expressions() if not isinstance(c, exp.DataType)]
        if isinstance(node, exp.Null):
            null = True
        elif isinstance(node, exp.Paren):
            null = is_static_null(node.this)
        elif isinstance(node, _NULL_INTOLERANT) or (isinstance(node, exp.StrPosition) and node.meta
                                                     and node.meta.get("written") == "instr"):
            null = any(is_static_null(c) for c in children)
        elif isinstance(node, exp.Coalesce | exp.Greatest | exp.Least | exp.And | exp.Or):
            null = bool(children) and all(is_static_null(c) for c in children)
        elif isinstance(node, exp.In):  # NULL IN (...), or x IN (NULL, ...) once OptimizeIn makes it x = NULL
            listed = node.expressions
            null = is_static_null(node.this) or (bool(listed) and all(is_static_null(c) for c in listed))
        elif isinstance(node, exp.Between):  # `x >= low AND x <= high`, folded per comparison
            low, high = node.args.get("low"), node.args.get("high")
            null = is_static_null(node.this) or (low is not None and high is not None
                                                  and is_static_null(low) and is_static_null(high))
        elif isinstance(node, exp.If | exp.Case):
            # SimplifyConditionals: a constant condition picks its branch; branches all NULL are NULL
            for condition in _conditions(node):
                _mark_false(condition, evaluate)  # a FALSE one drops its branch
            branch = _constant_branch(node, evaluate)
            null = is_static_null(branch) if branch is not None else all(
                b is not None and is_static_null(b) for b in branches(node))
        else:
            null = False
        if not null and children and not reads_a_column(node):
            null = _folds_to(node, evaluate, None)  # ConstantFolding: `try_cast('-' as bigint)` is NULL
        if null:
            node.meta["null"] = True
            if _early_null(node, children):
                node.meta["early_null"] = True
        elif isinstance(node, exp.If | exp.Case) and _one_value(node, evaluate, same):
            node.meta["one_value"] = True
        tested = _tested_for_true(node, evaluate)  # `x IS TRUE`: a NULL in `x` is FALSE there
        if tested is not None:
            _mark_false(tested, evaluate)


def _early_null(node: exp.Expr, children: list[exp.Expr]) -> bool:
    """Whether Spark's NullPropagation makes `node` a NULL literal in its first pass, before ConstantFolding
    has folded anything: a NULL, a cast of one, and what is NULL-intolerant of such a node, a `coalesce` of
    nothing else, `x IN (...)` of such an `x`. Only these keep a failing constant beside them from being
    folded: in `cast(NULL AND NULL AS INT) / least(s, mod(0, 0))` Spark folds the AND to NULL in the same
    pass as it folds `mod(0, 0)`, which fails the query (found by the property test)."""
    if isinstance(node, exp.Null):
        return True
    if isinstance(node, exp.Paren):
        return is_early_null(node.this)
    if isinstance(node, exp.Coalesce):
        return bool(children) and all(is_early_null(c) for c in children)
    if isinstance(node, exp.In):
        return is_early_null(node.this)
    intolerant = (isinstance(node, _NULL_INTOLERANT) and not isinstance(node, _NOT_EARLY)) or (
        isinstance(node, exp.StrPosition) and bool(node.meta) and node.meta.get("written") == "instr")
    return intolerant and any(is_early_null(c) for c in children)


def _tested_for_true(node: exp.Expr, evaluate: Evaluate) -> exp.Expr | None:
    """`x` of `x IS TRUE` (which Spark reads as `x <=> TRUE`), `x <=> TRUE` or `TRUE <=> x`: where Spark's
    ReplaceNullWithFalseInPredicate takes a NULL in `x` for FALSE, as in a condition. `(x AND NULL) IS TRUE`
    is FALSE without `x`."""
    if isinstance(node, exp.Is):
        target = node.expression
        tested: exp.Expr = node.this
        return tested if isinstance(target, exp.Boolean) and bool(target.this) else None
    if isinstance(node, exp.NullSafeEQ):
        sides: tuple[exp.Expr, exp.Expr] = (node.this, node.expression)
        for side, other in (sides, sides[::-1]):
            if not reads_a_column(other) and _folds_to(other, evaluate, True):
                return side
    return None


def _mark_false(node: exp.Expr, evaluate: Evaluate) -> bool:
    """Whether the condition `node` is FALSE whatever the row once every NULL in it is FALSE, marking each
    part that is (`meta["false"]`), as Spark's ReplaceNullWithFalseInPredicate rewrites a conditional's
    conditions (through AND, OR and boolean conditionals) and BooleanSimplification and SimplifyConditionals
    then fold them: in `if(cast(s as bigint) > 0 AND NULL, 1, 2)` the cast is never evaluated, so it is 2
    even where `s` is not a number (found by the property test). A NULL anywhere else is left as it is."""
    if is_static_null(node):
        false = True
    elif not reads_a_column(node):
        false = _folds_to(node, evaluate, False)
    elif isinstance(node, exp.Paren):
        false = _mark_false(node.this, evaluate)
    elif isinstance(node, exp.And):
        false = _mark_false(node.this, evaluate) | _mark_false(node.expression, evaluate)  # both marked
    elif isinstance(node, exp.Or):
        false = _mark_false(node.this, evaluate) & _mark_false(node.expression, evaluate)
    elif isinstance(node, exp.If | exp.Case) and (node.this is None or isinstance(node, exp.If)):
        false = _conditional_false(node, evaluate)
    elif isinstance(node, exp.Between):  # `x >= low AND x <= high`: a NULL bound is FALSE
        false = any(is_static_null(b) for b in (node.args.get("low"), node.args.get("high")) if b is not None)
    elif isinstance(node, exp.Coalesce):  # NullPropagation drops its NULLs: one argument left is the node
        left = [c for c in node.iter_expressions() if not is_static_null(c)]
        false = len(left) == 1 and _mark_false(left[0], evaluate)
    else:
        false = False
    if false:
        node.meta["false"] = True
    return false


def _conditional_false(node: exp.If | exp.Case, evaluate: Evaluate) -> bool:
    """Whether a boolean conditional inside a condition is FALSE once its NULLs are: every branch it may
    take is (a missing ELSE is FALSE there), its branches whose conditions are FALSE dropped."""
    ifs = [node] if isinstance(node, exp.If) else list(node.args.get("ifs") or [])
    taken: list[bool] = []
    for branch in ifs:
        dropped = _mark_false(branch.this, evaluate)
        value = branch.args.get("true")
        value_false = value is None or _mark_false(value, evaluate)
        if not dropped:
            taken.append(value_false)
            if not reads_a_column(branch.this) and _folds_to(branch.this, evaluate, True):
                return all(taken)
    last = node.args.get("false") if isinstance(node, exp.If) else node.args.get("default")
    taken.append(last is None or _mark_false(last, evaluate))
    return all(taken)


def _constant_branch(node: exp.If | exp.Case, evaluate: Evaluate) -> exp.Expr | None:
    """The branch a conditional takes whatever the row (its conditions read no column), else None."""
    ifs = [node] if isinstance(node, exp.If) else list(node.args.get("ifs") or [])
    for branch in ifs:
        condition = branch.this
        if node.this is None and is_static_false(condition):  # (a CASE's subject is not a condition)
            continue
        if reads_a_column(condition):
            return None
        try:
            holds = evaluate(condition) is True
        except Exception:  # noqa: BLE001  a condition that fails is not simplified
            return None
        if holds:
            return branch.args.get("true")
    return node.args.get("false") if isinstance(node, exp.If) else node.args.get("default")


def _conditions(node: exp.If | exp.Case) -> list[exp.Expr]:
    """A conditional's conditions (none for a CASE with a subject: its values are compared, not tested)."""
    if isinstance(node, exp.If):
        return [node.this]
    return [] if node.this is not None else [b.this for b in node.args.get("ifs") or []]


def branches(node: exp.If | exp.Case) -> list[exp.Expr | None]:
    """Every value a conditional may take: not a branch whose condition is FALSE whatever the row (Spark
    drops it), and NULL for a CASE without ELSE (an IF without one: None)."""
    if isinstance(node, exp.If):
        return [node.args.get("false")] if is_static_false(node.this) else [node.args.get("true"),
                                                                            node.args.get("false")]
    default = node.args.get("default")
    if default is None:
        default = exp.Null()
        default.meta["null"] = True
    ifs = [i for i in node.args.get("ifs") or [] if node.this is not None or not is_static_false(i.this)]
    return [i.args.get("true") for i in ifs] + [default]


def _one_value(node: exp.If | exp.Case, evaluate: Evaluate, same: Key | None) -> bool:
    """Whether every branch of a conditional gives the same value whatever the row: the same expression
    (`same`: Spark's semanticEquals, so `if(c, n + 0, n)` of an integer `n`), or constants that evaluate
    alike (ConstantFolding first). Spark's SimplifyConditionals then drops the
    conditions, so one that would fail on a row is never evaluated (`CASE WHEN s = 8 THEN abs(1) ELSE
    cast(TRUE as int) END` is 1 even where `s` is '2.7'). A branch that fails as a constant is not folded,
    and the conditions stay."""
    values = branches(node)
    given = [v for v in values if v is not None]
    if len(given) < len(values):
        return False
    simplified = [_simplified(v, evaluate) for v in given]  # the rules run to a fixed point: a branch's own
    keys = [same(v) if same is not None else v for v in simplified]  # conditionals simplified first
    if all(k == keys[0] for k in keys[1:]):
        return True
    if any(reads_a_column(v) for v in given):
        return False
    try:  # each cast to the conditional's type first, as Spark's analysis casts them: if(c, 1, 1.0) is 1.0
        to = wider_of(given, {})
        constants = [widened(evaluate(v), to) for v in given]
    except Exception:  # noqa: BLE001  a constant that fails is not folded, as in Spark
        return False
    return all(type(c) is type(constants[0]) and c == constants[0] for c in constants[1:])


def _simplified(node: exp.Expr, evaluate: Evaluate) -> exp.Expr:
    """A copy of `node` with every conditional SimplifyConditionals resolves (a constant condition, branches
    of one value) replaced by its branch: `if(TRUE, n, 2)` is `n`."""
    def simplify(n: exp.Expr) -> exp.Expr:
        if isinstance(n, exp.If | exp.Case):
            chosen = _picked_branch(n, evaluate)
            if chosen is not None:
                return _simplified(chosen, evaluate)
        return n
    return node.copy().transform(simplify)


def _picked_branch(node: exp.If | exp.Case, evaluate: Evaluate) -> exp.Expr | None:
    """The branch SimplifyConditionals replaces a conditional with (branches of one value, or a constant
    condition), else None."""
    return one_value(node) or _constant_branch(node, evaluate)


def one_value(node: exp.If | exp.Case) -> exp.Expr | None:
    """The branch whose value the conditional `node` takes whatever the row, when `mark_static_nulls` found
    one (its conditions are then never evaluated); else None."""
    return branches(node)[0] if node.meta and node.meta.get("one_value") else None


def _folds_to(node: exp.Expr, evaluate: Evaluate, value: bool | None) -> bool:
    """True when a column-free node evaluates to `value` (NULL, TRUE or FALSE); a constant that fails is not
    folded (as in Spark)."""
    try:
        return evaluate(node) is value
    except Exception:  # noqa: BLE001  any failure: Spark leaves the constant unfolded, so must we
        return False


def clear_marks(tree: exp.Expr) -> None:
    """Take off what `mark_static_nulls` marked, before the tree is marked again once rewritten."""
    for node in tree.walk():
        if node.meta:
            for mark in ("null", "early_null", "false", "one_value"):
                node.meta.pop(mark, None)


def is_static_null(node: exp.Expr) -> bool:
    return bool(node.meta.get("null")) if node.meta else False


def is_early_null(node: exp.Expr) -> bool:
    """Whether `node` is a NULL literal once Spark's first NullPropagation has run (`_early_null`)."""
    return bool(node.meta.get("early_null")) if node.meta else False


def is_static_false(node: exp.Expr) -> bool:
    """Whether `node` is a part of a condition `mark_static_nulls` found FALSE whatever the row."""
    return bool(node.meta.get("false")) if node.meta else False


def static_failure(tree: exp.Expr, evaluate: Evaluate, first_fold: Evaluate,
                   failure: type[Exception]) -> Exception | None:
    """The `failure` Spark's ConstantFolding raises before it reads a row, if any.

    In its first pass ConstantFolding evaluates (`first_fold`) every node that reads no column, but for the
    NULLs NullPropagation made first (`is_early_null`); a failure outside every conditional fails the query
    whatever the rows: `try_cast(s as bigint) <> 7 % 0` fails, though on a row where the cast is NULL the
    comparison would never read its right side. Inside a conditional (an `if`'s, a CASE's or a `coalesce`'s
    every child) a failure is left for the rows, and that node is never tried again, even once
    SimplifyConditionals has lifted it out of its conditional: `if(TRUE, i + 7 % 0, 1)` is NULL where `i` is.
    In later passes a node that reads a column only in a branch SimplifyConditionals dropped is folded
    (`evaluate`: as the earlier rules left it) once it has: `if(TRUE, 7, n) % length('')` fails as `7 % 0`
    (found by the property test)."""
    def first_pass(node: exp.Expr, in_branch: bool) -> Exception | None:
        if is_early_null(node):
            return None
        if not reads_a_column(node):
            return None if in_branch else _fails(node, first_fold)
        for child, branch in _positions(node):
            found = first_pass(child, in_branch or branch)
            if found is not None:
                return found
        return None

    def later_passes(node: exp.Expr, in_branch: bool) -> Exception | None:
        if is_static_null(node) or is_static_false(node) or not reads_a_column(node):
            return None  # a literal by then, folded (or left for the rows) in the first pass
        if isinstance(node, exp.If | exp.Case):
            chosen = _picked_branch(node, evaluate)
            if chosen is not None:  # the conditional is replaced by its branch, which takes its place
                return later_passes(chosen, in_branch)
        if not in_branch and _constant(node):  # foldable once its conditionals are simplified
            return _fails(node, evaluate)
        for child, branch in _positions(node):
            found = later_passes(child, in_branch or branch)
            if found is not None:
                return found
        return None

    def _fails(node: exp.Expr, fold: Evaluate) -> Exception | None:
        try:
            fold(node)
        except failure as exc:
            return exc
        except Exception:  # noqa: BLE001  what the reference cannot fold is not a folding failure
            return None
        return None

    def _constant(node: exp.Expr) -> bool:
        """Whether `node` reads no column once SimplifyConditionals has picked the branches it can."""
        if is_static_null(node) or not reads_a_column(node):
            return True
        if isinstance(node, exp.Column):
            return False
        if isinstance(node, exp.If | exp.Case):
            chosen = _picked_branch(node, evaluate)
            if chosen is not None:
                return _constant(chosen)
        return all(_constant(c) for c in node.iter_expressions() if not isinstance(c, exp.DataType))

    return first_pass(tree, False) or later_passes(tree, False)


def reads_a_column(node: exp.Expr) -> bool:
    return any(isinstance(n, exp.Column) for n in node.walk())


def _positions(node: exp.Expr) -> list[tuple[exp.Expr, bool]]:
    """`node`'s children, each with whether ConstantFolding folds it as a conditional branch: every child of
    a conditional (Spark's `ConditionalExpression`: `if`, CASE, `coalesce`), its condition too."""
    conditional = isinstance(node, exp.If | exp.Case | exp.Coalesce)
    return [(c, conditional) for c in node.iter_expressions() if not isinstance(c, exp.DataType)]
