"""Hypothesis strategies for Spark SQL over a few typed columns, within the allow-list.

Typed so every expression is well-typed for Spark (no analysis errors), and bounded so no integer
arithmetic overflows (BIGINT columns within ±100, INT literals within ±10, depth at most 3), which the
reference does not model. NULLs are typed (`CAST(NULL AS BIGINT)`), as a column's are. Division and
remainder by zero, NULLs, strict casts of text and substring edges come up often on purpose. Dates are
built from literals and a day count kept within 1000 (the years a Python `date` holds).
Text meets a number only as `text = literal`: against a column that is NULL on the row, Spark casts
the text anyway and the reference cannot (it does not know column types). A strict cast of text always
reads a column (`cast(coalesce(S1, ...) as bigint)`): Spark's optimizer may compute a constant that
fails, `cast('x' as bigint)`, where no row reaches it, which the reference does not model.
Conditionals whose branches differ in type (`widened_expr`) take the wider type (`engine.sql.coercion`);
the reference is given the columns' types (`TYPES`), as a run gives it the mapping's.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from engine.core.types import parse_type

SCHEMA = "RID int, I1 bigint, I2 bigint, S1 string, S2 string, B1 boolean"
TYPES = {"I1": parse_type("BIGINT"), "I2": parse_type("BIGINT"), "S1": parse_type("VARCHAR(20)"),
         "S2": parse_type("VARCHAR(20)"), "B1": parse_type("BOOLEAN")}
ALPHABET = "aB1 2-_%ß"
TEXTS = st.text(ALPHABET, max_size=5)

rows = st.lists(st.fixed_dictionaries({
    "I1": st.none() | st.integers(-100, 100),
    "I2": st.none() | st.integers(-3, 3),
    "S1": st.none() | TEXTS | st.sampled_from(["12", " 7 ", "-3", "2.7", "", "yes", "abc"]),
    "S2": st.none() | TEXTS,
    "B1": st.none() | st.booleans(),
}), min_size=1, max_size=5)


def _lit(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _pick(draw: Any, options: list[Any]) -> Any:
    return draw(st.sampled_from(options))


@st.composite
def int_expr(draw: Any, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return _pick(draw, ["I1", "I2", "CAST(NULL AS BIGINT)", str(draw(st.integers(-10, 10)))])
    a = lambda: draw(int_expr(depth - 1))  # noqa: E731
    s = lambda: draw(str_expr(depth - 1))  # noqa: E731
    b = lambda: draw(bool_expr(depth - 1))  # noqa: E731
    kind = draw(st.integers(0, 27))
    if kind <= 4:
        return f"({a()} {_pick(draw, ['+', '-', '*', 'div', '%'])} {a()})"
    days = lambda: f"cast(({a()}) % 1000 as int)"  # noqa: E731  within the years a DATE holds here
    return [
        lambda: f"(- {a()})", lambda: f"abs({a()})", lambda: f"cast(coalesce(S1, {s()}) as bigint)",
        lambda: f"try_cast({s()} as bigint)", lambda: f"length({s()})", lambda: f"coalesce({a()}, {a()})",
        lambda: f"if({b()}, {a()}, {a()})", lambda: f"CASE WHEN {b()} THEN {a()} ELSE {a()} END",
        lambda: f"cast({b()} as int)",
        # the functions added to the allow-list
        lambda: f"floor({a()})", lambda: f"ceil({a()})", lambda: f"cast(sign({a()}) as bigint)",
        lambda: f"greatest({a()}, {a()})", lambda: f"least({a()}, {a()}, {a()})", lambda: f"nullif({a()}, {a()})",
        lambda: f"nvl2({a()}, {a()}, {a()})", lambda: f"ifnull({a()}, {a()})", lambda: f"mod({a()}, {a()})",
        lambda: f"instr({s()}, {s()})", lambda: f"locate({s()}, {s()})", lambda: f"locate({s()}, {s()}, {a()})",
        lambda: f"datediff(date_add(DATE '2020-02-29', {days()}), date_sub(DATE '2021-03-31', {days()}))",
        lambda: f"{_pick(draw, ['year', 'month', 'day'])}(date_add(DATE '2020-01-31', {days()}))",
    ][kind - 5]()


@st.composite
def str_expr(draw: Any, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return _pick(draw, ["S1", "S2", "CAST(NULL AS STRING)", _lit(draw(TEXTS))])
    a = lambda: draw(str_expr(depth - 1))  # noqa: E731
    i = lambda: draw(int_expr(depth - 1))  # noqa: E731
    b = lambda: draw(bool_expr(depth - 1))  # noqa: E731
    start, length = draw(st.integers(-5, 5)), draw(st.integers(-2, 5))
    return draw(st.sampled_from([
        lambda: f"upper({a()})", lambda: f"lower({a()})", lambda: f"trim({a()})",
        lambda: f"concat({a()}, {a()})", lambda: f"concat_ws('-', {a()}, {a()})", lambda: f"({a()} || {a()})",
        lambda: f"substring({a()}, {start}, {length})", lambda: f"substr({a()}, {start})",
        lambda: f"cast({i()} as string)", lambda: f"coalesce({a()}, {a()})", lambda: f"if({b()}, {a()}, {a()})",
        lambda: f"regexp_replace({a()}, '[0-9]', '#')", lambda: f"regexp_replace({a()}, '([a-z])', '$1$1')",
        # the functions added to the allow-list
        lambda: f"lpad({a()}, {length}, {a()})", lambda: f"rpad({a()}, {length}, {a()})",
        lambda: f"lpad({a()}, {start})",
        lambda: f"ltrim({a()})", lambda: f"rtrim({a()})", lambda: f"replace({a()}, {a()}, {a()})",
        lambda: f"replace({a()}, {a()})", lambda: f"left({a()}, {start})", lambda: f"right({a()}, {start})",
        lambda: f"reverse({a()})", lambda: f"initcap({a()})", lambda: f"nullif({a()}, {a()})",
        lambda: f"nvl2({i()}, {a()}, {a()})", lambda: f"greatest({a()}, {a()})", lambda: f"least({a()}, {a()})",
        lambda: f"cast(date_add(DATE '2024-02-28', cast(({i()}) % 1000 as int)) as string)",
    ]))()


@st.composite
def bool_expr(draw: Any, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        return _pick(draw, ["B1", "TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"])
    a = lambda: draw(bool_expr(depth - 1))  # noqa: E731
    i = lambda: draw(int_expr(depth - 1))  # noqa: E731
    s = lambda: draw(str_expr(depth - 1))  # noqa: E731
    cmp = _pick(draw, ["=", "<>", "<", "<=", ">", ">=", "<=>", "IS DISTINCT FROM"])
    pattern = _lit(draw(st.text("aB1%_", max_size=4)))
    regex = _pick(draw, ["'^[a-z]'", "'\\\\bB'", "'ß\\\\b'", "'\\\\B1'", "'-\\\\b'"])  # \b: Java's words
    return draw(st.sampled_from([
        lambda: f"({i()} {cmp} {i()})", lambda: f"({s()} {cmp} {s()})",
        lambda: f"(coalesce(S2, {s()}) = {draw(st.integers(-10, 10))})",
        lambda: f"({a()} AND {a()})", lambda: f"({a()} OR {a()})", lambda: f"(NOT {a()})",
        lambda: f"({i()} IS NULL)", lambda: f"({s()} IS NOT NULL)", lambda: f"({s()} LIKE {pattern})",
        lambda: f"({s()} ILIKE {pattern})", lambda: f"({s()} RLIKE {regex})",
        lambda: f"({i()} IN (1, NULL, {i()}))", lambda: f"({i()} IN (2, -1))",
        lambda: f"({i()} BETWEEN {i()} AND {i()})", lambda: f"(({i()} / {i()}) > {i()})",
        # the functions added to the allow-list
        lambda: f"isnull({i()})", lambda: f"isnotnull({s()})", lambda: f"startswith({s()}, {s()})",
        lambda: f"endswith({s()}, {s()})", lambda: f"contains({s()}, {s()})", lambda: f"(instr({s()}, {s()}) > 0)",
        lambda: f"nullif({a()}, {a()})", lambda: f"greatest({a()}, {a()})",
    ]))()


@st.composite
def widened_expr(draw: Any, depth: int = 3) -> str:
    """Conditionals whose branches differ in type: an integer beside a DECIMAL is a DECIMAL, text beside an
    integer a BIGINT (text that is no number fails where taken), text beside a DECIMAL a DOUBLE."""
    i = lambda: draw(int_expr(depth - 1))  # noqa: E731
    s = lambda: draw(str_expr(depth - 1))  # noqa: E731
    b = lambda: draw(bool_expr(depth - 1))  # noqa: E731
    return draw(st.sampled_from([
        lambda: f"if({b()}, {i()}, 2.5)", lambda: f"CASE WHEN {b()} THEN {i()} ELSE {s()} END",
        lambda: f"coalesce({i()}, 0.25)", lambda: f"nvl2({s()}, {i()}, -1.5)", lambda: f"if({b()}, {s()}, 1.5)",
        lambda: f"CASE WHEN {b()} THEN 1 WHEN {b()} THEN 2.5 ELSE {s()} END",
        lambda: f"cast(if({b()}, {i()}, 0.5) as string)", lambda: f"(if({b()}, {i()}, 2.50) / 4)",
    ]))()


def any_expr(depth: int = 3) -> st.SearchStrategy[str]:
    return st.one_of(int_expr(depth), str_expr(depth), bool_expr(depth), widened_expr(depth),
                     st.builds(lambda a, b: f"({a} / {b})", int_expr(depth - 1), int_expr(depth - 1)))
