"""Evaluating a mapping on a source row: column-map methods, the `where` clause, the distribution key.

Methods follow Spark's functions: NULL in gives NULL out (`concat` included);
`concat` renders non-character inputs as text (`values.to_text`); `split`
and `substring` past the end give NULL and the empty string; `cast` is a
try-cast (a value that does not convert becomes NULL).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, assert_never

from engine.core.types import SqlType, parse_type
from engine.core.values import cast_value, conform, to_text
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
from engine.run.semantics.context import MappingPlan, TablePlan
from engine.sql import evaluate as sql_evaluate  # the module: engine.sql.evaluate imports engine.core.values

Row = dict[str, Any]


@dataclass(frozen=True)
class SystemValues:
    """What `system` methods read: the origin site, the commit time, the transaction, the net op."""

    site: str | None = None
    commit_ts: datetime | None = None
    txn: str | None = None
    op: str | None = None


def evaluate_method(method: Method, row: Mapping[str, Any], system: SystemValues = SystemValues(),
                    types: Mapping[str, SqlType] | None = None) -> Any:
    """The value a method tree gives on one source row (a column the row lacks is NULL); `types` are the
    row's column types (what an `expression`'s DECIMAL arithmetic reads)."""
    match method:
        case Column():
            return row.get(method.input)
        case Constant():
            return method.value
        case System():
            return getattr(system, method.name)
        case Concat():
            parts = [evaluate_method(m, row, system, types) for m in method.inputs]
            if any(p is None for p in parts):
                return None
            return method.sep.join(to_text(p) or "" for p in parts)
        case Expression():
            return sql_evaluate.evaluate_sql(method.sql, row, system.commit_ts, types)
        case Cast() | Split() | Substring() | Upper() | Lower() | Trim():
            value = evaluate_method(method.input, row, system, types)
            return None if value is None else _one_input(method, value)
        case _:
            assert_never(method)


def _one_input(method: Cast | Split | Substring | Upper | Lower | Trim, value: Any) -> Any:
    """A one-input method on its input's value (not NULL): a cast converts it, the others read it as text."""
    if isinstance(method, Cast):
        return cast_value(value, parse_type(method.type))
    text = to_text(value) or ""
    match method:
        case Split():
            pieces = text.split(method.sep)
            return pieces[method.index] if method.index < len(pieces) else None
        case Substring():
            begin = method.start - 1
            return text[begin:] if method.length is None else text[begin:begin + method.length]
        case Upper():
            return text.upper()
        case Lower():
            return text.lower()
        case Trim():
            return text.strip(" ")  # Spark's trim takes off spaces only
        case _:
            assert_never(method)


def where_holds(mapping: MappingPlan, image: Mapping[str, Any] | None, now: datetime | None = None) -> bool:
    """The mapping's `where` on a source image: TRUE holds; FALSE and NULL do not. No clause holds."""
    if image is None:
        return False
    return mapping.where is None or sql_evaluate.predicate_holds(mapping.where, image, now, mapping.source_types)


def map_image(mapping: MappingPlan, target: TablePlan, image: Mapping[str, Any],
              system: SystemValues = SystemValues()) -> Row:
    """The target columns a mapping computes from a source image, typed by the target's columns.

    Raises `values.ConversionError` when a value cannot take its target column's type.
    """
    return {column: conform(evaluate_method(method, image, system, mapping.source_types), target.types[column])
            for column, method in mapping.columns.items()}


def replication_key(mapping: MappingPlan, target: TablePlan, image: Mapping[str, Any],
                    system: SystemValues = SystemValues()) -> tuple[Any, ...] | None:
    """The mapping's distribution key computed from a source image (None for a journal mapping).

    A value that cannot take its column's type counts as NULL here, so the key still compares.
    """
    if mapping.dkey is None:
        return None
    key = []
    for column in mapping.dkey:
        value = evaluate_method(mapping.columns[column], image, system, mapping.source_types)
        key.append(cast_value(value, target.types[column]) if value is not None else None)
    return tuple(key)
