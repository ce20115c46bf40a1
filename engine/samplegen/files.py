"""Laying the generated sample out as the files `mapwright run --data DIR` reads (docs/contract.md §4).

    DIR/snapshots/<server>/<table>.csv    (.jsonl where a value CSV cannot carry: an empty text, bytes, JSON)
    DIR/changes/<site>.jsonl              the site's records in commit order, malformed lines among them
    DIR/schedule.json                     delays and outages
or, with `debezium`, `DIR/changes/debezium/<server>/00-snapshot.jsonl` and `<server>.jsonl` instead of the
snapshots and changes (the bundled generator's `DebeziumWriter` shapes each event as its connector would).

Fixed order and formatting: the same sample gives byte-identical files.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.samplegen.debezium import SampleDebeziumWriter
from engine.samplegen.script import record_doc, render
from engine.samplegen.world import OPAQUE, World, ordered, safe_name

Row = dict[str, Any]


def put(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")


def write_files(world: World, out: Path, snapshot: Mapping[str, list[Row]],
                tick: Callable[[int], None] = lambda done: None) -> None:
    """Everything but the marker, into the (staged) folder `out`; `tick(records done)` now and then."""
    put(out / "schedule.json", json.dumps(world.schedule_doc, indent=1) + "\n")
    if world.options.debezium:
        SampleDebeziumWriter(world).write(out, snapshot, [])
        return
    for table_key, rows in sorted(snapshot.items()):
        table = world.model.table(table_key)
        if not rows or table is None or not safe_name(table.name) or not safe_name(table.server):
            continue
        put_snapshot(world, out / "snapshots" / table.server, table_key, table.name, ordered(world, table_key, rows))
    by_site: dict[str, list[tuple[datetime, int, str]]] = {}
    n = 0
    for written in world.written:
        for record in written.txn.records:
            n += 1
            if n % 500 == 0:
                tick(n)
            line = json.dumps(record_doc(world, record), ensure_ascii=False)
            by_site.setdefault(record.site, []).append((record.commit_ts, n, line))
    for broken in world.broken:
        n += 1
        by_site.setdefault(broken.site, []).append((broken.at, n, broken.text))
    for site, lines in sorted(by_site.items()):
        name = site if safe_name(site) else f"site{sorted(by_site).index(site)}"
        put(out / "changes" / f"{name}.jsonl", "".join(f"{line}\n" for _, _, line in sorted(lines)))


def put_snapshot(world: World, folder: Path, table_key: str, name: str, rows: list[Row]) -> None:
    plan = world.plan(table_key)
    plain = all(v != "" and not isinstance(v, (bytes, dict, list)) for r in rows for v in r.values()) \
        and not any(plan.types[c].family in OPAQUE for c in plan.columns)
    if not plain:
        put(folder / f"{name}.jsonl", "".join(
            json.dumps({c: render(r[c], plan.types[c]) for c in plan.columns}, ensure_ascii=False) + "\n"
            for r in rows))
        return
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(plan.columns)
    for r in rows:
        writer.writerow(["" if r[c] is None else _cell(render(r[c], plan.types[c])) for c in plan.columns])
    put(folder / f"{name}.csv", buffer.getvalue())


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
