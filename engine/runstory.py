"""The story of a run in plain words: why changes were queued and why mappings diverged, and what would fix it.

`run_story(model, conflicts, error_queue, convergence)` reads what a run left (docs/contract.md §6) with the
model it ran and returns a few short lines, one per queued reason and one per diverged mapping, each saying
why and which method or policy would resolve it. Pure: no files, no Qt; the browser's banner shows it.

Queued changes are grouped by where they landed, the mapping and the reason the run gave. A diverged
mapping is explained from its example keys (the run keeps up to 20): a key with a change queued follows
from the queue lines; a key where `discard` or an append method kept the copies apart differs by design;
a key with no such conflict is explained by the model where it can be: a change a site receives is not
passed on (docs/contract.md §4), so a table that receives from a third site which has no mapping of its own
to the other end leaves that end behind.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from engine.model.methods import Constant
from engine.model.schema import Model

Record = Mapping[str, Any]
Key = tuple[tuple[str, str], ...]

ROLLED_BACK = re.compile(r"^transaction (?P<txn>\S+) rolled back at (?P<site>\S+): (?P<cause>.*)$")
APPEND_METHODS = ("append_site_name", "append_sequence")


def run_story(model: Model, conflicts: Sequence[Record], error_queue: Sequence[Record],
              convergence: Sequence[Record]) -> list[str]:
    """One line per queued reason, then one per diverged mapping; empty for a run with neither."""
    return queue_lines(model, conflicts, error_queue) + divergence_lines(model, conflicts, error_queue, convergence)


# --- the error queue ---------------------------------------------------------------------------------


def queue_lines(model: Model, conflicts: Sequence[Record], error_queue: Sequence[Record]) -> list[str]:
    """`N <ops> from <origin> queued at <site.table> (<mapping>): <why> — <fix>`, one per group."""
    groups: dict[tuple[str, str, str, str], list[Record]] = defaultdict(list)
    for entry in error_queue:
        table = f"{entry.get('site')}.{entry.get('table')}"
        rolled = ROLLED_BACK.match(str(entry.get("reason") or ""))
        reason = f"rolled back: {rolled['cause']}" if rolled else str(entry.get("reason") or "")
        groups[(table, str(entry.get("mapping")), str(entry.get("origin")), reason)].append(entry)
    lines = []
    for (table, mapping, origin, reason), entries in groups.items():
        ops = Counter(str(e.get("op")) for e in entries)
        what = ", ".join(f"{n} {_op_name(op, n)}" for op, n in sorted(ops.items()))
        why = _why_queued(model, table, reason, entries, conflicts)
        lines.append(f"{what} from {origin} queued at {table} ({mapping}): {why}")
    return lines


def _op_name(op: str, n: int) -> str:
    name = {"I": "insert", "U": "update", "D": "delete"}.get(op, "change")
    return name if n == 1 else f"{name}s"


def _why_queued(model: Model, table: str, reason: str, entries: Sequence[Record], conflicts: Sequence[Record]) -> str:
    if reason.startswith("rolled back: "):
        return (f"rolled back with their transactions (scope: transaction) after an earlier change of each met "
                f"\"{reason.removeprefix('rolled back: ')}\" — fixing that cause applies them too")
    if reason == "a row with this distribution key already exists":
        return ("the key already exists there and on_insert_exists is error — on_insert_exists: as_update "
                "(resolve column by column) or overwrite would apply them")
    if reason == "the row to update is missing":
        return ("the row is gone there (deleted meanwhile) and on_update_missing is error — "
                "on_update_missing: insert would bring it back, discard would drop the update")
    if reason == "the row to delete is missing":
        return ("the row was already deleted there (deleted at both sites) and on_delete_missing is error — "
                "on_delete_missing: discard would resolve them")
    if reason.startswith("old values differ from the current row in "):
        columns = reason.removeprefix("old values differ from the current row in ")
        return (f"the row changed there ({columns}) before the delete arrived; no method resolves a delete "
                f"conflict — a person decides these from the queue")
    if reason.startswith("shadow column group differs in "):
        columns = reason.removeprefix("shadow column group differs in ")
        return (f"{columns} changed at both sites and is in no column group of {table}, so nothing resolves it — "
                f"put {columns} in a column group with a resolution (site_priority always decides)")
    groups = _undecided_groups(entries, conflicts)
    if groups:
        named = ", ".join(sorted(groups))
        return (f"no method of {named} decided (every one tied or could not order the values) — add "
                f"site_priority as the last method of {named}")
    if "several rows" in reason:
        return f"{reason} — make the mapping's distribution key unique in {table}"
    return reason or "no reason given"


def _undecided_groups(entries: Sequence[Record], conflicts: Sequence[Record]) -> set[str]:
    """The column groups whose chain ended undecided on these queued changes."""
    txns = {(str(e.get("site")), str(e.get("txn")), str(e.get("mapping"))) for e in entries}
    return {str(c["column_group"]) for c in conflicts
            if c.get("outcome") == "unresolved" and c.get("column_group")
            and (str(str(c.get("table")).split(".")[0]), str(c.get("txn")), str(c.get("mapping"))) in txns}


# --- convergence -------------------------------------------------------------------------------------


def divergence_lines(model: Model, conflicts: Sequence[Record], error_queue: Sequence[Record],
                     convergence: Sequence[Record]) -> list[str]:
    """`<mapping> diverged on N keys: <causes>`, one per diverged mapping, from its example keys."""
    lines = []
    by_id = {m.id: m for m in model.mappings}
    for entry in convergence:
        diverged = int(entry.get("diverged") or 0)
        mapping = by_id.get(str(entry.get("mapping")))
        if not diverged or mapping is None:
            continue
        causes = _causes(model, mapping.id, entry.get("examples") or [], conflicts, error_queue)
        shown = len(entry.get("examples") or [])
        scope = f"of {shown} example keys, " if shown < diverged else ""
        said = "; ".join(f"{n} {why}" for why, n in causes.most_common()) if causes else "no example keys kept"
        lines.append(f"{mapping.id} diverged on {diverged:,} key{'s' if diverged != 1 else ''}: {scope}{said}")
    return lines


def _causes(model: Model, mapping_id: str, examples: Sequence[Record], conflicts: Sequence[Record],
            error_queue: Sequence[Record]) -> Counter[str]:
    mapping = next(m for m in model.mappings if m.id == mapping_id)
    ends = {mapping.source, mapping.target}
    queued = {k for e in error_queue if f"{e.get('site')}.{e.get('table')}" in ends
              for k in (_key(e.get("after")), _key(e.get("before"))) if k}
    touched: dict[Key, list[Record]] = defaultdict(list)
    for c in conflicts:
        if str(c.get("table")) in ends:
            touched[_key(c.get("dkey"))].append(c)
    gaps = not_passed_on(model, mapping_id)
    causes: Counter[str] = Counter()
    for example in examples:
        dkey = example.get("dkey") or {}
        key = _key(dkey)
        queued_here = any(_within(dkey, k) for k in queued) or any(
            c.get("outcome") == "unresolved" for c in touched.get(key, []))
        if queued_here:
            causes["with a change queued (see the queue lines above)"] += 1
            continue
        by_design = _by_design(touched.get(key, [])) or _kept_one_way(model, mapping_id, touched.get(key, []))
        if by_design:
            causes[by_design] += 1
        elif gaps:
            causes[gaps[0]] += 1
        else:
            causes["with no conflict recorded: a change that never reached the other end, or rows that already "
                   "differed in the snapshots (compare them in the Convergence tab)"] += 1
    return causes


def _by_design(conflicts: Sequence[Record]) -> str | None:
    for c in conflicts:
        method, table = c.get("method"), c.get("table")
        if method in APPEND_METHODS:
            return (f"where {method} on {c.get('index') or 'a unique index'} of {table} renamed a value to keep it "
                    f"unique: the copies differ by design")
        if method == "discard" and c.get("column_group"):
            return (f"where discard kept {table}'s own {c.get('column_group')}: the copies differ by design "
                    f"(overwrite would converge them)")
        if method == "discard" and c.get("reason") == "the row to update is missing":
            return (f"where on_update_missing: discard dropped an update of a row {table} had deleted: "
                    f"on_update_missing: insert would converge them")
        if method == "discard" and c.get("type") == "uniqueness":
            return f"where discard kept {table}'s own row: the copies differ by design"
    return None


def _kept_one_way(model: Model, mapping_id: str, conflicts: Sequence[Record]) -> str | None:
    """A conflict the target won, on a mapping nothing maps back: the target's own change never returns."""
    mapping = next(m for m in model.mappings if m.id == mapping_id)
    if any(m.source == mapping.target and m.target == mapping.source for m in model.mappings):
        return None
    for c in conflicts:
        if c.get("outcome") == "local" and c.get("table") == mapping.target:
            return (f"where {c.get('method')} kept {mapping.target}'s own value, which no mapping sends back to "
                    f"{mapping.source} — a reverse mapping would converge them")
    return None


