"""Spark reads Debezium `.json` files and compares old rows by each server's `replica_identity` as the
reference does: the run directories are equal (tests/run/test_debezium_json_files.py and
test_replica_identity.py hold the reference's cases)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from builders import col, mapping, model, server, table
from sparkkit import both

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "debezium_docs"
COLUMNS = [col("id", nullable=False), col("first_name", "VARCHAR(255)", nullable=False),
           col("last_name", "VARCHAR(255)", nullable=False), col("email", "VARCHAR(255)", nullable=False)]


def row(id_: int, name: str) -> dict[str, Any]:
    return {"id": id_, "first_name": name, "last_name": "Kretchmar", "email": f"{name.lower()}@noanswer.org"}


def test_debezium_json_files_and_key_only_old_rows_give_the_reference_s_run_directory(
        spark: Any, tmp_path: Path) -> None:
    """`pg` captures the key only (`default`), `pg2` every column (`full`); both copy to `hq`. At pg: the
    documented update and delete (one transaction, the id alone before), printed one after another in one
    `.json` file; an array on one line of a create and a value that is not an event; text that is not JSON
    between two events; a Mapwright update whose old row holds the key only. At pg2: the documented delete,
    which stays a conflict there (its other old values read as NULL)."""
    m = model([server("pg", replica_identity="default"), server("pg2"), server("hq")],
              [table("pg", "customers", COLUMNS, pk=["id"]), table("pg2", "customers", COLUMNS, pk=["id"]),
               table("hq", "customers", COLUMNS, pk=["id"])],
              [mapping(f"m_{s}", f"{s}.customers", "hq.customers", {c["name"]: c["name"] for c in COLUMNS})
               for s in ("pg", "pg2")])
    data = tmp_path / "data"
    snapshots = {"pg": [row(1, "Anne"), row(2, "Bob")], "pg2": [row(5, "Eve")],
                 "hq": [row(1, "Anne"), row(2, "Bob"), row(5, "Eve")]}
    for site, rows in snapshots.items():
        (data / "snapshots" / site).mkdir(parents=True)
        (data / "snapshots" / site / "customers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    docs = {name: (DOCS / f"{name}.json").read_text() for name in ("create", "update", "delete")}
    create = json.loads(docs["create"])
    create["payload"]["after"] = row(3, "Carl")
    create["payload"]["source"]["txId"] = 700
    for site, files in {"pg": {"a.json": docs["update"] + docs["delete"],
                               "b.json": json.dumps([create, 42]),
                               "c.json": docs["create"].replace('"id": 1,', '"id": 4,') + '{\n  "cut": [\n'
                               + docs["delete"].replace('"id": 1', '"id": 2')},
                        "pg2": {"a.json": docs["delete"].replace('"id": 1', '"id": 5')}}.items():
        (data / "changes" / "debezium" / site).mkdir(parents=True)
        for name, text in files.items():
            (data / "changes" / "debezium" / site / name).write_text(text)
    (data / "changes" / "own.jsonl").write_text(json.dumps(
        {"site": "pg", "txn": "t9", "commit_ts": "2026-01-05T10:00:00Z", "table": "customers", "op": "U",
         "before": {"id": 4}, "after": row(4, "Dora")}) + "\n")

    got, want = both(spark, m, data, tmp_path)
    assert got == want
    counts = got["manifest"]["counts"]
    assert (counts["records"], counts["rejects"], counts["conflicts"], counts["queued"]) == (9, 2, 1, 1)
    rejects = [json.loads(line) for line in got["rejects.jsonl"].splitlines()]
    assert [(Path(r["file"]).name, r["line"]) for r in rejects] == [
        ("b.json", 2), ("c.json", docs["create"].count("\n") + 1)]
    conflict = json.loads(got["conflicts.jsonl"])
    assert (conflict["origin"], conflict["type"], conflict["dkey"]) == ("pg2", "delete", {"id": 5})
    final = {r["id"]: r["first_name"] for r in got["tables/hq/customers.parquet"]["rows"]}
    assert final == {3: "Carl", 4: "Dora", 5: "Eve"}  # pg deleted 1 and 2; pg2's delete of 5 was queued
