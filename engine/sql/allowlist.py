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
| functions | abs, cast, coalesce (nvl, ifnull), concat, concat_ws, current_timestamp, if, length, lower, |
| | regexp_replace, round, substring (substr), trim, try_cast, upper, `||` |
| NULLs | isnull, isnotnull, nullif, nvl2 |
| numbers | greatest, least, floor, ceil (ceiling), sign (signum), mod |
| dates | year, month, day (dayofmonth), hour, minute, second, to_date (one argument), current_date, |
| | datediff (two arguments), date_add, date_sub |
| text | startswith, endswith, contains, instr, locate (position), lpad, rpad, ltrim, rtrim, replace, |
| | left, right, reverse, initcap |
| cast targets | BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DOUBLE, FLOAT, DECIMAL(p,s), STRING (VARCHAR, CHAR), |
| | TIMESTAMP, DATE (and the literals `TIMESTAMP '...'`, `DATE '...'`, which are casts of text) |

sqlglot reads Spark's TIMESTAMP as its TIMESTAMPTZ (Spark's TIMESTAMP is an instant: TIMESTAMP_LTZ) and
writes it back as TIMESTAMP for Spark; TIMESTAMP_NTZ is not allowed.

A function is refused under the name the snippet gives it (`written_name`: sqlglot reads `instr` as its
StrPosition, which it writes back as LOCATE); a spelling sqlglot maps to an allowed node that Spark does
not know (`strpos`, `charindex`) is refused too, so what validation accepts is Spark SQL.
"""

from __future__ import annotations

import re

from sqlglot import exp

ALLOWED_NODES: frozenset[type[exp.Expr]] = frozenset({
    exp.Column, exp.Identifier, exp.Literal, exp.Null, exp.Boolean, exp.Paren,
    exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Between, exp.Case, exp.If,
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.Like, exp.ILike, exp.RegexpLike, exp.RegexpReplace,
    exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Neg,
    exp.Abs, exp.Cast, exp.TryCast, exp.DataType, exp.DataTypeParam, exp.Coalesce, exp.Concat, exp.ConcatWs,
    exp.DPipe, exp.CurrentTimestamp, exp.Length, exp.Lower, exp.Round, exp.Substring, exp.Trim, exp.Upper,
    exp.Anonymous,  # isnull and isnotnull only (`_ANONYMOUS`)
    exp.Nullif, exp.Nvl2, exp.Greatest, exp.Least, exp.Floor, exp.Ceil, exp.Sign,
    exp.Year, exp.Month, exp.Day, exp.DayOfMonth, exp.Hour, exp.Minute, exp.Second, exp.TsOrDsToDate,
    exp.CurrentDate, exp.DateDiff, exp.TsOrDsAdd, exp.Var,  # a Var: date_add's unit, DAY, only
    exp.StartsWith, exp.EndsWith, exp.Contains, exp.StrPosition, exp.Pad, exp.Replace, exp.Left, exp.Right,
    exp.Reverse, exp.Initcap,
})
"""The sqlglot node types of the allowed operators and functions (and the nodes they are made of)."""

ALLOWED_FUNCTIONS = ("abs", "cast", "ceil", "ceiling", "coalesce", "concat", "concat_ws", "contains", "current_date",
                     "current_timestamp", "date_add", "date_sub", "datediff", "day", "dayofmonth", "endswith", "floor",
                     "greatest", "hour", "if", "ifnull", "initcap", "instr", "isnotnull", "isnull", "least", "left",
                     "length", "locate", "lower", "lpad", "ltrim", "minute", "mod", "month", "nullif", "nvl", "nvl2",
                     "position", "regexp_replace", "replace", "reverse", "right", "round", "rpad", "rtrim", "second",
                     "sign", "signum", "startswith", "substr", "substring", "to_date", "trim", "try_cast", "upper",
                     "year")
"""The function names the allow-list admits, as a finding lists them."""

_ANONYMOUS = {"isnull": 1, "isnotnull": 1}
"""Functions sqlglot reads as Anonymous that the allow-list admits, with their number of arguments."""

_SPELLINGS: dict[type[exp.Expr], frozenset[str]] = {
    exp.StrPosition: frozenset({"instr", "locate", "position"}), exp.Day: frozenset({"day"}),
    exp.DayOfMonth: frozenset({"dayofmonth"}), exp.Sign: frozenset({"sign", "signum"}),
    exp.Nullif: frozenset({"nullif"}), exp.Nvl2: frozenset({"nvl2"}), exp.Greatest: frozenset({"greatest"}),
    exp.Least: frozenset({"least"}), exp.Year: frozenset({"year"}), exp.Month: frozenset({"month"}),
    exp.Hour: frozenset({"hour"}), exp.Minute: frozenset({"minute"}), exp.Second: frozenset({"second"}),
    exp.TsOrDsToDate: frozenset({"to_date"}), exp.CurrentDate: frozenset({"current_date"}),
    exp.DateDiff: frozenset({"datediff", "date_diff"}), exp.TsOrDsAdd: frozenset({"date_add", "date_sub", "dateadd"}),
    exp.StartsWith: frozenset({"startswith"}), exp.EndsWith: frozenset({"endswith"}),
    exp.Contains: frozenset({"contains"}), exp.Pad: frozenset({"lpad", "rpad"}),
    exp.Replace: frozenset({"replace"}), exp.Left: frozenset({"left"}), exp.Right: frozenset({"right"}),
    exp.Reverse: frozenset({"reverse"}), exp.Initcap: frozenset({"initcap"}),
}
"""The Spark spellings of the newer allowed nodes: sqlglot reads other dialects' names into them too
(`strpos` and `charindex` are a StrPosition), which Spark does not run. A node sqlglot builds itself (the
date cast inside `year(x)`, `position(a IN b)`) has no written name and is not checked."""

ALLOWED_CASTS: frozenset[object] = frozenset({
    exp.DataType.Type.BOOLEAN, exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT, exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT, exp.DataType.Type.DECIMAL,
    exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR, exp.DataType.Type.CHAR, exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.DATE,
})

_PARAMETRIZED = (exp.DataType.Type.DECIMAL, exp.DataType.Type.VARCHAR, exp.DataType.Type.CHAR)


def written_name(node: exp.Expr, text: str | None) -> str | None:
    """The name a function node has in `text`, the snippet it was parsed from, lower-cased (`instr`, where
    sqlglot's node would be written LOCATE); None where the tree does not tell (a node sqlglot builds itself,
    a construct with its own syntax such as `position(a IN b)` or `floor`)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    meta = node.meta
    if text is None or not meta or "start" not in meta or "end" not in meta:
        return None
    name = text[meta["start"]:meta["end"] + 1]
    return name.lower() if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else None


