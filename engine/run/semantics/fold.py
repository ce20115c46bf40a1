"""The core fold: apply a group of events, in order, to the tables they touch (docs/contract.md §4-5).

`fold_events` takes plain dicts and returns plain dicts, so a Spark stage can
call it on the rows of one group (`mapInArrow` over key-sorted partitions).
An event is one of:

```
{"kind": "snapshot" | "local" | "delivery",
 "site": destination site, "table": "srv.T", "at": datetime (when it applies),
 "commit_ts": datetime, "origin": site that committed it, "txn": str, "seq": int,
 "op": "I" | "U" | "D", "old": row | None, "new": row | None,
 "mapping": mapping id (deliveries), "error": reason the change cannot be applied (deliveries, optional)}
```

Snapshot rows are the initial state (last written by their own site); local
commits apply unconditionally; deliveries go through detection
(`engine.run.semantics.detect`). The finest group that gives the same result as one
fold over everything is named by `fold_grouping`: one row key, one table, or
one site (when a table's `scope` is `transaction`, a transaction's changes
at a site stand or fall together).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from engine.core.values import ConversionError, conform, row_to_json, to_json_value, to_text
from engine.run.input.keys import hashable
from engine.run.semantics.context import RunContext, TablePlan, default_value
from engine.run.semantics.detect import DeliveryResult, apply_delivery
from engine.run.semantics.order import event_order
from engine.run.semantics.state import RowState, SiteState, TableState

Row = dict[str, Any]
Event = Mapping[str, Any]


@dataclass
class FoldOutput:
    """Final rows, conflicts, error-queue entries and one outcome per delivery, all plain dicts."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    queue: list[dict[str, Any]] = field(default_factory=list)
    outcomes: list[dict[str, Any]] = field(default_factory=list)


def fold_events(events: Iterable[Event], ctx: RunContext) -> FoldOutput:
    """Apply `events` (any order; they are sorted here) and return what they leave.

    `rows` holds every row of every (site, table) an event touched: `{"site", "table", "values",
    "writer"}`; `outcomes` one `{"site", "table", "mapping", "origin", "txn", "seq", "status",
    "reason"}` per delivery.
    """
    state = SiteState(dict(ctx.tables))
    out = FoldOutput()
    ordered = sorted(events, key=lambda e: (e["site"], event_order(e)))
    for batch in _batches(ordered):
        if batch[0]["kind"] == "delivery":
            _deliver_batch(state, batch, ctx, out)
            continue
        for event in batch:
            table = state.table(event["site"], event["table"])
            if event["kind"] == "snapshot":
                table.put(None, RowState(dict(event["new"]), event["origin"]))
            else:
                apply_local(table, event)
    for (site, table_key), table in sorted(state.tables.items()):
        for _, row in sorted(table, key=lambda item: row_sort_key(item[1].values, table.plan.identity)):
            out.rows.append({"site": site, "table": table_key, "values": row.values, "writer": row.writer})
    return out


def _batches(ordered: Sequence[Event]) -> list[list[Event]]:
    """Consecutive deliveries of one transaction at one site at one instant form a batch; every other
    event is a batch of its own."""
    batches: list[list[Event]] = []
    last: tuple[Any, ...] | None = None
    for event in ordered:
        key = (event["site"], event["at"], event["origin"], event["txn"]) if event["kind"] == "delivery" else None
        if key is not None and key == last:
            batches[-1].append(event)
        else:
            batches.append([event])
        last = key
    return batches


def _deliver_batch(state: SiteState, batch: list[Event], ctx: RunContext, out: FoldOutput) -> None:
    """One transaction's deliveries at one site and instant. With `scope: transaction`, the first
    unresolved change stops the transaction there: what it applied is undone, the changes after it are
    not examined (no conflicts recorded for them), and every change goes to the error queue."""
    scoped = any(ctx.tables[e["table"]].scope == "transaction" for e in batch)
    if scoped:
        state.begin()
    results: list[DeliveryResult] = []
    failed: DeliveryResult | None = None
    for event in batch:
        result = apply_delivery(state.table(event["site"], event["table"]), event, ctx)
        results.append(result)
        if result.status == "queued" and ctx.tables[event["table"]].scope == "transaction":
            failed = result
            break
    if failed is not None:
        state.rollback()
        reason = f"transaction {batch[0]['txn']} rolled back at {batch[0]['site']}: {failed.reason}"
        for result in results:
            if result.status != "queued":
                result.status, result.reason = "queued", reason
                for record in result.conflicts:
                    record["applied"], record["result"] = False, record["local"]
        results += [DeliveryResult("queued", reason=reason) for _ in batch[len(results):]]
    elif scoped:
        state.end()
    for event, result in zip(batch, results, strict=True):
        _record(event, result, out)


def _record(event: Event, result: DeliveryResult, out: FoldOutput) -> None:
    out.conflicts.extend(result.conflicts)
    out.outcomes.append({"site": event["site"], "table": event["table"], "mapping": event["mapping"],
                         "origin": event["origin"], "txn": event["txn"], "seq": event["seq"],
                         "status": result.status, "reason": result.reason})
    if result.status == "queued":
        out.queue.append(queue_entry(event, result.reason or "unresolved"))


