"""When the sample day happens: its date and hours, and the links' delays and outages between the sites."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

DAY = datetime(2026, 1, 5, tzinfo=UTC)  # a Monday
OPEN, NOON, SPLIT = (DAY.replace(hour=h) for h in (8, 12, 13))
SNAPSHOT_AT = DAY.replace(hour=6)
NIGHTLY_SYNC = DAY - timedelta(hours=2)  # when the snapshot's copies were last synchronised
HOUR_WEIGHTS = (3, 6, 8, 7, 5, 4, 6, 7, 6, 3)  # activity from 08:00 to 18:00, hour by hour
SCHEDULE: dict[str, Any] = {"links": [
    {"from": "hq", "to": "branch", "delay_s": 30},
    {"from": "hq", "to": "web", "delay_s": 5},
    {"from": "branch", "to": "hq", "delay_s": 45,  # the branch's WAN link is down over lunch
     "down": [["2026-01-05T12:30:00Z", "2026-01-05T12:50:00Z"]]},
    {"from": "web", "to": "hq", "delay_s": 5,  # the web database fails over
     "down": [["2026-01-05T15:10:00Z", "2026-01-05T15:14:00Z"]]},
]}


def later(base: datetime, seconds: float) -> datetime:
    """`base` moved by whole seconds (timestamps stay whole-second)."""
    return base + timedelta(seconds=int(seconds))
