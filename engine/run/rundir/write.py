"""Writing a run directory (docs/contract.md §6).

```
RUNDIR/manifest.json                   status, model sha256, master, spark version, times, counts
RUNDIR/tables/<server>/<table>.parquet  final rows at each site, typed by the model's columns (`table_file`)
RUNDIR/conflicts.jsonl (+ .parquet)    one object per detected conflict
RUNDIR/error_queue.jsonl               unresolved changes, as re-executable change records
RUNDIR/rejects.jsonl                   malformed input with the reason
RUNDIR/convergence.json                per mapping: compared, diverged, examples
```

Run directories are precious (`engine.run.rundir.publish` holds the protocol): a
run writes only a folder that is absent, empty or an earlier Mapwright run,
holds a lock on it while it runs, stages everything in a hidden sibling and
swaps it into place in one step, so a half-written run never looks finished
and a kill at any instant leaves the old run or the new one.

A failed or cancelled run writes a folder holding only `manifest.json` with
that status and the reason: in RUNDIR, except over a run that succeeded,
which stays byte for byte while the manifest goes to `RUNDIR.attempt`
beside it. A run that succeeds removes a stale `RUNDIR.attempt`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from engine.core.types import SqlType, TypeFamily
from engine.core.values import (
    INTEGER_TYPES,
    UNBOUNDED_SCALE,
    UNBOUNDED_WHOLE_DIGITS,
    is_binary,
    quantized,
    to_json_value,
)
from engine.core.version import __version__
from engine.model.io import ModelLoadError, load_model, read_model_bytes
from engine.model.schema import Model, Table
from engine.run.input.files import InputError
from engine.run.input.schedule import ScheduleError
from engine.run.rundir.layout import is_run_directory, run_status
from engine.run.rundir.publish import RunDirError, attempt_dir, claim, discard, publish
from engine.run.semantics.context import RunModelError
from engine.run.semantics.reference import Progress, RunCancelled, RunCounts, RunResult, run_reference
from engine.sql.errors import UnsupportedSql

CONFLICT_ROW_FIELDS = ("dkey", "local", "remote_old", "remote_new", "result")


__all__ = ["RunDirError", "RunInfo", "is_run_directory", "run_reference_to_dir", "write_failed_run", "write_run"]


@dataclass(frozen=True)
class RunInfo:
    """What the manifest says about how the run ran."""

    model_sha256: str
    master: str | None = None
    spark_version: str | None = "reference"
    started: datetime | None = None
    finished: datetime | None = None
    model_path: str | None = None
    run_engine: str = "inprocess"
    """Which engine ran: "inprocess" (the pure-Python engine, in this process) or "spark"."""


def model_sha256(path: Path) -> str:
    """The model file's digest, read as `load_model` reads it (a regular file within its bound: a FIFO given
    as the model blocked the run here, before the model was loaded); `ModelLoadError` if it cannot be."""
    try:
        return hashlib.sha256(read_model_bytes(path, str(path))).hexdigest()
    except OSError as exc:
        raise ModelLoadError(str(path), f"cannot read ({exc.strerror or exc})") from None


def arrow_type(t: SqlType) -> pa.DataType:
    """The Parquet column type of a model column type."""
    if t.family is TypeFamily.EXACT_NUMERIC:
        if t.name in INTEGER_TYPES:
            return {"SMALLINT": pa.int16(), "INTEGER": pa.int32(), "INT": pa.int32(),
                    "SERIAL": pa.int32()}.get(t.name, pa.int64())
        if t.precision is None:  # values that do not fit DECIMAL(38,10) are rejects (`values.unbounded_fits`)
            return pa.decimal128(UNBOUNDED_WHOLE_DIGITS + UNBOUNDED_SCALE, UNBOUNDED_SCALE)
        return pa.decimal128(t.precision, t.scale or 0) if t.precision <= 38 else pa.string()  # Spark holds no more
    if t.family is TypeFamily.APPROX_NUMERIC:
        return pa.float32() if t.name == "REAL" else pa.float64()
    if t.family is TypeFamily.DATETIME:
        return pa.timestamp("us", tz="UTC")
    if t.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return pa.bool_()
    if is_binary(t):
        return pa.binary()
    return pa.string()  # character and large text; UDT and complex values as JSON text


def table_arrow(table: Table, rows: list[dict[str, Any]]) -> pa.Table:
    """A table's final rows as Arrow, typed by the model."""
    fields = [pa.field(c.name, arrow_type(c.sql_type), nullable=True) for c in table.columns]
    columns = []
    for col, fld in zip(table.columns, fields, strict=True):
        values = [_arrow_value(r.get(col.name), fld.type) for r in rows]
        columns.append(pa.array(values, type=fld.type))
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))


