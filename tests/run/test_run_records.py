"""Decoding change records by schema version, rejects, and typed snapshots (docs/contract.md §4, seed 002)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from runkit import build, copy_mapping, pair, rec, rows, run, table

from engine.run.input.files import InputError
from engine.run.input.records import ChangeRecord, Reject, decode_record, read_changes
from engine.run.input.snapshots import read_snapshots

# s.PUB went through two schema changes: version 1 had PRICE as INTEGER and a NOTE column;
# version 2 made PRICE a DECIMAL, dropped NOTE and added CITY (the table's columns today).
VERSIONED = build(
    [{"id": "s", "dbms": "ase"}],
    [table("s", "PUB", {"ID": "INTEGER", "NAME": "VARCHAR(20)", "PRICE": "DECIMAL(8,2)", "CITY": "VARCHAR(20)"},
           ["ID"], replication_definitions=[
               {"version": 1, "columns": [{"name": "ID", "type": "INTEGER"},
                                          {"name": "NAME", "type": "VARCHAR(20)"},
                                          {"name": "PRICE", "type": "INTEGER"},
                                          {"name": "NOTE", "type": "VARCHAR(40)"}]},
               {"version": 2, "columns": ["ID", "NAME", "PRICE", "CITY"]}]),
     table("s", "PLAIN", {"ID": "INTEGER", "AT": "TIMESTAMP", "BIN": "VARBINARY(4)", "OK": "BOOLEAN"}, ["ID"])])


def decode(line: str) -> ChangeRecord | Reject:
    return decode_record(line, "changes.jsonl", 7, VERSIONED)


def accepted(line: str) -> ChangeRecord:
    result = decode(line)
    assert isinstance(result, ChangeRecord), result
    return result


def reason(line: str) -> str:
    result = decode(line)
    assert isinstance(result, Reject), result
    assert (result.file, result.line, result.raw) == ("changes.jsonl", 7, line)
    return result.reason


def test_an_old_row_keeps_its_version_columns_and_types() -> None:
    r = accepted(rec("s", "t1", "I", after={"ID": 1, "NAME": "x", "PRICE": 12, "NOTE": "old"},
                     table="PUB", schema_version=1))
    assert r.after == {"ID": 1, "NAME": "x", "PRICE": 12, "NOTE": "old"}
    assert isinstance(r.after and r.after["PRICE"], int)
    assert r.version == 1


def test_a_new_row_has_its_version_columns_and_types() -> None:
    r = accepted(rec("s", "t1", "I", after={"ID": 1, "NAME": "x", "PRICE": "12.5", "CITY": "Oslo"},
                     table="PUB", schema_version=2))
    assert r.after == {"ID": 1, "NAME": "x", "PRICE": Decimal("12.50"), "CITY": "Oslo"}


def test_without_a_version_the_latest_definition_applies() -> None:
    r = accepted(rec("s", "t1", "I", after={"ID": 1, "CITY": "Oslo"}, table="PUB"))
    assert r.version == 2
    assert r.after == {"ID": 1, "NAME": None, "PRICE": None, "CITY": "Oslo"}  # left out: NULL


def test_a_table_without_definitions_has_one_implicit_version_of_all_columns() -> None:
    r = accepted(rec("s", "t1", "U", before={"ID": 1, "OK": 1}, table="PLAIN",
                     after={"ID": 1, "AT": "2026-01-05T11:00:00+01:00", "BIN": "0xCAFE", "OK": False}))
    assert r.after == {"ID": 1, "AT": datetime(2026, 1, 5, 10, 0, tzinfo=UTC), "BIN": b"\xca\xfe", "OK": False}
    assert r.before == {"ID": 1, "AT": None, "BIN": None, "OK": True}


@pytest.mark.parametrize(("line", "why"), [
    (rec("s", "t1", "I", after={"ID": 1, "NOTE": "x"}, table="PUB", schema_version=2), "'NOTE' is not in s.PUB"),
    (rec("s", "t1", "I", after={"ID": 1, "CITY": "x"}, table="PUB", schema_version=1), "'CITY' is not in s.PUB"),
    (rec("s", "t1", "I", after={"ID": 1}, table="PUB", schema_version=3), "unknown schema_version 3"),
    (rec("s", "t1", "I", after={"ID": 1}, table="NOPE"), "unknown table s.NOPE"),
    (rec("x", "t1", "I", after={"ID": 1}, table="PUB"), "unknown site 'x'"),
    (rec("s", "t1", "M", after={"ID": 1}, table="PUB"), "unknown op 'M'"),
    (rec("s", "t1", "I", after={"ID": 1}, table="PUB", at="soon"), "bad timestamp 'soon'"),
    (rec("s", "t1", "I", after={"NAME": "x"}, table="PUB"), "missing key column 'ID'"),
    (rec("s", "t1", "I", before={"ID": 1}, after={"ID": 1}, table="PUB"), "an insert has a before image"),
    (rec("s", "t1", "D", before={"ID": 1}, after={"ID": 1}, table="PUB"), "a delete has an after image"),
    (rec("s", "t1", "U", after={"ID": 1}, table="PUB"), "an update has no before image"),
    (rec("s", "t1", "I", table="PUB"), "an insert has no after image"),
    (rec("s", "t1", "I", after={"ID": "one"}, table="PUB"), "column 'ID': not a number"),
    (rec("s", "t1", "I", after={"ID": 1, "PRICE": 1.5}, table="PUB", schema_version=1), "not a whole number"),
    (rec("s", "t1", "I", after={"ID": 1, "AT": "noon"}, table="PLAIN"), "not an ISO 8601 timestamp"),
    (rec("s", "t1", "I", after={"ID": 1, "BIN": "xyz"}, table="PLAIN"), "not hex text"),
    (rec("s", "", "I", after={"ID": 1}, table="PUB"), "missing txn"),
    (rec("s", "t1", "I", after={"ID": 1}, table="PUB", seq="2"), "seq must be an integer"),
    ("{not json", "not JSON"),
    ("[1, 2]", "not a JSON object"),
])
def test_records_that_do_not_parse_or_match_are_rejected_with_the_reason(line: str, why: str) -> None:
    assert why in reason(line)


def test_an_old_value_that_cannot_take_the_current_type_is_rejected() -> None:
    definitions = [{"version": 1, "columns": [{"name": "ID"}, {"name": "D", "type": "VARCHAR(9)"}]},
                   {"version": 2, "columns": ["ID", "D"]}]
    model = build([{"id": "s", "dbms": "ase"}],
                  [table("s", "T", {"ID": "INTEGER", "D": "DATE"}, ["ID"], replication_definitions=definitions)])
    result = decode_record(rec("s", "t", "I", after={"ID": 1, "D": "someday"}, schema_version=1), "f", 1, model)
    assert isinstance(result, Reject) and "does not fit the table's current type DATE" in result.reason


def test_read_changes_counts_every_non_blank_line_of_every_file(tmp_path: Path) -> None:
    changes = tmp_path / "changes"
    changes.mkdir()
    (changes / "b.jsonl").write_text(rec("s", "t2", "I", after={"ID": 2}, table="PUB") + "\n\n{bad\n")
    (changes / "a.jsonl").write_text(rec("s", "t1", "I", after={"ID": 1}, table="PUB") + "\n")
    (changes / "ignored.txt").write_text("not a changes file\n")
    records, rejects = read_changes(tmp_path, VERSIONED)
    assert [(Path(r.file).name, r.line, r.txn) for r in records] == [("a.jsonl", 1, "t1"), ("b.jsonl", 1, "t2")]
    assert [(Path(r.file).name, r.line) for r in rejects] == [("b.jsonl", 3)]


def test_snapshots_are_typed_by_the_table_columns(tmp_path: Path) -> None:
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}, {"id": "u", "dbms": "oracle"}],
                  [table(site, "T", {"ID": "INTEGER", "AMOUNT": "DECIMAL(6,2)", "AT": "DATE", "NAME": "VARCHAR(9)"},
                         ["ID"]) for site in ("s", "t", "u")])
    for site in ("s", "t", "u"):
        (tmp_path / "snapshots" / site).mkdir(parents=True)
    (tmp_path / "snapshots/s/T.csv").write_text("ID,AMOUNT,AT,NAME\n1,2.5,2026-01-05,\n2,,,bob\n")
    (tmp_path / "snapshots/t/T.jsonl").write_text(json.dumps({"ID": 1, "AMOUNT": "2.50", "AT": "2026-01-05T00:00:00Z"}))
    parquet = pa.table({"ID": pa.array([1], pa.int32()),
                        "AMOUNT": pa.array([Decimal("2.5")], pa.decimal128(6, 2)),
                        "AT": pa.array([datetime(2026, 1, 5)], pa.timestamp("us"))})
    pq.write_table(parquet, tmp_path / "snapshots/u/T.parquet")
    snapshots = read_snapshots(tmp_path, model)
    first = {"ID": 1, "AMOUNT": Decimal("2.50"), "AT": datetime(2026, 1, 5, tzinfo=UTC), "NAME": None}
    assert snapshots["s.T"] == [first, {"ID": 2, "AMOUNT": None, "AT": None, "NAME": "bob"}]
    assert snapshots["t.T"] == [first]
    assert snapshots["u.T"] == [first]


@pytest.mark.parametrize(("name", "text", "why"), [
    ("T.csv", "ID,WHAT\n1,2\n", "has no column 'WHAT'"),
    ("T.csv", "ID\nabc\n", "T.csv:2: column ID: not a number"),
    ("T.jsonl", "[1]\n", "not a JSON object"),
    ("OTHER.csv", "ID\n1\n", "no table s.OTHER"),
])
def test_a_snapshot_that_does_not_fit_stops_the_run(tmp_path: Path, name: str, text: str, why: str) -> None:
    model = build([{"id": "s", "dbms": "oracle"}], [table("s", "T", {"ID": "INTEGER"}, ["ID"])])
    (tmp_path / "snapshots" / "s").mkdir(parents=True)
    (tmp_path / "snapshots" / "s" / name).write_text(text)
    with pytest.raises(InputError, match=why):
        read_snapshots(tmp_path, model)


def test_old_and_new_rows_in_flight_both_replicate_each_in_its_own_shape() -> None:
    columns = {"ID": "INTEGER", "NAME": "VARCHAR(20)", "PRICE": "DECIMAL(8,2)", "CITY": "VARCHAR(20)"}
    model = build([{"id": "s", "dbms": "ase"}, {"id": "t", "dbms": "ase"}],
                  [VERSIONED.tables[0].model_dump(), table("t", "PUB", columns, ["ID"])],
                  [copy_mapping("m", "s.PUB", "t.PUB", list(columns))])
    lines = [rec("s", "t1", "I", after={"ID": 1, "NAME": "old", "PRICE": 12, "NOTE": "x"}, table="PUB",
                 schema_version=1),
             rec("s", "t2", "I", after={"ID": 2, "NAME": "new", "PRICE": "7.25", "CITY": "Oslo"}, table="PUB",
                 schema_version=2)]
    result = run(model, lines)
    expected = [{"ID": 1, "NAME": "old", "PRICE": Decimal("12.00"), "CITY": None},
                {"ID": 2, "NAME": "new", "PRICE": Decimal("7.25"), "CITY": "Oslo"}]
    assert result.tables["s.PUB"] == expected
    assert result.tables["t.PUB"] == expected
    assert (result.counts.rejects, result.diverged()) == (0, {"m": 0})


def test_a_json_number_keeps_every_digit_it_is_written_with() -> None:
    """A JSON number is read as written, not through a float: 30 digits into DECIMAL(38,10) stay 30 digits
    (a float had kept 17: `12345678901234567890.0123456789` became `12345678901234567000`). A DOUBLE
    column still gets the nearest double of the same text."""
    model = pair({"V": "DECIMAL(38,10)", "D": "DOUBLE"})
    line = '{"site": "s", "txn": "t1", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "I", ' \
           '"after": {"ID": 1, "V": 12345678901234567890.0123456789, "D": 0.1000000000000000055511151231257827}}'
    result = run(model, [line])
    assert rows(result, "t.T") == [{"ID": 1, "V": Decimal("12345678901234567890.0123456789"), "D": 0.1}]