def not_passed_on(model: Model, mapping_id: str) -> list[str]:
    """Why a mapping's ends drift apart without any conflict: an end receives changes from a third table
    (another site's) that has no mapping of its own to the other end, and a site passes on only its own
    changes. A third mapping that stamps a constant into a column the mapping's `where` reads is left out:
    its rows are not the mapping's to send (HQ's copy of the branch's orders, say)."""
    mapping = next(m for m in model.mappings if m.id == mapping_id)
    direct = {(m.source, m.target) for m in model.mappings}
    said = []
    for here, there in ((mapping.source, mapping.target), (mapping.target, mapping.source)):
        for other in model.mappings:
            third = other.source
            if other.target != here or third in (here, there) or (third, there) in direct:
                continue
            if here == mapping.source and _stamped_out(other.columns, mapping.where):
                continue
            said.append(f"with no conflict: {here} receives changes from {third} ({other.id}) that are not passed "
                        f"on to {there} (a change travels only from its origin) — map {third} to {there} too, or "
                        f"make those changes at {here}")
    return said


def _stamped_out(columns: Mapping[str, Any], where: str | None) -> bool:
    return bool(where) and any(
        isinstance(method, Constant) and re.search(rf"\b{re.escape(column)}\b", where or "", re.I)
        for column, method in columns.items())


def _key(image: Any) -> Key:
    if not isinstance(image, Mapping):
        return ()
    return tuple(sorted((str(k), str(v)) for k, v in image.items()))


def _within(dkey: Mapping[str, Any], image_key: Key) -> bool:
    """Whether an image (as a key of all its columns) holds these key values."""
    values = dict(image_key)
    return bool(dkey) and all(str(c) in values and values[str(c)] == str(v) for c, v in dkey.items())
