"""The replay's order of commits and outage boundaries (no server: the replayer is recorded)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine.deploy.verify import outage_events, replay
from engine.run.input.schedule import parse_schedule
from engine.run.semantics.reference import Transaction


def _at(minute: int) -> datetime:
    return datetime(2026, 1, 5, 10, minute, tzinfo=UTC)


class Recorder:
    def __init__(self) -> None:
        self.log: list[Any] = []

    def set_link(self, origin: str, destination: str, enabled: bool) -> None:
        self.log.append(("enable" if enabled else "disable", origin, destination))

    def commit(self, txn: Transaction) -> None:
        self.log.append(txn.txn)


def test_a_window_start_precedes_a_commit_at_that_instant_and_its_end_follows_local_commits() -> None:
    schedule = parse_schedule({"links": [
        {"from": "hq", "to": "east", "down": [["2026-01-05T10:02:00Z", "2026-01-05T10:05:00Z"]]},
        {"from": "hq", "to": "nowhere", "down": [["2026-01-05T10:00:00Z", "2026-01-05T10:09:00Z"]]}]})
    outages = outage_events(schedule, {"hq", "east"})
    assert [(e[0].minute, e[1]) for e in outages] == [(2, False), (5, True)]  # links to other sites left out
    txns = [Transaction("hq", name, _at(minute), []) for name, minute in
            (("t1", 1), ("t2", 2), ("t5", 5), ("t6", 6))]
    recorder = Recorder()
    replay(recorder, txns, outages)  # type: ignore[arg-type]
    assert recorder.log == ["t1", ("disable", "hq", "east"), "t2", "t5", ("enable", "hq", "east"), "t6"]


def test_a_window_after_the_last_commit_still_opens_and_closes() -> None:
    schedule = parse_schedule({"links": [
        {"from": "east", "to": "hq", "down": [["2026-01-05T11:00:00Z", "2026-01-05T11:05:00Z"]]}]})
    recorder = Recorder()
    replay(recorder, [Transaction("hq", "t1", _at(1), [])], outage_events(schedule, {"hq", "east"}))  # type: ignore[arg-type]
    assert recorder.log == ["t1", ("disable", "east", "hq"), ("enable", "east", "hq")]
