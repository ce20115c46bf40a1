"""The model's Spark SQL as Spark runs it: checked against the allow-list, its names bound to columns.

A `where` clause or an `expression` reaches Spark only as the SQL sqlglot regenerates from the checked
tree (`parse_sql` refuses anything outside the allow-list), so Spark runs exactly what validation read.
`bound_sql` also binds each column name to the SQL of the column that holds it (a field of a row struct,
as the pipeline keeps rows) and `CURRENT_TIMESTAMP` to the time the reference gives it (the change's
commit time): a name bound to nothing is NULL, as the reference reads a column a row lacks. Run it on a
session with `spark.sql.ansi.enabled` (the reference evaluator, `engine.sql.evaluate`, follows ANSI).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from engine.sql.evaluate import parse_sql


def checked_sql(sql: str) -> str:
    """The Spark SQL of `sql` once it parses within the limits and keeps to the allow-list (else
    `UnsupportedSql`), regenerated from the checked tree."""
    return parse_sql(sql).sql(dialect="spark")


def bound_sql(sql: str, column: Callable[[str], str | None], now: str) -> str:
    """`checked_sql` with each column name replaced by `column(name)` (NULL when that is None) and the
    current time by `now`, each parenthesized."""
    tree = parse_sql(sql).copy()
    marks: dict[str, str] = {}
    tag = f"mwbound{abs(hash(sql)) % 10**9}x"
    while tag in sql:
        tag += "x"

    def mark(text: str) -> exp.Expression:
        name = f"{tag}{len(marks)}y"
        marks[name] = text
        return exp.column(name)

    def rewrite(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column):
            bound = column(node.name)
            return mark(f"({bound})" if bound is not None else "NULL")
        if isinstance(node, exp.CurrentTimestamp):
            return mark(f"({now})")
        return node

    out = tree.transform(rewrite).sql(dialect="spark")
    for name, text in marks.items():
        out = out.replace(name, text)
    return f"({out})"
