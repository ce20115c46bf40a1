"""The reference evaluator of Spark SQL scalar expressions over one row, on sqlglot's syntax tree.

Used for `where` clauses and `expression` methods in the pure-Python
reference. It evaluates exactly the allow-list (`engine.sql.allowlist`) with
Spark's ANSI semantics (`spark.sql.ansi.enabled`, which the pipeline sets):
SQL's three-valued logic, division and remainder by zero, a `cast` of text
that is not a number and an integer cast that overflows are errors
(`SqlRuntimeError`), `try_cast` gives NULL instead, `substring` counts
positions as Spark does (0 is 1, negatives from the end), `trim` takes off
spaces only, and text meets a number by an exact cast of the text.
Nothing is passed to `eval`. Expressions outside the allow-list raise
`UnsupportedSql`, so a run fails loudly instead of guessing.

One module per concept, each a table of handlers joined here: `logic`
(comparison, AND/OR/NOT, IN, BETWEEN), `text`, `numbers` (arithmetic, casts,
greatest/least), `dates`, `conditionals` (coalesce, CASE, if, with Spark's
widening of their branches, `coercion`). Before any row, the tree is made
what Spark's optimizer makes of it where that decides what is evaluated:
the functions Spark replaces (`replaces`), its boolean simplifications
(`simplify`), and what it folds (`folding`: NULLs, FALSE conditions,
constants, and the constant whose folding fails the query). Spark is given
the same tree (`engine.sql.spark`).

A DECIMAL quotient is rounded to the scale Spark's type of it has, where
the row's column types tell it (`decimals`). A DOUBLE or FLOAT becomes text
as the JVM writes it (`1.0E10`, `casts.sql_text`), a FLOAT is 32 bits
(`floats.Float32`), DATE and TIMESTAMP casts read text as Spark does
(`datetimes`). A Python error on a row (an overflow, a domain error) is that
row's `SqlRuntimeError`, never a crash. Not modelled: the scale of a
DECIMAL product wider than 28 digits (Python keeps 28), overflow of integer
arithmetic (Python integers do not overflow), arithmetic on a DATE (an
error here), and text compared with a column that is NULL on the row
(Spark still casts the text to the column's type, and fails if it is not a
number; the reference, which does not know the column's type, gives NULL), a
conditional's branch whose type is not known (a column without its type,
NULL on the row: the branches are then not widened), and the optimizer's
rules beyond those `simplify` and `folding` name (Spark's semantic equality
as far as `canonical` follows it). The property test (tests/sql/) keeps to
integers, text and booleans there.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.core.types import SqlType
from engine.limits import MAX_SQL_DEPTH
from engine.sql import canonical, conditionals, dates, logic, numbers, text
from engine.sql.allowlist import allowlist_problem, mark_written_names
from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.folding import clear_marks, mark_static_nulls, static_failure
from engine.sql.operands import Handler
from engine.sql.parse import limit_problem, tree_depth
from engine.sql.replaces import as_spark_replaces, rewritten
from engine.sql.simplify import simplified

__all__ = ["Evaluator", "evaluate_sql", "parse_sql", "predicate_holds", "rewritten"]


def parse_sql(text: str, types: Mapping[str, SqlType] | None = None) -> exp.Expr:
    """Parse one Spark SQL scalar expression; raises `UnsupportedSql`.

    The text is measured before sqlglot sees it and the tree after, within the limits loading
    enforces (`engine.sql`), so neither the parser nor `Evaluator.eval` recurse past the stack. `types`, the
    columns' types where known, decide what Spark's optimizer does by type (an integral `x + 0` is `x`).
    """
    by_name = {name.lower(): t for name, t in (types or {}).items()}
    return _parsed(text, tuple(sorted(by_name.items(), key=lambda item: item[0])))


@lru_cache(maxsize=4096)
def _parsed(text: str, types: tuple[tuple[str, SqlType], ...]) -> exp.Expr:
    problem = limit_problem(text)
    if problem:
        raise UnsupportedSql(f"{_clip(text)} {problem}")
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except SqlglotError as exc:
        raise UnsupportedSql(f"does not parse: {_clip(text)}: {str(exc).splitlines()[0]}") from None
    except RecursionError:  # not reached within the limits above; kept so a miss still fails in one line
        raise UnsupportedSql(f"{_clip(text)} is nested too deeply to read") from None
    if not isinstance(tree, exp.Expression):
        raise UnsupportedSql("empty expression")
    depth = tree_depth(tree)
    if depth > MAX_SQL_DEPTH:
        raise UnsupportedSql(f"{_clip(text)} is nested too deeply: {depth} levels once parsed "
                             f"(at most {MAX_SQL_DEPTH})")
    refused = allowlist_problem(tree, text)
    if refused:
        raise UnsupportedSql(f"{_clip(text)} {refused}")
    mark_written_names(tree, text)
    return as_spark_optimizes(rewritten(tree, as_spark_replaces), dict(types))


def as_spark_optimizes(tree: exp.Expr, types: Mapping[str, SqlType]) -> exp.Expr:
    """`tree` as Spark's optimizer leaves it where that decides what is evaluated: simplified as Spark
    simplifies conditions (`simplify`), its folding marked (`folding`). A tree one of whose constants fails
    the query before any row (ConstantFolding's first pass runs before any simplification) is left as it
    is, marked to fail: Spark, given it, fails too."""
    fold = lambda node: Evaluator({}).eval(node)  # noqa: E731
    first_fold = lambda node: Evaluator({}, first_fold=True).eval(node)  # noqa: E731
    same = lambda node: canonical.key(node, fold, types)  # noqa: E731
    mark_static_nulls(tree, fold, same)
    failure = static_failure(tree, fold, first_fold, SqlRuntimeError)
    if failure is None:
        tree = simplified(tree, fold, types)
        clear_marks(tree)
        mark_static_nulls(tree, fold, same)
        failure = static_failure(tree, fold, first_fold, SqlRuntimeError)
    if failure is not None:  # Spark fails the query before any row: so does every row here
        tree.meta["fails"] = str(failure)
    return tree


def _clip(text: str) -> str:
    return repr(text if len(text) <= 60 else f"{text[:57]}...")


def evaluate_sql(text: str, row: Mapping[str, Any], now: datetime | None = None,
                 types: Mapping[str, SqlType] | None = None) -> Any:
    """The value of `text` on `row` (column name -> value; a missing column is NULL). `types` are the
    row's column types, which decide the scale of a DECIMAL quotient as in Spark (`decimals`)."""
    return Evaluator(row, now, types).eval(parse_sql(text, types))


def predicate_holds(text: str, row: Mapping[str, Any], now: datetime | None = None,
                    types: Mapping[str, SqlType] | None = None) -> bool:
    """A `where` clause on a row: only TRUE holds; FALSE and NULL do not."""
    return evaluate_sql(text, row, now, types) is True


def _column(row: Mapping[str, Any], name: str) -> Any:
    """A column's value; identifiers are case-insensitive, a column the row lacks is NULL."""
    if name in row:
        return row[name]
    return next((v for k, v in row.items() if k.lower() == name.lower()), None)


class Evaluator:
    """Evaluates one tree against one row.

    `first_fold` evaluates a constant as Spark's ConstantFolding does the first time it meets it, before any
    other rule of its optimizer has run but NullPropagation: only the NULLs that rule made count as folded
    (`folding`), and AND, OR, CASE and `if` evaluate as Spark's interpreted code does, left to right."""

    def __init__(self, row: Mapping[str, Any], now: datetime | None = None,
                 types: Mapping[str, SqlType] | None = None, first_fold: bool = False) -> None:
        self.row, self.now, self.types, self.first_fold = row, now, types or {}, first_fold

    def eval(self, node: exp.Expr) -> Any:
        meta = node.meta
        if meta:
            if meta.get("fails"):  # the query fails before any row: whatever else is known of the node
                raise SqlRuntimeError(meta["fails"])
            if meta.get("early_null") or (meta.get("null") and not self.first_fold):
                return None
            if meta.get("false") and not self.first_fold:
                return False
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise UnsupportedSql(f"the reference does not evaluate {node.key.upper()}: {node.sql('spark')}")
        try:
            return handler(self, node)
        except UnsupportedSql:  # SqlRuntimeError too: already the evaluator's own
            raise
        except (ArithmeticError, ValueError) as exc:  # OverflowError, decimal's InvalidOperation, math domain
            raise SqlRuntimeError(f"{_clip(node.sql('spark'))} fails on this row: {type(exc).__name__}: "
                                  f"{exc}") from None

    def args(self, node: exp.Expr) -> list[Any]:
        return [self.eval(e) for e in node.expressions]


_HANDLERS: dict[type[exp.Expr], Handler] = {
    exp.Column: lambda ev, n: _column(ev.row, n.name),
    exp.Paren: lambda ev, n: ev.eval(n.this),
    **logic.HANDLERS, **text.HANDLERS, **numbers.HANDLERS, **dates.HANDLERS, **conditionals.HANDLERS,
}
"""Every node type the reference evaluates, and how (a test replaces one: keep it one mutable table)."""
