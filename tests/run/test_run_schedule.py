"""Delivery times from schedule.json and the order events apply at a site (docs/contract.md §4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.run.input.schedule import ScheduleError, parse_schedule
from engine.run.semantics.order import delivery_time, event_order


def at(minute: int, second: int = 0) -> datetime:
    return datetime(2026, 1, 5, 10, minute, second, tzinfo=UTC)


SCHEDULE = parse_schedule({"links": [
    {"from": "A", "to": "B", "delay_s": 120},
    {"from": "A", "to": "C", "delay_s": 30,
     "down": [["2026-01-05T10:02:00Z", "2026-01-05T10:09:00Z"]]},
    {"from": "B", "to": "C", "down": [["2026-01-05T10:00:00Z", "2026-01-05T10:01:00Z"],
                                      ["2026-01-05T10:01:00Z", "2026-01-05T10:05:00Z"]]},
]})


def test_a_change_arrives_after_the_link_delay() -> None:
    assert delivery_time(SCHEDULE, "A", "B", at(0)) == at(2)


def test_an_absent_link_has_no_delay_and_no_outage() -> None:
    assert delivery_time(SCHEDULE, "B", "A", at(3, 7)) == at(3, 7)


def test_an_arrival_inside_a_down_window_waits_for_its_end() -> None:
    assert delivery_time(SCHEDULE, "A", "C", at(3)) == at(9)


def test_the_window_start_is_inside_it() -> None:
    assert delivery_time(SCHEDULE, "A", "C", at(1, 30)) == at(9)  # 10:01:30 + 30 s = 10:02:00, the start


def test_the_window_end_is_outside_it() -> None:
    assert delivery_time(SCHEDULE, "A", "C", at(8, 30)) == at(9)  # arrives exactly at the end: not held
    assert delivery_time(SCHEDULE, "A", "C", at(8, 31)) == at(9, 1)


def test_an_arrival_before_the_window_is_not_held() -> None:
    assert delivery_time(SCHEDULE, "A", "C", at(1, 29)) == at(1, 59)


def test_back_to_back_windows_hold_until_the_last_ends() -> None:
    assert delivery_time(SCHEDULE, "B", "C", at(0, 30)) == at(5)


@pytest.mark.parametrize("doc", [
    {"links": [{"from": "A"}]},
    {"links": [{"from": "A", "to": "B", "delay_s": -1}]},
    {"links": [{"from": "A", "to": "B", "down": [["2026-01-05T10:05:00Z", "2026-01-05T10:01:00Z"]]}]},
    {"links": [{"from": "A", "to": "B", "down": [["yesterday", "2026-01-05T10:01:00Z"]]}]},
    {"links": [{"from": "A", "to": "B"}, {"from": "A", "to": "B"}]},
    [],
])
def test_a_bad_schedule_is_refused_with_a_reason(doc: object) -> None:
    with pytest.raises(ScheduleError):
        parse_schedule(doc)


def event(kind: str, when: datetime, commit: datetime, origin: str, txn: str, seq: int = 0) -> dict[str, object]:
    return {"kind": kind, "at": when, "commit_ts": commit, "origin": origin, "txn": txn, "seq": seq}


def test_events_apply_by_time_then_local_first_then_commit_origin_txn() -> None:
    events = [
        event("delivery", at(5), at(1), "B", "b1"),
        event("delivery", at(5), at(1), "A", "a2"),
        event("delivery", at(5), at(0), "Z", "z1"),
        event("local", at(5), at(5), "C", "c1"),
        event("delivery", at(4), at(4), "A", "a1"),
        event("delivery", at(5), at(1), "A", "a1"),
    ]
    ordered = [e["txn"] for e in sorted(events, key=event_order)]
    assert ordered == ["a1", "c1", "z1", "a1", "a2", "b1"]


@pytest.mark.parametrize(("delay", "says"), [
    (1e20, "got 1e+20"), (float("nan"), "got nan"), (float("inf"), "got inf"), (365 * 86400 + 1, "got 31536001"),
])
def test_delays_outside_0_to_one_year_are_refused_naming_link_and_field(delay: float, says: str) -> None:
    doc = {"links": [{"from": "A", "to": "B", "delay_s": 1}, {"from": "B", "to": "A", "delay_s": delay}]}
    with pytest.raises(ScheduleError) as info:
        parse_schedule(doc, "data/schedule.json")
    assert str(info.value).startswith("data/schedule.json links[1].delay_s: link B->A: the delay must be")
    assert says in str(info.value)


def test_a_delay_of_one_year_is_accepted() -> None:
    schedule = parse_schedule({"links": [{"from": "A", "to": "B", "delay_s": 365 * 86400}]})
    assert delivery_time(schedule, "A", "B", at(0)) == at(0) + timedelta(days=365)
