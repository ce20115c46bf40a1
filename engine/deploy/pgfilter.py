"""A mapping's `where` (Spark SQL) as a PostgreSQL publication row filter, or why it cannot be one."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

_NOT_IMMUTABLE = (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentTime, exp.Rand, exp.Anonymous)
# PostgreSQL refuses these in a row filter too: a cast through text (CoerceViaIO) is not an allowed node, and
# concat_ws is only stable. try_cast also means something else there (PostgreSQL's CAST fails, it never
# gives NULL). Any cast is refused, rather than guessing from types which ones PostgreSQL would take.
_NOT_IN_ROW_FILTER = (exp.Cast, exp.ConcatWs)
_SPARK_MEANING = (exp.Initcap, exp.Left, exp.Right, exp.Contains, exp.EndsWith)
"""Functions of the allow-list that PostgreSQL has not, or reads otherwise: `initcap` splits words at any
non-letter there (at spaces only in Spark), `left`/`right` of a negative length keep all but that many
characters there (none in Spark), and there is no `contains` or `ends_with`."""


def row_filter_sql(where: str) -> tuple[str | None, tuple[str, ...], str | None]:
    """(PostgreSQL text of the filter, columns it reads, problem). The Spark SQL is parsed and re-rendered
    for PostgreSQL with every identifier quoted, without its comments: the model's text never reaches the SQL.
    What is not one condition (`a = 1; DROP TABLE t`, which sqlglot parses as one block, or `GRANT ...`;
    `--force` lets such a model through validation) is refused, never rendered into the publication."""
    try:
        tree = sqlglot.parse_one(where, read="spark")
        if not isinstance(tree, exp.Condition):
            return None, (), "the where clause is not one condition (it holds a statement), which a row filter cannot"
        tree = tree.transform(_null_test)
        text = tree.sql(dialect="postgres", identify=True, comments=False)
    except (SqlglotError, RecursionError) as exc:
        return None, (), f"the where clause cannot be written for PostgreSQL: {str(exc).splitlines()[0]}"
    if any(isinstance(node, (exp.Query, exp.Subquery)) for node in tree.walk()):
        return None, (), "the where clause holds a query, which a row filter cannot"
    if any(isinstance(node, _NOT_IMMUTABLE) for node in tree.walk()):
        return None, (), ("the where clause calls a function PostgreSQL does not allow in a row filter (only "
                          "immutable built-in functions: no current time, random or user functions)")
    if any(isinstance(node, _NOT_IN_ROW_FILTER) for node in tree.walk()):
        return None, (), ("the where clause holds a cast or concat_ws, which PostgreSQL does not allow in a row "
                          "filter (a cast through text is refused, concat_ws is not immutable)")
    differs = next((node for node in tree.walk() if isinstance(node, _SPARK_MEANING)), None)
    if differs is not None:
        return None, (), (f"the where clause calls {differs.key}, which PostgreSQL has not or reads otherwise "
                          "than Spark")
    return text, tuple(dict.fromkeys(c.name for c in tree.find_all(exp.Column))), None


def _null_test(node: exp.Expression) -> exp.Expression:
    """Spark's `isnull(x)` and `isnotnull(x)` (functions sqlglot does not know) as `x IS [NOT] NULL`."""
    if isinstance(node, exp.Anonymous) and len(node.expressions) == 1 and node.name.lower() in ("isnull",
                                                                                                 "isnotnull"):
        test = exp.Is(this=node.expressions[0], expression=exp.Null())
        return test if node.name.lower() == "isnull" else exp.Not(this=test)
    return node
