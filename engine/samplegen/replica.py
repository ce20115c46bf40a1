"""Every site's rows as a run will have them, kept by the run's own code while the changes are written.

Local commits apply where they commit (`fold.apply_local`); each transaction's deliveries are computed by
the reference engine (`reference.transaction_deliveries`: net effect, `where`, mapping methods, schedule)
and applied when they land, one transaction's batch at a time, with conflict detection and resolution
(`fold._deliver_batch`). So every change is written with its true before image, and the generator knows
which conflicts the run will record (`conflicts`) before it writes a byte.

`busy` holds, per (table, key), until when a change is in flight to or from that row: ordinary work leaves
a busy row alone, so it never conflicts.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from engine.run.input.keys import hashable
from engine.run.input.schedule import Schedule
from engine.run.semantics.context import RunContext
from engine.run.semantics.detect import apply_delivery
from engine.run.semantics.fold import FoldOutput, _deliver_batch, apply_local
from engine.run.semantics.order import event_order
from engine.run.semantics.reference import Transaction, local_events, transaction_deliveries
from engine.run.semantics.state import RowState, SiteState, TableState

Row = dict[str, Any]
Event = dict[str, Any]
EventView = Mapping[str, Any]


class Replica:
    """The sites' tables, the deliveries in flight, and the conflicts met so far."""

    def __init__(self, ctx: RunContext, schedule: Schedule) -> None:
        self.ctx, self.schedule = ctx, schedule
        self.state = SiteState(dict(ctx.tables))
        self.pending: list[tuple[Any, ...]] = []
        self.busy: dict[tuple[str, Any], datetime] = {}
        self.retired: set[tuple[str, Any]] = set()
        self.out = FoldOutput()
        self.delivered: set[tuple[str, Any]] = set()
        self._count = 0

    def table(self, table_key: str) -> TableState:
        return self.state.table(self.ctx.tables[table_key].server, table_key)

    def rows(self, table_key: str) -> Iterator[Row]:
        return (row.values for row in self.table(table_key).rows.values())

    def put_snapshot(self, table_key: str, row: Row) -> None:
        self.table(table_key).put(None, RowState(row, self.ctx.tables[table_key].server))

    def key(self, table_key: str, image: Row | None) -> tuple[str, Any]:
        """A row's key: its identity values (images here are typed already: no conversion needed)."""
        values = image or {}
        return table_key, tuple(hashable(values.get(c)) for c in self.ctx.tables[table_key].identity)

    def free(self, key: tuple[str, Any], at: datetime) -> bool:
        """True when no change to or from the row is in flight at `at`, and no scenario used it."""
        if key in self.retired:
            return False
        until = self.busy.get(key)
        return until is None or until <= at

    def unique_keys(self, event: Event) -> list[tuple[str, Any]]:
        """The unique-index values a delivery sets at its destination: two in flight with one value would meet
        at the destination, so the second waits until the first has landed."""
        new = event["new"]
        if new is None:
            return []
        out = []
        for name, columns in self.ctx.tables[event["table"]].unique_sets:
            values = tuple(hashable(new.get(c)) for c in columns)
            if None not in values:
                out.append((event["table"], ("unique", name, values)))
        return out

    def deliveries(self, txn: Transaction) -> list[Event]:
        return transaction_deliveries(txn, self.ctx, self.schedule)[0]

    def clean(self, txn: Transaction, deliveries: list[Event]) -> bool:
        """True when every row the transaction touches is free and each delivery would apply with no conflict,
        against the destinations as they are now (what is in flight to them is busy, so it cannot change)."""
        at = txn.commit_ts
        for record in txn.records:
            for image in (record.before, record.after):
                if image is not None and not self.free(self.key(record.table, image), at):
                    return False
        for event in deliveries:
            target = self.key(event["table"], event["new"] or event["old"])
            if target in self.retired or event.get("error"):
                self._retire(txn)
                return False
            if not self.free(target, at) or not all(self.free(k, at) for k in self.unique_keys(event)):
                return False
        self.state.begin()
        try:
            for event in deliveries:
                if apply_delivery(self.table(event["table"]), event, self.ctx).status != "applied":
                    self._retire(txn)
                    return False
        finally:
            self.state.rollback()
        return True

    def _retire(self, txn: Transaction) -> None:
        """Leave the transaction's rows alone from now on: they differ from their copies elsewhere (a change
        was not passed on) or belong to a scenario's rows, so ordinary work on them would always conflict."""
        self.retired.update(self.key(r.table, r.before) for r in txn.records if r.before is not None)

    def commit(self, txn: Transaction, deliveries: list[Event], retire: bool = False) -> None:
        """Apply the transaction where it commits; its deliveries land later (`advance`). Every row it
        touches is busy until its last delivery lands (for ever, `retire`: a scenario's rows)."""
        landed = txn.commit_ts
        for event in local_events(txn, self.ctx):
            apply_local(self.table(event["table"]), event)
        for event in deliveries:
            landed = max(landed, event["at"])
            self._count += 1
            heapq.heappush(self.pending, (event["at"], event["site"], event["commit_ts"], event["origin"],
                                          event["txn"], event["seq"], self._count, event))
        keys = [self.key(r.table, image) for r in txn.records for image in (r.before, r.after) if image is not None]
        keys += [self.key(e["table"], e["new"] or e["old"]) for e in deliveries]
        keys += [k for e in deliveries for k in self.unique_keys(e)]
        self.delivered.update(self.key(e["table"], e["new"] or e["old"]) for e in deliveries)
        for key in keys:
            if retire:
                self.retired.add(key)
            self.busy[key] = max(self.busy.get(key, landed), landed)

    def advance(self, before: datetime | None) -> list[dict[str, Any]]:
        """Apply the deliveries that land before `before` (all, None), in the run's order; returns the
        conflicts they met."""
        due: list[Event] = []
        while self.pending and (before is None or self.pending[0][0] < before):
            due.append(heapq.heappop(self.pending)[-1])
        if not due:
            return []
        due.sort(key=lambda e: (e["site"], event_order(e)))
        start = len(self.out.conflicts)
        batch: list[EventView] = []
        for event in due:
            if batch and (event["site"], event["at"], event["origin"], event["txn"]) != \
                    (batch[0]["site"], batch[0]["at"], batch[0]["origin"], batch[0]["txn"]):
                _deliver_batch(self.state, batch, self.ctx, self.out)
                batch = []
            batch.append(event)
        _deliver_batch(self.state, batch, self.ctx, self.out)
        return self.out.conflicts[start:]
