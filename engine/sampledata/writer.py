"""The files a run reads (`mapwright run --data out`), laid out from a generated day.

    out/snapshots/<server>/<table>.csv|.jsonl    the rows at 06:00, the same data at every site
    out/changes/<site>-am.jsonl, <site>-pm.jsonl  the day's change records, split at 13:00
    out/schedule.json                             propagation delays and two outage windows
    out/sampledata.json                           marks the folder as the generator's (`MARKER`), listing
                                                  the files it wrote

Files are written in a fixed order with fixed formatting, so the same day gives byte-identical files. They
are written into a staged folder, which `engine.sampledata.staging` swaps in as `out` (`check_out` says which
folders may be written over).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.core.types import SqlType
from engine.model.schema import Model
from engine.run.semantics.context import RunContext
from engine.sampledata import staging
from engine.sampledata.malformed import defective
from engine.sampledata.shop import SampleDataError
from engine.sampledata.staging import SampleError
from engine.sampledata.timetable import NOON, SCHEDULE, SPLIT
from engine.sampledata.transactions import Row, Txn

JSONL_SNAPSHOTS = ("web.CUSTOMER", "web.PRODUCT", "web.ORDERS")  # the PostgreSQL site exports JSON lines
MARKER = staging.MARKER
"""The file that marks a folder as one the generator wrote, listing the files it wrote: only such a folder
(holding no other file), or an empty one, is written over (a run reads no such file)."""
MARKER_NOTE = {"written_by": "python -m engine.sampledata",
               "note": "generated sample data: writing it again replaces the files listed here, and only those"}
MARKER_TEXT = json.dumps(MARKER_NOTE, indent=1) + "\n"
"""What `Writer.write` puts in the staged folder's marker; `staging.write_staged` then adds the file list."""


def render(value: Any, t: SqlType | None) -> Any:
    """A value as JSON: timestamps ISO 8601 with `Z` (DATE columns as the date), decimals as numbers."""
    if isinstance(value, datetime):
        if t is not None and t.name == "DATE":
            return value.date().isoformat()
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, Decimal):
        return float(value)
    return value


def render_cell(value: Any, t: SqlType | None) -> str:
    """A value as a CSV cell (the empty cell is NULL)."""
    if value is None:
        return ""
    return format(value, "f") if isinstance(value, Decimal) else str(render(value, t))


def check_out(out: Path) -> None:
    """Refuse an `out` that is not the generator's to write: a file, or a folder holding a file its `MARKER`
    does not list (someone's captured changes, their snapshots): it is left untouched, as docs/contract.md §6
    asks of run directories. `SampleDataError`, one line naming the first such file."""
    try:
        staging.check_out(out)
    except SampleError as exc:
        raise SampleDataError(str(exc)) from None


def write_out(out: Path, fill: Callable[[Path], None]) -> None:
    """Write the day into a staged folder with `fill`, then swap it in as `out` (`staging.write_staged`): a kill
    or a full disk leaves the old data or the new, never a mix; the files of the old day are removed, no
    other file ever is."""
    try:
        staging.write_staged(out, fill, MARKER_NOTE)
    except SampleError as exc:
        raise SampleDataError(str(exc)) from None


def remove_stale(out: Path) -> None:
    """Nothing to remove: each day is written into a new staged folder (kept for `DebeziumWriter`)."""


class Writer:
    """Lays a generated day out as the files a run reads."""

    def __init__(self, model: Model, ctx: RunContext) -> None:
        self.model, self.ctx = model, ctx

    def write(self, out: Path, snapshot: Mapping[str, list[Row]], txns: Sequence[Txn]) -> None:
        """Write the snapshot's rows and the transactions (numbered here, in commit order) into the (new,
        staged) folder `out`."""
        self.put(out / MARKER, MARKER_TEXT)
        for table, rows in snapshot.items():
            server, name = table.split(".", 1)
            suffix = ".jsonl" if table in JSONL_SNAPSHOTS else ".csv"
            self.put(out / "snapshots" / server / f"{name}{suffix}", self.snapshot_text(table, rows, suffix))
        files: dict[str, list[str]] = {}
        for txn in self.numbered(txns):
            files.setdefault(f"{txn.site}-{'am' if txn.at < SPLIT else 'pm'}.jsonl", []).extend(self.lines(txn))
        for name, lines in sorted(files.items()):
            self.put(out / "changes" / name, "".join(f"{line}\n" for line in lines))
        self.put(out / "schedule.json", json.dumps(SCHEDULE, indent=1) + "\n")

    @staticmethod
    def put(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")

    def snapshot_text(self, table: str, rows: list[Row], suffix: str) -> str:
        plan = self.ctx.tables[table]
        ordered = sorted(rows, key=lambda r: tuple(r[c] for c in plan.identity))
        if suffix == ".jsonl":
            return "".join(json.dumps({c: render(r[c], plan.types[c]) for c in plan.columns}, ensure_ascii=False)
                           + "\n" for r in ordered)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(plan.columns)
        writer.writerows([render_cell(r[c], plan.types[c]) for c in plan.columns] for r in ordered)
        return buffer.getvalue()

    @staticmethod
    def numbered(txns: Sequence[Txn]) -> list[Txn]:
        """Transactions in commit order, numbered per site in that order."""
        ordered = sorted(enumerate(txns), key=lambda item: (item[1].at, item[1].site, item[0]))
        counts: dict[str, int] = {}
        for _, txn in ordered:
            counts[txn.site] = counts.get(txn.site, 0) + 1
            txn.id = f"{txn.site}-{counts[txn.site]:05d}"
        return [txn for _, txn in ordered]

    def version(self, table: str, at: datetime) -> tuple[int | None, set[str]]:
        """The schema version a record of `table` carries at `at` (None: the table has no history) and the
        columns of that version: before noon the one before the latest."""
        plan = self.ctx.tables[table]
        source = self.model.table(table)
        definitions = sorted(source.replication_definitions or () if source else (), key=lambda d: d.version)
        if not definitions:
            return None, set(plan.columns)
        chosen = definitions[-2] if len(definitions) > 1 and at < NOON else definitions[-1]
        return chosen.version, {c.name for c in chosen.columns}

    def lines(self, txn: Txn) -> list[str]:
        """The transaction's records, one line per operation (malformed if the transaction has a defect)."""
        out = []
        for seq, op in enumerate(txn.ops, start=1):
            plan = self.ctx.tables[op.table]
            version, columns = self.version(op.table, txn.at)
            record: dict[str, Any] = {"site": txn.site, "txn": txn.id, "seq": seq, "commit_ts": render(txn.at, None),
                                      "table": op.table.split(".", 1)[1], "op": op.op}
            for side, image in (("before", op.before), ("after", op.after)):
                if image is not None:
                    wide = side == "after" and txn.defect == "version_column"  # the new column, old version number
                    record[side] = {c: render(image.get(c), plan.types[c]) for c in plan.columns
                                    if wide or c in columns}
            if version is not None:
                record["schema_version"] = version
            out.append(defective(record, txn.defect))
        return out
