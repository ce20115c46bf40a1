"""The sample as Debezium change events: `changes/debezium/<server>/00-snapshot.jsonl` (the snapshot as `r`
events) and `<server>.jsonl` (the day), each event shaped as its connector writes it (the bundled generator's
`DebeziumWriter`). Debezium events carry no schema version: every record is of the latest."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.sampledata.debezium import DebeziumWriter
from engine.sampledata.transactions import Op, Txn
from engine.samplegen.world import SNAPSHOT_AT, World, ordered, safe_name

Row = dict[str, Any]


class SampleDebeziumWriter(DebeziumWriter):
    """The bundled generator's Debezium events, for a sample of any model: `<server>.jsonl` per server."""

    def __init__(self, world: World) -> None:
        super().__init__(world.model, world.ctx)
        self.world = world

    def version(self, table: str, at: datetime) -> tuple[int | None, set[str]]:
        return None, set(self.ctx.tables[table].columns)  # Debezium events carry no version: the latest

    def write(self, out: Path, snapshot: Mapping[str, list[Row]], txns: Sequence[Txn]) -> None:
        world = self.world
        for table_key, rows in sorted(snapshot.items()):
            server = world.plan(table_key).server
            if not rows or not safe_name(server):
                continue
            lines = [self.event(table_key, "r", None, _hexed(row), SNAPSHOT_AT, None, n)
                     for n, row in enumerate(ordered(world, table_key, rows), 1)]
            self.append(out / "changes" / "debezium" / server / "00-snapshot.jsonl", lines)
        items: list[tuple[datetime, int, Txn]] = []
        for n, written in enumerate(world.written):
            done = written.txn
            ops = [Op(r.table, r.op, _hexed(r.before), _hexed(r.after)) for r in done.records]
            items.append((done.commit_ts, n, Txn(done.site, done.commit_ts, ops, id=done.txn)))
        records = [r for w in world.written for r in w.txn.records]
        for n, broken in enumerate(world.broken):
            source = next(r for r in records if r.site == broken.site and r.commit_ts == broken.at)
            op = Op(source.table, source.op, _hexed(source.before), _hexed(source.after))
            items.append((broken.at, len(world.written) + n,
                          Txn(broken.site, broken.at, [op], defect=broken.text, id=f"{broken.site}-{1_000_000 + n}")))
        files: dict[Path, list[str]] = {}
        for _, _, event_txn in sorted(items, key=lambda item: item[:2]):
            if safe_name(event_txn.site):
                files.setdefault(out / "changes" / "debezium" / event_txn.site / f"{event_txn.site}.jsonl",
                                 []).extend(self.txn_lines(event_txn))
        for path, lines in sorted(files.items()):
            self.append(path, lines)


def _hexed(image: Row | None) -> Row | None:
    """Bytes as base64 text, as Debezium's JSON converter writes binary columns."""
    if image is None:
        return None
    return {c: base64.b64encode(v).decode("ascii") if isinstance(v, bytes) else v for c, v in image.items()}
