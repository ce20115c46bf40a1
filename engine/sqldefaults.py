"""Column defaults: SQL by the contract, accepted only as exactly one constant expression.

A default is parsed by sqlglot in its server's SQL dialect; it may be a literal, a cast, arithmetic or a
function call, and nothing else (no columns, queries, statements or parameters). It is written for a
target dialect from the parsed tree, and the text is parsed back to check it says the same. Rule TB003
reports a default this refuses; DDL export never writes one. DDL for a DBMS other than the default's own
takes it through `exportdefault.export_default`: rebuilt from forms with a checked equivalent there, or left out.

What sqlglot reads alike in every dialect is checked against the server's DBMS: its niladic functions
(`NILADIC`: SQLite has no CURRENT_USER, Oracle no CURRENT_TIME), string literals side by side, and
PostgreSQL's string constants, read by PostgreSQL's own rules (`pgconstants`: escape, Unicode and bit
strings, and constants continued over lines).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, cast

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, SqlglotError
from sqlglot.tokenizer_core import TokenType

from engine.core.types import SqlType, TypeFamily
from engine.core.values import ConversionError, conform
from engine.model.schema import ColumnDef
from engine.pgconstants import ConstantProblem, pg_constants
from engine.sql import evaluate as sql_evaluate
from engine.sql import limit_problem
from engine.sql.errors import UnsupportedSql
from engine.sql.parse import first_line

SQLGLOT_BY_DBMS = {"postgresql": "postgres", "oracle": "oracle", "mssql": "tsql", "ase": "tsql",
                   "mysql": "mysql", "sqlite": "sqlite", "db2": "postgres", "informix": "postgres",
                   "other": "postgres"}
"""The sqlglot dialect a server's SQL is read in. sqlglot has no DB2 or Informix dialect; PostgreSQL's is
the closest to the standard SQL they share for defaults."""

SQLGLOT_BY_SQLALCHEMY = {"postgresql": "postgres", "oracle": "oracle", "mssql": "tsql", "sybase": "tsql",
                         "mysql": "mysql", "mariadb": "mysql", "sqlite": "sqlite"}

_SPECIAL_REGISTERS: dict[str, dict[str, type[exp.Expression]]] = {
    "db2": {"CURRENT TIMESTAMP": exp.CurrentTimestamp, "CURRENT DATE": exp.CurrentDate,
            "CURRENT TIME": exp.CurrentTime},  # DB2 spells its special registers with a space
    "informix": {"TODAY": exp.CurrentDate, "CURRENT": exp.CurrentTimestamp, "SYSDATE": exp.CurrentTimestamp},
}
"""Defaults only one DBMS reads as the current date or time: the whole default, written so."""
_INFORMIX_CURRENT = re.compile(r"(?:CURRENT|SYSDATE) (YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|FRACTION)"
                               r" TO (YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|FRACTION)( ?\( ?[1-5] ?\))?")
"""Informix's `CURRENT YEAR TO SECOND` (a DATETIME with its qualifier; also `SYSDATE ...`): the current timestamp."""
_STANDARD_USERS = frozenset({"USER", "SESSION_USER", "SYSTEM_USER"})
USER_FUNCTIONS: dict[str, frozenset[str]] = {
    "oracle": frozenset({"USER"}), "informix": frozenset({"USER"}), "ase": frozenset({"USER"}),
    "mssql": _STANDARD_USERS, "db2": _STANDARD_USERS, "postgresql": _STANDARD_USERS | {"CURRENT_ROLE"},
    "other": _STANDARD_USERS | {"CURRENT_ROLE"}, "mysql": frozenset(), "sqlite": frozenset(),
}
"""The standard's niladic user functions each DBMS reads without parentheses, as the whole default (sqlglot
would read them as column names). MySQL and SQLite have none: `USER` there names a column, and is no
constant."""

