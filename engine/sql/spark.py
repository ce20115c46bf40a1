"""The model's methods and `where` clauses compiled to Spark Columns, so Spark evaluates them natively.

Column methods become Spark functions (`concat`, `split`/`try_element_at`, `substring`, `try_cast`,
`upper`/`lower`/`trim`, `lit`); an `expression` and a `where` clause go to `F.expr` only after the
allow-list check, as the SQL sqlglot regenerates from the checked tree, so Spark runs exactly what
validation read. Run them on a session with `spark.sql.ansi.enabled` (engine.spark.session sets it):
the reference evaluator (`engine.sql.evaluate`) follows ANSI semantics.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pyspark.sql import Column as SparkColumn
from pyspark.sql import functions as F

from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Expression,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)
from engine.model.types import SqlType, TypeFamily, parse_type
from engine.sql.errors import UnsupportedSql
from engine.sql.evaluate import parse_sql

INT_MAX = 2**31 - 1
_INTEGER_TYPES = {"SMALLINT": "smallint", "INTEGER": "int", "INT": "int", "SERIAL": "int", "BIGINT": "bigint",
                  "SERIAL8": "bigint"}


def checked_sql(sql: str) -> str:
    """The Spark SQL of `sql` once it parses within the limits and keeps to the allow-list (else
    `UnsupportedSql`), regenerated from the checked tree."""
    return parse_sql(sql).sql(dialect="spark")


def where_column(sql: str) -> SparkColumn:
    """A `where` clause as a boolean Column (filter with it: only TRUE keeps a row)."""
    return F.expr(checked_sql(sql))


def method_column(method: Method, system: Mapping[str, SparkColumn] | None = None) -> SparkColumn:
    """The Column a method tree computes from the source columns; `system` gives the Columns `system`
    methods read (`site`, `commit_ts`, `txn`, `op`)."""
    if isinstance(method, Column):
        return F.col(_quoted(method.input))
    if isinstance(method, Constant):
        return F.lit(method.value)
    if isinstance(method, System):
        if system is None or method.name not in system:
            raise UnsupportedSql(f"system value {method.name!r} has no column here")
        return system[method.name]
    if isinstance(method, Concat):  # NULL in any part gives NULL, as the reference's concat
        parts: list[SparkColumn] = []
        for index, part in enumerate(method.inputs):
            if index:
                parts.append(F.lit(method.sep))
            parts.append(method_column(part, system).cast("string"))
        return F.concat(*parts)
    if isinstance(method, Expression):
        return F.expr(checked_sql(method.sql))
    inner = method_column(method.input, system)
    if isinstance(method, Cast):
        target = spark_type(parse_type(method.type))
        if target in _INTEGER_TYPES.values():  # the reference truncates a fraction, text included ('2.7' is 2)
            return inner.try_cast("decimal(38,18)").try_cast(target)
        return inner.try_cast(target)
    text = inner.cast("string")
    if isinstance(method, Split):
        pieces = F.split(text, re.escape(method.sep), -1)
        return F.try_element_at(pieces, F.lit(method.index + 1))
    if isinstance(method, Substring):
        return text.substr(F.lit(method.start), F.lit(INT_MAX if method.length is None else method.length))
    if isinstance(method, Upper):
        return F.upper(text)
    if isinstance(method, Lower):
        return F.lower(text)
    if isinstance(method, Trim):
        return F.trim(text)
    raise UnsupportedSql(f"unknown method {method!r}")


def spark_type(t: SqlType) -> str:
    """The Spark SQL type a `cast` method converts to."""
    if t.name in _INTEGER_TYPES:
        return _INTEGER_TYPES[t.name]
    family = t.family
    if family is TypeFamily.EXACT_NUMERIC:
        precision = min(t.precision or 38, 38)
        return f"decimal({precision},{min(t.scale or 0, precision)})"
    if family is TypeFamily.APPROX_NUMERIC:
        return "float" if t.name == "REAL" else "double"
    if family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return "boolean"
    if family is TypeFamily.DATETIME:
        return "timestamp"  # the reference holds every date as a timestamp (an Oracle DATE has a time)
    if family is TypeFamily.BINARY:
        return "binary"
    return "string"


def _quoted(name: str) -> str:
    return f"`{name.replace('`', '``')}`"
