"""A three-site PostgreSQL model (hq <-> east, hq <-> west with a column list and a row filter) and two
change streams for it: one where nothing conflicts, one with an outage that makes conflicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COLUMNS = [{"name": "REGION", "type": "CHAR(2)", "nullable": False},
           {"name": "ID", "type": "INTEGER", "nullable": False},
           {"name": "NAME", "type": "VARCHAR(40)"}, {"name": "QTY", "type": "INTEGER"}]
NOTE = {"name": "NOTE", "type": "VARCHAR(40)"}


def three_site_model() -> dict[str, Any]:
    def table(server: str, note: bool) -> dict[str, Any]:
        return {"server": server, "name": "ITEM", "columns": COLUMNS + ([NOTE] if note else []),
                "primary_key": ["REGION", "ID"]}

    def copy(note: bool) -> dict[str, str]:
        return {c["name"]: c["name"] for c in COLUMNS + ([NOTE] if note else [])}

    def conflicts(table_key: str, groups: list[list[str]]) -> dict[str, Any]:
        return {"table": table_key, "on_update_missing": "discard", "on_delete_missing": "discard",
                "column_groups": [{"name": f"g{i}", "columns": cols, "resolution": [{"method": "overwrite"}]}
                                  for i, cols in enumerate(groups)]}

    return {
        "format": "mapwright/1", "name": "three sites",
        "servers": [{"id": s, "dbms": "postgresql"} for s in ("hq", "east", "west")],
        "tables": [table("hq", True), table("east", True), table("west", False),
                   {"server": "hq", "name": "AUDIT", "primary_key": ["ID"],  # replicated nowhere
                    "columns": [{"name": "ID", "type": "INTEGER", "nullable": False},
                                {"name": "AT", "type": "TIMESTAMP"}, {"name": "AMOUNT", "type": "DECIMAL(8,2)"}]}],
        "mappings": [
            {"id": "hq_to_east", "source": "hq.ITEM", "target": "east.ITEM", "columns": copy(True),
             "reverse": "east_to_hq"},
            {"id": "east_to_hq", "source": "east.ITEM", "target": "hq.ITEM", "columns": copy(True),
             "reverse": "hq_to_east"},
            {"id": "hq_to_west", "source": "hq.ITEM", "target": "west.ITEM", "columns": copy(False),
             "where": "REGION = 'EU'", "reverse": "west_to_hq"},
            {"id": "west_to_hq", "source": "west.ITEM", "target": "hq.ITEM", "columns": copy(False),
             "reverse": "hq_to_west"},
        ],
        "conflicts": [conflicts("hq.ITEM", [["NAME", "QTY"], ["NOTE"]]),
                      conflicts("east.ITEM", [["NAME", "QTY", "NOTE"]]),
                      conflicts("west.ITEM", [["NAME", "QTY"]])],
    }


SNAPSHOT = [("EU", 1, "bolt", 10, "n1"), ("EU", 2, "nut", 20, "n2"), ("US", 3, "gear", 30, "n3"),
            ("US", 4, "cog", 40, None)]


def _row(values: tuple[Any, ...], note: bool = True) -> dict[str, Any]:
    names = ["REGION", "ID", "NAME", "QTY", "NOTE"] if note else ["REGION", "ID", "NAME", "QTY"]
    return dict(zip(names, values, strict=False))


def write_data(root: Path, changes: list[dict[str, Any]], schedule: dict[str, Any] | None = None,
               extra_hq: list[tuple[Any, ...]] = ()) -> Path:  # type: ignore[assignment]
    for server, rows in (("hq", SNAPSHOT + list(extra_hq)), ("east", SNAPSHOT),
                         ("west", [r[:4] for r in SNAPSHOT if r[0] == "EU"])):
        folder = root / "snapshots" / server
        folder.mkdir(parents=True)
        (folder / "ITEM.jsonl").write_text("".join(json.dumps(_row(r, server != "west")) + "\n" for r in rows))
    (root / "changes").mkdir()
    (root / "changes" / "changes.jsonl").write_text("".join(json.dumps(c) + "\n" for c in changes))
    if schedule is not None:
        (root / "schedule.json").write_text(json.dumps(schedule))
    return root


def change(site: str, txn: str, seq: int, minute: str, op: str, before: tuple[Any, ...] | None,
           after: tuple[Any, ...] | None) -> dict[str, Any]:
    note = site != "west"
    record: dict[str, Any] = {"site": site, "txn": txn, "seq": seq, "commit_ts": f"2026-01-05T{minute}:00Z",
                              "table": "ITEM", "op": op}
    if before is not None:
        record["before"] = _row(before, note)
    if after is not None:
        record["after"] = _row(after, note)
    return record


def agreeing_stream() -> list[dict[str, Any]]:
    """Every change is delivered before the next commit: nothing conflicts in Mapwright's sense."""
    return [
        change("hq", "a1", 1, "09:00", "I", None, ("EU", 10, "washer", 5, "a")),
        change("east", "b1", 1, "09:01", "U", ("EU", 10, "washer", 5, "a"), ("EU", 10, "washer", 6, "a")),
        change("hq", "a2", 1, "09:02", "I", None, ("US", 11, "nail", 1, None)),
        change("hq", "a2", 2, "09:02", "U", ("EU", 1, "bolt", 10, "n1"), ("US", 1, "bolt", 10, "n1")),
        {"site": "hq", "txn": "a2", "seq": 3, "commit_ts": "2026-01-05T09:02:00Z", "table": "AUDIT", "op": "I",
         "after": {"ID": 1, "AT": "2026-01-05T09:02:00Z", "AMOUNT": "12.50"}},
        change("west", "c1", 1, "09:03", "U", ("EU", 2, "nut", 20), ("EU", 2, "nut2", 20)),
        change("east", "b2", 1, "09:04", "D", ("US", 3, "gear", 30, "n3"), None),
        change("west", "c2", 1, "09:05", "I", None, ("EU", 12, "rivet", 7)),
        change("hq", "a3", 1, "09:06", "U", ("EU", 12, "rivet", 7, None), ("EU", 12, "rivet", 8, "r")),
    ]


OUTAGE = {"links": [{"from": "hq", "to": "east", "delay_s": 0,
                     "down": [["2026-01-05T10:00:00Z", "2026-01-05T10:10:00Z"]]}]}


def conflicting_stream() -> list[dict[str, Any]]:
    """hq -> east is down from 10:00 to 10:10; meanwhile both sides change the same rows."""
    return [
        change("hq", "h1", 1, "10:01", "U", ("EU", 1, "bolt", 10, "n1"), ("EU", 1, "bolt", 11, "n1")),
        change("east", "e1", 1, "10:02", "U", ("EU", 1, "bolt", 10, "n1"), ("EU", 1, "bolt2", 10, "n1")),
        change("east", "e2", 1, "10:03", "U", ("US", 3, "gear", 30, "n3"), ("US", 3, "gear", 33, "n3")),
        change("hq", "h2", 1, "10:04", "D", ("US", 4, "cog", 40, None), None),
        change("east", "e3", 1, "10:05", "D", ("US", 4, "cog", 40, None), None),
        change("hq", "h3", 1, "10:06", "U", ("US", 5, "pin", 50, None), ("US", 5, "pin", 55, None)),
        change("hq", "h4", 1, "10:07", "I", None, ("EU", 20, "clip", 1, "hq")),
        change("east", "e4", 1, "10:08", "I", None, ("EU", 20, "clip", 2, "east")),
    ]


EXTRA_HQ = [("US", 5, "pin", 50, None)]
