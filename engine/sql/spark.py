"""The model's Spark SQL as Spark runs it: checked against the allow-list, its names bound to columns.

A `where` clause or an `expression` reaches Spark only as the SQL sqlglot regenerates from the checked
tree (`parse_sql` refuses anything outside the allow-list), so Spark runs exactly what validation read.
`bound_sql` also binds each column name to the SQL of the column that holds it (a field of a row struct,
as the pipeline keeps rows), `CURRENT_TIMESTAMP` to the time the reference gives it (the change's commit
time) and `CURRENT_DATE` to that time's day: a name bound to nothing is NULL, as the reference reads a
column a row lacks. Run it on a session with `spark.sql.ansi.enabled` (the reference evaluator,
`engine.sql.evaluate`, follows ANSI).

Where sqlglot writes a function back as another one, Spark is given the one the snippet names, whose
semantics the reference follows (`_as_written`): `instr(s, sub)` (sqlglot: LOCATE(sub, s), which evaluates
its arguments in another order) and `date_sub(d, n)` (sqlglot: DATE_ADD(d, n * -1), which overflows
at the smallest INT and multiplies text as a DOUBLE). The days of `date_add`/`date_sub` are cast to INT
(`CAST(n AS INT)`, as the reference reads them, `scalars.day_count`): Spark's analysis refuses a BIGINT
there, and a model's integer columns are often BIGINT.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from engine.sql.evaluate import parse_sql
from engine.sql.replaces import rewritten


def checked_sql(sql: str) -> str:
    """The Spark SQL of `sql` once it parses within the limits and keeps to the allow-list (else
    `UnsupportedSql`), regenerated from the checked tree."""
    return rewritten(parse_sql(sql).copy(), _as_written).sql(dialect="spark")


def _as_written(node: exp.Expr) -> exp.Expr:
    """`node` as the function the snippet wrote, where sqlglot would write another (see the module)."""
    written = node.meta.get("written") if node.meta else None
    if isinstance(node, exp.StrPosition) and written == "instr":
        return exp.Anonymous(this="INSTR", expressions=[node.this, node.args["substr"]])
    if isinstance(node, exp.TsOrDsAdd):
        subtract = written == "date_sub" and isinstance(node.expression, exp.Mul)
        days = node.expression.this if subtract else node.expression
        return exp.Anonymous(this="DATE_SUB" if subtract else "DATE_ADD",
                             expressions=[node.this, exp.cast(days, exp.DataType.build("INT"))])
    return node


def bound_sql(sql: str, column: Callable[[str], str | None], now: str) -> str:
    """`checked_sql` with each column name replaced by `column(name)` (NULL when that is None) and the
    current time by `now`, each parenthesized."""
    tree = parse_sql(sql).copy()
    marks: dict[str, str] = {}
    tag = f"mwbound{abs(hash(sql)) % 10**9}x"
    while tag in sql:
        tag += "x"

    def mark(text: str) -> exp.Expr:
        name = f"{tag}{len(marks)}y"
        marks[name] = text
        return exp.column(name)

    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column):
            bound = column(node.name)
            return mark(f"({bound})" if bound is not None else "NULL")
        if isinstance(node, exp.CurrentTimestamp):
            return mark(f"({now})")
        if isinstance(node, exp.CurrentDate):
            return mark(f"CAST(({now}) AS DATE)")
        return _as_written(node)

    out = rewritten(tree, rewrite).sql(dialect="spark")
    for name, text in marks.items():
        out = out.replace(name, text)
    return f"({out})"
