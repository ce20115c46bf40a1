"""The errors of evaluating a model's SQL in the reference."""

from __future__ import annotations


class UnsupportedSql(ValueError):
    """An expression that does not parse, or uses a construct outside the allow-list."""


class SqlRuntimeError(UnsupportedSql):
    """An expression that fails on a row as Spark's ANSI mode fails: division by zero, a cast of text
    that does not read as the type, a value that overflows the type it is cast to."""
