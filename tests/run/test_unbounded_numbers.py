"""Numbers and timestamps a run cannot hold exactly (issue 36), in the reference engine: a DECIMAL, NUMERIC or
NUMBER without precision is carried as DECIMAL(38,10), and a value with more digits is a reject (it had failed
the run, or been rounded); a timestamp with non-zero digits beyond the microsecond is a reject (it had been
cut); TIMESTAMPTZ, UUID and ARRAY columns run, a TIMESTAMPTZ value with an offset held in UTC."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from builders import col, mapping, model, server, table

from engine.run.input.debezium.envelope import decode_event
from engine.run.input.files import InputError
from engine.run.input.records import ChangeRecord, Reject
from engine.run.rundir.write import RunInfo, write_run
from engine.run.semantics.reference import run_reference

COLUMNS = [col("ID", nullable=False), col("PRICE", "NUMERIC"), col("N", "NUMBER"), col("D", "NUMERIC(38,2)"),
           col("TS", "TIMESTAMP"), col("TZ", "TIMESTAMPTZ"), col("U", "UUID"), col("A", "ARRAY(INTEGER)"),
           col("CLOCK", "VARCHAR(20)")]
MODEL = model([server("s"), server("t")], [table(site, "T", COLUMNS, pk=["ID"]) for site in ("s", "t")],
              [mapping("m", "s.T", "t.T", {c["name"]: c["name"] for c in COLUMNS})])
LIMIT = "(at most 28 digits before the point and 10 after)"
SUB = "has sub-microsecond digits; a TIMESTAMP holds microseconds"
UUID = "123e4567-e89b-12d3-a456-426614174000"
WIDE = "9999999999999999999999999999.9999999999"  # 28 digits and 10: the widest that fits

# (the record's after image, the reject's reason or None when it is accepted)
RECORDS: list[tuple[dict[str, Any], str | None]] = [
    ({"PRICE": "123456789012345678901234567890"},
     f"after: column 'PRICE': 123456789012345678901234567890 does not fit an unbounded NUMERIC {LIMIT}"),
    ({"PRICE": Decimal("0.123456789012345")},
     f"after: column 'PRICE': 0.123456789012345 does not fit an unbounded NUMERIC {LIMIT}"),
    ({"N": 12345678901234567890123456789012345678},  # an Oracle NUMBER of 38 digits
     f"after: column 'N': 12345678901234567890123456789012345678 does not fit an unbounded NUMBER {LIMIT}"),
    ({"PRICE": "-0.00000000001"}, f"after: column 'PRICE': -0.00000000001 does not fit an unbounded NUMERIC {LIMIT}"),
    ({"PRICE": "1E+28"}, f"after: column 'PRICE': 1E+28 does not fit an unbounded NUMERIC {LIMIT}"),
    ({"TS": "2026-01-05T10:00:00.1234567Z"}, f"after: column 'TS': '2026-01-05T10:00:00.1234567Z' {SUB}"),
    ({"TZ": "2026-01-05T12:00:00.123456789+02:00"}, f"after: column 'TZ': '2026-01-05T12:00:00.123456789+02:00' {SUB}"),
    ({"PRICE": Decimal("1.50000000000000"), "N": WIDE, "D": "123456789012345678901234567890123456.78",
      "TS": "2026-01-05T10:00:00.123456000Z", "TZ": "2026-01-05T12:00:00+02:00", "U": UUID, "A": [1, 2]}, None),
    ({"PRICE": "-" + WIDE, "N": "0.0000000001", "TS": "2026-01-05 10:00:00,5"}, None),
]


def write_records(data: Path) -> None:
    """RECORDS as one change file of site s, ID 1, 2... in order."""
    (data / "changes").mkdir(parents=True)
    lines = [json.dumps({"site": "s", "txn": f"x{i}", "seq": 1, "commit_ts": f"2026-01-05T10:00:{i:02d}Z",
                         "table": "T", "op": "I", "after": {"ID": i, **{k: _json(v) for k, v in after.items()}}})
             for i, (after, _) in enumerate(RECORDS, 1)]
    (data / "changes" / "a.jsonl").write_text("".join(line.replace('"@', "").replace('@"', "") + "\n"
                                                      for line in lines))


def _json(value: Any) -> Any:
    """A Decimal as a JSON number written as it is (`@...@` is unquoted after dumping)."""
    return f"@{value}@" if isinstance(value, Decimal) else value


def test_unbounded_numbers_that_do_not_fit_decimal_38_10_are_rejects_never_rounded(tmp_path: Path) -> None:
    """The run goes on (a 30-digit NUMERIC had failed it: ArrowInvalid), each reject names its column and the
    limit, and what is accepted is written exactly (0.123456789012345 had been written as 0.1234567890)."""
    write_records(tmp_path / "data")
    result = run_reference(MODEL, tmp_path / "data")
    write_run(result, MODEL, tmp_path / "out", RunInfo("x"))
    rejects = [json.loads(line) for line in (tmp_path / "out" / "rejects.jsonl").read_text().splitlines()]
    assert [(r["line"], r["reason"]) for r in rejects] == [
        (i, reason) for i, (_, reason) in enumerate(RECORDS, 1) if reason is not None]
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["counts"]["rejects"] == 7
    for site in ("s", "t"):
        rows = pq.read_table(tmp_path / "out" / "tables" / site / "T.parquet").to_pylist()
        assert [r["ID"] for r in rows] == [8, 9]
        assert rows[0]["PRICE"] == Decimal("1.5") and rows[0]["N"] == Decimal(WIDE)
        assert rows[0]["D"] == Decimal("123456789012345678901234567890123456.78")
        assert rows[0]["TS"] == datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)
        assert rows[0]["TZ"] == datetime(2026, 1, 5, 10, 0, tzinfo=UTC)  # the offset's instant, in UTC
        assert (rows[0]["U"], json.loads(rows[0]["A"])) == (UUID, [1, 2])
        assert rows[1]["PRICE"] == Decimal("-" + WIDE) and rows[1]["N"] == Decimal("1E-10")
        assert rows[1]["TS"] == datetime(2026, 1, 5, 10, 0, 0, 500000, tzinfo=UTC)
    schema = pq.read_schema(tmp_path / "out" / "tables" / "t" / "T.parquet")
    assert str(schema.field("PRICE").type) == "decimal128(38, 10)"


@pytest.mark.parametrize(("cell", "says"), [
    ('"PRICE": 123456789012345678901234567890', f"column PRICE: 123456789012345678901234567890 does not fit an "
                                                f"unbounded NUMERIC {LIMIT}"),
    ('"TS": "2026-01-05T10:00:00.000000001"', f"column TS: '2026-01-05T10:00:00.000000001' {SUB}"),
])
def test_a_snapshot_value_that_does_not_fit_is_an_input_error(tmp_path: Path, cell: str, says: str) -> None:
    """As any snapshot that does not fit its table (docs/contract.md §6): the run stops naming file and line."""
    folder = tmp_path / "snapshots" / "s"
    folder.mkdir(parents=True)
    path = folder / "T.jsonl"
    path.write_text('{"ID": 1, "PRICE": 1.5}\n{"ID": 2, ' + cell + "}\n")
    with pytest.raises(InputError) as error:
        run_reference(MODEL, tmp_path)
    assert str(error.value) == f"{path}:2: {says}"


def test_a_nanosecond_parquet_snapshot_is_read_to_the_microsecond_or_stops_the_run(tmp_path: Path) -> None:
    """Parquet's timestamp[ns]: a value with nanoseconds stops the run naming its row (it had been cut), one of
    whole microseconds is read as it is."""
    folder = tmp_path / "snapshots" / "s"
    folder.mkdir(parents=True)
    path = folder / "T.parquet"
    nanos = [1767607200123456000, 1767607200123456789]
    pq.write_table(pa.table({"ID": pa.array([1, 2], pa.int32()), "TS": pa.array(nanos, pa.timestamp("ns", "UTC"))}),
                   path)
    with pytest.raises(InputError) as error:
        run_reference(MODEL, tmp_path)
    assert str(error.value) == f"{path}:2: column TS: '2026-01-05 10:00:00.123456789+00:00' {SUB}"
    pq.write_table(pa.table({"ID": pa.array([1], pa.int32()), "TS": pa.array(nanos[:1], pa.timestamp("ns", "UTC"))}),
                   path)
    assert run_reference(MODEL, tmp_path).tables["s.T"][0]["TS"] == datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)


def _wrapped(after: dict[str, Any], fields: dict[str, dict[str, Any]]) -> str:
    """A Debezium create event of s.T with its wrapper: `fields` are the after image's logical types."""
    value = {"type": "struct", "fields": [{"type": "int32", "field": "ID"},
                                          *({**f, "field": name} for name, f in fields.items())]}
    schema = {"type": "struct", "fields": [{**value, "field": "before"}, {**value, "field": "after"}]}
    source = {"connector": "postgresql", "ts_ms": 1767607200000, "db": "db", "schema": "public", "table": "t",
              "txId": 7}
    return json.dumps({"schema": schema, "payload": {"before": None, "after": {"ID": 1, **after},
                                                    "source": source, "op": "c"}})