def mark_written_names(tree: exp.Expr, text: str) -> None:
    """Keep each function's written name in its node (`meta["written"]`), for what depends on it: the
    reference evaluates `date_sub(d, n)`, which sqlglot reads as `date_add(d, n * -1)`, as Spark's date_sub,
    and Spark is given the function the snippet names (`engine.sql.spark`)."""
    for node in tree.walk():
        if isinstance(node, exp.Func):
            name = written_name(node, text)
            if name is not None:
                node.meta["written"] = name


def disallowed(tree: exp.Expr, text: str | None = None) -> str | None:
    """What the first construct of `tree` outside the allow-list is called (`reflect`, `date_format`, a
    subquery), or None when every node is allowed. With `text`, the snippet `tree` was parsed from, a
    function is named as the snippet writes it (`instr`, not sqlglot's LOCATE)."""
    for node in tree.walk():
        if type(node) not in ALLOWED_NODES:
            return _name(node, text)
        refused = _refused_form(node, text)
        if refused is not None:
            return refused
        if isinstance(node, exp.Column) and node.table:
            return f"a qualified column ({node.sql('spark')})"
        if isinstance(node, exp.Trim) and (node.args.get("expression") is not None
                                           or node.args.get("position") not in (None, "LEADING", "TRAILING", "BOTH")):
            name = written_name(node, text) or "trim"
            return f"{name} with characters to take off"  # {name}(x) is allowed: it takes off spaces
        if isinstance(node, exp.DataType) and not isinstance(node.parent, exp.DataType) \
                and node.this not in ALLOWED_CASTS:
            return f"a cast to {node.sql('spark')}"
        if isinstance(node, exp.DataType) and node.expressions and node.this not in _PARAMETRIZED:
            return f"a cast to {node.sql('spark')}"
        if isinstance(node, exp.Literal) and not node.is_string and not _plain_number(node.this):
            return f"the literal {node.this}"
    return None


