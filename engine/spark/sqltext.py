"""Spark SQL text for the expressions the pipeline generates from a model.

A model of tens of tables gives expressions of thousands of nodes. Built through pyspark's Column API,
each node is a round trip to the JVM (seconds for one projection); written as SQL text, each column is
one `F.expr` call that the JVM parses at once. Every name and value of the model reaches that text
through `ident` and `lit`, never pasted: a model cannot inject SQL.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F


def ident(name: str) -> str:
    """A Spark SQL identifier (backticks doubled inside)."""
    return "`" + name.replace("`", "``") + "`"


def path(*names: str) -> str:
    """A column or struct field reference: `a`.`b`."""
    return ".".join(ident(n) for n in names)


def string(text: str) -> str:
    """A Spark SQL string literal (backslash and quote escaped; Spark reads backslash escapes)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r") + "'"


def lit(value: Any, spark_type: str | None = None) -> str:
    """A literal of a Python value, cast to `spark_type` when given."""
    if value is None:
        text = "NULL"
    elif isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, int):
        text = f"{value}L" if -(2**63) <= value < 2**63 else f"CAST({string(str(value))} AS DECIMAL(38,0))"
    elif isinstance(value, float):
        text = (f"CAST({string(repr(value))} AS DOUBLE)" if math.isfinite(value)
                else f"CAST({string('NaN' if value != value else 'Infinity' if value > 0 else '-Infinity')} AS DOUBLE)")
    elif isinstance(value, Decimal):
        digits = format(value, "f")
        text = f"CAST({string(digits)} AS DECIMAL(38,{max(0, -value.as_tuple().exponent)}))"  # type: ignore[operator]
    elif isinstance(value, datetime):
        text = f"CAST({string(value.isoformat())} AS TIMESTAMP)"
    elif isinstance(value, bytes):
        text = f"X{string(value.hex())}"
    else:
        text = string(str(value))
    return f"CAST({text} AS {spark_type})" if spark_type is not None else text


def case(branches: Iterable[tuple[str, str]], default: str | None = None) -> str:
    """CASE WHEN c1 THEN v1 ... [ELSE d] END; NULL (or `default`) when there is no branch."""
    parts = [f"WHEN {cond} THEN {value}" for cond, value in branches]
    if not parts:
        return default if default is not None else "NULL"
    tail = f" ELSE {default}" if default is not None else ""
    return f"(CASE {' '.join(parts)}{tail} END)"


def all_of(parts: Sequence[str]) -> str:
    """The conjunction of `parts` (TRUE ones dropped; FALSE when one is FALSE; TRUE when none is left)."""
    kept = list(dict.fromkeys(p for p in parts if p != "TRUE"))
    if "FALSE" in kept:
        return "FALSE"
    return "TRUE" if not kept else "(" + " AND ".join(kept) + ")"


def any_of(parts: Sequence[str]) -> str:
    """The disjunction of `parts` (FALSE ones dropped; TRUE when one is TRUE; FALSE when none is left)."""
    kept = list(dict.fromkeys(p for p in parts if p != "FALSE"))
    if "TRUE" in kept:
        return "TRUE"
    return "FALSE" if not kept else "(" + " OR ".join(kept) + ")"


def col(text: str, alias: str | None = None) -> Column:
    """One Column from SQL text (one call to the JVM)."""
    column = F.expr(text)
    return column.alias(alias) if alias is not None else column


# --- whole queries --------------------------------------------------------------------------------------

_views: list[str] = []
_count = itertools.count()


def view(frame: DataFrame) -> str:
    """`frame` as a temporary view for the queries of this run (`drop_views` drops them)."""
    name = f"mw_view_{next(_count)}"
    frame.createOrReplaceTempView(name)
    _views.append(name)
    return ident(name)


def select(frame: DataFrame, columns: Sequence[str], where: str | None = None) -> DataFrame:
    """`SELECT columns FROM frame [WHERE where]` as one query: the JVM parses the text at once, where the
    Column API costs a round trip per expression (`columns` are SQL, `expr AS alias` where named)."""
    text = f"SELECT {', '.join(columns)} FROM {view(frame)}" + (f" WHERE {where}" if where else "")
    return frame.sparkSession.sql(text)


def union(frames: Sequence[DataFrame]) -> DataFrame:
    """`frames` (at least one) as one frame, their columns matched by name."""
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionByName(frame)
    return out


def named(text: str, alias: str) -> str:
    """`text AS alias`, the alias quoted."""
    return f"{text} AS {ident(alias)}"


def drop_views(spark: SparkSession) -> None:
    """Drop the views this process made for its queries (after a run)."""
    while _views:
        name = _views.pop()
        with contextlib.suppress(Exception):
            spark.catalog.dropTempView(name)
