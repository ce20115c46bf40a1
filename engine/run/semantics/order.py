"""When a change reaches a site, and in which order a site applies what reaches it (docs/contract.md §4).

A change committed at `t` at X reaches Y at `t + delay_s` of the X->Y link of the schedule
(`engine.run.input.schedule`); if that instant falls in a down window of the link (its start included,
its end not) it is delivered at the window's end. A link absent from the schedule has delay 0 and no outage.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from engine.run.input.schedule import Schedule


def delivery_time(schedule: Schedule, origin: str, destination: str, commit_ts: datetime) -> datetime:
    """When a change committed at `commit_ts` at `origin` is delivered at `destination`.

    Windows are applied until the instant is outside all of them, so back-to-back
    outages hold the change until the last one ends.
    """
    link = schedule.link(origin, destination)
    at = commit_ts + timedelta(seconds=link.delay_s)
    moved = True
    while moved:
        moved = False
        for start, end in link.down:
            if start <= at < end:
                at, moved = end, True
    return at


EVENT_KIND_RANK = {"snapshot": 0, "local": 1, "delivery": 2}


def event_order(event: Mapping[str, Any]) -> tuple[Any, ...]:
    """The order events apply at one site.

    By time; at one instant a snapshot row first, then local commits, then
    deliveries; among equals by (commit_ts, origin site id, txn), then by the
    position of the change within its transaction.
    """
    return (event["at"], EVENT_KIND_RANK[event["kind"]], event["commit_ts"], event["origin"],
            str(event["txn"]), event["seq"])
