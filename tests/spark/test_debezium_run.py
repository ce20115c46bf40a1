"""A run on the Debezium version of the sample gives the run directory the Mapwright-format version gives
(Spark reading the Debezium events, the reference the Mapwright records)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from sparkkit import reference_run, rundir_doc, spark_run

from engine.model import load_model
from engine.sampledata import generate
from resources import SAMPLE_MODEL


def test_the_debezium_sample_gives_the_same_run_directory(spark: Any, tmp_path: Path) -> None:
    model = load_model(SAMPLE_MODEL)
    mapwright, debezium = tmp_path / "mapwright", tmp_path / "debezium"
    generate(model, mapwright, seed=11, rows=240, changes=400)
    generate(model, debezium, seed=11, rows=240, changes=400, debezium=True)
    assert not (debezium / "snapshots").exists() and not list(debezium.glob("changes/*.jsonl"))
    tombstones = sum(p.read_text().count("\nnull\n") for p in debezium.glob("changes/debezium/*/*.jsonl"))

    spark_run(spark, model, debezium, tmp_path / "from-debezium")
    reference_run(model, debezium, tmp_path / "reference-from-debezium")
    assert rundir_doc(tmp_path / "from-debezium") == rundir_doc(tmp_path / "reference-from-debezium")
    reference_run(model, mapwright, tmp_path / "from-mapwright")

    got, want = rundir_doc(tmp_path / "from-debezium"), rundir_doc(tmp_path / "from-mapwright")
    assert tombstones > 0 and got["manifest"]["counts"].pop("skipped") == tombstones
    assert "skipped" not in want["manifest"]["counts"]  # a run without Debezium input: the contract's counts
    assert want["manifest"]["counts"]["rejects"] > 0 and want["manifest"]["counts"]["conflicts"] > 0
    rejects = [json.loads(line) for line in got.pop("rejects.jsonl").splitlines()]
    expected = [json.loads(line) for line in want.pop("rejects.jsonl").splitlines()]
    assert Counter(Path(r["file"]).name for r in rejects) == Counter(Path(r["file"]).name for r in expected)
    assert got == want  # tables, conflicts, error queue, convergence, the manifest's status and counts


def test_debezium_events_over_a_csv_snapshot_give_the_reference_s_run_directory(spark: Any, tmp_path: Path) -> None:
    """A snapshot file and Debezium events in one run (the contract allows both): the file's rows and the
    Debezium rows are one table's snapshot to Spark as well (the differential probe's find: Spark failed
    the run, unable to union the two)."""
    model = load_model(SAMPLE_MODEL)
    data = tmp_path / "data"
    (data / "snapshots" / "hq").mkdir(parents=True)
    (data / "snapshots" / "hq" / "PRODUCT.csv").write_text(
        "SKU,EAN,DESCRIPTION,CATEGORY,UNIT_PRICE,DISCONTINUED,UPDATED_AT\nS1,,Widget,tools,1.50,N,\n")
    image = {"SKU": "S1", "EAN": None, "DESCRIPTION": "Widget", "CATEGORY": "tools", "UNIT_PRICE": "1.50",
             "DISCONTINUED": "N", "UPDATED_AT": None}
    source = {"version": "2.7.3.Final", "connector": "oracle", "name": "hq", "ts_ms": 1767600300000,
              "snapshot": "false", "db": "ORCLPDB1", "schema": "HQ", "table": "PRODUCT", "txId": "1"}
    events = [{"before": image, "after": {**image, "UNIT_PRICE": "2.50"}, "source": source, "op": "u"},
              {"before": None, "after": {**image, "SKU": "S2"}, "source": {**source, "snapshot": "true"}, "op": "r"},
              {"op": "m", "ts_ms": 1767600300001, "source": {**source, "table": ""},  # a logical message: skipped
               "message": {"prefix": "audit", "content": "Ymfy"}}]
    (data / "changes" / "debezium" / "hq").mkdir(parents=True)
    (data / "changes" / "debezium" / "hq" / "a.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))

    spark_run(spark, model, data, tmp_path / "spark")
    reference_run(model, data, tmp_path / "reference")
    got = rundir_doc(tmp_path / "spark")
    assert got["manifest"]["status"] == "succeeded"
    assert got == rundir_doc(tmp_path / "reference")
    assert got["manifest"]["counts"]["records"] == 1 and got["manifest"]["counts"]["deliveries"] == 2
    assert got["manifest"]["counts"]["skipped"] == 1 and got["manifest"]["counts"]["rejects"] == 0
