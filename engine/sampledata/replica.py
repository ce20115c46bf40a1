"""The replica: every site's rows as the generator knows them, kept through the model's own mappings."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from engine.core.values import conform, same_value
from engine.run.input.schedule import Schedule
from engine.run.semantics.context import MappingPlan, RunContext, default_value
from engine.run.semantics.methods import SystemValues, map_image, replication_key, where_holds
from engine.run.semantics.net_effect import Chain, RowOp, net_effect
from engine.run.semantics.order import delivery_time
from engine.sampledata.transactions import Key, Row, Txn


class Sites:
    """Every site's rows as the generator knows them: the snapshot, then each ordinary change applied
    where it commits and, through the model's mappings, where it is delivered.

    A delivery is applied at once: ordinary work leaves an entity alone until its last delivery has
    landed, so nothing can tell the difference. Each delivery is checked as a run's conflict
    detection will check it; a failed check is a bug in the generator (`RuntimeError`).
    """

    def __init__(self, ctx: RunContext, schedule: Schedule) -> None:
        self.ctx, self.schedule = ctx, schedule
        self.rows: dict[str, dict[Key, Row]] = {key: {} for key in ctx.tables}

    def key(self, table: str, row: Row) -> Key:
        return tuple(row[c] for c in self.ctx.tables[table].identity)

    def get(self, table: str, *key: Any) -> Row | None:
        row = self.rows[table].get(key)
        return dict(row) if row is not None else None

    def put(self, table: str, row: Row) -> None:
        plan = self.ctx.tables[table]
        self.rows[table][self.key(table, row)] = {c: conform(row.get(c), plan.types[c]) for c in plan.columns}

    def copy_through(self, mapping_id: str, row: Row, at: datetime, origin: str) -> Row:
        """A source row as its mapping writes it into the target table (target defaults filled in)."""
        mapping = self.ctx.mappings[mapping_id]
        target = self.ctx.tables[mapping.target]
        mapped = map_image(mapping, target, row, SystemValues(origin, at, "", "I"))
        return {c: mapped[c] if c in mapped else default_value(target, c, at) for c in target.columns}

    def commit(self, txn: Txn) -> datetime:
        """Apply a transaction where it commits and where it is delivered; returns when its last delivery
        lands (the commit time if it goes nowhere)."""
        landed = txn.at
        for op in txn.ops:
            self._apply(op.table, op.op, op.before, op.after, txn.at, check=False)
            for mapping in self.ctx.reading(op.table):
                target = self.ctx.tables[mapping.target]
                at = delivery_time(self.schedule, txn.site, target.server, txn.at)
                chain = Chain((RowOp(op.op, op.before, op.after),))
                for change in net_effect(chain, partial(_where, mapping, txn.at),
                                         partial(replication_key, mapping, target)):
                    system = SystemValues(txn.site, txn.at, txn.id, change.op)
                    old = map_image(mapping, target, change.old, system) if change.old is not None else None
                    new = map_image(mapping, target, change.new, system) if change.new is not None else None
                    self._apply(mapping.target, change.op, old, new, at, check=True)
                    landed = max(landed, at)
        return landed

    def _apply(self, table: str, op: str, old: Row | None, new: Row | None, at: datetime, check: bool) -> None:
        plan, rows = self.ctx.tables[table], self.rows[table]
        key = self.key(table, old if old is not None else new or {})
        current = rows.get(key)
        if check and (op == "I") == (current is not None):
            raise RuntimeError(f"ordinary work would conflict: {op} on {table} {key}, row exists: {bool(current)}")
        if check and old is not None and current is not None:
            differ = [c for c, v in old.items()
                      if c not in plan.compare_old_off and not same_value(v, current.get(c), plan.types.get(c))]
            if differ:
                raise RuntimeError(f"ordinary work would conflict on {table} {key}: {', '.join(differ)}")
        if op == "D":
            rows.pop(key, None)
            return
        assert new is not None
        rows[key] = {c: conform(new[c], plan.types[c]) if c in new else  # a column the version lacks
                     current[c] if current is not None else default_value(plan, c, at) for c in plan.columns}


def _where(mapping: MappingPlan, now: datetime, image: Row | None) -> bool:
    return where_holds(mapping, image, now)
