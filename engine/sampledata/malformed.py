"""Malformed lines (1.5% of the records): torn JSON, an unknown table or op, a bad timestamp, a column
the record's schema version lacks, a missing key column. A run rejects them and goes on.

`record_malformed` chooses the broken change during the day; `defective` breaks its line as it is written.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engine.sampledata.shop import Shop
from engine.sampledata.timetable import NOON, later
from engine.sampledata.transactions import Row, Txn, update

MALFORMED_SHARE = 0.015
DEFECTS = ("torn", "unknown_table", "unknown_op", "bad_timestamp", "version_column", "missing_key")


def record_malformed(shop: Shop, at: datetime) -> None:
    """A line a run must reject (an order being paid, but broken); its change is never applied."""
    n = shop.next_id("malformed", -1)  # 0 for the first
    defect = DEFECTS[n % len(DEFECTS)]
    if defect == "unknown_op":
        defect += "=" + ("X", "UPSERT", "u")[n // len(DEFECTS) % 3]
    if defect == "version_column":  # a web node not yet restarted after the release writes the new column
        at = min(at, later(NOON, -1 - n))
    site = "web" if defect in ("version_column", "missing_key") or shop.rng.random() < 0.5 else "branch"
    table, orders = f"{site}.ORDERS", shop.pools.orders[site]
    number = shop.rng.choice([o for o in orders if shop.row(table, o)["STATUS"] == "ordered"] or orders)
    paid: Row = {"STATUS": "paid", "PAYMENT_REF": f"PAY-{shop.rng.getrandbits(48):012x}"} if site == "web" \
        else {"STATUS": "paid"}
    shop.txns.append(Txn(site, at, [update(table, shop.row(table, number), **paid)], defect=defect))


def defective(record: dict[str, Any], defect: str | None) -> str:
    """The record's line, malformed as `defect` says."""
    if defect == "unknown_table":
        record["table"] = {"web": "ORDER", "branch": "ORDERS_OLD"}.get(record["site"], "INVOICE")
    elif defect and defect.startswith("unknown_op="):
        record["op"] = defect.split("=", 1)[1]
    elif defect == "bad_timestamp":
        record["commit_ts"] = f"{datetime.fromisoformat(record['commit_ts']):%d.%m.%Y %H:%M:%S}"
    elif defect == "missing_key":
        image = record["after"] if "after" in record else record["before"]
        image.pop(next(iter(image)))
    text = json.dumps(record, ensure_ascii=False)
    return text[: len(text) * 2 // 3] if defect == "torn" else text
