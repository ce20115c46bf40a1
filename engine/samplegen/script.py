"""The day's script: ordinary transactions and conflict scenarios in commit order, then malformed lines.

Time runs from 08:00 (later if the day needs more seconds) in whole seconds. Before each transaction the
replica applies what has landed by then, so each change is made on the rows its site holds at that moment.
A scenario is played while the conflicts planned so far are fewer than `conflict_rate` times the keys
delivered so far; it aims at the target (a method, a backup, a policy) that has decided least, so every
one the model configures decides at least once when the day is long enough.
"""

from __future__ import annotations

import heapq
import json
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from engine.core.values import to_json_value
from engine.samplegen.options import SampleCancelled
from engine.samplegen.ordinary import ordinary_txn, writers
from engine.samplegen.scenarios import Target, scenario, signature, targets
from engine.samplegen.world import OPEN, Broken, World, Written

Progress = Callable[[str, int, int], None]
DEFECTS = ("torn", "unknown_table", "unknown_op", "bad_timestamp", "too_long", "missing_key", "unknown_version")
DEBEZIUM_DEFECTS = ("torn", "unknown_table", "unknown_op=X", "bad_timestamp")


class Script:
    def __init__(self, world: World, progress: Progress, cancel: threading.Event | None) -> None:
        self.world, self.progress, self.cancel = world, progress, cancel
        self.targets = targets(world) if world.options.conflict_rate > 0 else []
        self.attempts: dict[Target, int] = {}
        self.decided: set[tuple[Any, ...]] = set()
        self.keys: set[tuple[str, str]] = set()
        self.flights: list[datetime] = []  # when each scenario in flight lands (a heap)
        self.landed = 0
        self.records = 0
        self._tick = time.monotonic()

    def tick(self, stage: str, done: int, total: int) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise SampleCancelled("cancelled")
        now = time.monotonic()
        if now - self._tick >= 0.1:
            self._tick = now
            self.progress(stage, done, total)

    def play(self) -> None:
        world, options = self.world, self.world.options
        tables = writers(world)
        if not tables or options.changes == 0:
            return
        txns = max(1, round(options.changes / 1.4))
        span = max((world.close - OPEN).total_seconds(), 2.0 * txns)
        world.close = OPEN + timedelta(seconds=span)
        gap = span / txns
        at, misses = OPEN, 0
        while self.records < options.changes and misses < 500:
            self.tick("changes", self.records, options.changes)
            step = world.rng.randrange(1, max(2, round(2 * gap))) if misses == 0 else 1  # a miss takes a second
            at += timedelta(seconds=step)
            self.observe(world.replica.advance(at))
            if self.want_scenario(at) and self.play_scenario(at):
                misses = 0
                continue
            if self.play_ordinary(at, tables):
                misses = 0
            else:
                misses += 1
        self.observe(world.replica.advance(None))

    def observe(self, conflicts: list[dict[str, Any]]) -> None:
        self.decided.update(signature(c) for c in conflicts)
        self.keys.update((c["table"], json.dumps(c["dkey"], sort_keys=True)) for c in conflicts)

    def want_scenario(self, at: datetime) -> bool:
        """True while the conflict keys met so far, and those expected of the scenarios in flight, are fewer
        than `conflict_rate` times the keys delivered."""
        if not self.targets:
            return False
        while self.flights and self.flights[0] < at:
            heapq.heappop(self.flights)
            self.landed += 1
        per = len(self.keys) / self.landed if self.landed else 2.0
        expected = len(self.keys) + per * len(self.flights)
        wanted = self.world.options.conflict_rate * len(self.world.replica.delivered)
        if self.records < 0.7 * self.world.options.changes and self.undecided():
            wanted *= 1.25  # a little ahead while some method has not decided yet; the rest of the day evens it
        return expected < wanted

    def undecided(self) -> list[Target]:
        """The targets that have not decided yet and are still worth trying."""
        return [t for t in self.targets if t.signature and t.signature not in self.decided
                and self.attempts.get(t, 0) < 8]

    def play_scenario(self, at: datetime) -> bool:
        pending = self.undecided()
        choice = min(pending, key=lambda t: self.attempts.get(t, 0)) if pending \
            else self.world.rng.choice(self.targets)
        self.attempts[choice] = self.attempts.get(choice, 0) + 1
        txns = scenario(self.world, choice, at)
        if not txns:
            return False
        deliveries = [self.world.replica.deliveries(txn) for txn in txns]
        if any(e.get("error") for batch in deliveries for e in batch):
            return False
        for txn, batch in zip(txns, deliveries, strict=True):
            self.world.replica.commit(txn, batch, retire=True)
            self.world.written.append(Written(txn, scenario=True))
            self.records += len(txn.records)
        heapq.heappush(self.flights, max((e["at"] for batch in deliveries for e in batch), default=at))
        return True

    def play_ordinary(self, at: datetime, tables: list[str]) -> bool:
        world = self.world
        for _ in range(4):
            txn = ordinary_txn(world, at, tables)
            if txn is None:
                continue
            deliveries = world.replica.deliveries(txn)
            if world.replica.clean(txn, deliveries):
                world.replica.commit(txn, deliveries)
                world.written.append(Written(txn))
                self.records += len(txn.records)
                return True
            world.counters[txn.site] -= 1  # its number goes to the next transaction
        return False

    def malformed(self) -> None:
        """Unusable lines, `malformed_rate` of the records, each in a transaction of its own."""
        world = self.world
        count = round(world.options.malformed_rate * self.records)
        records = [r for w in world.written for r in w.txn.records]
        if not records:
            return
        for n in range(count):
            record = records[world.rng.randrange(len(records))]
            defects = DEBEZIUM_DEFECTS if world.options.debezium else DEFECTS
            defect = defects[n % len(defects)]
            world.broken.append(Broken(record.site, record.commit_ts, broken_line(world, record, n, defect)))