def _refused_form(node: exp.Expr, text: str | None) -> str | None:
    """Why an allowed node is refused in this form (another spelling, a format, a unit...), or None."""
    written = written_name(node, text)
    if isinstance(node, exp.Anonymous):
        arity = _ANONYMOUS.get(node.name.lower())
        if arity is None:
            return _name(node, text)
        if len(node.expressions) != arity:
            return f"{node.name.lower()} with {len(node.expressions)} arguments"  # it takes `arity`
        return None
    spellings = _SPELLINGS.get(type(node))
    if spellings is not None and written is not None and written not in spellings:
        return f"the function {written}"
    if isinstance(node, exp.Var) and not (isinstance(node.parent, exp.TsOrDsAdd) and node.name.upper() == "DAY"):
        return node.sql("spark")
    if isinstance(node, exp.TsOrDsAdd) and (node.args.get("unit") is None or node.args["unit"].name.upper() != "DAY"):
        return f"{written or 'date_add'} with a unit"
    if isinstance(node, exp.TsOrDsToDate) and node.args.get("format") is not None:
        return "to_date with a format"  # Spark's datetime patterns are not modelled; to_date(x) is a cast
    if isinstance(node, exp.DateDiff) and node.args.get("unit") is not None:
        return f"{written or 'datediff'} with a unit"
    if isinstance(node, exp.Floor | exp.Ceil) and node.args.get("decimals") is not None:
        name = "floor" if isinstance(node, exp.Floor) else "ceil"
        return f"{name} with a scale"
    if isinstance(node, exp.Initcap) and _given(node.args.get("expression")):
        return "initcap with delimiters"  # not Spark's; sqlglot would drop them
    if isinstance(node, exp.Greatest | exp.Least) and not node.expressions:
        return f"{type(node).__name__.lower()} of one argument"
    return None


def _given(node: exp.Expr | None) -> bool:
    """Whether an argument comes from the snippet (sqlglot fills some in itself: initcap's delimiter)."""
    return node is not None and bool(node.meta) and "start" in node.meta


def allowlist_problem(tree: exp.Expr, text: str | None = None) -> str | None:
    """The end of a sentence about a snippet that uses something outside the allow-list, or None. Give
    `text`, the snippet, so a function is named as it is written there."""
    name = disallowed(tree, text)
    if name is None:
        return None
    return (f"uses {name}, which Mapwright does not run (allowed: the operators and {', '.join(ALLOWED_FUNCTIONS)}"
            "; see engine/sql/allowlist.py)")


def _name(node: exp.Expr, text: str | None = None) -> str:
    written = written_name(node, text) or _name_before_arguments(node, text)
    if written is not None:
        return f"the function {written}"
    if isinstance(node, exp.Func):  # named as Spark spells it (sqlglot reads lpad as PAD)
        return f"the function {node.sql('spark').split('(')[0].strip().lower()}"
    named = {exp.Subquery: "a subquery", exp.Select: "a query", exp.Lambda: "a lambda", exp.Star: "*",
             exp.Bracket: "an index ([...])", exp.Dot: "a field access (.)", exp.Interval: "an interval",
             exp.Placeholder: "a parameter", exp.Parameter: "a parameter", exp.HexString: "a binary literal"}
    return named.get(type(node), node.key.upper())


def _name_before_arguments(node: exp.Expr, text: str | None) -> str | None:
    """The name before a function's first argument in `text`, for a node sqlglot builds without its name's
    position (`char(65)`, which it reads as CHR): the last `name(` before the earliest position of the
    node's arguments, with nothing but punctuation between. None where that is not found."""
    if text is None or not isinstance(node, exp.Func):
        return None
    starts = [n.meta["start"] for n in node.walk() if n is not node and n.meta and "start" in n.meta]
    if not starts:
        return None
    found = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\([^\w]*$", text[:min(starts)])
    return found.group(1).lower() if found else None


def _plain_number(text: str) -> bool:
    """Integer and decimal literals; not `1e3` (a double in Spark), `1L`, `1BD` or hex."""
    digits = text.lstrip("+-")
    whole, _, fraction = digits.partition(".")
    return (whole + fraction).isdigit()
