"""Spark SQL snippets (`where` clauses, `expression` methods) read without a JVM, through sqlglot.

sqlglot's parser recurses several frames per level of nesting, and the run's
evaluator once per level of the tree, so a snippet is measured before it is
parsed (`limit_problem`: its length and its nesting, counted on tokens, which
sqlglot reads without recursion) and its tree after (`MAX_SQL_DEPTH`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokenizer_core import TokenType

from engine.limits import MAX_SQL_CHARS, MAX_SQL_DEPTH, MAX_SQL_NESTING
from engine.sql.allowlist import allowlist_problem
from engine.sql.errors import UnsupportedSql
from engine.sql.lineage import columns_read, reads_current_time
from engine.sql.patterns import compiled_regex

# sqlglot logs a warning when it falls back to reading text as a command; the finding says it, in one line
logging.getLogger("sqlglot").setLevel(logging.ERROR)

_OPEN = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE, TokenType.CASE}
_CLOSE = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE, TokenType.END}
# Tokens that end a run of operators: names, literals and separators. Any other token (NOT, -, ~,
# INTERVAL, ARRAY, ANY, @...) may start a construct the parser reads by recursing into what follows.
_OPERAND = {TokenType.VAR, TokenType.NUMBER, TokenType.STRING, TokenType.IDENTIFIER, TokenType.NULL,
            TokenType.TRUE, TokenType.FALSE, TokenType.STAR, TokenType.COMMA}
_REGEX_FUNCTIONS = (exp.RegexpLike, exp.RegexpILike, exp.RegexpExtract, exp.RegexpExtractAll, exp.RegexpReplace,
                    exp.RegexpSplit, exp.RegexpCount, exp.RegexpInstr, exp.RegexpSubstr, exp.RegexpFullMatch)


@dataclass(frozen=True)
class ParsedSql:
    """Column names an expression reads; or why it cannot be used.

    `error` is a syntax error ("does not parse: ..."). `problem` completes a sentence about a snippet
    that parses but cannot run ("has an invalid regular expression ..."); `beyond_limits` marks the
    problems a model file may not hold at all (too long, nested too deeply), which loading refuses.
    `reads_clock`: it calls a function of the current time (`lineage.reads_current_time`).
    """

    columns: tuple[str, ...] = ()
    error: str | None = None
    problem: str | None = None
    beyond_limits: bool = False
    reads_clock: bool = False


def limit_problem(text: str) -> str | None:
    """Why `text` is too big to hand to a parser, or None. Linear and without recursion."""
    if len(text) > MAX_SQL_CHARS:
        return f"is too long: {len(text):,} characters (at most {MAX_SQL_CHARS:,})"
    nesting = token_nesting(text)
    if nesting > MAX_SQL_NESTING:
        return (f"is nested too deeply: {nesting} levels of parentheses, CASE and operators such as NOT in a row "
                f"(at most {MAX_SQL_NESTING})")
    return None


def token_nesting(text: str) -> int:
    """The deepest nesting of brackets and CASE ... END, plus the runs of operators and keywords between
    two operands on the way there, each less one: `a > 1` adds nothing, `NOT NOT -x` adds 2, and
    `NOT NOT (NOT NOT (x))` is 2 brackets plus 1 and 1."""
    try:
        tokens = Dialect.get_or_raise("spark").tokenize(text)
    except SqlglotError:
        return 0  # the parser reports the same error, in its own words
    depth = run = carried = deepest = 0
    outer: list[int] = []  # what `carried` was outside each open bracket
    for token in tokens:
        kind = token.token_type
        if kind in _OPEN:
            outer.append(carried)
            carried, depth, run = carried + max(run - 1, 0), depth + 1, 0
        elif kind in _CLOSE:
            carried, depth, run = (outer.pop() if outer else 0), max(depth - 1, 0), 0
        else:
            run = 0 if kind in _OPERAND else run + 1
        deepest = max(deepest, depth + carried + max(run - 1, 0))
    return deepest


def tree_depth(tree: exp.Expr) -> int:
    """Levels of a parsed tree, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.iter_expressions())
    return deepest


@lru_cache(maxsize=4096)
def parse_expression(text: str) -> ParsedSql:
    """Parse one scalar Spark SQL expression (not a query), within the limits, and say what it reads and
    whether it can run: a literal regular expression that does not compile, or anything outside the
    allow-list (`engine.sql.allowlist`), is a `problem`."""
    problem = limit_problem(text)
    if problem:
        return ParsedSql(problem=problem, beyond_limits=True)
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except SqlglotError as exc:
        return ParsedSql(error=first_line(str(exc)))
    except RecursionError:  # not reached within the limits above; kept so a miss is a finding, not a crash
        return ParsedSql(problem="is nested too deeply to read", beyond_limits=True)
    if tree is None:
        return ParsedSql(error="empty expression")
    if isinstance(tree, (exp.Query, exp.Command, exp.DDL, exp.DML)):
        return ParsedSql(error="a query or statement where an expression belongs")
    depth = tree_depth(tree)
    if depth > MAX_SQL_DEPTH:
        return ParsedSql(problem=f"is nested too deeply: {depth} levels once parsed (at most {MAX_SQL_DEPTH})",
                         beyond_limits=True)
    return ParsedSql(columns=columns_read(tree), problem=regex_problem(tree) or allowlist_problem(tree, text),
                     reads_clock=reads_current_time(tree))


def regex_problem(tree: exp.Expr) -> str | None:
    """The first literal regular expression (RLIKE, regexp_*) that does not compile, as a sentence end: read
    as Java reads it (`patterns.compiled_regex`), as the run does, so that validation accepts what the run
    evaluates (`(?i)` inside a pattern) and refuses what it would fail on (`[a[b]]`)."""
    for node in tree.find_all(*_REGEX_FUNCTIONS):
        pattern = node.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            try:
                compiled_regex(pattern.this)
            except UnsupportedSql as exc:
                return f"has an {exc}"
    return None


def first_line(message: str) -> str:
    """The first line of sqlglot's message, without its terminal underlining."""
    line = message.strip().splitlines()[0] if message.strip() else "syntax error"
    return line.replace("\x1b[4m", "").replace("\x1b[0m", "")
