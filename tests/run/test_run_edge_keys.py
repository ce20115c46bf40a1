"""Keys at the edges of their types: a NaN in a DOUBLE key, timestamps before the year 1000, a server id
that holds a dot. The reference must run them, agree with Spark's order and equality, and address an
error-queue entry to the right site and table."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from runkit import build, copy_mapping, rec, run, table, ts

from engine.model import Model
from engine.run.semantics.fold import row_sort_key, split_table_key

SERVERS = [{"id": "s", "dbms": "postgresql", "priority": 20}, {"id": "t", "dbms": "postgresql", "priority": 10}]


def keyed(key_type: str, servers: list[dict[str, Any]] = SERVERS) -> Model:
    """Table T (K `key_type` primary key, X INTEGER) at each server, mapped from the first to the second."""
    source, target = (s["id"] for s in servers)
    columns = {"K": key_type, "X": "INTEGER"}
    return build(servers, [table(source, "T", columns, ["K"]), table(target, "T", columns, ["K"])],
                 [copy_mapping("m", f"{source}.T", f"{target}.T", list(columns))])


def keys(rows: list[dict[str, Any]]) -> list[Any]:
    return [r["K"] for r in rows]


# --- NaN in a DOUBLE key: NaN equals NaN (values.same_value, Spark's <=>) and sorts after every number ---


def test_a_nan_key_beside_another_key_runs_and_sorts_last() -> None:
    lines = [rec("s", "a1", "I", after={"K": "NaN", "X": 1}, at=ts(0)),
             rec("s", "a2", "I", after={"K": 1.5, "X": 2}, at=ts(1)),
             rec("s", "a3", "I", after={"K": "-Infinity", "X": 3}, at=ts(2)),
             rec("s", "a4", "I", after={"K": "Infinity", "X": 4}, at=ts(3))]
    result = run(keyed("DOUBLE"), lines)
    for key in ("s.T", "t.T"):
        shown = [json.dumps(k) for k in keys(result.tables[key])]
        assert shown == ["-Infinity", "1.5", "Infinity", "NaN"]
    assert result.error_queue == [] and result.conflicts == []
    assert result.diverged() == {"m": 0}


def test_an_update_finds_its_nan_key_row() -> None:
    """Each "NaN" reads as its own float object: the row is still found, at its site and where it lands."""
    lines = [rec("s", "a1", "I", after={"K": "NaN", "X": 1}, at=ts(0)),
             rec("s", "a2", "U", before={"K": "NaN", "X": 1}, after={"K": "NaN", "X": 2}, at=ts(1))]
    result = run(keyed("DOUBLE"), lines)
    for key in ("s.T", "t.T"):
        rows = result.tables[key]
        assert len(rows) == 1 and math.isnan(rows[0]["K"]) and rows[0]["X"] == 2
    assert result.error_queue == [] and result.conflicts == []
    assert result.counts.applied == 2
    assert result.diverged() == {"m": 0}


def test_a_nan_key_chain_in_one_transaction_is_an_update_not_a_key_change() -> None:
    lines = [rec("s", "a1", "I", after={"K": "NaN", "X": 1}, at=ts(0)),
             rec("s", "a2", "U", before={"K": "NaN", "X": 1}, after={"K": "NaN", "X": 2}, at=ts(1), seq=1),
             rec("s", "a2", "U", before={"K": "NaN", "X": 2}, after={"K": "NaN", "X": 3}, at=ts(1), seq=2)]
    result = run(keyed("DOUBLE"), lines)
    assert [r["X"] for r in result.tables["t.T"]] == [3]
    assert result.counts.deliveries == 2 and result.counts.applied == 2
    assert result.diverged() == {"m": 0}


def test_a_diverged_nan_key_is_reported_after_the_numbers() -> None:
    snapshots: dict[str, list[dict[str, Any]]] = {"t.T": [{"K": "NaN", "X": 9}, {"K": 2.5, "X": 9}]}
    result = run(keyed("DOUBLE"), [], snapshots)
    [report] = result.convergence
    assert [e["dkey"]["K"] for e in report["examples"]] == [2.5, "NaN"]


def test_the_sort_key_orders_like_spark() -> None:
    values = [float("nan"), math.inf, None, -math.inf, 0.1, -2, 1]
    ordered = sorted(values, key=lambda v: row_sort_key({"K": v}, ["K"]))
    assert [json.dumps(v) for v in ordered] == ["null", "-Infinity", "-2", "0.1", "1", "Infinity", "NaN"]


# --- timestamps: chronological, as Spark orders a TIMESTAMP column, not by their text -----------


def test_timestamp_keys_before_the_year_1000_sort_chronologically() -> None:
    stamps = ["2026-01-05T10:00:00Z", "1000-01-01T00:00:00Z", "0999-12-31T23:59:59Z", "0099-06-01T00:00:00Z"]
    lines = [rec("s", f"a{i}", "I", after={"K": k, "X": i}, at=ts(i)) for i, k in enumerate(stamps)]
    result = run(keyed("TIMESTAMP"), lines)
    years = [k.year for k in keys(result.tables["t.T"])]
    assert years == [99, 999, 1000, 2026]


def test_diverged_timestamp_keys_are_reported_chronologically() -> None:
    snapshots = {"t.T": [{"K": "1000-01-01T00:00:00Z", "X": 1}, {"K": "0999-01-01T00:00:00Z", "X": 1}]}
    result = run(keyed("TIMESTAMP"), [], snapshots)
    [report] = result.convergence
    assert [e["dkey"]["K"][:4] for e in report["examples"]] == ["0999", "1000"]


def test_the_sort_key_orders_instants_not_text() -> None:
    early, late = datetime(999, 1, 1, tzinfo=UTC), datetime(1000, 1, 1, tzinfo=UTC)
    assert row_sort_key({"K": early}, ["K"]) < row_sort_key({"K": late}, ["K"])


# --- a server id with a dot: `hq.eu.T` is table T of server hq.eu --------------------------------


def test_an_error_queue_entry_names_a_dotted_site_and_its_table() -> None:
    servers = [{"id": "br", "dbms": "postgresql", "priority": 10},
               {"id": "hq.eu", "dbms": "postgresql", "priority": 20}]
    snapshots = {"hq.eu.T": [{"K": 1, "X": 5}]}
    result = run(keyed("INTEGER", servers), [rec("br", "a1", "I", after={"K": 1, "X": 7})], snapshots)
    [entry] = result.error_queue
    assert (entry["site"], entry["table"], entry["op"]) == ("hq.eu", "T", "I")
    assert entry["after"] == {"K": 1, "X": 7}


def test_a_table_key_is_cut_after_its_server() -> None:
    assert split_table_key("hq.eu.T", "hq.eu") == ("hq.eu", "T")
    assert split_table_key("hq.SCOTT.EMP", "hq") == ("hq", "SCOTT.EMP")
