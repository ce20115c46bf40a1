"""Conflict resolution methods (seed 003, docs/contract.md §5.5), as pure functions.

Each update method looks at one column group: the destination's current row
(`local`), the remote old values and the remote new values. It decides
`remote` (take the remote values), `local` (keep the current ones), `merged`
(values computed from both), `tie` (pass to the next method) or `undecided`
(it cannot order what it sees: pass to the next method). A chain tries its
methods in order; the first that decides wins; a chain that ends without a
decision leaves the conflict unresolved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, Literal

from engine.core.types import SqlType
from engine.core.values import INTEGER_TYPES, ConversionError, compare, conform, to_text
from engine.model.schema import Resolution

Row = Mapping[str, Any]
Decision = Literal["remote", "local", "merged", "tie", "undecided"]
Outcome = Literal["remote", "local", "merged", "unresolved"]


@dataclass(frozen=True)
class MethodResult:
    """What one method decided; `values` holds the merged values of a `merged` decision."""

    decision: Decision
    values: dict[str, Any] = field(default_factory=dict)


REMOTE, LOCAL, TIE, UNDECIDED = (MethodResult("remote"), MethodResult("local"), MethodResult("tie"),
                                 MethodResult("undecided"))


def order_with_null_lowest(remote: Any, local: Any) -> int | None:
    """Compare remote with local, NULL lower than any value (two NULLs are equal); None if unorderable."""
    if remote is None or local is None:
        return (remote is not None) - (local is not None)
    return compare(remote, local)


def _by_order(order: int | None, higher_wins: bool) -> MethodResult:
    if order is None:
        return UNDECIDED
    if order == 0:
        return TIE
    return REMOTE if (order > 0) == higher_wins else LOCAL


def latest_timestamp(column: str, local: Row, remote_new: Row) -> MethodResult:
    """The later value of the timestamp column wins (NULL is the earliest)."""
    return maximum(column, local, remote_new)


def earliest_timestamp(column: str, local: Row, remote_new: Row) -> MethodResult:
    """The earlier value of the timestamp column wins (NULL is the earliest)."""
    return minimum(column, local, remote_new)


def maximum(column: str, local: Row, remote_new: Row) -> MethodResult:
    """The higher value of the designated column wins (NULL is lowest; equal is a tie)."""
    if column not in remote_new:
        return UNDECIDED
    return _by_order(order_with_null_lowest(remote_new[column], local.get(column)), higher_wins=True)


def minimum(column: str, local: Row, remote_new: Row) -> MethodResult:
    """The lower value of the designated column wins (NULL is lowest, so it wins; equal is a tie)."""
    if column not in remote_new:
        return UNDECIDED
    return _by_order(order_with_null_lowest(remote_new[column], local.get(column)), higher_wins=False)


def overwrite() -> MethodResult:
    """The remote values replace the current ones."""
    return REMOTE


def discard() -> MethodResult:
    """The current values stay; the remote ones are dropped."""
    return LOCAL


def additive(columns: Sequence[str], local: Row, remote_old: Row | None, remote_new: Row,
             types: Mapping[str, SqlType]) -> MethodResult:
    """current + (new - old) for each numeric column; undecided if any value is NULL or missing."""
    merged: dict[str, Any] = {}
    for column in columns:
        if remote_old is None or column not in remote_new or column not in remote_old:
            return UNDECIDED
        values = (local.get(column), remote_new[column], remote_old[column])
        if any(v is None or not _numeric(v) for v in values):
            return UNDECIDED
        current, new, old = values
        merged[column] = _typed_number(_arith(current, new, old, lambda c, n, o: c + (n - o)), types.get(column))
        if merged[column] is None:
            return UNDECIDED
    return MethodResult("merged", merged)


def average(columns: Sequence[str], local: Row, remote_new: Row, types: Mapping[str, SqlType]) -> MethodResult:
    """(current + new) / 2 for each numeric column; undecided if either is NULL. An integer column
    takes the average rounded half up."""
    merged: dict[str, Any] = {}
    for column in columns:
        if column not in remote_new:
            return UNDECIDED
        current, new = local.get(column), remote_new[column]
        if current is None or new is None or not _numeric(current) or not _numeric(new):
            return UNDECIDED
        merged[column] = _typed_number(_arith(current, new, 0, lambda c, n, _o: (c + n) / 2), types.get(column))
        if merged[column] is None:
            return UNDECIDED
    return MethodResult("merged", merged)


def priority_group(column: str, priorities: Mapping[str, float], local: Row, remote_new: Row) -> MethodResult:
    """The row whose `column` value has the higher listed priority wins; equal is a tie; a value that is
    not listed (NULL included) leaves it undecided."""
    if column not in remote_new:
        return UNDECIDED
    remote_p = _priority_of(remote_new[column], priorities)
    local_p = _priority_of(local.get(column), priorities)
    if remote_p is None or local_p is None:
        return UNDECIDED
    return _by_order((remote_p > local_p) - (remote_p < local_p), higher_wins=True)


def _priority_of(value: Any, priorities: Mapping[str, float]) -> float | None:
    """The listed priority of `value`; a number is listed under any spelling of it (a DECIMAL(4,2) column's
    1.00 under "1": equal numbers are equal whatever their scale, docs/contract.md §7)."""
    if value is None:
        return None
    found = priorities.get(to_text(value) or "")
    if found is not None or isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return found
    number = Decimal(str(value))
    for key, priority in priorities.items():
        try:
            if Decimal(key.strip()) == number:
                return priority
        except InvalidOperation:
            continue
    return None


def site_priority(origin_priority: float | None, writer_priority: float | None) -> MethodResult:
    """The origin site's priority against the priority of the site that last wrote the local row:
    higher wins, equal is a tie, a site without a priority leaves it undecided."""
    if origin_priority is None or writer_priority is None:
        return UNDECIDED
    return _by_order((origin_priority > writer_priority) - (origin_priority < writer_priority), higher_wins=True)


def append_site_name(value: str, site: str, length: int | None) -> str | None:
    """`value` with `.<site>` appended, cut so the suffix fits `length`; None if the suffix alone does not."""
    return _append(value, f".{site}", length)


def append_sequence(value: str, number: int, length: int | None) -> str | None:
    """`value` with `.<number>` appended, cut so the suffix fits `length`; None if the suffix alone does not."""
    return _append(value, f".{number}", length)


def _append(value: str, suffix: str, length: int | None) -> str | None:
    if length is None:
        return value + suffix
    if len(suffix) > length:
        return None
    return value[: length - len(suffix)] + suffix


# --- chains ---------------------------------------------------------------


@dataclass(frozen=True)
class ChainResult:
    """How a column group's conflict ended: the outcome, the deciding method, what was tried, and the
    values the group takes (empty when local values stay)."""

    outcome: Outcome
    method: str | None
    methods_tried: tuple[str, ...]
    values: dict[str, Any]


def apply_method(step: Resolution, columns: Sequence[str], local: Row, remote_old: Row | None, remote_new: Row,
                 types: Mapping[str, SqlType], origin_priority: float | None,
                 writer_priority: float | None) -> MethodResult:
    """One method of a chain on one column group."""
    name = step.method
    if name in ("latest_timestamp", "earliest_timestamp", "maximum", "minimum", "priority_group"):
        if step.column is None:
            return UNDECIDED
        if name == "priority_group":
            return priority_group(step.column, step.priorities or {}, local, remote_new)
        return {"latest_timestamp": latest_timestamp, "earliest_timestamp": earliest_timestamp,
                "maximum": maximum, "minimum": minimum}[name](step.column, local, remote_new)
    if name == "overwrite":
        return overwrite()
    if name == "discard":
        return discard()
    if name == "additive":
        return additive(columns, local, remote_old, remote_new, types)
    if name == "average":
        return average(columns, local, remote_new, types)
    if name == "site_priority":
        return site_priority(origin_priority, writer_priority)
    return UNDECIDED


def resolve_group(chain: Sequence[Resolution], columns: Sequence[str], local: Row, remote_old: Row | None,
                  remote_new: Row, types: Mapping[str, SqlType], origin_priority: float | None,
                  writer_priority: float | None) -> ChainResult:
    """Run a group's chain: the first method that decides wins; ties and undecided pass on.

    A `remote` decision takes the remote new values of the group's columns the change carries.
    """
    tried: list[str] = []
    for step in chain:
        tried.append(step.method)
        result = apply_method(step, columns, local, remote_old, remote_new, types, origin_priority,
                              writer_priority)
        if result.decision == "remote":
            values = {c: remote_new[c] for c in columns if c in remote_new}
            return ChainResult("remote", step.method, tuple(tried), values)
        if result.decision == "local":
            return ChainResult("local", step.method, tuple(tried), {})
        if result.decision == "merged":
            return ChainResult("merged", step.method, tuple(tried), dict(result.values))
    return ChainResult("unresolved", None, tuple(tried), {})


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _arith(current: Any, new: Any, old: Any, fn: Any) -> Any:
    if any(isinstance(v, float) for v in (current, new, old)):
        return fn(float(current), float(new), float(old))
    return fn(Decimal(current), Decimal(new), Decimal(old))


def _typed_number(value: Any, t: SqlType | None) -> Any:
    """A computed number in its column's type (integers rounded half up); None if it does not fit."""
    if t is not None and t.name in INTEGER_TYPES and isinstance(value, Decimal):
        value = value.quantize(Decimal(1), rounding=ROUND_HALF_UP)
    try:
        return conform(value, t)
    except ConversionError:
        return None
