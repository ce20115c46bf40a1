"""Update conflicts resolved by Spark's windows (issue 38, item 2) as the reference resolves them: every
method whose outcome is an order statistic or a sum, with its backups, over random conflicting keys (their
lines written by Spark, or by Python where a value is not plain text); and B2's topology, whose run
directory is the in-process engine's."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from benchmarks import topology
from engine.model import load_model
from engine.run.rundir.write import jsonl_line, time_order_key
from engine.run.semantics.context import build_context
from engine.run.semantics.fold import fold_events
from engine.run.semantics.reference import BEGINNING
from engine.spark import resolve as resolve_module
from engine.spark import resolve_native
from engine.spark.pipeline import configure
from engine.spark.resolve import resolve, rows_of
from tests.builders import col, mapping, model, server, table
from tests.spark.sparkkit import both

pytestmark = pytest.mark.slow

ROW = ("struct<ID: bigint, NAME: string, TS: timestamp, N: int, M: decimal(8,2), AMT: decimal(6,2), "
       "TAG: string, Q: bigint>")
EVENTS = (f"kind string, rank int, at timestamp, commit_ts timestamp, origin string, txn string, seq bigint, "
          f"op string, mapping string, version int, error string, old_json string, new_json string, "
          f"old {ROW}, new {ROW}")
COLUMNS = ("ID", "NAME", "TS", "N", "M", "AMT", "TAG", "Q")
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
GROUPS = [
    {"name": "name_cg", "columns": ["NAME", "TS"],
     "resolution": [{"method": "latest_timestamp", "column": "TS"}, {"method": "site_priority"}]},
    {"name": "n_cg", "columns": ["N"], "resolution": [{"method": "maximum", "column": "N"}, {"method": "discard"}]},
    {"name": "m_cg", "columns": ["M"], "resolution": [{"method": "minimum", "column": "M"},
                                                      {"method": "earliest_timestamp", "column": "TS"},
                                                      {"method": "overwrite"}]},
    {"name": "amt_cg", "columns": ["AMT"], "resolution": [{"method": "additive"}]},
    {"name": "tag_cg", "columns": ["TAG"], "resolution": [
        {"method": "priority_group", "column": "TAG", "priorities": {"gold": 3, "silver": 2, "bronze": 1}},
        {"method": "site_priority"}]},
    {"name": "q_cg", "columns": ["Q"], "resolution": [{"method": "additive"}, {"method": "overwrite"}]},
]


def _model() -> Any:
    cols = [col("ID", "BIGINT", nullable=False), col("NAME", "VARCHAR(20)"), col("TS", "TIMESTAMP"),
            col("N", "INTEGER"), col("M", "DECIMAL(8,2)"), col("AMT", "DECIMAL(6,2)"), col("TAG", "VARCHAR(10)"),
            col("Q", "BIGINT")]
    sites = [server("t", priority=10), server("a", priority=30), server("c", priority=20), server("d", priority=20)]
    return model(sites, [table(s["id"], "T", cols, pk=["ID"]) for s in sites],
                 [mapping(f"{s}_t", f"{s}.T", "t.T", {c: c for c in COLUMNS}) for s in ("a", "c", "d")],
                 conflicts=[{"table": "t.T", "column_groups": GROUPS}])


def _random_row(rng: random.Random, key: int, base: dict[str, Any]) -> dict[str, Any]:
    """`base` with some columns changed, from small pools: ties, NULLs and an overflowing sum happen."""
    row = dict(base)
    pools: dict[str, list[Any]] = {
        "NAME": ["x", "y", None], "TS": [T0, T0 + timedelta(hours=1), None], "N": [1, 5, None],
        "M": [Decimal("1.50"), Decimal("2.25"), None],
        "AMT": [Decimal("120.00"), Decimal("-20.50"), Decimal("9000.00"), None],
        "TAG": ["gold", "bronze", "gold", "bronze", "tin", None], "Q": [3, 40, None]}
    for name in rng.sample(list(pools), rng.randint(1, 4)):
        row[name] = rng.choice(pools[name])
    row["ID"] = key
    return row


def _events(rng: random.Random, keys: int) -> list[dict[str, Any]]:
    """Per key: the row at t, a local change there, then two or three sites' changes of the row as it was
    (each a conflict where a group it changes was changed before), a few a change that follows one of them."""
    events: list[dict[str, Any]] = []

    def event(kind: str, when: datetime, origin: str, txn: str, old: Any, new: Any) -> None:
        out = {"kind": kind, "site": "t", "table": "t.T", "at": when, "origin": origin, "txn": txn, "seq": 0,
               "op": "I" if old is None else "U", "old": old, "new": new,
               "commit_ts": BEGINNING if kind == "snapshot" else when - timedelta(seconds=3)}
        if kind == "delivery":
            out["mapping"] = f"{origin}_t"
        events.append(out)

    for key in range(keys):
        base = {"ID": key, "NAME": "b", "TS": T0 - timedelta(days=1), "N": 3, "M": Decimal("2.00"),
                "AMT": Decimal("100.00"), "TAG": "silver", "Q": 10}
        start = T0 + timedelta(minutes=key)
        event("snapshot", BEGINNING, "t", "", None, base)
        event("local", start, "t", f"t{key}", base, _random_row(rng, key, base))
        sites = ["a", "c", "d"][:rng.choice((1, 2, 2, 3))]
        for n, site in enumerate(sites, start=1):
            new = _random_row(rng, key, base)
            event("delivery", start + timedelta(seconds=n), site, f"{site}{key}", base, new)
            if rng.random() < 0.2:  # the same site's next change, from the row it sent
                event("delivery", start + timedelta(seconds=10 + n), site, f"{site}{key}b", new,
                      _random_row(rng, key, new))
    # a key whose conflicts hold text Spark does not write (Python writes their lines)
    base = {"ID": keys, "NAME": "b", "TS": T0, "N": 3, "M": Decimal("2.00"), "AMT": Decimal("100.00"),
            "TAG": "silver", "Q": 10}
    event("snapshot", BEGINNING, "t", "", None, base)
    event("local", T0, "t", "t-odd", base, dict(base, NAME="Zürich", TS=T0 + timedelta(hours=2)))
    event("delivery", T0 + timedelta(seconds=1), "a", "a-odd", base, dict(base, NAME='say "hi"', TS=T0))
    return events


def _frame(spark: SparkSession, events: list[dict[str, Any]]) -> DataFrame:
    rank = {"snapshot": 0, "local": 1, "delivery": 2}
    return spark.createDataFrame(
        [(e["kind"], rank[e["kind"]], e["at"], e["commit_ts"], e["origin"], e["txn"], e["seq"], e["op"],
          e.get("mapping"), None, None, None, None, e["old"], e["new"]) for e in events], EVENTS)


def test_conflicts_of_every_native_method_resolve_as_the_reference_and_b2_gives_its_run_directory(
        spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configure(spark, 0)  # planned as the pipeline plans an input this small
    m = _model()
    events = _events(random.Random(38), 30)
    frames = {t.key: _frame(spark, events) if t.key == "t.T" else spark.createDataFrame([], EVENTS)
              for t in m.tables}
    kept: list[DataFrame] = []

    def keep(frame: DataFrame) -> DataFrame:  # as the pipeline keeps them
        kept.append(frame.localCheckpoint())
        return kept[-1]

    resolved = resolve(frames, m, keep, rounds=2)
    oracle = fold_events(events, build_context(m))

    # the final rows, every conflict's line, the outcomes: the reference's
    t_table = m.table("t.T")
    assert t_table is not None
    assertDataFrameEqual(rows_of(resolved, t_table).select("row"),
                         spark.createDataFrame([(r["values"],) for r in oracle.rows], f"row {ROW}"))
    assertDataFrameEqual(resolved.reference.where(F.col("kind") == "conflict").select("sort", "text"),
                         spark.createDataFrame([(time_order_key(c), jsonl_line(c)) for c in oracle.conflicts],
                                               "sort string, text string"))
    assertDataFrameEqual(resolved.reference.where(F.col("kind") == "queue").select("sort", "text"),
                         spark.createDataFrame([(time_order_key(q), jsonl_line(q)) for q in oracle.queue],
                                               "sort string, text string"))
    statuses = {s: [o["status"] for o in oracle.outcomes].count(s) for s in ("applied", "resolved", "queued")}
    folded = {r["status"]: r["n"] for r in resolved.reference.where(F.col("kind") == "outcome")
              .groupBy("status").agg(F.sum("n").alias("n")).collect()}
    assert resolved.applied_natively() + folded.get("applied", 0) == statuses["applied"]
    assert folded.get("resolved", 0) == statuses["resolved"] and folded.get("queued", 0) == statuses["queued"]

    # every method decided a conflict somewhere, backups too, and the windows resolved most of them (a key's
    # third conflict, and a group a chain leaves unresolved, are the reference's), with every method
    decided = {(c["column_group"], c["method"], c["outcome"]) for c in oracle.conflicts}
    for method in ("latest_timestamp", "site_priority", "maximum", "discard", "minimum", "earliest_timestamp",
                   "overwrite", "additive", "priority_group"):
        assert any(d[1] == method for d in decided), method
    assert ("amt_cg", None, "unresolved") in decided  # a sum past DECIMAL(6,2): the reference's queue
    checks = [frame for frame in kept if dict(frame.dtypes).get("_conflicts", "").startswith("struct")]  # t.T's
    native = [g for check in checks for r in check.where("_conflicts IS NOT NULL").select("_conflicts.groups")
              .collect() for g in r[0]]
    assert {g["method"] for g in native} == {d[1] for d in decided if d[1] is not None}
    assert len(native) >= 0.6 * len(oracle.conflicts)

    # B2's topology at 240 events, its mappings listing their columns in the reverse of the tables' order
    # (a delivery's images keep the mapping's order in the reference): the run directory of the reference,
    # the reference folding every conflict, or Spark's windows resolving them
    topo = topology.plan(240, seed=5)
    model_path, data = topology.write(topo, tmp_path / "in")
    doc = json.loads(model_path.read_text())
    for m_doc in doc["mappings"]:
        m_doc["columns"] = dict(reversed(list(m_doc["columns"].items())))
    model_path.write_text(json.dumps(doc))
    monkeypatch.setattr(resolve_native, "ROUNDS_FROM_EVENTS", 1)  # however few events a table hands over
    planned: list[int] = []
    real = resolve_module._checked
    monkeypatch.setattr(resolve_module, "_checked", lambda *a: planned.append(a[3]) or real(*a))
    for rounds in (0, 2):
        monkeypatch.setattr(resolve_native, "SMALL_ROUNDS", rounds)  # a small run's rounds of windows
        planned.clear()
        got, want = both(spark, load_model(model_path), data, tmp_path / str(rounds))
        assert got == want
        assert max(planned) == rounds  # the second check ran, or did not
    assert '"outcome": "merged"' in want["conflicts.jsonl"] and '"outcome": "remote"' in want["conflicts.jsonl"]
    assert '"remote_old": {"BALANCE": ' in want["conflicts.jsonl"]
