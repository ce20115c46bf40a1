"""Dates and times in the reference evaluator: the current time, `to_date`, date and time parts, `datediff`,
`date_add`/`date_sub` (their values computed in `scalars`, text read as `datetimes` reads it)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlglot import exp

from engine.sql import scalars
from engine.sql.errors import UnsupportedSql
from engine.sql.operands import Handler, RowEvaluator, operands, written


def _now(ev: RowEvaluator, node: exp.Expression) -> Any:
    if ev.now is None:
        raise UnsupportedSql(f"{node.sql('spark')} has no time here")
    return ev.now


def _today(ev: RowEvaluator, node: exp.CurrentDate) -> date:
    """`current_date()`: the day of the run's current time (`now`) in the session time zone, UTC."""
    moment = _now(ev, node)
    return moment.astimezone(UTC).date() if isinstance(moment, datetime) else moment


def _to_date(ev: RowEvaluator, node: exp.TsOrDsToDate) -> Any:
    """`to_date(x)` as written (a number's text is read as a DATE), or the DATE sqlglot puts around the
    argument of `year`, `datediff`... (Spark's implicit cast: a number is refused)."""
    return scalars.date_of(ev.eval(node.this), explicit=written(node) == "to_date")


def _date_field(field: str) -> Handler:
    """`year`, `month`, `day`: of the DATE the argument reads as (sqlglot wraps it in a TsOrDsToDate)."""
    def run(ev: RowEvaluator, node: exp.Func) -> Any:
        value = ev.eval(node.this)
        day = value if value is None or isinstance(value, date) and not isinstance(value, datetime) \
            else scalars.date_of(value, explicit=False)
        return None if day is None else getattr(day, field)
    return run


def _time_field(field: str) -> Handler:
    """`hour`, `minute`, `second` (whole seconds) of the TIMESTAMP the argument reads as, in UTC."""
    def run(ev: RowEvaluator, node: exp.Func) -> Any:
        moment = scalars.timestamp_of(ev.eval(node.this))
        return None if moment is None else getattr(moment, field)
    return run


def _datediff(ev: RowEvaluator, node: exp.DateDiff) -> Any:
    """`datediff(end, start)`: days from `start` to `end`; a NULL `end` leaves `start` unevaluated."""
    pair = operands(ev, node)
    if pair is None:
        return None
    end, start = (scalars.date_of(v, explicit=False) for v in pair)
    assert end is not None and start is not None
    return (end - start).days


def _date_add(ev: RowEvaluator, node: exp.TsOrDsAdd) -> Any:
    """`date_add(d, n)` and `date_sub(d, n)` (which sqlglot reads as `date_add(d, n * -1)`; Spark is given
    `date_sub(d, n)`, `engine.sql.spark`)."""
    start = ev.eval(node.this)
    if start is None:
        return None
    days_node = node.expression
    subtract = written(node) == "date_sub" and isinstance(days_node, exp.Mul)
    days = scalars.day_count(ev.eval(days_node.this if subtract else days_node))
    if days is None:
        return None
    day = scalars.date_of(start, explicit=False)
    assert day is not None
    return day - timedelta(days=days) if subtract else day + timedelta(days=days)


HANDLERS: dict[type[exp.Expr], Handler] = {
    exp.CurrentTimestamp: _now,
    exp.CurrentDate: _today,
    exp.TsOrDsToDate: _to_date,
    exp.Year: _date_field("year"),
    exp.Month: _date_field("month"),
    exp.Day: _date_field("day"),
    exp.DayOfMonth: _date_field("day"),
    exp.Hour: _time_field("hour"),
    exp.Minute: _time_field("minute"),
    exp.Second: _time_field("second"),
    exp.DateDiff: _datediff,
    exp.TsOrDsAdd: _date_add,
}
