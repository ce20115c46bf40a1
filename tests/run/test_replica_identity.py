"""A server's `replica_identity` (engine/run/semantics/replica.py, detect.py): with `default` (PostgreSQL's REPLICA
IDENTITY DEFAULT) a captured old row holds only the key; the other old values are unknown, never compared.
Debezium's documented delete (before image: the id alone) against a row whose other columns are set was a
delete conflict, the change queued; it now deletes the row. With `full` (the default) nothing changes.
`mapwright run --replica-identity SERVER=default` sets it for one run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import col, mapping, model, server, table
from test_debezium_json_files import DOCS, customers

from engine import cli
from engine.model.io import dump_model
from engine.run.semantics.reference import RunResult, run_reference

ANNE = {"id": 1, "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"}


def data_with(tmp_path: Path, *events: str, records: list[dict[str, Any]] = ()) -> Path:  # type: ignore[assignment]
    """Anne's row at both sites, the documented events (`delete`, `update`) captured at `pg`, and Mapwright
    change `records`."""
    data = tmp_path / "data"
    for site in ("pg", "hq"):
        (data / "snapshots" / site).mkdir(parents=True)
        (data / "snapshots" / site / "customers.jsonl").write_text(json.dumps(ANNE) + "\n")
    (data / "changes" / "debezium" / "pg").mkdir(parents=True)
    for name in events:
        (data / "changes" / "debezium" / "pg" / f"{name}.json").write_text((DOCS / f"{name}.json").read_text())
    (data / "changes" / "own.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return data


def outcome(result: RunResult) -> tuple[list[dict[str, Any]], list[tuple[str, str | None]], dict[str, int]]:
    counts = result.counts.as_dict()
    return (result.tables["hq.customers"], [(c["type"], c["reason"]) for c in result.conflicts],
            {k: counts[k] for k in ("records", "rejects", "applied", "queued", "conflicts")})


def test_the_documented_delete_is_no_conflict_when_the_origin_captures_only_the_key(tmp_path: Path) -> None:
    data = data_with(tmp_path, "delete")
    rows, conflicts, counts = outcome(run_reference(customers("default"), data))
    assert rows == [] and conflicts == []
    assert counts == {"records": 1, "rejects": 0, "applied": 1, "queued": 0, "conflicts": 1 - 1}

    rows, conflicts, counts = outcome(run_reference(customers("full"), data))  # unchanged: NULL is a value
    assert rows == [ANNE]
    assert conflicts == [("delete", "old values differ from the current row in first_name, last_name, email")]
    assert counts["queued"] == 1


def test_the_documented_update_takes_the_new_values_and_compares_the_key_only(tmp_path: Path) -> None:
    """Its before image holds the id alone: with `default` the update applies; a later update whose old id
    is right but whose other old values are wrong is no conflict either (they are not compared)."""
    later = {"site": "pg", "txn": "t9", "commit_ts": "2026-01-05T10:00:00Z", "table": "customers", "op": "U",
             "before": {"id": 1, "first_name": "somebody else"},
             "after": {**ANNE, "first_name": "Anne Marie", "email": "anne@example.org"}}
    data = data_with(tmp_path, "update", records=[later])
    rows, conflicts, counts = outcome(run_reference(customers("default"), data))
    assert rows == [{**ANNE, "first_name": "Anne Marie", "email": "anne@example.org"}] and conflicts == []
    assert counts["applied"] == 2

    rows, conflicts, counts = outcome(run_reference(customers("full"), data))
    assert rows == [ANNE] and counts["queued"] == 2
    assert [kind for kind, _ in conflicts] == ["update", "update"]


def test_an_update_without_a_before_image_is_read_with_the_key_of_its_after_image(tmp_path: Path) -> None:
    """REPLICA IDENTITY DEFAULT sends no old row for an update that keeps the key (`before: null`): a
    `default` server's such update applies; from a `full` server it stays a reject saying what to set."""
    data = data_with(tmp_path)
    event = json.loads((DOCS / "update.json").read_text())
    event["payload"]["before"] = None
    (data / "changes" / "debezium" / "pg" / "update.json").write_text(json.dumps(event, indent=4))
    rows, conflicts, counts = outcome(run_reference(customers("default"), data))
    assert rows == [{**ANNE, "first_name": "Anne Marie"}] and conflicts == [] and counts["rejects"] == 0

    result = run_reference(customers("full"), data)
    assert [r.line for r in result.rejects] == [1] and "replica_identity to default" in result.rejects[0].reason


def test_a_column_computed_from_the_key_alone_is_still_compared(tmp_path: Path) -> None:
    """Only the old values the origin does not capture are unknown: a target column mapped from the key is
    compared as before (here it differs: the delete is a conflict)."""
    cols = [col("id", nullable=False), col("first_name", "VARCHAR(255)"), col("ref", "VARCHAR(20)")]
    m = model([server("pg", replica_identity="default"), server("hq")],
              [table("pg", "customers", [col("id", nullable=False), col("first_name", "VARCHAR(255)")], pk=["id"]),
               table("hq", "customers", cols, pk=["id"])],
              [mapping("m", "pg.customers", "hq.customers",
                       {"id": "id", "first_name": "first_name",
                        "ref": {"method": "expression", "sql": "concat('c-', CAST(id AS STRING))"}})])
    data = tmp_path / "data"
    for site, row in (("pg", {"id": 1, "first_name": "Anne"}), ("hq", {"id": 1, "first_name": "Anne", "ref": "x"})):
        (data / "snapshots" / site).mkdir(parents=True)
        (data / "snapshots" / site / "customers.jsonl").write_text(json.dumps(row) + "\n")
    (data / "changes").mkdir()
    (data / "changes" / "a.jsonl").write_text(json.dumps(
        {"site": "pg", "txn": "t1", "commit_ts": "2026-01-05T10:00:00Z", "table": "customers", "op": "D",
         "before": {"id": 1}}) + "\n")
    result = run_reference(m, data)
    assert [c["reason"] for c in result.conflicts] == ["old values differ from the current row in ref"]


def test_the_run_command_sets_a_server_s_replica_identity_for_one_run(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    data = data_with(tmp_path, "delete")
    model_file = tmp_path / "model.json"
    model_file.write_text(dump_model(customers("full")))
    base = ["run", str(model_file), "--data", str(data), "--engine", "inprocess"]

    # the model says full (a conflict: the first test); the last setting given for pg wins
    assert cli.main([*base, "--out", str(tmp_path / "out"), "--replica-identity", "pg=full",
                     "--replica-identity", "pg=default"]) == 0
    counts = json.loads((tmp_path / "out" / "manifest.json").read_text())["counts"]
    assert counts["conflicts"] == 0 and counts["applied"] == 1
    capsys.readouterr()
    assert cli.main([*base, "--out", str(tmp_path / "x"), "--replica-identity", "nowhere=default"]) == 2
    assert cli.main([*base, "--out", str(tmp_path / "y"), "--replica-identity", "pg=nothing"]) == 2
    assert cli.main([*base, "--out", str(tmp_path / "z"), "--replica-identity", "pg"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 3 and "no server 'nowhere'" in errors[0] and "expected full or default" in errors[1]
    assert "SERVER=full or SERVER=default" in errors[2]