def _arrow_value(value: Any, t: pa.DataType) -> Any:
    if value is None:
        return None
    if pa.types.is_decimal(t) and isinstance(value, (int, Decimal)):
        return quantized(value, t.scale)
    if pa.types.is_string(t) and isinstance(value, Decimal):
        return format(value, "f")
    if pa.types.is_string(t) and not isinstance(value, str):
        return json.dumps(to_json_value(value), sort_keys=True)
    return value


FILE_NAME_BYTES = 200
"""The longest server or table name a run directory writes as it is (a file name holds at most 255 bytes)."""


def table_file(root: Path, server: str, table: str) -> Path:
    """`root/tables/<server>/<table>.parquet`, each name one file name inside its folder whatever it holds.

    A name is written as it is, except what would leave its folder or cannot be a file name: `/`, `\\` and
    NUL are written `%2F`, `%5C` and `%00`, the names `.` and `..` as `%2E` and `%2E%2E`, and a name
    longer than `FILE_NAME_BYTES` is cut and ends with a digest of the whole (a table named
    `../../../x` had been written outside the run directory)."""
    return root / "tables" / file_name(server) / f"{file_name(table)}.parquet"


_ESCAPE_LIKE = re.compile(r"%(?=[0-9A-Fa-f]{2})")


def file_name(name: str) -> str:
    """A server or table name as one safe file name (see `table_file`), one name to one file: a `%` that
    reads as an escape (`A%2FB`) is escaped itself, so that `A/B` and `A%2FB` do not share a file; a `%`
    that cannot (`RATE%`) stays as it is."""
    safe = _ESCAPE_LIKE.sub("%25", name).replace("/", "%2F").replace("\\", "%5C").replace("\x00", "%00")
    if safe in (".", ".."):
        safe = safe.replace(".", "%2E")
    if len(safe.encode()) > FILE_NAME_BYTES:
        digest = hashlib.sha256(name.encode()).hexdigest()[:16]
        safe = safe.encode()[:FILE_NAME_BYTES - 17].decode(errors="ignore") + "~" + digest
    return safe or "%"


def write_run(result: RunResult, model: Model, out: Path, info: RunInfo) -> Path:
    """Write a succeeded run to `out` (replacing an earlier run there, and removing a stale
    `out.attempt`); returns `out`. Raises `RunDirError` if `out` may not be written."""
    def fill(tmp: Path) -> None:
        write_data(result, model, tmp)
        _json(tmp / "convergence.json", {"mappings": result.convergence})
        _json(tmp / "manifest.json", {**manifest("succeeded", info, result),
                                      "tables": [table.key for table in model.tables]})
    with claim(out) as target:
        publish(target, fill)
        if is_run_directory(attempt_dir(target)):
            discard(attempt_dir(target))
        return target


def write_data(result: RunResult, model: Model, folder: Path) -> None:
    """A run's data files into `folder`: final tables, conflicts, error queue and rejects (not the manifest
    and convergence.json, which the publisher writes)."""
    (folder / "tables").mkdir()
    for table in model.tables:
        path = table_file(folder, table.server, table.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table_arrow(table, result.tables.get(table.key, [])), path)
    conflicts, queue = in_time_order(result.conflicts), in_time_order(result.error_queue)
    _jsonl(folder / "conflicts.jsonl", conflicts)
    pq.write_table(conflicts_arrow(conflicts), folder / "conflicts.parquet")
    _jsonl(folder / "error_queue.jsonl", queue)
    _jsonl(folder / "rejects.jsonl", (r.as_dict() for r in result.rejects))


