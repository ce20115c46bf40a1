"""Both engines on one run (one Spark run, to keep the suite fast): a transaction's changes are examined in
`seq` order across its tables (docs/contract.md §7, `scope: transaction`), for transactions Spark maps
natively and one it sends the reference's way (a row changed twice); and Debezium Decimals of more than 16
bytes are refused by their length, with that reason (test_debezium_hostile.py has the reference's cases)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from runkit import table
from sparkkit import both
from test_debezium_hostile import priced_event, unscaled
from test_transaction_order import line, two_tables


def _txn(txn: str, minute: int, lines: list[str]) -> list[str]:
    return [json.dumps({**json.loads(text), "txn": txn, "commit_ts": f"2026-01-05T10:{minute:02d}:00Z"})
            for text in lines]


def test_both_engines_examine_a_transaction_in_seq_order(spark: Any, tmp_path: Path) -> None:
    repro = _txn("t1", 0, [line(1, "ACCT", "I", 1), line(2, "ITEM", "U", 2), line(3, "ACCT", "U", 3)])
    twice = _txn("t2", 1, [line(1, "ACCT", "I", 5), line(2, "ITEM", "U", 6), line(3, "ACCT", "U", 7),
                           line(4, "ACCT", "U", 5)])
    applied = _txn("t3", 2, [line(1, "ITEM", "I", 10), line(2, "ACCT", "I", 10), line(3, "ITEM", "I", 11)])
    data = tmp_path / "data"
    (data / "changes" / "debezium" / "a").mkdir(parents=True)
    (data / "changes" / "c.jsonl").write_text("\n".join(list(reversed(repro)) + twice + applied) + "\n")
    huge = base64.b64encode(b"\x01" * 300_000).decode()  # the 2.7 MB repro is test_debezium_hostile's
    events = [priced_event(1, huge), priced_event(2, unscaled(5, 17)), priced_event(3, unscaled(12345))]
    (data / "changes" / "debezium" / "a" / "prices.jsonl").write_text("\n".join(events) + "\n")
    price = table("a", "PRICE", {"ID": "INTEGER", "AMT": "DECIMAL(38,2)"}, ["ID"])

    got, want = both(spark, two_tables(more=(price,)), data, tmp_path / "runs")
    assert got == want
    conflicts = [json.loads(text) for text in got["conflicts.jsonl"].splitlines()]
    assert sorted((c["txn"], c["table"], c["dkey"]["ID"]) for c in conflicts) == [("t1", "b.ITEM", 2),
                                                                                  ("t2", "b.ITEM", 6)]
    counts = got["manifest"]["counts"]
    assert (counts["deliveries"], counts["applied"], counts["queued"], counts["conflicts"]) == (9, 3, 6, 2)
    assert sorted(row["ID"] for row in got["tables/b/ACCT.parquet"]["rows"]) == [10]
    rejects = [json.loads(text)["reason"] for text in got["rejects.jsonl"].splitlines()]
    assert len(rejects) == 2 and "Decimal of 400000 base64 characters: longer than the 16 bytes" in rejects[0]
    assert "Decimal of 17 bytes: longer than the 16 bytes" in rejects[1]
    assert [str(row["AMT"]) for row in got["tables/a/PRICE.parquet"]["rows"]] == ["123.45"]
