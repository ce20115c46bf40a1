"""Latest timestamp with a site-priority backup converges for 3 to 5 masters, in every delivery order tried
(seed 003: "YES (with backup method)"): concurrent updates from the same row, timestamps that may tie,
random delays and outages on every link. The winner is the latest update, ties to the highest priority."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from runkit import build, copy_mapping, rec, rows, run, table, ts

PRIORITIES = [50, 40, 30, 20, 10]
COLUMNS = {"ID": "INTEGER", "X": "INTEGER", "TS": "TIMESTAMP"}
START = {"ID": 1, "X": 0, "TS": ts(0)}


def masters(n: int) -> tuple[list[str], Any]:
    sites = [f"S{i}" for i in range(n)]
    links = [(a, b) for a in sites for b in sites if a != b]
    group = [{"name": "x_cg", "columns": ["X", "TS"],
              "resolution": [{"method": "latest_timestamp", "column": "TS"}, {"method": "site_priority"}]}]
    model = build([{"id": s, "dbms": "oracle", "priority": p} for s, p in zip(sites, PRIORITIES, strict=False)],
                  [table(s, "T", COLUMNS, ["ID"]) for s in sites],
                  [copy_mapping(f"{a}_to_{b}", f"{a}.T", f"{b}.T", list(COLUMNS)) for a, b in links],
                  [{"table": f"{s}.T", "column_groups": group} for s in sites])
    return sites, model


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]], list[tuple[int, int]]]:
    n = draw(st.integers(3, 5))
    writers = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=n, unique=True))
    updates = [(w, draw(st.integers(1, 4))) for w in writers]  # (site index, minute): ties are likely
    links = [(draw(st.integers(0, 600)), draw(st.integers(0, 12))) for _ in range(n * (n - 1))]
    return n, updates, links


@given(scenarios())
@settings(max_examples=60, deadline=None)
def test_latest_timestamp_with_site_priority_converges_for_three_to_five_masters(scenario: Any) -> None:
    n, updates, delays = scenario
    sites, model = masters(n)
    lines = [rec(sites[w], f"t{w}", "U", START, {"ID": 1, "X": 100 + w, "TS": ts(minute)}, at=ts(minute))
             for w, minute in updates]
    links = [(a, b) for a in sites for b in sites if a != b]
    schedule = {"links": [{"from": a, "to": b, "delay_s": d, **({"down": [[ts(0), ts(o)]]} if o else {})}
                          for (a, b), (d, o) in zip(links, delays, strict=True)]}
    result = run(model, lines, {f"{s}.T": [START] for s in sites}, schedule)
    winner = max(updates, key=lambda u: (u[1], PRIORITIES[u[0]]))[0]
    assert result.conflicts, "concurrent updates from one row always conflict somewhere"
    assert result.error_queue == []
    assert all(d == 0 for d in result.diverged().values()), result.diverged()
    assert {s: [r["X"] for r in rows(result, f"{s}.T")] for s in sites} == {s: [100 + winner] for s in sites}


def test_a_five_way_timestamp_tie_is_broken_by_site_priority() -> None:
    sites, model = masters(5)
    lines = [rec(s, f"t{i}", "U", START, {"ID": 1, "X": 100 + i, "TS": ts(3)}, at=ts(3)) for i, s in enumerate(sites)]
    result = run(model, lines, {f"{s}.T": [START] for s in sites})
    assert {c["method"] for c in result.conflicts} == {"site_priority"}
    assert {s: [r["X"] for r in rows(result, f"{s}.T")] for s in sites} == {s: [100] for s in sites}


def test_a_target_row_the_mapping_could_not_have_written_is_not_its_divergence() -> None:
    """hq's own orders (ORIGIN 'HQ') are not a divergence of the branch mapping that stamps ORIGIN 'BRANCH';
    a branch-stamped row missing at its source still is."""
    cols = {"ID": "INTEGER", "ORIGIN": "VARCHAR(8)"}
    model = build([{"id": "br", "dbms": "db2"}, {"id": "hq", "dbms": "oracle"}],
                  [table("br", "T", {"ID": "INTEGER"}, ["ID"]), table("hq", "T", cols, ["ID"])],
                  [{"id": "m", "source": "br.T", "target": "hq.T",
                    "columns": {"ID": "ID", "ORIGIN": {"method": "constant", "value": "BRANCH"}}}])
    snapshots = {"br.T": [{"ID": 1}], "hq.T": [{"ID": 1, "ORIGIN": "BRANCH"}, {"ID": 2, "ORIGIN": "HQ"},
                                                {"ID": 3, "ORIGIN": "BRANCH"}]}
    report = run(model, [], snapshots).convergence[0]
    assert (report["compared"], report["diverged"]) == (2, 1)
    assert report["examples"][0]["dkey"] == {"ID": 3}
