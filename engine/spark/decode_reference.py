"""The reference's reading of the lines `decode` leaves it, in the executors, and the records it accepts
written back so that Spark types them exactly (`normalized_record`), or read back as the reference's
(`record_of`).

A doubtful line (not `decode.clean`) or a Debezium file's value is read by `records.decode_record` or
`debezium.decode_event` over Arrow (`mapInArrow`, whole batches): a reject with the reference's reason,
a record, a snapshot row or a skip (`decode.RECORD_KINDS`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from engine.core.values import parse_timestamp
from engine.model.schema import Model
from engine.run.input.debezium.envelope import Skip, SnapshotRow, decode_event
from engine.run.input.records import (
    MAX_RECORD_BYTES,
    ChangeRecord,
    Reject,
    decode_record,
    oversize_reject,
    shown_reject,
    versions_of,
)
from engine.run.rundir.write import jsonl_line
from engine.spark.canonical import row_tokens, token, value_of
from engine.spark.inworker import model_of

_READ_SCHEMA = pa.schema([("kind", pa.string()), ("file_ord", pa.int32()), ("line", pa.int64()),
                          ("text", pa.string()), ("table", pa.string()), ("reject", pa.string())])


def read_by_reference(model_text: str, names: list[str], debezium: dict[int, str]) -> Any:
    """A `mapInArrow` function: each line the native reading left, read by the reference."""
    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        model = model_of(model_text)
        out: list[dict[str, Any]] = []
        for batch in batches:
            for row in batch.to_pylist():
                ordinal, line = row["file_ord"], row["line"]
                server = debezium.get(ordinal)
                if row["size"] > MAX_RECORD_BYTES:  # only its head came over: the reject says the size
                    over = oversize_reject(row["data"], row["size"])
                    result: Any = shown_reject(names[ordinal], line, over.reason, over.raw)
                elif server is None:
                    result = decode_record(row["data"], names[ordinal], line, model)
                else:
                    result = decode_event(row["data"], server, names[ordinal], line, model)
                out.append(_read_row(result, ordinal, model))
                if len(out) >= 4096:
                    yield pa.RecordBatch.from_pylist(out, schema=_READ_SCHEMA)
                    out = []
        if out:
            yield pa.RecordBatch.from_pylist(out, schema=_READ_SCHEMA)
    return read


def _read_row(result: Any, ordinal: int, model: Model) -> dict[str, Any]:
    row: dict[str, Any] = {"kind": None, "file_ord": ordinal, "line": result.line, "text": None, "table": None,
                           "reject": None}
    if isinstance(result, ChangeRecord):
        row.update(kind="record", text=normalized_record(result, model))
    elif isinstance(result, SnapshotRow):
        table = model.table(result.table)
        assert table is not None
        row.update(kind="snapshot", table=result.table, text=row_tokens(result.row, table))
    elif isinstance(result, Skip):
        row.update(kind="skip")
    else:
        assert isinstance(result, Reject)
        row.update(kind="reject", reject=jsonl_line(result.as_dict()))
    return row


def normalized_record(record: ChangeRecord, model: Model) -> str:
    """An accepted record written back so that the native reading types it exactly: each image an object
    keyed by position in its version's columns (`c0`...), each value a canonical token."""
    table = model.table(record.table)
    assert table is not None
    types = versions_of(table)[record.version].types
    doc: dict[str, Any] = {"site": record.site, "txn": record.txn, "seq": record.seq,
                           "commit_ts": record.commit_ts.isoformat(), "table": table.name, "op": record.op,
                           "schema_version": record.version}
    for side, image in (("before", record.before), ("after", record.after)):
        if image is not None:
            doc[side] = {f"c{i}": token(image.get(name), t) for i, (name, t) in enumerate(types.items())}
    return json.dumps(doc)


def record_of(text: str, normalized: bool, line: int, model: Model) -> ChangeRecord:
    """A record of the records Spark typed, as the reference's `ChangeRecord`: its line decoded again, or
    a normalized record's tokens read back (exactly the values the reference gave it)."""
    if not normalized:
        record = decode_record(text, "", line, model)
        assert isinstance(record, ChangeRecord)  # Spark accepted it only as the reference would
        return record
    doc = json.loads(text)
    table = model.table(f"{doc['site']}.{doc['table']}")
    assert table is not None
    version = versions_of(table)[doc["schema_version"]]
    images = {side: None if doc.get(side) is None else
              {name: None if t is None else value_of(doc[side].get(f"c{i}"), t) if doc[side].get(f"c{i}") is not None
               else None for i, (name, t) in enumerate(version.types.items())}
              for side in ("before", "after")}
    for side, image in images.items():
        if image is not None:  # an untyped version column keeps its JSON value, as decoding does
            for i, (name, t) in enumerate(version.types.items()):
                if t is None:
                    image[name] = doc[side].get(f"c{i}")
    return ChangeRecord("", line, doc["site"], doc["txn"], doc["seq"], parse_timestamp(doc["commit_ts"]), table.key,
                        doc["op"], images["before"], images["after"], version.number, tuple(version.types))
