"""Debezium change events as run input (engine/run/input/debezium/): each connector's event shape, with and
without the schema/payload wrapper, every logical type, the model-type rules, skips and rejects."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from builders import col, mapping, model, server, table

from engine.model.schema import Model
from engine.run.input.debezium.envelope import Skip, SnapshotRow, decode_event
from engine.run.input.debezium.files import add_snapshot_rows, read_debezium
from engine.run.input.files import InputError
from engine.run.input.records import ChangeRecord, Reject
from engine.run.semantics.reference import run_reference

FLAVOURS = {"pg": "postgresql", "my": "mysql", "ms": "mssql", "ora": "oracle", "db2": "db2"}
COLUMNS = [col("ID", nullable=False), col("NAME", "VARCHAR(10)"), col("PRICE", "DECIMAL(10,2)"),
           col("BORN", "DATE"), col("SEEN", "TIMESTAMP")]
COMMIT = datetime(2026, 1, 5, 10, 0, 1, 500000, tzinfo=UTC)
COMMIT_MS = 1767607201500


def shop() -> Model:
    tables = [table(s, "CUSTOMERS", COLUMNS, pk=["ID"]) for s in FLAVOURS]
    tables += [table("pg", "Mixed", [col("ID", nullable=False)], pk=["ID"]),
               table("pg", "MIXED", [col("ID", nullable=False)], pk=["ID"]),
               table("ora", "SALES.ORDERS", [col("ID", nullable=False)], pk=["ID"]),
               table("ora", "HR.ORDERS", [col("ID", nullable=False)], pk=["ID"]),
               table("ms", "T", [col("ID", nullable=False), col("AT", "TIMESTAMP"), col("RAW", "VARBINARY(8)"),
                                 col("AMOUNT", "DECIMAL(8,3)"), col("T3", "DATETIME")], pk=["ID"]),
               table("ora", "D", [col("ID", nullable=False), col("DAY", "DATE")], pk=["ID"])]
    return model([server(s, d) for s, d in FLAVOURS.items()], tables)


MODEL = shop()


def decimal_bytes(value: str, scale: int) -> str:
    unscaled = int(Decimal(value).scaleb(scale))
    return base64.b64encode(unscaled.to_bytes((unscaled.bit_length() + 8) // 8, "big", signed=True)).decode()


def row_schema(name: str) -> dict[str, Any]:
    return {"type": "struct", "optional": True, "name": name, "fields": [
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "string", "optional": True, "field": "name"},
        {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
         "parameters": {"scale": "2", "connect.decimal.precision": "10"}, "field": "price"},
        {"type": "int32", "optional": True, "name": "io.debezium.time.Date", "version": 1, "field": "born"},
        {"type": "int64", "optional": True, "name": "io.debezium.time.MicroTimestamp", "version": 1,
         "field": "seen"}]}


def wrapped(payload: dict[str, Any]) -> dict[str, Any]:
    value = row_schema("server1.dbo.customers.Value")
    return {"schema": {"type": "struct", "name": "server1.dbo.customers.Envelope", "optional": False, "fields": [
        {**value, "field": "before"}, {**value, "field": "after"},
        {"type": "struct", "fields": [], "optional": False, "name": "io.debezium.connector.Source", "field": "source"},
        {"type": "string", "optional": False, "field": "op"},
        {"type": "int64", "optional": True, "field": "ts_ms"}]}, "payload": payload}


AFTER = {"id": 1004, "name": "Anne", "price": decimal_bytes("12.50", 2), "born": 20458,
         "seen": 1767607200123456}
EXPECTED_AFTER = {"ID": 1004, "NAME": "Anne", "PRICE": Decimal("12.50"), "BORN": datetime(2026, 1, 5, tzinfo=UTC),
                  "SEEN": datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)}

# Each connector's create event, its source block as that connector writes it (Debezium's documentation).
SOURCES: dict[str, dict[str, Any]] = {
    "pg": {"version": "2.5.0.Final", "connector": "postgresql", "name": "PostgreSQL_server", "ts_ms": COMMIT_MS,
           "snapshot": "false", "db": "postgres", "sequence": "[\"24023119\",\"24023128\"]", "schema": "public",
           "table": "customers", "txId": 555, "lsn": 24023128, "xmin": None},
    "my": {"version": "2.5.0.Final", "connector": "mysql", "name": "mysql-server-1", "ts_ms": COMMIT_MS,
           "snapshot": "false", "db": "inventory", "table": "customers", "server_id": 223344, "gtid": None,
           "file": "mysql-bin.000003", "pos": 484, "row": 0, "thread": 7, "query": None},
    "ms": {"version": "2.5.0.Final", "connector": "sqlserver", "name": "server1", "ts_ms": COMMIT_MS,
           "snapshot": "false", "db": "testDB", "schema": "dbo", "table": "customers",
           "change_lsn": "00000027:00000758:0003", "commit_lsn": "00000027:00000758:0005", "event_serial_no": "1"},
    "ora": {"version": "2.5.0.Final", "connector": "oracle", "name": "server1", "ts_ms": COMMIT_MS - 1,
            "ts_us": COMMIT_MS * 1000, "txId": "6.28.807", "scn": "2122185", "commit_scn": "2122185",
            "snapshot": "false", "db": "ORCLPDB1", "schema": "DEBEZIUM", "table": "CUSTOMERS"},
    "db2": {"version": "2.5.0.Final", "connector": "db2", "name": "myconnector", "ts_ms": COMMIT_MS,
            "snapshot": "false", "db": "mydatabase", "schema": "MYSCHEMA", "table": "CUSTOMERS",
            "change_lsn": "00000027:00000758:0003", "commit_lsn": "00000027:00000758:0005"},
}
TRANSACTIONS: dict[str, Any] = {
    "pg": None,  # no transaction metadata: source.txId
    "my": None,  # neither: one transaction per event
    "ms": {"id": "00000027:00000758:0005", "total_order": "2", "data_collection_order": "1"},
    "ora": {"id": "6.28.807", "total_order": 3, "data_collection_order": 3},
    "db2": {"id": "00000027:00000758:0005", "total_order": 1, "data_collection_order": 1},
}
EXPECTED_TXN = {"pg": ("555", 0), "my": ("mysql.jsonl:000000000007", 0), "ms": ("00000027:00000758:0005", 2),
                "ora": ("6.28.807", 3), "db2": ("00000027:00000758:0005", 1)}


def event(server_id: str, op: str = "c", before: dict[str, Any] | None = None,
          after: dict[str, Any] | None = AFTER, **source: Any) -> dict[str, Any]:
    payload = {"before": before, "after": after, "source": {**SOURCES[server_id], **source}, "op": op,
               "ts_ms": COMMIT_MS + 40, "transaction": TRANSACTIONS[server_id]}
    return payload


def decode(doc: Any, server_id: str = "pg", line: int = 7, file: str | None = None) -> Any:
    text = doc if isinstance(doc, (str, bytes)) else json.dumps(doc)
    return decode_event(text, server_id, file or f"{FLAVOURS[server_id]}.jsonl", line, MODEL)


def test_the_record_is_the_same_with_the_wrapper_and_without_it() -> None:
    plain = dict(AFTER, price="12.50")  # decimal.handling.mode=string; dates and timestamps by the column type
    without, inside = decode(event("pg", after=plain)), decode(wrapped(event("pg")))
    assert isinstance(without, ChangeRecord) and isinstance(inside, ChangeRecord)
    assert without.after == inside.after == EXPECTED_AFTER


@pytest.mark.parametrize("flavour", list(FLAVOURS))
def test_each_connector_flavour_reads_as_a_change_record(flavour: str) -> None:
    record = decode(wrapped(event(flavour)), flavour)
    assert isinstance(record, ChangeRecord), record
    assert (record.site, record.table, record.op) == (flavour, f"{flavour}.CUSTOMERS", "I")
    assert (record.txn, record.seq) == EXPECTED_TXN[flavour]
    assert record.commit_ts == COMMIT
    assert record.before is None and record.after == EXPECTED_AFTER


@pytest.mark.parametrize("flavour", list(FLAVOURS))
def test_each_flavour_reads_updates_and_deletes(flavour: str) -> None:
    before = dict(AFTER, name="Ann")
    update = decode(wrapped(event(flavour, "u", before=before)), flavour)
    delete = decode(wrapped(event(flavour, "d", before=AFTER, after=None)), flavour)
    assert isinstance(update, ChangeRecord) and isinstance(delete, ChangeRecord)
    assert update.op == "U" and update.before == dict(EXPECTED_AFTER, NAME="Ann") and update.after == EXPECTED_AFTER
    assert delete.op == "D" and delete.before == EXPECTED_AFTER and delete.after is None


def test_the_finest_commit_time_wins_and_ts_ns_is_read() -> None:
    record = decode(event("pg", ts_ns=COMMIT_MS * 1_000_000 + 789))
    assert isinstance(record, ChangeRecord)
    assert record.commit_ts == COMMIT.replace(microsecond=500000)


def logical(field: dict[str, Any], value: Any, column: str = "SEEN") -> Any:
    doc = wrapped(event("db2", after={"ID": 1, column: value}))
    doc["schema"]["fields"][1]["fields"] = [{"type": "int32", "field": "ID"}, {**field, "field": column}]
    record = decode(doc, "db2")
    return record.after[column] if isinstance(record, ChangeRecord) else record


@pytest.mark.parametrize(("field", "value", "expected"), [
    ({"type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"}, 1767607200123,
     datetime(2026, 1, 5, 10, 0, 0, 123000, tzinfo=UTC)),
    ({"type": "int64", "name": "io.debezium.time.Timestamp"}, 1767607200123,
     datetime(2026, 1, 5, 10, 0, 0, 123000, tzinfo=UTC)),
    ({"type": "int64", "name": "io.debezium.time.MicroTimestamp"}, 1767607200123456,
     datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)),
    ({"type": "int64", "name": "io.debezium.time.NanoTimestamp"}, 1767607200123456000,
     datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)),
    ({"type": "string", "name": "io.debezium.time.ZonedTimestamp"}, "2026-01-05T11:00:00.5+01:00",
     datetime(2026, 1, 5, 10, 0, 0, 500000, tzinfo=UTC)),
    ({"type": "int64", "name": "io.debezium.time.MicroTimestamp"}, -1_000_000,
     datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC)),
])
def test_logical_timestamp_types(field: dict[str, Any], value: Any, expected: datetime) -> None:
    assert logical(field, value) == expected


@pytest.mark.parametrize("name", ["io.debezium.time.Date", "org.apache.kafka.connect.data.Date"])
def test_logical_date_types(name: str) -> None:
    assert logical({"type": "int32", "name": name}, 20458, "BORN") == datetime(2026, 1, 5, tzinfo=UTC)


@pytest.mark.parametrize(("value", "scale", "expected"), [("12.50", 2, "12.50"), ("-0.07", 2, "-0.07"),
                                                          ("99999999.99", 2, "99999999.99"), ("0", 2, "0.00")])
def test_decimal_bytes_with_their_scale(value: str, scale: int, expected: str) -> None:
    field = {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": str(scale)}}
    assert logical(field, decimal_bytes(value, scale), "PRICE") == Decimal(expected)


def test_variable_scale_decimal() -> None:
    field = {"type": "struct", "name": "io.debezium.data.VariableScaleDecimal"}
    assert logical(field, {"scale": 3, "value": decimal_bytes("-1.5", 3)}, "PRICE") == Decimal("-1.50")


def test_a_decimal_that_does_not_fit_its_column_is_a_reject() -> None:
    field = {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}}
    result = logical(field, decimal_bytes("123456789.00", 2), "PRICE")
    assert isinstance(result, Reject) and "PRICE" in result.reason


def plain(server_id: str, table_name: str, after: dict[str, Any]) -> Any:
    record = decode(event(server_id, after=after, table=table_name), server_id)
    assert isinstance(record, ChangeRecord), record
    return record.after


def test_without_a_wrapper_values_follow_the_column_types() -> None:
    got = plain("ms", "T", {"ID": 1, "AT": 1767607200123456000, "RAW": base64.b64encode(b"\x00\xff").decode(),
                            "AMOUNT": decimal_bytes("-2.125", 3), "T3": 1767607200123})
    assert got == {"ID": 1, "AT": datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC), "RAW": b"\x00\xff",
                   "AMOUNT": Decimal("-2.125"), "T3": datetime(2026, 1, 5, 10, 0, 0, 123000, tzinfo=UTC)}
    assert plain("ms", "T", {"ID": 2, "AMOUNT": "7.5"})["AMOUNT"] == Decimal("7.500")  # decimal as text
    assert plain("ms", "T", {"ID": 3, "AMOUNT": 7.25})["AMOUNT"] == Decimal("7.250")  # decimal as a double
    assert plain("ora", "D", {"ID": 1, "DAY": 1767571200000})["DAY"] == datetime(2026, 1, 5, tzinfo=UTC)  # ms
    assert plain("pg", "customers", {"id": 1, "born": 20458, "seen": 1767607200123456}) == {
        **dict.fromkeys(EXPECTED_AFTER), "ID": 1, "BORN": EXPECTED_AFTER["BORN"], "SEEN": EXPECTED_AFTER["SEEN"]}


MESSAGE_EVENT = {  # Debezium's PostgreSQL connector documentation, "Message events" (a non-transactional one)
    "op": "m", "ts_ms": 1559033904961,
    "source": {"version": "2.7.0.Final", "connector": "postgresql", "name": "PostgreSQL_server",
               "ts_ms": 1559033904863, "snapshot": False, "db": "postgres", "schema": "", "table": "", "txId": None,
               "lsn": 46523128, "xmin": None},
    "message": {"prefix": "foo", "content": "Ymfy"}}


@pytest.mark.parametrize("text", ["null", '{"schema": null, "payload": null}', '{"ts_ms": 1767607200000}',
                                  json.dumps({"schema": {"name": "io.debezium.connector.common.Heartbeat"},
                                              "payload": {"ts_ms": 1767607200000}}),
                                  '{"status": "BEGIN", "id": "571", "event_count": null, "data_collections": null}',
                                  json.dumps({"status": "END", "id": "571", "ts_ms": 1, "event_count": 2,
                                              "data_collections": [{"data_collection": "s1.a", "event_count": 2}]}),
                                  json.dumps(MESSAGE_EVENT)])
def test_tombstones_heartbeats_and_transaction_boundaries_are_skipped(text: str) -> None:
    result = decode(text)
    assert isinstance(result, Skip) and result.line == 7


@pytest.mark.parametrize(("doc", "reason"), [
    (event("pg", op="x"), "unknown op 'x'"),
    (event("pg", op="t", after=None), "truncate"),
    (event("pg", table="invoices"), "unknown table pg.invoices"),
    (event("pg", table="mixed"), "ambiguous"),
    (event("pg", op="u", before=None), "REPLICA IDENTITY FULL"),
    (event("pg", ts_ms="05.01.2026 10:00:00"), "bad timestamp"),
    (event("pg", ts_ms=None), "missing commit time"),
    (event("pg", after=dict(AFTER, name="far too long a name")), "column 'NAME'"),
    (event("pg", after=dict(AFTER, nickname="x")), "'nickname' is not in pg.CUSTOMERS"),
    (event("pg", after={"name": "no key"}), "missing key column 'ID'"),
    (event("pg", op="r", after=None), "no after image"),
    ({"source": SOURCES["pg"], "ddl": "ALTER TABLE customers ADD x int", "tableChanges": []}, "schema change"),
    ({"op": "c", "after": AFTER}, "no source block"),
    ('{"op": "c", "after": ', "not JSON"),
    ("[1, 2]", "expected a JSON object"),
])
def test_an_unusable_event_is_a_reject_with_its_reason(doc: Any, reason: str) -> None:
    result = decode(doc)
    assert isinstance(result, Reject), result
    assert reason in result.reason and (result.file, result.line) == ("postgresql.jsonl", 7)


def test_a_line_that_is_not_utf8_is_a_reject() -> None:
    result = decode(json.dumps(event("pg")).encode().replace(b"Anne", b"An\xffe"))
    assert isinstance(result, Reject) and "invalid UTF-8" in result.reason


def test_bad_logical_values_are_rejects() -> None:
    decimal = {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}}
    assert "not base64" in logical(decimal, "%%%", "PRICE").reason
    micro = {"type": "int64", "name": "io.debezium.time.MicroTimestamp"}
    assert "whole number" in logical(micro, "soon").reason
    assert "outside the years" in logical(micro, 10**30).reason


def test_schema_and_db_decide_between_tables_of_one_name() -> None:
    sales = decode(event("ora", after={"ID": 1}, table="ORDERS", schema="SALES"), "ora")
    hr = decode(event("ora", after={"ID": 1}, table="orders", schema="hr"), "ora")
    neither = decode(event("ora", after={"ID": 1}, table="ORDERS", schema="OPS", db="ORCLPDB1"), "ora")
    assert isinstance(sales, ChangeRecord) and sales.table == "ora.SALES.ORDERS"
    assert isinstance(hr, ChangeRecord) and hr.table == "ora.HR.ORDERS"
    assert isinstance(neither, Reject) and "ambiguous" in neither.reason
    exact = decode(event("pg", after={"ID": 1}, table="Mixed"))
    assert isinstance(exact, ChangeRecord) and exact.table == "pg.Mixed"


def test_a_snapshot_read_is_a_snapshot_row() -> None:
    row = decode(wrapped(event("db2", op="r", snapshot="true")), "db2")
    assert isinstance(row, SnapshotRow) and row.table == "db2.CUSTOMERS" and row.row == EXPECTED_AFTER


def write_lines(path: Path, docs: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((d if isinstance(d, str) else json.dumps(d)) + "\n" for d in docs), encoding="utf-8")


def test_a_run_reads_snapshot_rows_records_skips_and_rejects(tmp_path: Path) -> None:
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(10)")]
    m = model([server("a", "postgresql"), server("b", "oracle")],
              [table("a", "T", cols, pk=["ID"]), table("b", "T", cols, pk=["ID"])],
              [mapping("ab", "a.T", "b.T", {"ID": "ID", "NAME": "NAME"})])
    src = {**SOURCES["pg"], "table": "t"}
    write_lines(tmp_path / "changes" / "debezium" / "a" / "events.jsonl", [
        {"op": "r", "before": None, "after": {"id": 1, "name": "one"}, "source": src},
        {"op": "c", "before": None, "after": {"id": 2, "name": "two"}, "source": src,
         "transaction": {"id": "t1", "total_order": 1}},
        '{"status": "END", "id": "t1", "event_count": 1, "data_collections": []}',
        {"op": "d", "before": {"id": 1, "name": "one"}, "after": None, "source": {**src, "txId": 556}},
        "null",
        {"op": "c", "before": None, "after": {"id": 3, "name": "x" * 11}, "source": src},
    ])
    write_lines(tmp_path / "snapshots" / "b" / "T.jsonl", [{"ID": 1, "NAME": "one"}])
    result = run_reference(m, tmp_path)
    assert result.counts.as_dict() | {"filtered": 0} == {
        "records": 3, "rejects": 1, "skipped": 2, "filtered": 0, "deliveries": 2, "applied": 2, "resolved": 0,
        "queued": 0, "conflicts": 0}
    assert sorted(r["ID"] for r in result.tables["b.T"]) == [2]
    assert [r.line for r in result.rejects] == [6]


def test_rejects_of_both_formats_are_in_file_order(tmp_path: Path) -> None:
    write_lines(tmp_path / "changes" / "a.jsonl", ["{torn"])
    write_lines(tmp_path / "changes" / "z.jsonl", ["[]"])
    write_lines(tmp_path / "changes" / "debezium" / "pg" / "e.jsonl", [event("pg", op="x")])
    result = run_reference(MODEL, tmp_path)
    assert [Path(r.file).name for r in result.rejects] == ["a.jsonl", "e.jsonl", "z.jsonl"]
    assert result.counts.as_dict()["skipped"] == 0 and result.counts.records == 3


def test_a_duplicate_snapshot_key_names_the_event(tmp_path: Path) -> None:
    src = {**SOURCES["pg"]}
    write_lines(tmp_path / "changes" / "debezium" / "pg" / "snap.json", [
        {"op": "r", "after": {"id": 1}, "source": src}, {"op": "r", "after": {"id": 1}, "source": src}])
    found = read_debezium(tmp_path, MODEL)
    assert len(found.snapshot_rows) == 2
    with pytest.raises(InputError, match=r"snap\.json:2: duplicate primary key \(ID=1\), first at .*snap\.json:1"):
        add_snapshot_rows({}, found.snapshot_rows, MODEL)


def test_a_folder_of_an_unknown_server_is_an_input_error(tmp_path: Path) -> None:
    write_lines(tmp_path / "changes" / "debezium" / "nosuch" / "e.jsonl", ["null"])
    with pytest.raises(InputError, match="no server 'nosuch' in the model"):
        read_debezium(tmp_path, MODEL)


def test_events_outside_a_server_folder_are_an_input_error(tmp_path: Path) -> None:
    write_lines(tmp_path / "changes" / "debezium" / "e.jsonl", ["null"])
    with pytest.raises(InputError, match=r"go in a folder named after their server \(changes/debezium/<server>/e"):
        read_debezium(tmp_path, MODEL)


def test_two_spellings_of_one_column_are_a_reject() -> None:
    result = decode(event("pg", after=dict(AFTER, ID=1004)))
    assert isinstance(result, Reject) and "columns 'id' and 'ID' both name pg.CUSTOMERS.ID" in result.reason


@pytest.mark.parametrize("order", ["x", "１２", True, 1.5])
def test_a_total_order_that_is_no_integer_is_a_reject(order: Any) -> None:
    doc = event("db2")
    doc["transaction"] = {"id": "t", "total_order": order}
    result = decode(doc, "db2")
    assert isinstance(result, Reject) and "total_order must be an integer" in result.reason


@pytest.mark.parametrize(("field", "value"), [
    ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "999999999"}}, "AQ=="),
    ({"type": "struct", "name": "io.debezium.data.VariableScaleDecimal"}, {"scale": 10**9, "value": "BQ=="}),
], ids=["Decimal", "VariableScaleDecimal"])
def test_a_decimal_whose_scale_no_decimal_holds_is_a_reject(field: dict[str, Any], value: Any) -> None:
    """Not a failed run (the differential probe's find: Python's `scaleb` raised InvalidOperation)."""
    result = logical(field, value, "PRICE")
    assert isinstance(result, Reject) and "out of range" in result.reason


def test_events_without_a_transaction_at_one_instant_apply_in_file_order(tmp_path: Path) -> None:
    """Each such event is a transaction of its own, named by its file and line; at a shared millisecond the
    names had sorted as text (`events.jsonl:10` before `:9`), so an update ran before its insert."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(10)")]
    m = model([server("a", "mysql")], [table("a", "T", cols, pk=["ID"])])
    src = {**SOURCES["my"], "table": "t"}
    filler = [{"op": "c", "before": None, "after": {"id": n, "name": "f"}, "source": src} for n in range(10, 17)]
    write_lines(tmp_path / "changes" / "debezium" / "a" / "events.jsonl", [
        *filler,
        {"op": "c", "before": None, "after": {"id": 1, "name": "first"}, "source": src},  # line 8
        {"op": "u", "before": {"id": 1, "name": "first"}, "after": {"id": 1, "name": "second"}, "source": src},
        {"op": "u", "before": {"id": 1, "name": "second"}, "after": {"id": 1, "name": "third"}, "source": src}])
    result = run_reference(m, tmp_path)
    assert [r["NAME"] for r in result.tables["a.T"] if r["ID"] == 1] == ["third"]


