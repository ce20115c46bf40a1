"""Convergence with three masters (seed 003): latest timestamp backed by site priority converges whatever
the delivery order; site priority alone does not (Table 5-1)."""

from __future__ import annotations

from itertools import permutations
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from runkit import build, copy_mapping, rec, rows, run, table, ts

from engine.model import Model
from engine.run.semantics.reference import RunResult

SITES = {"A": 30, "B": 25, "C": 10}
LINKS = [(a, b) for a in SITES for b in SITES if a != b]


def three_masters(chain: list[dict[str, Any]], columns: dict[str, str]) -> Model:
    group = [{"name": "x_cg", "columns": [c for c in columns if c != "ID"], "resolution": chain}]
    return build([{"id": s, "dbms": "oracle", "priority": p} for s, p in SITES.items()],
                 [table(s, "T", columns, ["ID"]) for s in SITES],
                 [copy_mapping(f"{a}_to_{b}", f"{a}.T", f"{b}.T", list(columns)) for a, b in LINKS],
                 [{"table": f"{s}.T", "column_groups": group} for s in SITES])


# --- latest timestamp with a site-priority backup --------------------------

LATEST = three_masters([{"method": "latest_timestamp", "column": "TS"}, {"method": "site_priority"}],
                       {"ID": "INTEGER", "X": "INTEGER", "TS": "TIMESTAMP"})
START = {"ID": 1, "X": 0, "TS": ts(0)}
# A and B update the row at the same timestamp (a tie the backup breaks: A has the higher priority);
# C updates it earlier; then B updates it again later, from whatever it holds by then.
CONCURRENT = [
    rec("A", "a1", "U", START, {"ID": 1, "X": 1, "TS": ts(1)}, at=ts(1)),
    rec("B", "b1", "U", START, {"ID": 1, "X": 2, "TS": ts(1)}, at=ts(1)),
    rec("C", "c1", "U", START, {"ID": 1, "X": 3, "TS": ts(0, 30)}, at=ts(0, 30)),
]
LATER = rec("B", "b2", "U", {"ID": 1, "X": 2, "TS": ts(1)}, {"ID": 1, "X": 4, "TS": ts(9)}, at=ts(9))
SNAPSHOTS = {f"{s}.T": [START] for s in SITES}


def schedule_of(delays: list[int], outages: list[int]) -> dict[str, Any]:
    links = []
    for (origin, dest), delay, outage in zip(LINKS, delays, outages, strict=True):
        link: dict[str, Any] = {"from": origin, "to": dest, "delay_s": delay}
        if outage:
            link["down"] = [[ts(0), ts(outage)]]
        links.append(link)
    return {"links": links}


def assert_converged(result: RunResult, x: int) -> None:
    assert result.error_queue == []
    assert all(d == 0 for d in result.diverged().values()), result.diverged()
    assert {s: [r["X"] for r in rows(result, f"{s}.T")] for s in SITES} == {s: [x] for s in SITES}


@given(st.lists(st.integers(0, 900), min_size=6, max_size=6), st.lists(st.integers(0, 20), min_size=6, max_size=6))
@settings(max_examples=60, deadline=None)
def test_latest_timestamp_with_a_site_priority_backup_converges_in_any_delivery_order(
        delays: list[int], outages: list[int]) -> None:
    result = run(LATEST, CONCURRENT, SNAPSHOTS, schedule_of(delays, outages))
    assert_converged(result, x=1)


@given(st.lists(st.integers(0, 900), min_size=6, max_size=6), st.lists(st.integers(0, 20), min_size=6, max_size=6))
@settings(max_examples=40, deadline=None)
def test_a_later_update_wins_everywhere_whatever_it_crosses(delays: list[int], outages: list[int]) -> None:
    result = run(LATEST, [*CONCURRENT, LATER], SNAPSHOTS, schedule_of(delays, outages))
    assert_converged(result, x=4)


def test_some_delivery_orders_do_meet_conflicts() -> None:
    """The property above is not vacuous: orders differ and the backup method is used."""
    seen_methods = set()
    for order in permutations(range(3)):
        delays = [60 * (1 + order[i % 3]) for i in range(6)]
        result = run(LATEST, CONCURRENT, SNAPSHOTS, schedule_of(delays, [0] * 6))
        assert_converged(result, x=1)
        seen_methods |= {c["method"] for c in result.conflicts}
    assert seen_methods == {"latest_timestamp", "site_priority"}


def test_a_timestamp_tie_without_a_backup_is_unresolved() -> None:
    model = three_masters([{"method": "latest_timestamp", "column": "TS"}],
                          {"ID": "INTEGER", "X": "INTEGER", "TS": "TIMESTAMP"})
    result = run(model, CONCURRENT[:2], SNAPSHOTS)
    assert sorted(c["site"] for c in result.conflicts if c["outcome"] == "unresolved") == ["A", "B", "C"]
    assert result.counts.queued == len(result.error_queue) == 3


# --- site priority alone: Table 5-1 ----------------------------------------

PRIORITY_ONLY = three_masters([{"method": "site_priority"}], {"ID": "INTEGER", "X": "INTEGER"})
TABLE_5_1 = [rec("A", "a1", "U", {"ID": 1, "X": 2}, {"ID": 1, "X": 5}, at=ts(2)),
             rec("B", "b1", "U", {"ID": 1, "X": 5}, {"ID": 1, "X": 7}, at=ts(6))]
AGREE = {f"{s}.T": [{"ID": 1, "X": 2}] for s in SITES}


def test_site_priority_alone_reproduces_the_table_5_1_divergence() -> None:
    """C is down for A's push (time 3-9); B's later update reaches C first; A's outdated one then wins."""
    schedule = {"links": [{"from": "A", "to": "B", "delay_s": 120},
                          {"from": "A", "to": "C", "down": [[ts(2), ts(9)]]},
                          {"from": "B", "to": "A", "delay_s": 60},
                          {"from": "B", "to": "C", "delay_s": 120}]}
    result = run(PRIORITY_ONLY, TABLE_5_1, AGREE, schedule)
    assert {s: rows(result, f"{s}.T")[0]["X"] for s in SITES} == {"A": 7, "B": 7, "C": 5}
    assert [(c["site"], c["origin"], c["method"], c["outcome"]) for c in result.conflicts] == [
        ("C", "B", "site_priority", "remote"), ("C", "A", "site_priority", "remote")]
    assert {m for m, d in result.diverged().items() if d} == {"A_to_C", "B_to_C", "C_to_A", "C_to_B"}


def test_site_priority_alone_converges_when_deliveries_keep_their_order() -> None:
    result = run(PRIORITY_ONLY, TABLE_5_1, AGREE, {"links": [{"from": "A", "to": "C", "delay_s": 60}]})
    assert {s: rows(result, f"{s}.T")[0]["X"] for s in SITES} == {"A": 7, "B": 7, "C": 7}
    assert result.conflicts == []
