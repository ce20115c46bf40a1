"""Applying one delivered change at its destination: detect conflicts, resolve them (docs/contract.md §5.5).

The change is looked up by its distribution key in the destination table:

- INSERT onto an existing row: a uniqueness conflict, handled by `on_insert_exists`.
- UPDATE or DELETE of a missing row: a delete conflict, handled by `on_update_missing` /
  `on_delete_missing`.
- UPDATE: each column group the update changes (and the shadow group of ungrouped columns) compares
  the remote old values with the current ones; a group that differs is an update conflict resolved by
  its chain (the shadow group has none: unresolved). Groups without a difference take the remote values;
  groups the update does not change stay as they are.
- DELETE whose old values differ from the current row: a delete conflict (no method resolves it).
- An old value the origin server does not capture (`replica_identity: default`: only the key's) is unknown:
  it is never compared, and a group holding one counts as changed by an update.
- A row that would collide on a unique index other than the DKey: a uniqueness conflict resolved by
  that index's `unique` entry (`append_site_name`, `append_sequence`, `discard`, `error`).

A delivery ends `applied` (no conflict), `resolved` (every conflict resolved) or `queued` (one was not:
nothing of the change is applied).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.core.values import row_to_json, same_value, to_json_value
from engine.run.semantics.context import MappingPlan, RunContext, TablePlan, default_value
from engine.run.semantics.resolve import append_sequence, append_site_name, resolve_group
from engine.run.semantics.state import RowState, TableState

Row = dict[str, Any]
Status = Literal["applied", "resolved", "queued"]
MAX_SEQUENCE = 9999


@dataclass
class DeliveryResult:
    """How one delivered change ended, with the conflicts it met (JSON-ready dicts)."""

    status: Status
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None


def full_row(plan: TablePlan, values: Mapping[str, Any], now: Any) -> Row:
    """A complete row of the table: the given values, the defaults (or NULL) for the other columns."""
    return {c: values[c] if c in values else default_value(plan, c, now) for c in plan.columns}


class Delivery:
    """One delivered change being applied to one destination table."""

    def __init__(self, table: TableState, event: Mapping[str, Any], ctx: RunContext) -> None:
        self.table, self.event, self.ctx = table, event, ctx
        self.plan: TablePlan = table.plan
        self.mapping: MappingPlan = ctx.mappings[event["mapping"]]
        self.origin: str = event["origin"]
        self.old: Row | None = event.get("old")
        self.new: Row | None = event.get("new")
        self.conflicts: list[dict[str, Any]] = []
        self.rowid: int | None = None
        self.local: RowState | None = None

    # --- entry point -------------------------------------------------------

    def apply(self) -> DeliveryResult:
        if self.event.get("error"):
            return DeliveryResult("queued", [], str(self.event["error"]))
        if self.mapping.dkey is None:  # a journal mapping appends every change
            self.table.put(None, RowState(full_row(self.plan, self.new or self.old or {}, self.event["at"]),
                                          self.origin))
            return DeliveryResult("applied")
        image = self.old if self.event["op"] == "D" else self.new
        assert image is not None
        ids = self.table.find(self.mapping.dkey, [image.get(c) for c in self.mapping.dkey])
        if len(ids) > 1:
            return DeliveryResult("queued", [], f"the distribution key matches {len(ids)} rows")
        if ids:
            self.rowid, self.local = ids[0], self.table.rows[ids[0]]
        result = {"I": self._insert, "U": self._update, "D": self._delete}[self.event["op"]]()
        self._finish(result)
        return result

    # --- operations --------------------------------------------------------

    def _insert(self) -> DeliveryResult:
        assert self.new is not None
        if self.local is None:
            return self._place(None, full_row(self.plan, self.new, self.event["at"]))
        policy = self.plan.on_insert_exists
        if policy == "as_update":
            return self._resolve_groups(old=None, conflict_type="uniqueness")
        outcome = {"error": "unresolved", "discard": "local", "overwrite": "remote"}[policy]
        self._conflict("uniqueness", None, [policy], None if policy == "error" else policy, outcome,
                       reason="a row with this distribution key already exists")
        if policy == "overwrite":
            return self._place(self.rowid, {**self.local.values, **self.new})
        return self._ended()

    def _update(self) -> DeliveryResult:
        assert self.new is not None and self.old is not None
        if self.local is not None:
            return self._resolve_groups(old=self.old, conflict_type="update")
        policy = self.plan.on_update_missing
        outcome = {"error": "unresolved", "discard": "local", "insert": "remote"}[policy]
        self._conflict("delete", None, [policy], None if policy == "error" else policy, outcome,
                       reason="the row to update is missing")
        if policy == "insert":
            return self._place(None, full_row(self.plan, self.new, self.event["at"]))
        return self._ended()

    def _delete(self) -> DeliveryResult:
        assert self.old is not None
        if self.local is None:
            policy = self.plan.on_delete_missing
            self._conflict("delete", None, [policy], None if policy == "error" else policy,
                           "unresolved" if policy == "error" else "local", reason="the row to delete is missing")
            return self._ended()
        different = self._differing(self.old, self.local.values)
        if different:
            self._conflict("delete", None, [], None, "unresolved",
                           reason=f"old values differ from the current row in {', '.join(different)}")
            return self._ended()
        assert self.rowid is not None
        self.table.delete(self.rowid)
        return DeliveryResult("applied")

    # --- column groups -----------------------------------------------------

    def _resolve_groups(self, old: Row | None, conflict_type: str) -> DeliveryResult:
        """Each column group on its own (seed 003); `old` None is an insert read as an update."""
        assert self.new is not None and self.local is not None
        current = self.local.values
        updates: Row = {}
        for group in self.plan.all_groups():
            columns = [c for c in group.columns if c in self.new]
            if not columns:
                continue
            if old is not None:
                if all(c not in self.mapping.unknown_old and same_value(self.new[c], old.get(c), self.plan.types.get(c))
                       for c in columns):
                    continue  # the update does not change this group (an unknown old value may have changed)
                different = self._differing({c: old.get(c) for c in columns}, current)
            else:
                different = [c for c in columns if not same_value(self.new[c], current.get(c), self.plan.types.get(c))]
            if not different:
                updates.update({c: self.new[c] for c in columns})
                continue
            if group.name is None:
                self._conflict(conflict_type, None, [], None, "unresolved",
                               reason=f"shadow column group differs in {', '.join(different)}")
                continue
            writer = self.ctx.priorities.get(self.local.writer)
            result = resolve_group(group.chain, columns, current, old, self.new, self.plan.types,
                                   self.ctx.priorities.get(self.origin), writer)
            self._conflict(conflict_type, group.name, list(result.methods_tried), result.method, result.outcome)
            updates.update(result.values)
        if old is None and not self.conflicts:
            self._conflict("uniqueness", None, ["as_update"], "as_update", "local",
                           reason="the inserted row equals the current row")
        if any(c["outcome"] == "unresolved" for c in self.conflicts):
            return self._ended()
        if not updates or all(same_value(v, current.get(k), self.plan.types.get(k)) for k, v in updates.items()):
            return self._ended() if self.conflicts else DeliveryResult("applied")
        return self._place(self.rowid, {**current, **updates})

    def _differing(self, old: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
        """Columns whose remote old value differs from the current one (compare_old: false ones skipped, and
        those whose old value the origin does not capture: `replica.unknown_old_columns`)."""
        unknown = self.mapping.unknown_old
        return [c for c, v in old.items()
                if c not in self.plan.compare_old_off and c not in unknown and c in current
                and not same_value(v, current[c], self.plan.types.get(c))]

    # --- writing and unique indexes ----------------------------------------

    def _place(self, rowid: int | None, candidate: Row) -> DeliveryResult:
        """Write the row unless a unique index other than the DKey refuses it."""
        settled = self._settle_unique(rowid, candidate)
        if settled is None or any(c["outcome"] == "unresolved" for c in self.conflicts):
            return self._ended()
        self.rowid = self.table.put(rowid, RowState(settled, self.origin))
        return DeliveryResult("resolved" if self.conflicts else "applied")

    def _settle_unique(self, rowid: int | None, candidate: Row) -> Row | None:
        """The candidate once every unique-index collision is resolved; None when discarded or unresolved."""
        dkey = set(self.mapping.dkey or ())
        before = self.table.rows[rowid].values if rowid is not None else None
        for _ in range(len(self.plan.unique_sets) + 1):
            collision = self._collision(rowid, candidate, before, dkey)
            if collision is None:
                return candidate
            name, columns = collision
            policy = self.plan.unique_resolution.get(name, "error")
            if policy in ("error", "discard"):
                self._conflict("uniqueness", None, [policy], None if policy == "error" else policy,
                               "unresolved" if policy == "error" else "local", index=name)
                return None
            fixed = self._append(policy, columns, candidate, rowid)
            self._conflict("uniqueness", None, [policy], policy if fixed else None,
                           "remote" if fixed else "unresolved", index=name)
            if fixed is None:
                return None
            candidate = fixed
        return None

    def _collision(self, rowid: int | None, row: Row, before: Row | None,
                   dkey: set[str]) -> tuple[str, tuple[str, ...]] | None:
        for name, columns in self.plan.unique_sets:
            if set(columns) == dkey:
                continue
            values = [row.get(c) for c in columns]
            if any(v is None for v in values):
                continue  # NULL never collides
            if before is not None and all(same_value(row.get(c), before.get(c)) for c in columns):
                continue  # unchanged on this index
            if any(other != rowid for other in self.table.find(columns, values)):
                return name, columns
        return None

    def _append(self, policy: str, columns: tuple[str, ...], row: Row, rowid: int | None) -> Row | None:
        """The row with `.<origin>` or `.<n>` appended to the index's last character column, or None."""
        textual = [c for c in columns if self.plan.character_length(c) is not None]
        candidates: list[str | None]
        if not textual or not isinstance(row.get(textual[-1]), str):
            return None
        column, value = textual[-1], row[textual[-1]]
        length = self.plan.character_length(column)
        if policy == "append_site_name":
            text = append_site_name(value, self.origin, length)
            candidates = [text] if text is not None else []
        else:
            candidates = [append_sequence(value, n, length) for n in range(1, MAX_SEQUENCE + 1)]
        for text in candidates:
            if text is None:
                return None
            fixed = {**row, column: text}
            if not any(other != rowid for other in self.table.find(columns, [fixed.get(c) for c in columns])):
                return fixed
        return None

    # --- conflict records --------------------------------------------------

    def _conflict(self, kind: str, group: str | None, tried: list[str], method: str | None, outcome: str,
                  reason: str | None = None, index: str | None = None) -> None:
        e = self.event
        image = self.old if e["op"] == "D" else self.new
        record: dict[str, Any] = {
            "site": e["site"], "origin": self.origin, "table": self.plan.key,
            "dkey": {c: to_json_value((image or {}).get(c)) for c in self.mapping.dkey or ()},
            "txn": e["txn"], "type": kind, "column_group": group, "methods_tried": tried, "method": method,
            "outcome": outcome, "local": row_to_json(self.local.values) if self.local else None,
            "remote_old": row_to_json(self.old), "remote_new": row_to_json(self.new), "result": None,
            "delivered_at": to_json_value(e["at"]), "mapping": self.mapping.id,
            "commit_ts": to_json_value(e["commit_ts"]),
        }
        if index is not None:
            record["index"] = index
        if reason is not None:
            record["reason"] = reason
        self.conflicts.append(record)

    def _ended(self) -> DeliveryResult:
        unresolved = [c for c in self.conflicts if c["outcome"] == "unresolved"]
        if unresolved:
            reason = unresolved[0].get("reason") or f"{unresolved[0]['type']} conflict unresolved"
            return DeliveryResult("queued", self.conflicts, reason)
        return DeliveryResult("resolved", self.conflicts)

    def _finish(self, result: DeliveryResult) -> None:
        """Fill each conflict's `result` (the row as the delivery leaves it) and whether it was applied."""
        result.conflicts = self.conflicts
        after = self.table.rows.get(self.rowid) if self.rowid is not None else None
        for record in self.conflicts:
            record["result"] = row_to_json(after.values) if after is not None else None
            record["applied"] = result.status != "queued"


def apply_delivery(table: TableState, event: Mapping[str, Any], ctx: RunContext) -> DeliveryResult:
    """Apply one delivered change (an event dict of kind `delivery`) to its destination table."""
    return Delivery(table, event, ctx).apply()