def queue_entry(event: Event, reason: str) -> dict[str, Any]:
    """An error-queue entry: a change record (docs/contract.md §4) addressed to the destination, so it can
    be executed again there, with where it came from and why it stopped."""
    site, table_name = split_table_key(event["table"], event["site"])
    entry: dict[str, Any] = {"site": site, "txn": event["txn"], "seq": event["seq"],
                             "commit_ts": to_json_value(event["commit_ts"]), "table": table_name,
                             "op": event["op"]}
    if event.get("old") is not None:
        entry["before"] = row_to_json(event["old"])
    if event.get("new") is not None:
        entry["after"] = row_to_json(event["new"])
    entry.update({"origin": event["origin"], "mapping": event["mapping"],
                  "delivered_at": to_json_value(event["at"]), "reason": reason})
    return entry


def split_table_key(table_key: str, site: str) -> tuple[str, str]:
    """(server, table name) of a `srv.T` key whose server is `site`: a server id may hold a dot (`hq.eu`), so
    the key is cut after the site, never at its first dot."""
    if table_key.startswith(site + "."):
        return site, table_key[len(site) + 1:]
    server, _, name = table_key.partition(".")
    return server, name


def apply_local(table: TableState, event: Event) -> None:
    """A local commit, applied unconditionally: the row is found by the table's identity columns.

    Columns the record's version lacks keep their current values (an update) or take their defaults
    (an insert); the version's values take the table's current column types.
    """
    plan = table.plan
    old, new = event.get("old"), event.get("new")
    ids = table.find(plan.identity, identity_values(plan, old if event["op"] != "I" else new or {}))
    if event["op"] == "D":
        for rowid in ids[:1]:
            table.delete(rowid)
        return
    assert new is not None
    current = table.rows[ids[0]].values if ids else None
    row = local_row(plan, current, new, event["at"])
    if current is not None and key_values(plan, row) != key_values(plan, current):
        for rowid in table.find(plan.identity, identity_values(plan, row)):
            if rowid != ids[0]:
                table.delete(rowid)  # an update onto another row's key replaces it
    table.put(ids[0] if ids else None, RowState(row, event["origin"]))


def identity_values(plan: TablePlan, image: Row | None) -> list[Any]:
    """The identity column values of an image, in the table's current types."""
    return [_current_type(plan, c, (image or {}).get(c)) for c in plan.identity]


def key_values(plan: TablePlan, image: Row | None) -> tuple[Any, ...]:
    """The identity values of an image as they compare as a key (`state.hashable`: NaN equals NaN)."""
    return tuple(hashable(v) for v in identity_values(plan, image))


def local_row(plan: TablePlan, current: Row | None, image: Row, now: Any) -> Row:
    """A row image in the table's current columns and types."""
    row: Row = {}
    for column in plan.columns:
        if column in image:
            row[column] = _current_type(plan, column, image[column])
        elif current is not None:
            row[column] = current.get(column)
        else:
            row[column] = default_value(plan, column, now)
    return row


def _current_type(plan: TablePlan, column: str, value: Any) -> Any:
    try:
        return conform(value, plan.types.get(column))
    except ConversionError:
        return None  # decoding already refused values that do not fit the current type


def row_sort_key(values: Row, columns: Sequence[str]) -> tuple[Any, ...]:
    """A total order on rows by the given columns, as Spark orders the typed columns (ascending, NULL
    first): numbers by value with NaN after every other (+Infinity too), timestamps by instant (the text
    of the year 999 sorts after 1000), the rest as text."""
    return tuple(sort_key(values.get(c)) for c in columns)


def sort_key(value: Any) -> tuple[Any, ...]:
    if value is None:
        return (0,)
    if isinstance(value, float):
        return (1, 1) if value != value else (1, 0, Decimal(value))  # Decimal(value) is exact
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return (1, 0, Decimal(value))
    if isinstance(value, datetime):
        return (2, value)
    return (3, to_text(value) or "")


Grouping = Literal["key", "table", "site"]


def fold_grouping(ctx: RunContext, table_key: str) -> Grouping:
    """The finest grouping of a table's events that `fold_events` can take one group at a time.

    `site` when any table's scope is `transaction`; `table` when a row can be reached by other columns
    than its identity (a mapping's DKey that is not the identity, a journal mapping, or a unique index
    besides the identity); otherwise `key`: the events of one (site, table, identity value).
    """
    if any(plan.scope == "transaction" for plan in ctx.tables.values()):
        return "site"
    plan = ctx.tables[table_key]
    identity = set(plan.identity)
    for mapping in ctx.into(table_key):
        if mapping.dkey is None or set(mapping.dkey) != identity:
            return "table"
    if any(set(columns) != identity for _, columns in plan.unique_sets):
        return "table"
    return "key"


def group_key(event: Event, ctx: RunContext) -> tuple[Any, ...]:
    """The (site, table, identity values) group of an event, for `key` grouping."""
    plan = ctx.tables[event["table"]]
    image = event["new"] if event.get("new") is not None else event.get("old")
    values = dict(zip(plan.identity, identity_values(plan, image), strict=True))
    return (event["site"], event["table"], *(to_text(values[c]) for c in sorted(plan.identity)))
