"""The SQL a model holds for DDL beyond defaults: check conditions, generated-column expressions and partition
bounds (`Check.sql`, `Generated.expression`, `Partition.bound`), all user text in the server's SQL.

None of it is pasted into DDL. Each is parsed by sqlglot in its server's dialect and must be exactly what
it claims: one condition (a check), one scalar expression (a generated column), one `FOR VALUES ...` or
`DEFAULT` of constants (a bound). No statement, query, parameter or comment gets through, so a check of
`a > 0); DROP TABLE x; --` is refused rather than written. Column names are resolved against the table
(exactly when quoted, else ignoring case) and written as quoted identifiers of the model's names; the text
written is sqlglot's rendering of the checked tree in the target's dialect, checked to parse back the same.
"""

from __future__ import annotations

from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from engine.sql import limit_problem
from engine.sqldefaults import SQLGLOT_BY_DBMS


class ExprProblem(ValueError):
    """User SQL that DDL does not write; the message says why, in one line."""


_REFUSED: tuple[type, ...] = (
    exp.Query, exp.Subquery, exp.DDL, exp.DML, exp.Command, exp.Drop, exp.Alter, exp.Set, exp.Use, exp.Pragma,
    exp.Transaction, exp.Commit, exp.Placeholder, exp.Parameter, exp.SessionParameter, exp.Star, exp.Window,
    exp.AggFunc, exp.Lambda, exp.Into, exp.UserDefinedFunction,
)
"""What no check or generated column holds: statements, queries, parameters, `*`, windows and aggregates."""
_CONDITIONS: tuple[type, ...] = (exp.Predicate, exp.Connector, exp.Not, exp.Boolean, exp.Func,
                                exp.Column, exp.Case)
"""What a check's condition may be at its top: a comparison, AND/OR/NOT, a function or a boolean column."""
_BOUND_NODES: tuple[type, ...] = (exp.PartitionBoundSpec, exp.Literal, exp.Neg, exp.Null,
                                 exp.Boolean, exp.Cast, exp.DataType, exp.DataTypeParam, exp.Paren)
_BOUND_WORDS = frozenset({"MINVALUE", "MAXVALUE"})


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "not SQL"


def _parse(text: str, read: str, what: str) -> exp.Expression:
    """Exactly one tree from `text`, else `ExprProblem`."""
    source = text.strip()
    if not source:
        raise ExprProblem(f"the {what} is empty")
    if "\x00" in source:
        raise ExprProblem(f"the {what} holds a NUL character, which no SQL text can")
    too_big = limit_problem(source)
    if too_big:
        raise ExprProblem(f"the {what} {too_big}")
    try:
        trees = [t for t in sqlglot.parse(source, read=read, error_level=ErrorLevel.RAISE) if t is not None]
    except SqlglotError as exc:
        raise ExprProblem(f"the {what} is not one SQL expression ({_first_line(str(exc))})") from None
    if len(trees) != 1:
        raise ExprProblem(f"the {what} is {len(trees)} SQL statements where one expression belongs")
    return cast(exp.Expression, trees[0])


def _resolve(node: exp.Column, columns: list[str], what: str) -> exp.Expression:
    """The column as a quoted identifier of the model's name: exact when quoted, else ignoring case."""
    if node.args.get("table") is not None or not isinstance(node.this, exp.Identifier):
        raise ExprProblem(f"the {what} names {node.sql()!r}; name the table's columns alone")
    ident: exp.Identifier = node.this
    name = str(ident.this)
    found = [c for c in columns if c == name] if ident.quoted else [c for c in columns if c.lower() == name.lower()]
    if len(found) != 1:
        why = "no" if not found else "more than one"
        raise ExprProblem(f"the {what} names {name!r}, which is {why} column of the table")
    return exp.Column(this=exp.to_identifier(found[0], quoted=True))


def _render(tree: exp.Expression, write: str, what: str) -> str:
    """The tree in `write`'s SQL, without comments, checked to parse back to the same text."""
    try:
        text = tree.sql(dialect=write, comments=False, unsupported_level=ErrorLevel.RAISE)
        again = [t for t in sqlglot.parse(text, read=write, error_level=ErrorLevel.RAISE) if t is not None]
    except SqlglotError as exc:
        raise ExprProblem(f"the {what} cannot be written in {write} SQL ({_first_line(str(exc))})") from None
    if len(again) != 1 or cast(exp.Expression, again[0]).sql(dialect=write, comments=False) != text:
        raise ExprProblem(f"the {what} does not survive being written in {write} SQL")
    return text


def column_expression(text: str, columns: list[str], dbms: str, write: str, condition: bool) -> str:
    """A check's condition (`condition`) or a generated column's expression, read in the SQL of `dbms` and
    written in sqlglot dialect `write`; raises `ExprProblem` for anything but one such expression over the
    table's `columns`."""
    what = "condition" if condition else "expression"
    tree = _parse(text, SQLGLOT_BY_DBMS.get(dbms, "postgres"), what)
    for node in tree.walk():
        if isinstance(node, _REFUSED):
            raise ExprProblem(f"the {what} holds a {type(node).__name__.lower()}, which a {what} of a column cannot")
    top = tree
    while isinstance(top, exp.Paren):
        top = top.this
    if condition and not isinstance(top, _CONDITIONS):
        raise ExprProblem(f"the condition is not true or false: its top is {top.key.upper()}")
    tree = tree.transform(lambda n: _resolve(n, columns, what) if isinstance(n, exp.Column) else n)
    return _render(tree, write, what)


def partition_bound(text: str) -> str:
    """A PostgreSQL partition bound (`FOR VALUES FROM (1) TO (10)`, `... IN (...)`, `... WITH (MODULUS 4,
    REMAINDER 0)` or `DEFAULT`) of constants, rewritten by sqlglot; raises `ExprProblem` for anything else."""
    source = text.strip()
    if "\x00" in source or limit_problem(source):
        raise ExprProblem("the bound is too long or holds a NUL character")
    statement = _parse(f"CREATE TABLE p PARTITION OF r {source}", "postgres", "bound")
    properties = statement.args.get("properties")
    found = properties.expressions if isinstance(statement, exp.Create) and properties is not None else []
    if len(found) != 1 or not isinstance(found[0], exp.PartitionedOfProperty) or statement.expression is not None:
        raise ExprProblem("the bound is not one FOR VALUES clause or DEFAULT")
    spec = found[0].expression
    if isinstance(spec, exp.Var) and spec.name.upper() == "DEFAULT":
        return "DEFAULT"
    if not isinstance(spec, exp.PartitionBoundSpec):
        raise ExprProblem("the bound is not one FOR VALUES clause or DEFAULT")
    for node in spec.walk():
        if isinstance(node, exp.Var) and node.name.upper() in _BOUND_WORDS:
            continue
        if not isinstance(node, _BOUND_NODES) and not (isinstance(node, exp.Identifier)
                                                       and isinstance(node.parent, exp.DataType)):
            raise ExprProblem(f"the bound holds a {type(node).__name__.lower()}; a bound is constants only")
    rendered = _render(statement, "postgres", "bound")
    prefix = "CREATE TABLE p PARTITION OF r "
    if not rendered.startswith(prefix):
        raise ExprProblem("the bound does not survive being written in PostgreSQL SQL")
    return rendered.removeprefix(prefix)