_STANDARD_NILADIC = frozenset({"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
                               "CURRENT_USER", "CURRENT_ROLE", "CURRENT_SCHEMA", "CURRENT_CATALOG", "SESSION_USER"})
_MYSQL_NILADIC = frozenset({"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
                            "CURRENT_USER"})
NILADIC: dict[str, frozenset[str]] = {
    "postgresql": _STANDARD_NILADIC, "other": _STANDARD_NILADIC,
    "sqlite": frozenset({"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"}),
    "mysql": _MYSQL_NILADIC,
    "oracle": frozenset({"CURRENT_DATE", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "SYSDATE", "SYSTIMESTAMP"}),
    "mssql": frozenset({"CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_USER", "SESSION_USER"}),
    "ase": frozenset(),
    "db2": frozenset({"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
                      "CURRENT_USER", "SESSION_USER", "CURRENT_SCHEMA"}),
    "informix": frozenset({"CURRENT_USER"}),
}
"""The niladic functions (the words sqlglot reads as one: `CURRENT_USER`, not a column) each DBMS has in a
default, written bare. Oracle has no CURRENT_TIME, LOCALTIME or CURRENT_USER (USER is its own); SQLite
only its three date and time keywords; SQL Server no CURRENT_TIME (CURRENT_DATE since SQL Server 2025);
ASE none (`user`, and `current_date()` with parentheses); Informix's current date and time are TODAY,
CURRENT and SYSDATE (`_SPECIAL_REGISTERS`), and its users USER and CURRENT_USER; DB2 the standard's but
CURRENT_ROLE and CURRENT_CATALOG. Standard SQL (`other`) and PostgreSQL have them all."""
_TIME_PRECISION = frozenset({"CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP"})
NILADIC_PRECISION: dict[str, frozenset[str]] = {
    "postgresql": _TIME_PRECISION, "other": _TIME_PRECISION, "mysql": _TIME_PRECISION,
    "oracle": frozenset({"CURRENT_TIMESTAMP", "LOCALTIMESTAMP"}),
    "db2": frozenset({"CURRENT_TIMESTAMP", "LOCALTIMESTAMP"}),
}
"""The ones each DBMS takes with a fractional-seconds precision, `CURRENT_TIMESTAMP(3)`."""
NILADIC_CALLS: dict[str, frozenset[str]] = {
    "postgresql": frozenset({"CURRENT_SCHEMA"}), "mysql": _MYSQL_NILADIC,
    "ase": frozenset({"CURRENT_DATE", "CURRENT_TIME"}), "db2": frozenset({"CURRENT_TIMESTAMP"}),
}
"""The ones each DBMS also takes as a call with empty parentheses, `CURRENT_DATE()` (PostgreSQL only
`current_schema()`, a function of its catalog)."""
_NILADIC_WORDS = frozenset().union(*NILADIC.values(), *NILADIC_CALLS.values())

HEX_IS_BINARY = frozenset({"sqlite", "mysql", "mssql", "ase"})
"""The DBMSs whose hex literal (`X'0A'`; `0x0A` in SQL Server, ASE and MySQL) is a binary string. PostgreSQL
reads `X'0A'` as the bit string `B'00001010'` (`pgconstants`); Oracle has no hex literal (TB003)."""

DBMS_NAMES = {"oracle": "Oracle", "db2": "DB2", "mssql": "SQL Server", "informix": "Informix", "ase": "ASE",
              "postgresql": "PostgreSQL", "mysql": "MySQL", "sqlite": "SQLite", "other": "standard"}
"""How a message names each DBMS's SQL (`in SQLite SQL`)."""

_CONSTANT_NODES: tuple[type[Any], ...] = (
    exp.Literal, exp.National, exp.Boolean, exp.Null, exp.Neg, exp.Paren, exp.Cast, exp.TryCast, exp.DataType,
    exp.DataTypeParam, exp.Func, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.DPipe, exp.Interval, exp.Var,
)
_FORBIDDEN_NODES: tuple[type[Any], ...] = (
    exp.Query, exp.Subquery, exp.DDL, exp.DML, exp.Command, exp.Placeholder, exp.Parameter, exp.Star)


