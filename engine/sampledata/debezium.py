"""The sample day as Debezium change events: `out/changes/debezium/<server>/*.jsonl` (docs/contract.md §4).

The same generated day as `writer.Writer` lays out, each site in the shape its Debezium connector
emits (the JSON converter's output, one event a line):

- `hq` (Oracle) and `branch` (Db2) with the `schema`/`payload` wrapper: decimals as
  `org.apache.kafka.connect.data.Decimal` bytes, timestamps as `io.debezium.time.MicroTimestamp`,
  dates as `io.debezium.time.Date` (Oracle's DATE, which holds a time, as `io.debezium.time.Timestamp`);
- `web` (PostgreSQL) without the wrapper (`schemas.enable=false`, `decimal.handling.mode=string`),
  table and column names folded to lower case as PostgreSQL folds unquoted names.

The snapshot is `r` events (`00-snapshot.jsonl`), every delete is followed by its tombstone (`null`,
Debezium's default), and each record carries `transaction.id` (the Mapwright `txn`) and
`transaction.total_order` (its `seq`). Malformed records are malformed the Debezium way (torn JSON, an
unknown table or op, a commit time that is not a number, a column no version has, a missing key), so
that a run of this folder gives the same run directory as a run of the Mapwright-format one, apart from
the rejects' lines and reasons and the `skipped` count of tombstones.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.core.types import SqlType, TypeFamily
from engine.sampledata.timetable import SCHEDULE, SNAPSHOT_AT, SPLIT
from engine.sampledata.transactions import Row, Txn
from engine.sampledata.writer import MARKER, MARKER_TEXT, Writer, remove_stale

CONNECTORS = {"oracle": "oracle", "db2": "db2", "postgresql": "postgresql", "mssql": "sqlserver", "mysql": "mysql"}
UNWRAPPED = ("postgresql",)
"""Servers whose events are written without the schema/payload wrapper (and with names in lower case)."""
OPS = {"I": "c", "U": "u", "D": "d"}
BROKEN_OPS = {"X": "x", "UPSERT": "upsert", "u": "t"}
VERSION = "2.7.3.Final"


class DebeziumWriter(Writer):
    """Lays a generated day out as Debezium events, one folder per server."""

    def write(self, out: Path, snapshot: Mapping[str, list[Row]], txns: Sequence[Txn]) -> None:
        remove_stale(out)
        self.put(out / MARKER, MARKER_TEXT)
        for table, rows in sorted(snapshot.items()):
            server = table.split(".", 1)[0]
            plan = self.ctx.tables[table]
            ordered = sorted(rows, key=lambda r: tuple(r[c] for c in plan.identity))
            lines = [self.event(table, "r", None, row, SNAPSHOT_AT, None, n) for n, row in enumerate(ordered, 1)]
            self.append(out / "changes" / "debezium" / server / "00-snapshot.jsonl", lines)
        files: dict[Path, list[str]] = {}
        for txn in self.numbered(txns):
            name = out / "changes" / "debezium" / txn.site / f"{txn.site}-{'am' if txn.at < SPLIT else 'pm'}.jsonl"
            files.setdefault(name, []).extend(self.txn_lines(txn))
        for path, lines in sorted(files.items()):
            self.append(path, lines)
        self.put(out / "schedule.json", json.dumps(SCHEDULE, indent=1) + "\n")

    def append(self, path: Path, lines: list[str]) -> None:
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        self.put(path, existing + "".join(f"{line}\n" for line in lines))

    def txn_lines(self, txn: Txn) -> list[str]:
        out = []
        for seq, op in enumerate(txn.ops, start=1):
            version, columns = self.version(op.table, txn.at)
            plan = self.ctx.tables[op.table]
            wide = txn.defect == "version_column"  # the new column in the after image, before the release
            images = [None if image is None else {c: image.get(c) for c in plan.columns
                                                  if c in columns or (side == "after" and wide)}
                      for side, image in (("before", op.before), ("after", op.after))]
            event = self.event(op.table, OPS[op.op], images[0], images[1], txn.at, txn, seq, txn.defect)
            out.append(event)
            if op.op == "D" and not txn.defect:
                out.append("null")  # the tombstone Debezium writes after a delete
        return out

    def event(self, table: str, op: str, before: Row | None, after: Row | None, at: datetime,
              txn: Txn | None, seq: int, defect: str | None = None) -> str:
        """One event line of `table` in its server's connector's shape."""
        server, name = table.split(".", 1)
        dbms = self.model.server(server).dbms  # type: ignore[union-attr]
        plan = self.ctx.tables[table]
        lower = dbms in UNWRAPPED
        wrapped = not lower and txn is not None  # snapshot reads without the schema, to keep the sample small
        images = {"before": before, "after": after}
        if defect == "version_column":
            wide_image = images["after"] or {}
            images["after"] = {("PAYMENT_REFERENCE" if c == "PAYMENT_REF" else c): v for c, v in wide_image.items()}
        if defect == "missing_key":
            image = images["after"] if images["after"] is not None else images["before"]
            assert image is not None
            image.pop(next(iter(image)))
        source = self.source(dbms, server, name.lower() if lower else name, at, txn, seq)
        if defect == "bad_timestamp":
            source["ts_ms"] = f"{at:%d.%m.%Y %H:%M:%S}"
        if defect == "unknown_table":
            source["table"] = {"web": "order", "branch": "ORDERS_OLD"}.get(server, "INVOICE")
        payload: dict[str, Any] = {
            side: None if image is None else {(c.lower() if lower else c): self.value(v, plan.types.get(c), dbms,
                                                                                       not wrapped)
                                              for c, v in image.items()}
            for side, image in images.items()}
        if defect and defect.startswith("unknown_op="):
            op = BROKEN_OPS[defect.split("=", 1)[1]]
        payload.update({"source": source, "op": op, "ts_ms": _millis(at) + 250, "transaction": None})
        if txn is not None:
            payload["transaction"] = {"id": txn.id, "total_order": seq, "data_collection_order": seq}
        doc: Any = payload if not wrapped else {"schema": self.schema(server, name, images, plan.types, dbms),
                                          "payload": payload}
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))  # as the JSON converter writes
        return text[: len(text) * 2 // 3] if defect == "torn" else text

    def source(self, dbms: str, server: str, table: str, at: datetime, txn: Txn | None, seq: int) -> dict[str, Any]:
        """The source block of `dbms`'s connector (its own position fields)."""
        number = int(txn.id.rsplit("-", 1)[1]) if txn is not None and txn.id else 0
        base: dict[str, Any] = {"version": VERSION, "connector": CONNECTORS.get(dbms, dbms), "name": server,
                                "ts_ms": _millis(at), "snapshot": "false" if txn else "true",
                                "db": {"oracle": "ORCLPDB1", "db2": "SHOP"}.get(dbms, "shop")}
        lsn = f"{number:08x}:{seq:08x}:0001"
        if dbms == "postgresql":
            base.update({"schema": "public", "table": table, "txId": 700 + number if txn else None,
                         "lsn": 24_000_000 + number * 64,
                         "xmin": None})
        elif dbms == "oracle":
            base.update({"schema": "HQ", "table": table, "txId": f"0a.{number}.1" if txn else None,
                         "scn": str(2_100_000 + number),
                         "commit_scn": str(2_100_000 + number), "lcr_position": None})
        elif dbms == "mysql":
            base.update({"table": table, "server_id": 1, "gtid": None, "file": "mysql-bin.000003",
                         "pos": 154 + number, "row": seq - 1, "thread": 7, "query": None})
        else:  # db2, sqlserver
            base.update({"schema": "DB2INST1" if dbms == "db2" else "dbo", "table": table,
                         "change_lsn": lsn if txn else None, "commit_lsn": f"{number:08x}:00000000:0001"})
        return base

    @staticmethod
    def value(value: Any, t: SqlType | None, dbms: str, plain: bool) -> Any:
        """A column value as the connector writes it (`plain`: decimals as text, no logical types)."""
        if value is None or t is None:
            return value
        if isinstance(value, Decimal):
            if plain:
                return format(value, "f")
            unscaled = int(value.scaleb(t.scale or 0).to_integral_value())
            return base64.b64encode(unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big",
                                                      signed=True)).decode("ascii")
        if isinstance(value, datetime):
            if t.name == "DATE" and dbms != "oracle":
                return (value.astimezone(UTC).date() - datetime(1970, 1, 1).date()).days
            if t.name == "DATE":
                return _millis(value)
            delta = value.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
            return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return value

    @staticmethod
    def schema(server: str, name: str, images: dict[str, Row | None], types: Mapping[str, SqlType | None],
               dbms: str) -> dict[str, Any]:
        """The value schema of the wrapper: the row's fields with their Connect and logical types."""
        columns = next((list(image) for image in (images["after"], images["before"]) if image is not None), [])
        row = {"type": "struct", "optional": True, "name": f"{server}.{name}.Value",
               "fields": [column_schema(c, types.get(c), dbms) for c in columns]}
        return {"type": "struct", "optional": False, "name": f"{server}.{name}.Envelope", "version": 2,
                "fields": [{**row, "field": "before"}, {**row, "field": "after"},
                           {"type": "struct", "optional": False, "name": f"io.debezium.connector.{dbms}.Source",
                            "field": "source", "fields": []},
                           {"type": "string", "optional": False, "field": "op"},
                           {"type": "int64", "optional": True, "field": "ts_ms"}]}


def column_schema(column: str, t: SqlType | None, dbms: str) -> dict[str, Any]:
    """A column's field schema as the connector writes it."""
    if t is None:
        return {"type": "string", "optional": True, "field": column}
    if t.family is TypeFamily.EXACT_NUMERIC and t.name in ("DECIMAL", "NUMERIC", "NUMBER"):
        return {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                "parameters": {"scale": str(t.scale or 0), "connect.decimal.precision": str(t.precision or 38)},
                "field": column}
    if t.family is TypeFamily.EXACT_NUMERIC:
        return {"type": {"SMALLINT": "int16", "BIGINT": "int64"}.get(t.name, "int32"), "optional": True,
                "field": column}
    if t.family is TypeFamily.DATETIME:
        name = ("io.debezium.time.Timestamp" if dbms == "oracle" else "io.debezium.time.Date") \
            if t.name == "DATE" else "io.debezium.time.MicroTimestamp"
        return {"type": "int32" if name.endswith("Date") else "int64", "optional": True, "name": name,
                "version": 1, "field": column}
    return {"type": "string", "optional": True, "field": column}


def _millis(at: datetime) -> int:
    delta = at.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000 + delta.microseconds // 1_000