NANO = {"type": "int64", "name": "io.debezium.time.NanoTimestamp"}
ZONED = {"type": "string", "name": "io.debezium.time.ZonedTimestamp"}
NANO_TIME = {"type": "int64", "name": "io.debezium.time.NanoTime"}
VARIABLE = {"type": "struct", "name": "io.debezium.data.VariableScaleDecimal"}
DIGITS_38 = 12345678901234567890123456789012345678


def _unscaled(number: int) -> str:
    return base64.b64encode(number.to_bytes((number.bit_length() + 8) // 8, "big", signed=True)).decode()


@pytest.mark.parametrize(("after", "fields", "outcome"), [
    ({"TS": 1767607200123456789}, {"TS": NANO},
     f"column 'TS': io.debezium.time.NanoTimestamp 1767607200123456789 {SUB}"),
    ({"TS": 1767607200123456000}, {"TS": NANO}, datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)),
    ({"TZ": "2026-01-05T12:00:00.123456789+02:00"}, {"TZ": ZONED},
     f"after: column 'TZ': '2026-01-05T12:00:00.123456789+02:00' {SUB}"),
    ({"TZ": "2026-01-05T12:00:00.5+02:00"}, {"TZ": ZONED}, datetime(2026, 1, 5, 10, 0, 0, 500000, tzinfo=UTC)),
    ({"CLOCK": 36_000_000_000_001}, {"CLOCK": NANO_TIME}, f"column 'CLOCK': time of day 36000000000001 {SUB}"),
    ({"CLOCK": 36_000_000_001_000}, {"CLOCK": NANO_TIME}, "10:00:00.000001"),
    ({"N": {"scale": 0, "value": _unscaled(DIGITS_38)}}, {"N": VARIABLE},
     f"after: column 'N': {DIGITS_38} does not fit an unbounded NUMBER {LIMIT}"),
], ids=["nano", "nano-000", "zoned", "zoned-offset", "nano-time", "nano-time-000", "number-38"])
def test_debezium_values_are_never_cut(after: dict[str, Any], fields: dict[str, dict[str, Any]],
                                        outcome: Any) -> None:
    """A NanoTimestamp, ZonedTimestamp or NanoTime with sub-microsecond digits is a reject (they had been cut);
    a 38-digit VariableScaleDecimal (Oracle's NUMBER) in an unbounded NUMBER is a reject, never rounded."""
    got = decode_event(_wrapped(after, fields), "s", "s.jsonl", 1, MODEL)
    if isinstance(outcome, str) and not outcome[0].isdigit():
        assert isinstance(got, Reject) and got.reason == outcome
    else:
        assert isinstance(got, ChangeRecord), got
        (name,) = after
        assert got.after is not None and got.after[name] == outcome


def test_an_integer_timestamp_of_nanoseconds_without_a_logical_type_is_never_cut() -> None:
    """SQL Server's datetime2 (7 digits) as Debezium writes it without a wrapper: nanoseconds since 1970."""
    mssql = model([server("ms", "mssql")], [table("ms", "T", [col("ID", nullable=False), col("AT", "TIMESTAMP")],
                                                  pk=["ID"])])
    source = {"connector": "sqlserver", "ts_ms": 1767607200000, "db": "d", "schema": "dbo", "table": "T"}
    results = [decode_event(json.dumps({"before": None, "after": {"ID": 1, "AT": at}, "source": source, "op": "c"}),
                            "ms", "ms.jsonl", 1, mssql) for at in (1767607200123456700, 1767607200123456000)]
    assert isinstance(results[0], Reject)
    assert results[0].reason == f"column 'AT': a TIMESTAMP 1767607200123456700 {SUB}"
    assert isinstance(results[1], ChangeRecord) and results[1].after is not None
    assert results[1].after["AT"] == datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)