def record_doc(world: World, record: Any) -> dict[str, Any]:
    """A change record as JSON (docs/contract.md §4): DATE columns as dates, decimals as exact text."""
    table = world.model.table(record.table)
    assert table is not None
    types = world.plan(record.table).types
    doc: dict[str, Any] = {"site": record.site, "txn": record.txn, "seq": record.seq,
                           "commit_ts": to_json_value(record.commit_ts), "table": table.name, "op": record.op}
    for side, image in (("before", record.before), ("after", record.after)):
        if image is not None:
            doc[side] = {c: render(v, types.get(c)) for c, v in image.items()}
    if table.replication_definitions and record.version is not None:
        doc["schema_version"] = record.version
    return doc


def render(value: Any, t: Any) -> Any:
    if isinstance(value, datetime) and t is not None and t.name == "DATE" and value == value.replace(
            hour=0, minute=0, second=0, microsecond=0):
        return value.date().isoformat()
    return to_json_value(value)


def broken_line(world: World, record: Any, n: int, defect: str) -> str:
    """A line a run rejects: the record's, broken as `defect` says (Debezium defects are broken when the
    events are written)."""
    if world.options.debezium:
        return defect
    doc = record_doc(world, record)
    doc["txn"] = f"{record.site}-{1_000_000 + n}"
    image = doc.get("after") or doc.get("before") or {}
    plan = world.plan(record.table)
    if defect == "unknown_table":
        doc["table"] += "_OLD"
    elif defect == "unknown_op":
        doc["op"] = ("X", "UPSERT", "u")[n % 3]
    elif defect == "bad_timestamp":
        doc["commit_ts"] = f"{record.commit_ts:%d.%m.%Y %H:%M:%S}"
    elif defect == "too_long":
        column = next((c for c in image if plan.types[c].family.value == "character" and plan.types[c].length), None)
        if column is None:
            doc["seq"] = "first"
        else:
            image[column] = "x" * ((plan.types[column].length or 0) + 1)
    elif defect == "missing_key":
        key = next((c for c in plan.identity if c in image), None)
        if key is None or not world.model_not_null_key(record.table):
            doc["op"] = "?"
        else:
            image.pop(key)
    elif defect == "unknown_version":
        doc["schema_version"] = 9999
    text = json.dumps(doc, ensure_ascii=False)
    return text[: len(text) * 2 // 3] if defect == "torn" else text