class DefaultProblem(ValueError):
    """A column default that is not exactly one constant SQL expression; the message says why."""


@dataclass(frozen=True)
class ParsedDefault:
    """A checked default: its tree, and the DBMS whose SQL it is (None: not known, so never taken as any
    target's own SQL by `export_default`)."""

    tree: exp.Expression
    dbms: str | None = None


def parse_default(value: str | int | float | bool, dbms: str) -> ParsedDefault:
    """Parse a model's column default, written in its server's SQL; raises `DefaultProblem`."""
    if isinstance(value, bool):
        return ParsedDefault(exp.Boolean(this=value), dbms)
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            raise DefaultProblem(f"{value} is not a number SQL can hold")
        literal = exp.Literal.number(abs(value))
        return ParsedDefault(exp.Neg(this=literal) if value < 0 else literal, dbms)
    return ParsedDefault(_parse_text(value, dbms), dbms)


@lru_cache(maxsize=4096)
def _parse_text(text: str, dbms: str) -> exp.Expression:
    read = SQLGLOT_BY_DBMS.get(dbms, "postgres")
    source = text.strip()
    if not source:
        raise DefaultProblem("the default is empty")
    if "\x00" in source:
        raise DefaultProblem("it holds a NUL character, which no SQL text can")
    upper = " ".join(source.upper().split())
    if upper in USER_FUNCTIONS.get(dbms, USER_FUNCTIONS["other"]):
        return exp.Var(this=upper)
    register = _SPECIAL_REGISTERS.get(dbms, {}).get(upper)
    if register is None and dbms == "informix" and _INFORMIX_CURRENT.fullmatch(upper):
        register = exp.CurrentTimestamp
    if register is not None:
        return register()
    too_big = limit_problem(source)  # sqlglot recurses per level: 50 parentheses ran out of stack
    if too_big:
        raise DefaultProblem(f"the default {too_big}")
    if dbms == "postgresql":
        try:
            source = pg_constants(source)
        except ConstantProblem as exc:
            raise DefaultProblem(str(exc)) from None
    try:
        trees = sqlglot.parse(source, read=read, error_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        raise DefaultProblem(f"not one SQL expression ({first_line(str(exc))})") from None
    found = [cast(exp.Expression, t) for t in trees if t is not None]
    if len(found) != 1:
        raise DefaultProblem(f"{len(found)} SQL statements where one expression belongs")
    tree = found[0]
    for node in tree.walk():
        if isinstance(node, exp.HexString):
            _check_hex(node, dbms)
            continue
        if isinstance(node, exp.BitString):
            _check_bits(node, tree, dbms)
            continue
        if isinstance(node, exp.Column):
            raise DefaultProblem(f"it names a column ({node.sql()}); a default is a constant or a function call")
        if isinstance(node, _FORBIDDEN_NODES) or not isinstance(node, (*_CONSTANT_NODES, exp.Identifier)):
            raise DefaultProblem(f"a {type(node).__name__.lower()} is not a constant expression")
        if isinstance(node, exp.Identifier) and not isinstance(node.parent, exp.DataType):
            raise DefaultProblem(f"{node.sql()!r} is not a constant")
    _check_tokens(source, read, dbms)
    if dbms in ("mysql", "mssql", "ase"):  # `0xABC` is read as `0x0ABC` there: write the 0 it stands for
        tree = tree.transform(lambda n: exp.HexString(this="0" + n.this)
                              if isinstance(n, exp.HexString) and len(n.this) % 2 else n)
    return tree


_NO_JOINED_LITERALS = frozenset({"sqlite", "oracle", "mssql", "ase"})
"""The DBMSs that refuse two string literals side by side, which sqlglot joins in every dialect."""
_STRING_TOKENS = frozenset({TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.HEX_STRING, TokenType.BIT_STRING,
                            TokenType.BYTE_STRING, TokenType.RAW_STRING, TokenType.UNICODE_STRING})


def _check_tokens(source: str, read: str, dbms: str) -> None:
    """What sqlglot reads alike in every dialect but a DBMS does not: a niladic function (`CURRENT_TIME`,
    `CURRENT_USER`) it has not, or not in that form (`NILADIC`): SQLite has no CURRENT_USER, Oracle no
    CURRENT_TIME; and two string literals side by side (sqlglot joins them), which SQLite, Oracle, SQL
    Server and ASE refuse (PostgreSQL's rule is `pgconstants`'s, MySQL joins them)."""
    tokens = Dialect.get_or_raise(read).tokenize(source)
    name = DBMS_NAMES.get(dbms, dbms)
    for i, token in enumerate(tokens):
        if dbms in _NO_JOINED_LITERALS and i and {token.token_type, tokens[i - 1].token_type} <= _STRING_TOKENS:
            raise DefaultProblem(f"two string literals side by side, which {name} refuses")
        word = token.text.upper()
        if word not in _NILADIC_WORDS or token.token_type not in (TokenType.VAR, getattr(TokenType, word, None)):
            continue  # a string or a quoted name that says CURRENT_USER is no function
        after = [t.token_type for t in tokens[i + 1:i + 3]]
        if after[:1] != [TokenType.L_PAREN]:
            if word not in NILADIC.get(dbms, frozenset()):
                raise DefaultProblem(f"{name} SQL has no {word}")
        elif after == [TokenType.L_PAREN, TokenType.R_PAREN]:
            if word not in NILADIC_CALLS.get(dbms, frozenset()):
                raise DefaultProblem(f"{name} SQL has no {word}() (with parentheses)")
        elif word not in NILADIC_PRECISION.get(dbms, frozenset()):
            raise DefaultProblem(f"{word} takes no precision in {name} SQL")


def _check_hex(node: exp.HexString, dbms: str) -> None:
    """A hex literal is a constant where it is a binary string, and SQLite takes only whole bytes."""
    if dbms not in HEX_IS_BINARY:
        raise DefaultProblem(f"X'{node.this}' is a hex string, which is taken as a binary constant only in "
                             "SQLite, MySQL, SQL Server and ASE SQL")
    if dbms == "sqlite" and len(node.this) % 2:
        raise DefaultProblem(f"X'{node.this}' has an odd number of hex digits, which SQLite refuses")


def _check_bits(node: exp.BitString, tree: exp.Expression, dbms: str) -> None:
    """A bit string (`B'101'`; PostgreSQL's `X'1F'` is one too) is PostgreSQL's, and a default only whole:
    its value is then its digits, in the column's type (`bit_string_problem`). MySQL's `b'101'` is a
    binary string or a number by where it is used, which is not checked here."""
    if dbms != "postgresql":
        raise DefaultProblem(f"B'{node.this}' is a bit string, which is taken as a default only in PostgreSQL SQL")
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if tree is not node:
        raise DefaultProblem(f"B'{node.this}' is a bit string, taken as a default only whole (not in an expression)")


_TEXT_COLUMNS = frozenset({"TEXT", "CLOB", "LONG"})


def bit_string_problem(tree: exp.Expression, column: SqlType) -> str | None:
    """Why PostgreSQL refuses a bit-string default for a column of type `column`, or None: it takes one for a
    bit column of its length (the model's BIT is one bit) or, as the text of its digits, for a character
    column; for any other type it refuses the CREATE TABLE."""
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if not isinstance(tree, exp.BitString):
        return None
    if column.family is TypeFamily.CHARACTER or column.name in _TEXT_COLUMNS:
        return None
    if column.family is TypeFamily.BIT:
        return None if len(tree.this) == 1 else f"B'{tree.this}' has {len(tree.this)} bits, and BIT holds one"
    return f"B'{tree.this}' is a bit string, which PostgreSQL takes only in a bit or character column, not {column}"


def render_default(parsed: ParsedDefault, write: str) -> str:
    """The default as SQL text of the sqlglot dialect `write`, checked to parse back to the same tree."""
    tree = _writable(parsed.tree, write)
    try:
        text = tree.sql(dialect=write, unsupported_level=ErrorLevel.RAISE)
        again = sqlglot.parse(text, read=write, error_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        raise DefaultProblem(f"cannot be written in {write} SQL ({first_line(str(exc))})") from None
    if len(again) != 1 or again[0] is None or _writable(cast(exp.Expression, again[0]), write).sql(write) != text:
        raise DefaultProblem(f"does not survive being written in {write} SQL")
    return text


def _writable(tree: exp.Expression, write: str) -> exp.Expression:
    """The tree with what sqlglot writes wrong for `write` replaced: SQL Server and Oracle have no boolean
    literals (BIT / NUMBER(1) columns take 1 and 0); sqlglot writes PostgreSQL's `CURRENT_TIME` as
    `CURRENT_TIME()`, which PostgreSQL refuses."""
    if write in ("tsql", "oracle"):
        tree = tree.transform(lambda n: exp.Literal.number(int(n.this)) if isinstance(n, exp.Boolean) else n)
    if write == "postgres":
        tree = tree.transform(lambda n: exp.Var(this="CURRENT_TIME")
                              if isinstance(n, exp.CurrentTime) and not n.args.get("this") else n)
    return tree


def is_string(node: exp.Expression) -> bool:
    """A string literal, plain or national (`N'...'`, which sqlglot does not count as a string)."""
    return isinstance(node, exp.National) or (isinstance(node, exp.Literal) and node.is_string)


def empty_text(tree: exp.Expression) -> bool:
    """Oracle's `''`, which it reads as NULL."""
    return is_string(tree) and tree.this == ""


def run_default(value: str | int | float | bool, dbms: str) -> str | int | float | bool | bytes | None:
    """The default as a run evaluates it: text in its server's SQL rewritten as Spark SQL, the dialect the
    run's evaluator reads, so that Oracle's `'it''s'` is `it's` (not two literals joined), and `SYSDATE`,
    `SYSTIMESTAMP`, `NOW()`, `getdate()` or DB2's `CURRENT TIMESTAMP` the change's time (`_run_form`). Two
    literals are values already: a hex literal (SQLite's `x'00'`) its bytes, which the evaluator has no
    literal for, and Oracle's `''` NULL, as Oracle reads it. PostgreSQL's bit string `B'101'` is the text
    `101` (what PostgreSQL assigns to a character column; a BIT column reads `1` and `0` as true and false),
    which Spark SQL would read as the number 5. A default TB003 refuses is left as written (the run reads it
    as before); one it refuses only for the column's type (a bit string in a number column) is read as for
    a character column. The run then conforms the value to its column's type (`context.default_value`)."""
    if not isinstance(value, str):
        return value
    try:
        parsed = parse_default(value, dbms)
    except DefaultProblem:
        return value
    tree = parsed.tree
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if isinstance(tree, exp.HexString):
        return bytes.fromhex(tree.this)  # whole bytes: `_parse_text` made an odd count whole, or refused it
    if dbms == "oracle" and empty_text(tree):
        return None
    if isinstance(tree, exp.BitString):  # its digits, as PostgreSQL assigns it (Spark would read a number)
        parsed = ParsedDefault(exp.Literal.string(tree.this), dbms)
    else:
        parsed = ParsedDefault(parsed.tree.transform(_run_form), dbms)
    try:
        return render_default(parsed, "spark")
    except DefaultProblem:
        return value


_CURRENT_TIMESTAMPS: tuple[type[exp.Expression], ...] = (exp.Systimestamp, exp.Localtimestamp)
"""What sqlglot reads as the current timestamp under another name (Oracle's `SYSTIMESTAMP`, `LOCALTIMESTAMP`:
the run's clock is UTC, so local is the same instant)."""
_NOW_CALLS = frozenset({"NOW"})
"""Calls some dialects leave unnamed (MySQL's `NOW()`) that are the current timestamp wherever they exist."""
_MAX_EXPONENT = 1000
"""Digits a number in exponent form may spell out (`values.MAX_UNBOUNDED_DIGITS`); beyond, it is left as is."""


def _run_form(node: exp.Expression) -> exp.Expression:
    """A part of a default as the run's evaluator reads it: the current timestamp by its Spark name, and a
    number in exponent form (`1e-3`, which the evaluator has no literal for) as exact decimal digits."""
    if isinstance(node, _CURRENT_TIMESTAMPS) or (isinstance(node, exp.Anonymous) and node.name.upper() in _NOW_CALLS
                                                 and not node.expressions):
        return exp.CurrentTimestamp()
    if isinstance(node, exp.Literal) and not node.is_string and "e" in node.this.lower():
        try:
            number = Decimal(node.this)
        except InvalidOperation:
            return node
        if number.is_finite() and abs(number.adjusted()) <= _MAX_EXPONENT:
            return exp.Literal.number(format(number, "f"))
    return node


def is_null_default(value: str | int | float | bool, dbms: str) -> bool:
    """Whether a default is SQL NULL (`NULL`, `(NULL)`, `CAST(NULL AS ...)`, and Oracle's `''`): no value at
    all. A default TB003 refuses is not one (TB003 reports it)."""
    try:
        tree = parse_default(value, dbms).tree
    except DefaultProblem:
        return False
    while isinstance(tree, (exp.Paren, exp.Cast, exp.TryCast)):
        tree = tree.this
    return isinstance(tree, exp.Null) or (dbms == "oracle" and empty_text(tree))


def default_problem(column: ColumnDef, dbms: str) -> str | None:
    """Why a column's default cannot be used (TB003), or None: it is not one constant expression, or its
    value does not fit the column's type as a record's value would not (docs/contract.md §7: a fraction in an
    integer column, digits past a DECIMAL's precision, text longer than the column; the DBMS refuses the
    insert or stores another value). A default the run cannot evaluate (`uuid()`) is not judged by value."""
    if column.default is None:
        return None
    try:
        parsed = parse_default(column.default, dbms)
    except DefaultProblem as exc:
        return str(exc)
    return bit_string_problem(parsed.tree, column.sql_type) or _value_problem(column, dbms)


_SAMPLE_NOW = datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)
"""The instant a default that reads the clock is judged at: one with a fraction of a second, the longest
text a timestamp renders as."""


_JUDGED = frozenset({TypeFamily.EXACT_NUMERIC, TypeFamily.APPROX_NUMERIC, TypeFamily.CHARACTER, TypeFamily.DATETIME})
"""The types whose defaults are judged by value: numbers, text and times read alike in every DBMS; binary
text (PostgreSQL's `'\\x00'` is one byte) and boolean words (PostgreSQL's `'yes'`) do not."""


def _value_problem(column: ColumnDef, dbms: str) -> str | None:
    """Why the value of a column's default does not fit the column's type, or None."""
    assert column.default is not None
    if column.sql_type.family not in _JUDGED:
        return None
    value = run_default(column.default, dbms)
    if isinstance(value, str):
        try:
            value = sql_evaluate.evaluate_sql(value, {}, _SAMPLE_NOW)
        except UnsupportedSql:
            return None
        except (ArithmeticError, ValueError) as exc:  # 1/0: no value at all
            return f"{column.default} has no value ({exc})"
    try:
        conform(value, column.sql_type)
    except ConversionError as exc:
        return f"its value does not fit {column.sql_type} ({exc})"
    return None