class RunSummary(Protocol):
    """What the manifest and convergence.json say of a run, whichever engine ran it."""

    counts: RunCounts
    stage_seconds: dict[str, float]
    convergence: list[dict[str, Any]]


def write_spark_run(fill_data: Callable[[Path], RunSummary], model: Model, out: Path,
                    info: Callable[[], RunInfo]) -> RunSummary:
    """Publish a run whose data files `fill_data` writes into the staged folder (Spark's writers), with its
    convergence.json and manifest (`info()` is asked once the data is written); as `write_run`, a stale
    `out.attempt` is removed and `out` is replaced only once everything is written."""
    summaries: list[RunSummary] = []

    def fill(tmp: Path) -> None:
        summary = fill_data(tmp)
        summaries.append(summary)
        _json(tmp / "convergence.json", {"mappings": summary.convergence})
        _json(tmp / "manifest.json", {**manifest_doc("succeeded", info(), summary.counts, summary.stage_seconds),
                                      "tables": [table.key for table in model.tables]})
    with claim(out) as target:
        publish(target, fill)
        if is_run_directory(attempt_dir(target)):
            discard(attempt_dir(target))
    return summaries[0]


def in_time_order(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Conflicts or queue entries as they happened (delivery time, site, commit time, origin, txn, then a
    transaction's own order, `seq`), whatever engine produced them: the same run gives the same files, and
    an error queue replays in order."""
    return sorted(items, key=time_order_key)


def time_order_key(item: dict[str, Any]) -> str:
    """The order of `in_time_order` as one string (its parts joined by NUL, which no JSON text holds), so
    that Spark sorts by it as Python sorts the parts. Instants are written at one width (`...00Z` had
    sorted after `...00.500000Z`), and `seq` as a number."""
    seq = item.get("seq")
    parts = (_instant(item.get("delivered_at")), json.dumps(item.get("site")), _instant(item.get("commit_ts")),
             json.dumps(item.get("origin")), json.dumps(item.get("txn")),
             f"{seq + 2 ** 63:020d}" if isinstance(seq, int) and not isinstance(seq, bool) else "",
             json.dumps(to_json_value(item.get("table"))))
    # the item as plain JSON, its keys sorted: `default` converts only what JSON cannot hold (a decimal, a
    # time, bytes), as `to_json_value` would, without rebuilding every nested row of a conflict first
    return "\x00".join((*parts, json.dumps(item, sort_keys=True, default=to_json_value)))


def _instant(value: Any) -> str:
    """A time as fixed-width UTC text (microseconds always written), so that text order is time order."""
    when = value
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return json.dumps(value)
    if isinstance(when, datetime):
        when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
        return when.strftime("%Y-%m-%dT%H:%M:%S.%f")
    return json.dumps(to_json_value(value))


def write_failed_run(out: Path, status: str, reason: str, info: RunInfo) -> Path:
    """Write a run that failed or was cancelled: only `manifest.json`, with the status and the reason.

    Returns the folder that holds it: `out`, or `out.attempt` when `out` holds a run that succeeded
    (which is then left as it is).
    """
    def fill(tmp: Path) -> None:
        _json(tmp / "manifest.json", {**manifest(status, info, None), "reason": reason})
    with claim(out) as target:
        if run_status(target) == "succeeded":
            target = attempt_dir(target)
        return publish(target, fill)


def manifest(status: str, info: RunInfo, result: RunResult | None) -> dict[str, Any]:
    return manifest_doc(status, info, result.counts if result else None, result.stage_seconds if result else {})


def manifest_doc(status: str, info: RunInfo, counts: RunCounts | None,
                 stage_seconds: dict[str, float]) -> dict[str, Any]:
    return {
        "status": status,
        "model": {"path": info.model_path, "sha256": info.model_sha256},
        "model_sha256": info.model_sha256,
        "master": info.master,
        "spark_version": info.spark_version,
        "engine": f"mapwright {__version__}",
        "run_engine": info.run_engine,
        "started": to_json_value(info.started),
        "finished": to_json_value(info.finished or datetime.now(UTC)),
        "stages": dict(stage_seconds),
        "counts": counts.as_dict() if counts else None,
    }


CONFLICT_SCALARS = ("site", "origin", "table", "mapping", "txn", "commit_ts", "delivered_at", "type", "column_group",
                    "index", "method", "outcome", "reason")


def conflicts_arrow(conflicts: list[dict[str, Any]]) -> pa.Table:
    """Conflicts as a flat table: scalar fields as columns, rows (`local`, `result`...) as JSON text."""
    rows = [conflict_flat(c) for c in conflicts]
    data: dict[str, Any] = {name: pa.array([r[name] for r in rows], pa.string()) for name in CONFLICT_SCALARS}
    data["methods_tried"] = pa.array([r["methods_tried"] for r in rows], pa.list_(pa.field("element", pa.string())))
    data["applied"] = pa.array([r["applied"] for r in rows], pa.bool_())
    for name in CONFLICT_ROW_FIELDS:
        data[name] = pa.array([r[name] for r in rows], pa.string())
    return pa.table(data)


def conflict_flat(conflict: dict[str, Any]) -> dict[str, Any]:
    """One conflict as a row of the flat table (`conflicts.parquet`)."""
    row: dict[str, Any] = {name: _text(conflict.get(name)) for name in CONFLICT_SCALARS}
    row["methods_tried"] = list(conflict.get("methods_tried", []))
    row["applied"] = conflict.get("applied")
    for name in CONFLICT_ROW_FIELDS:
        value = conflict.get(name)
        row[name] = json.dumps(value, sort_keys=True) if value is not None else None
    return row


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def jsonl_line(item: dict[str, Any]) -> str:
    """One object of a `.jsonl` output, as every engine writes it (keys in order, values as plain JSON)."""
    return json.dumps(item, sort_keys=False, default=to_json_value)


def _jsonl(path: Path, items: Iterable[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for item in items:
            fh.write(jsonl_line(item) + "\n")


def _json(path: Path, doc: Any) -> None:
    path.write_text(json.dumps(doc, indent=1, default=to_json_value) + "\n", encoding="utf-8")


RUN_INPUT_ERRORS = (ModelLoadError, InputError, ScheduleError, RunModelError, UnsupportedSql)


def run_reference_to_dir(model_path: Path, data_dir: Path, out: Path,
                         progress: Progress | None = None) -> tuple[str, Path]:
    """Run the pure-Python reference and write its run directory; returns (status, the folder written).

    `out` is checked and locked before anything runs (`RunDirError`, `RunDirBusy`). Input the run cannot
    use ends in a `failed` manifest naming the reason; a progress callback that raises `RunCancelled` (or
    Ctrl-C) ends in a `cancelled` one. Anything else is a bug: the manifest says `failed` and the
    exception propagates. A failed or cancelled run over a succeeded one writes to `out.attempt`.
    """
    with claim(out) as out:
        info = RunInfo(model_sha256(model_path), master=None, spark_version="reference",
                       started=datetime.now(UTC), model_path=str(model_path))
        try:
            model = load_model(model_path)
            result = run_reference(model, data_dir, progress)
        except RunCancelled as exc:
            return "cancelled", write_failed_run(out, "cancelled", str(exc) or "cancelled", info)
        except KeyboardInterrupt:
            write_failed_run(out, "cancelled", "interrupted", info)
            raise
        except RUN_INPUT_ERRORS as exc:
            return "failed", write_failed_run(out, "failed", str(exc), info)
        except Exception as exc:
            write_failed_run(out, "failed", f"internal error: {type(exc).__name__}: {exc}", info)
            raise
        try:
            return "succeeded", write_run(result, model, out, replace(info, finished=datetime.now(UTC)))
        except RunDirError:
            raise
        except Exception as exc:
            write_failed_run(out, "failed", f"cannot write the run directory: {type(exc).__name__}: {exc}", info)
            raise