@pytest.mark.parametrize("damage", ["fields-a-number", "envelope-fields-a-number", "parameters-a-list"])
def test_a_wrapper_schema_of_another_shape_is_a_reject_not_a_failed_run(damage: str) -> None:
    doc = wrapped(event("db2"))
    if damage == "fields-a-number":
        doc["schema"]["fields"] = 5
    elif damage == "envelope-fields-a-number":
        doc["schema"]["fields"][1]["fields"] = 5
    else:
        doc["schema"]["fields"][1]["fields"][2]["parameters"] = ["scale", 2]
    result = decode(doc, "db2")
    assert isinstance(result, (Reject, ChangeRecord)), result
    if damage == "parameters-a-list":
        assert isinstance(result, Reject) and "scale" in result.reason


def test_an_integer_column_takes_no_base64() -> None:
    """Only a DECIMAL column reads base64 bytes (decimal.handling.mode=precise); `AAAAAQ==` had become the
    key 1 of an INTEGER column."""
    result = decode(event("pg", after=dict(AFTER, id="AAAAAQ==", price="12.50")))
    assert isinstance(result, Reject) and "ID" in result.reason


@pytest.mark.parametrize("after", [{"id": None}, {"name": "no key"}])
def test_a_snapshot_read_without_its_key_stops_the_run_naming_the_event(tmp_path: Path, after: dict[str, Any]) -> None:
    """An `r` event is a row of `snapshots/`, where a NULL key is exit 2 naming the row (it had been a
    reject, and the run went on without it)."""
    src = {**SOURCES["pg"]}
    write_lines(tmp_path / "changes" / "debezium" / "pg" / "snap.json", [
        {"op": "r", "after": {"id": 1}, "source": src}, {"op": "r", "after": after, "source": src}])
    found = read_debezium(tmp_path, MODEL)
    with pytest.raises(InputError, match=r"snap\.json:2: primary key column ID is NULL"):
        add_snapshot_rows({}, found.snapshot_rows, MODEL)
