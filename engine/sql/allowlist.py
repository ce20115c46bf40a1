"""The allow-list: the operators and pure scalar functions a model's Spark SQL may use.

User SQL reaches Spark (`F.expr`), so anything that can reach outside the row is refused: `reflect`,
`java_method`, `read_files`, UDFs, file and table access, subqueries, lambdas, generators,
non-deterministic functions. Every entry below is also implemented by the reference evaluator
(`engine.sql.evaluate`) with Spark's ANSI semantics, and a property test holds the two equal, so MP003
and MP004 accept nothing either side cannot run.

| kind | allowed |
|---|---|
| values | column names (unqualified), string, integer and decimal literals, NULL, TRUE, FALSE |
| logic | AND, OR, NOT, IS [NOT] NULL, IS [NOT] TRUE/FALSE, IN (list), BETWEEN, CASE, `if` |
| comparison | =, ==, <>, !=, <, <=, >, >=, <=>, IS [NOT] DISTINCT FROM |
| text matching | LIKE, ILIKE, RLIKE |
| arithmetic | +, -, *, /, DIV, %, unary - |
| functions | abs, cast, coalesce (nvl), concat, concat_ws, current_timestamp, if, length, lower, |
| | regexp_replace, round, substring (substr), trim, try_cast, upper, `||` |
| cast targets | BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DOUBLE, FLOAT, DECIMAL(p,s), STRING (VARCHAR, CHAR), |
| | TIMESTAMP, DATE (and the literals `TIMESTAMP '...'`, `DATE '...'`, which are casts of text) |

sqlglot reads Spark's TIMESTAMP as its TIMESTAMPTZ (Spark's TIMESTAMP is an instant: TIMESTAMP_LTZ) and
writes it back as TIMESTAMP for Spark; TIMESTAMP_NTZ is not allowed.
"""

from __future__ import annotations

from sqlglot import exp

ALLOWED_NODES: frozenset[type[exp.Expr]] = frozenset({
    exp.Column, exp.Identifier, exp.Literal, exp.Null, exp.Boolean, exp.Paren,
    exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Between, exp.Case, exp.If,
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.Like, exp.ILike, exp.RegexpLike, exp.RegexpReplace,
    exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Neg,
    exp.Abs, exp.Cast, exp.TryCast, exp.DataType, exp.DataTypeParam, exp.Coalesce, exp.Concat, exp.ConcatWs,
    exp.DPipe, exp.CurrentTimestamp, exp.Length, exp.Lower, exp.Round, exp.Substring, exp.Trim, exp.Upper,
})
"""The sqlglot node types of the allowed operators and functions (and the nodes they are made of)."""

ALLOWED_FUNCTIONS = ("abs", "cast", "coalesce", "concat", "concat_ws", "current_timestamp", "if", "length",
                     "lower", "nvl", "regexp_replace", "round", "substr", "substring", "trim", "try_cast", "upper")
"""The function names the allow-list admits, as a finding lists them."""

ALLOWED_CASTS: frozenset[object] = frozenset({
    exp.DataType.Type.BOOLEAN, exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT, exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT, exp.DataType.Type.DECIMAL,
    exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR, exp.DataType.Type.CHAR, exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.DATE,
})

_PARAMETRIZED = (exp.DataType.Type.DECIMAL, exp.DataType.Type.VARCHAR, exp.DataType.Type.CHAR)


def disallowed(tree: exp.Expr) -> str | None:
    """What the first construct of `tree` outside the allow-list is called (`reflect`, `year`, a
    subquery), or None when every node is allowed."""
    for node in tree.walk():
        if type(node) not in ALLOWED_NODES:
            return _name(node)
        if isinstance(node, exp.Column) and node.table:
            return f"a qualified column ({node.sql('spark')})"
        if isinstance(node, exp.Trim) and (node.args.get("expression") is not None or node.args.get("position")):
            return "trim with characters or a position (only trim(x) is allowed)"
        if isinstance(node, exp.DataType) and not isinstance(node.parent, exp.DataType) \
                and node.this not in ALLOWED_CASTS:
            return f"a cast to {node.sql('spark')}"
        if isinstance(node, exp.DataType) and node.expressions and node.this not in _PARAMETRIZED:
            return f"a cast to {node.sql('spark')}"
        if isinstance(node, exp.Literal) and not node.is_string and not _plain_number(node.this):
            return f"the literal {node.this}"
    return None


def allowlist_problem(tree: exp.Expr) -> str | None:
    """The end of a sentence about a snippet that uses something outside the allow-list, or None."""
    name = disallowed(tree)
    if name is None:
        return None
    return (f"uses {name}, which Mapwright does not run (allowed: the operators and {', '.join(ALLOWED_FUNCTIONS)}"
            "; see engine/sql/allowlist.py)")


def _name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return f"the function {node.name.lower()}"
    if isinstance(node, exp.Func):  # named as Spark spells it (sqlglot reads lpad as PAD)
        return f"the function {node.sql('spark').split('(')[0].strip().lower()}"
    named = {exp.Subquery: "a subquery", exp.Select: "a query", exp.Lambda: "a lambda", exp.Star: "*",
             exp.Bracket: "an index ([...])", exp.Dot: "a field access (.)", exp.Interval: "an interval",
             exp.Placeholder: "a parameter", exp.Parameter: "a parameter", exp.HexString: "a binary literal"}
    return named.get(type(node), node.key.upper())


def _plain_number(text: str) -> bool:
    """Integer and decimal literals; not `1e3` (a double in Spark), `1L`, `1BD` or hex."""
    digits = text.lstrip("+-")
    whole, _, fraction = digits.partition(".")
    return (whole + fraction).isdigit()
