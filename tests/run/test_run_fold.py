"""The fold is a function of one group's events: folding each key group alone gives what one fold over
everything gives, which is what lets a Spark stage call it per key group."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from runkit import build, copy_mapping, pair, rec, table, ts

from engine.run.input.records import decode_lines
from engine.run.input.schedule import parse_schedule
from engine.run.semantics.context import build_context
from engine.run.semantics.fold import FoldOutput, fold_events, fold_grouping, group_key
from engine.run.semantics.reference import build_events

SITES = {"A": 30, "B": 25, "C": 10}
COLUMNS = {"ID": "INTEGER", "X": "INTEGER", "TS": "TIMESTAMP"}
MODEL = build([{"id": s, "dbms": "oracle", "priority": p} for s, p in SITES.items()],
              [table(s, "T", COLUMNS, ["ID"]) for s in SITES],
              [copy_mapping(f"{a}_{b}", f"{a}.T", f"{b}.T", list(COLUMNS)) for a in SITES for b in SITES if a != b],
              [{"table": f"{s}.T", "on_insert_exists": "as_update", "on_update_missing": "insert",
                "column_groups": [{"name": "x", "columns": ["X", "TS"],
                                   "resolution": [{"method": "latest_timestamp", "column": "TS"},
                                                  {"method": "site_priority"}]}]} for s in SITES])
CTX = build_context(MODEL)

operation = st.tuples(st.sampled_from(list(SITES)), st.integers(0, 20), st.sampled_from("IUUD"),
                      st.integers(1, 3), st.integers(1, 3), st.integers(0, 9))


def records_of(ops: list[tuple[str, int, str, int, int, int]]) -> list[str]:
    lines = []
    for n, (site, minute, op, key, new_key, x) in enumerate(ops):
        before = {"ID": key, "X": x - 1, "TS": ts(0)}
        after = {"ID": new_key if op == "U" else key, "X": x, "TS": ts(minute)}
        lines.append(rec(site, f"{site}{n}", op, before if op != "I" else None, after if op != "D" else None,
                         at=ts(minute)))
    return lines


def canonical(out: FoldOutput) -> dict[str, list[str]]:
    def dump(items: list[dict[str, Any]]) -> list[str]:
        return sorted(json.dumps(i, sort_keys=True, default=str) for i in items)
    return {"rows": dump(out.rows), "conflicts": dump(out.conflicts), "queue": dump(out.queue),
            "outcomes": dump(out.outcomes)}


@given(st.lists(operation, min_size=1, max_size=14), st.lists(st.integers(0, 600), min_size=6, max_size=6))
@settings(max_examples=80, deadline=None)
def test_folding_each_key_group_alone_equals_one_fold(ops: list[Any], delays: list[int]) -> None:
    assert fold_grouping(CTX, "A.T") == "key"
    records, _ = decode_lines((("f", i, line) for i, line in enumerate(records_of(ops), 1)), MODEL)
    links = [(a, b) for a in SITES for b in SITES if a != b]
    pairs = zip(links, delays, strict=True)
    schedule = parse_schedule({"links": [{"from": a, "to": b, "delay_s": d} for (a, b), d in pairs]})
    snapshots = {f"{s}.T": [{"ID": 1, "X": 0, "TS": None}] for s in SITES}
    events, deliveries, _ = build_events(CTX, records, snapshots, schedule)
    everything = events + deliveries
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for event in everything:
        groups[group_key(event, CTX)].append(event)
    merged = FoldOutput()
    for group in groups.values():
        part = fold_events(group, CTX)
        merged.rows += part.rows
        merged.conflicts += part.conflicts
        merged.queue += part.queue
        merged.outcomes += part.outcomes
    assert canonical(merged) == canonical(fold_events(everything, CTX))


def test_the_grouping_widens_where_rows_are_reached_by_more_than_their_key() -> None:
    unique = pair({"NAME": "VARCHAR(9)"}, target_extra={"unique_indexes": [{"name": "UX", "columns": ["NAME"]}]})
    assert fold_grouping(build_context(unique), "t.T") == "table"
    other_key = pair(distribution_key=["ID", "A"])
    assert fold_grouping(build_context(other_key), "t.T") == "table"
    scoped = pair(conflicts={"scope": "transaction"})
    assert fold_grouping(build_context(scoped), "s.T") == "site"
    assert fold_grouping(build_context(pair()), "t.T") == "key"
