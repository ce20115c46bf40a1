"""Builders for run tests: small models, change records as JSON lines, and a one-call run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.model import Model
from engine.run.input.records import decode_lines
from engine.run.input.schedule import Schedule, parse_schedule
from engine.run.input.snapshots import typed_row
from engine.run.semantics.reference import RunResult, run_model

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
T0 = "2026-01-05T10:00:00Z"


def ts(minute: int, second: int = 0) -> str:
    return f"2026-01-05T10:{minute:02d}:{second:02d}Z"


def build(servers: list[dict[str, Any]], tables: list[dict[str, Any]], mappings: list[dict[str, Any]] = (),  # type: ignore[assignment]
          conflicts: list[dict[str, Any]] = ()) -> Model:  # type: ignore[assignment]
    return Model.model_validate({"format": "mapwright/1", "name": "t", "servers": servers, "tables": tables,
                                 "mappings": list(mappings), "conflicts": list(conflicts)})


def table(server: str, name: str, columns: dict[str, str], pk: list[str] | None = None,
          **extra: Any) -> dict[str, Any]:
    cols = [{"name": n, "type": t, "nullable": n not in (pk or [])} for n, t in columns.items()]
    return {"server": server, "name": name, "columns": cols, "primary_key": pk or [], **extra}


def copy_mapping(id_: str, source: str, target: str, columns: list[str], **extra: Any) -> dict[str, Any]:
    return {"id": id_, "source": source, "target": target, "columns": {c: c for c in columns}, **extra}


def pair(columns: dict[str, str] | None = None, conflicts: dict[str, Any] | None = None,
         target_extra: dict[str, Any] | None = None, **mapping_extra: Any) -> Model:
    """Servers `s` (priority 20) and `t` (priority 10), each with table T (ID INTEGER primary key plus
    `columns`), and mapping `m`: s.T -> t.T copying every column. `conflicts` is t.T's entry."""
    cols = {"ID": "INTEGER", **(columns or {"A": "INTEGER", "B": "INTEGER"})}
    entries = [{"table": "t.T", **conflicts}] if conflicts is not None else []
    return build([{"id": "s", "dbms": "oracle", "priority": 20}, {"id": "t", "dbms": "oracle", "priority": 10}],
                 [table("s", "T", cols, ["ID"]), table("t", "T", cols, ["ID"], **(target_extra or {}))],
                 [copy_mapping("m", "s.T", "t.T", list(cols), **mapping_extra)], entries)


def rec(site: str, txn: str, op: str, before: dict[str, Any] | None = None, after: dict[str, Any] | None = None,
        *, seq: int = 1, at: str = T0, table: str = "T", **extra: Any) -> str:
    doc: dict[str, Any] = {"site": site, "txn": txn, "seq": seq, "commit_ts": at, "table": table, "op": op}
    if before is not None:
        doc["before"] = before
    if after is not None:
        doc["after"] = after
    doc.update(extra)
    return json.dumps(doc)


def run(model: Model, lines: list[str], snapshots: dict[str, list[dict[str, Any]]] | None = None,
        schedule: dict[str, Any] | None = None) -> RunResult:
    """Decode `lines` as one changes file and run the reference on them."""
    records, rejects = decode_lines((("changes.jsonl", i, text) for i, text in enumerate(lines, 1)), model)
    typed = {key: [typed_row(r, model.table(key), key) for r in rows]  # type: ignore[arg-type]
             for key, rows in (snapshots or {}).items()}
    sched = parse_schedule(schedule) if schedule is not None else Schedule()
    return run_model(model, records, rejects, typed, sched)


def rows(result: RunResult, table_key: str) -> list[dict[str, Any]]:
    return result.tables[table_key]
