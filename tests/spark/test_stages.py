"""Each stage of the Spark pipeline (engine/spark) on its own, on tiny inline inputs, with
`pyspark.testing.assertDataFrameEqual`.

`engine/spark/pipeline.py` chains the stages: `lines.read_lines` -> `decode.decode` -> `snapshots.read_snapshots`
-> `neteffect.net_effect` -> `resolve.resolve` -> `converge.reports`, with `output`'s writers for the data
files, `grouped.fold_groups` under the reference's paths and `progress.JobProgress` watching the jobs. Each
test here feeds one stage the input the stage before would give it and compares what it gives with what
the contract says (docs/contract.md §4 to 6), stated by hand and, where there is one, checked against the
pure-Python reference in engine/run/ (the oracle the Spark stages must equal).

One session for the whole file (tests/spark/conftest.py, local[2]); the session gets the configuration
`run_spark` sets before the stages run (UTC, ANSI, microsecond Parquet timestamps) and, as it does for a
small input, runs Spark's expressions interpreted (no code generation: seconds saved per test).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from builders import col, mapping, model, pair, server, table
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from engine.model import Model
from engine.run.input.files import InputError
from engine.run.input.records import ChangeRecord, Reject, decode_record, split_lines
from engine.run.input.schedule import parse_schedule
from engine.run.input.snapshots import read_snapshot_file
from engine.run.rundir.write import (
    conflict_flat,
    conflicts_arrow,
    in_time_order,
    jsonl_line,
    table_arrow,
    time_order_key,
)
from engine.run.semantics.context import build_context
from engine.run.semantics.converge import converge
from engine.run.semantics.fold import fold_events
from engine.run.semantics.reference import BEGINNING, build_events
from engine.spark import neteffect, output, resolve_native
from engine.spark.converge import reports
from engine.spark.decode import decode
from engine.spark.grouped import fold_groups, spread
from engine.spark.lines import read_lines
from engine.spark.neteffect import net_effect
from engine.spark.pipeline import configure
from engine.spark.progress import JobProgress
from engine.spark.resolve import Resolved, resolve, rows_of
from engine.spark.session import SMALL_INPUT_BYTES
from engine.spark.snapshots import _suspicious, read_snapshots, snapshot_text_files

pytestmark = pytest.mark.slow

ROW = "struct<ID: int, NAME: string>"
"""A row of `builders.pair()`'s tables T(ID INTEGER NOT NULL PK, NAME VARCHAR(40)) as Spark holds it."""
EVENTS = (f"kind string, rank int, at timestamp, commit_ts timestamp, origin string, txn string, seq bigint, "
          f"op string, mapping string, version int, error string, old_json string, new_json string, "
          f"old {ROW}, new {ROW}")
"""`neteffect.EVENT_COLUMNS` of a `pair()` table, typed."""


def assert_frames(actual: DataFrame, expected: DataFrame, ordered: bool = False) -> None:
    """`assertDataFrameEqual`, exactly: its default tolerance (an absolute 1e-8) would take a decimal 3E-10
    for 2E-10."""
    assertDataFrameEqual(actual, expected, checkRowOrder=ordered, rtol=0.0, atol=0.0)


def at(hh: int, mm: int, ss: int = 0) -> datetime:
    """An instant of the day the tests happen on, in UTC."""
    return datetime(2026, 1, 5, hh, mm, ss, tzinfo=UTC)


def row(id_: int, name: str | None) -> dict[str, Any]:
    return {"ID": id_, "NAME": name}


def record(site: str, txn: str | int, commit: str, op: str, before: dict[str, Any] | None = None,
           after: dict[str, Any] | None = None, seq: int | None = None, **extra: Any) -> str:
    """A change record's line (docs/contract.md §4) of table T."""
    doc: dict[str, Any] = {"site": site, "txn": txn, "commit_ts": commit, "table": "T", "op": op}
    if seq is not None:
        doc["seq"] = seq
    if before is not None:
        doc["before"] = before
    if after is not None:
        doc["after"] = after
    return json.dumps({**doc, **extra})


def lines_frame(spark: SparkSession, texts: list[str | bytes], file_ord: int = 0) -> DataFrame:
    """What `read_lines` gives for a file of these lines (numbered from 1), as `decode` reads it: each
    line's bytes as they are (a line that is not UTF-8 too)."""
    data = [t if isinstance(t, bytes) else t.encode() for t in texts]
    frame = spark.createDataFrame([(file_ord, n, d.hex(), len(d), False) for n, d in enumerate(data, start=1)],
                                  "file_ord int, line long, hex string, size int, blank boolean")
    return frame.select("file_ord", "line", F.unhex("hex").cast("string").alias("text"), "size", "blank")


def decoded_records(texts: list[str | bytes], m: Model, name: str = "changes/a.jsonl") -> list[ChangeRecord]:
    """The reference's accepted records of these lines."""
    out = []
    for n, text in enumerate(texts, start=1):
        result = decode_record(text, name, n, m)
        if isinstance(result, ChangeRecord):
            out.append(result)
    return out


@pytest.fixture(scope="module", autouse=True)
def configured(spark: SparkSession) -> None:
    """What `run_spark` sets on the session before its stages run, for a small input."""
    configure(spark, input_bytes=0)


# --- lines ----------------------------------------------------------------------------------------------


def test_read_lines_numbers_lines_as_the_reference_splits_them(spark: SparkSession, tmp_path: Path) -> None:
    folder = tmp_path / "data [2] {x} 50%"  # Hadoop's glob characters and a URI's escapes in the path
    folder.mkdir()
    first = (b'\xef\xbb\xbf{"a": 1}\r\n'  # a byte-order mark and a CRLF
             b"\n  \t \nsecond\n"  # an empty line and a blank one
             b" \tx\n\x0b\x0c\n"  # blanks before a record; blanks of other kinds only
             b"\xc3\xa9t\xc3\xa9\r\n\xff\xfe not UTF-8\n")  # two-byte characters; bytes that are no UTF-8
    other = b"x\n\ny"  # no final newline
    (folder / "b.jsonl").write_bytes(first)
    (folder / "a.jsonl").write_bytes(other)
    files = [str(folder / "b.jsonl"), str(folder / "a.jsonl")]  # file_ord is the place given, not the name's
    got = read_lines(spark, files).select("file_ord", "line", F.hex(F.col("text").cast("binary")).alias("hex"),
                                          "size", "blank")
    lines = [(0, 1, b'{"a": 1}', False), (0, 3, b"  \t ", True), (0, 4, b"second", False),
             (0, 5, b" \tx", False), (0, 6, b"\x0b\x0c", True), (0, 7, "été".encode(), False),
             (0, 8, b"\xff\xfe not UTF-8", False), (1, 1, b"x", False), (1, 3, b"y", False)]
    expected = spark.createDataFrame([(i, n, data.hex().upper(), len(data), blank) for i, n, data, blank in lines],
                                     "file_ord int, line long, hex string, size int, blank boolean")
    assert_frames(got, expected)
    # the lines that are not blank are the reference's records, numbered alike, their bytes as they are
    reference = [(i, n, data) for i, path in enumerate(files) for n, data in split_lines(Path(path).read_bytes())]
    assert [(i, n, data) for i, n, data, blank in lines if not blank] == reference


def test_a_large_file_is_read_in_several_tasks(spark: SparkSession, tmp_path: Path) -> None:
    """A large run reads a change file in splits of an eighth of its input on two cores, not of a half
    (Spark's default): one file a task leaves a core idle while the last one decodes. Line numbers run on
    across the splits, as the reference counts."""
    configure(spark, input_bytes=SMALL_INPUT_BYTES + 1)
    path = tmp_path / "a.jsonl"
    n = 160_000  # 40 MB: Spark's default reads it in two splits
    path.write_text("".join(f'{{"n": {i}, "pad": "{"x" * 240}"}}\n' for i in range(n)), encoding="utf-8")
    lines = read_lines(spark, [str(path)])
    assert lines.rdd.getNumPartitions() >= 2 * int(spark.conf.get("spark.sql.shuffle.partitions"))
    got = lines.agg(F.count("*"), F.countDistinct("line"), F.min("line"), F.max("line"),
                    F.count(F.when(F.get_json_object("text", "$.n").cast("long") + 1 != F.col("line"), 1))).first()
    assert tuple(got) == (n, n, 1, n, 0)

def test_read_lines_reads_files_whose_names_spark_would_pass_over(spark: SparkSession, tmp_path: Path) -> None:
    """Spark's file sources skip names beginning with `_` or `.` (Hadoop's hidden files) even when a path
    names the file, and fail on a name holding `:` (a file named by its time); `changes/*.jsonl` holds
    them all the same, and the reference reads them."""
    names = ["_a.jsonl", ".b.jsonl", "c.jsonl", "2026-01-05T10:00.jsonl"]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(f"first {i}\nsecond {i}\n")
    files = [str(tmp_path / name) for name in names]
    got = read_lines(spark, files).select("file_ord", "line", "text")
    assert sorted(map(tuple, got.collect())) == [(i, n, f"{word} {i}") for i in range(len(names))
                                                  for n, word in ((1, "first"), (2, "second"))]
    assert read_lines(spark, files[:1]).count() == 2  # the link made for it serves again


# --- decode ---------------------------------------------------------------------------------------------

DECODE_LINES: list[str | bytes] = [
    record("s", "t1", "2026-01-05T10:00:00Z", "I", after=row(1, "Ada"), seq=1),
    record("s", "t2", "2026-01-05T10:01:00Z", "U", before=row(1, "Ada"), after=row(1, None), seq=1),
    record("s", "t3", "2026-01-05T10:02:00+01:00", "D", before={"ID": "7"}),  # a string of an integer; no seq
    record("s", "t4", "2026-01-05T10:03:00Z", "X", after={"ID": 2}),
    record("t", 9, "2026-01-05 10:04:00", "I", after={"ID": 3}, seq=2),  # a numeric txn; NAME left out
    record("s", "t5", "2026-01-05T10:05:00Z", "I", after={"ID": 4, "NAME": "x", "EXTRA": 1}),
    record("s", "t6", "2026-01-05T10:06:00Z", "I", after=row(5, "n" * 41)),  # longer than VARCHAR(40)
    record("s", "t7", "2026-01-05T10:07:00Z", "I", after=row(6, "\ud800")),  # a lone surrogate, escaped
    b'{"site": "s", "txn": "t8", "commit_ts": "2026-01-05T10:08:00Z", "table": "T", "op": "I", '
    b'"after": {"ID": 8, "NAME": "\xe9"}}',  # Latin-1, not UTF-8
]


def test_decode_counts_the_clean_lines_as_it_types_them_and_reads_none_again_when_none_is_doubtful(
        spark: SparkSession) -> None:
    m = pair()
    kept: list[DataFrame] = []

    def keep(frame: DataFrame) -> DataFrame:  # materializes, as the run's does
        kept.append(frame.localCheckpoint())
        return kept[-1]

    mixed = decode(lines_frame(spark, DECODE_LINES), m, ["a.jsonl"], {}, keep, observe=True)
    kinds = dict(mixed.read_by_reference.groupBy("kind").count().collect())
    assert (mixed.clean, kinds) == (3, {"record": 1, "reject": 5})  # line 3's ID is a string: the reference's
    assert mixed.clean + kinds["record"] == mixed.records.count() and len(kept) == 2
    kept.clear()
    clean = decode(lines_frame(spark, [DECODE_LINES[i] for i in (0, 1, 4)]), m, ["a.jsonl"], {}, keep, observe=True)
    assert clean.clean == 3 == clean.records.count()
    assert len(kept) == 1 and clean.read_by_reference.isEmpty()  # the typed lines are not read again for none


def test_decode_types_records_and_rejects_the_rest_with_the_reference_s_reasons(spark: SparkSession) -> None:
    m = pair()
    names = ["changes/a.jsonl"]
    decoded = decode(lines_frame(spark, DECODE_LINES), m, names, {})
    assert decoded.tables == {"s.T": "t0", "t.T": "t1"}
    got = decoded.records.select("file_ord", "line", "site", "txn", "seq", "commit_ts", "table", "op", "version",
                                 "force_python", "b_t0", "a_t0", "b_t1", "a_t1")
    schema = (f"file_ord int, line long, site string, txn string, seq bigint, commit_ts timestamp, table string, "
              f"op string, version int, force_python boolean, b_t0 {ROW}, a_t0 {ROW}, b_t1 {ROW}, a_t1 {ROW}")
    expected = spark.createDataFrame([
        (0, 1, "s", "t1", 1, at(10, 0), "s.T", "I", None, False, None, row(1, "Ada"), None, None),
        (0, 2, "s", "t2", 1, at(10, 1), "s.T", "U", None, False, row(1, "Ada"), row(1, None), None, None),
        (0, 3, "s", "t3", 0, at(9, 2), "s.T", "D", None, False, row(7, None), None, None, None),
        (0, 5, "t", "9", 2, at(10, 4), "t.T", "I", None, False, None, None, None, row(3, None)),
    ], schema)
    assert_frames(got, expected)
    accepted = decoded_records(DECODE_LINES, m)  # the reference accepts the same records, typed alike
    assert [(r.line, r.site, r.txn, r.seq, r.commit_ts, r.table, r.op, r.before, r.after) for r in accepted] == [
        (1, "s", "t1", 1, at(10, 0), "s.T", "I", None, row(1, "Ada")),
        (2, "s", "t2", 1, at(10, 1), "s.T", "U", row(1, "Ada"), row(1, None)),
        (3, "s", "t3", 0, at(9, 2), "s.T", "D", row(7, None), None),
        (5, "t", "9", 2, at(10, 4), "t.T", "I", None, row(3, None)),
    ]

    rejects = decoded.read_by_reference.where(F.col("kind") == "reject").select("file_ord", "line", "reject")
    wanted = []
    for n in (4, 6, 7, 8, 9):
        reject = decode_record(DECODE_LINES[n - 1], names[0], n, m)
        assert isinstance(reject, Reject)
        wanted.append((0, n, jsonl_line(reject.as_dict())))
    assert_frames(rejects, spark.createDataFrame(wanted, "file_ord int, line long, reject string"))
    reasons = [json.loads(r[2])["reason"] for r in wanted]
    assert reasons[0] == "unknown op 'X' (expected I, U or D)"
    assert reasons[1].startswith("after: column 'EXTRA' is not in s.T")
    assert reasons[2].startswith("after: column 'NAME'")
    assert "lone surrogate" in reasons[3]
    assert reasons[4].startswith("invalid UTF-8 at byte ")


@pytest.mark.parametrize(("value", "native"), [("-0.0", False), ("-0", False), ("-0e3", False), ("-0.5", True),
                                                ("1.5", True)])
def test_decode_leaves_a_negative_zero_to_the_reference(spark: SparkSession, value: str, native: bool) -> None:
    """Spark's JSON reading drops a negative zero's sign, the reference keeps it: such a line is the
    reference's to read, and only such a line (a date's or an offset's `-0` is not one)."""
    m = model([server("s")], [table("s", "T", [col("ID", nullable=False), col("X", "DOUBLE")], pk=["ID"])])
    text = ('{"site": "s", "txn": "t1", "commit_ts": "2026-01-05T10:00:00-05:00", "table": "T", "op": "I", '
            f'"after": {{"ID": 1, "X": {value}}}}}')
    decoded = decode(lines_frame(spark, [text]), m, ["changes/a.jsonl"], {})
    got = decoded.records.select("normalized", F.col("a_t0.X").alias("x")).collect()
    want = decoded_records([text], m)[0].after
    assert want is not None and len(got) == 1
    assert got[0]["normalized"] is (not native)
    assert str(got[0]["x"]) == str(want["X"])  # the sign too: str(-0.0) is '-0.0'


GOOD = ('{"site": "s", "txn": "t1", "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "I", '
        '"after": {"ID": 1, "NAME": "a"}}')


@pytest.mark.parametrize("text", [
    GOOD + " junk", GOOD + "}", GOOD + " {}", GOOD + ",{}", GOOD + "]", GOOD + "] [", GOOD + ", 0]",
    GOOD.replace('"after": {"ID": 1, "NAME": "a"}', '"after": {}'),  # an image without its key
    GOOD.replace('"op": "I", "after": {"ID": 1, "NAME": "a"}',
                 '"op": "U", "before": {"ID": 1, "NAME": "a"}, "after": {}'),
    GOOD.replace('"op": "I", "after": {"ID": 1, "NAME": "a"}', '"op": "D", "before": {}'),
], ids=["junk", "brace", "object", "comma-object", "bracket", "brackets", "comma-bracket", "empty-after",
        "update-empty-after", "delete-empty-before"])
def test_decode_rejects_what_the_reference_rejects_after_a_json_value_and_an_empty_image(
        spark: SparkSession, text: str) -> None:
    """Spark reads the first JSON value of a line and ignores the rest, and `{}` has no column to miss:
    such lines are the reference's to read, and it rejects them."""
    m = pair()
    reject = decode_record(text, "changes/a.jsonl", 1, m)
    assert isinstance(reject, Reject)
    decoded = decode(lines_frame(spark, [GOOD, text]), m, ["changes/a.jsonl"], {})
    assert [r["line"] for r in decoded.records.select("line").collect()] == [1]
    rejects = decoded.read_by_reference.where(F.col("kind") == "reject").select("line", "reject").collect()
    assert [(r["line"], r["reject"]) for r in rejects] == [(2, jsonl_line(decode_record(
        text, "changes/a.jsonl", 2, m).as_dict()))]  # type: ignore[union-attr]


# --- snapshots ------------------------------------------------------------------------------------------


def _snapshot_inputs(spark: SparkSession, data: Path, m: Model) -> tuple[DataFrame, dict[Path, int]]:
    """The lines of the snapshot text files and their ordinals, as `run_spark` reads them (no change files)."""
    texts = snapshot_text_files(data, m)
    return read_lines(spark, [str(p.resolve()) for p in texts]), {p: i for i, p in enumerate(texts)}


def test_read_snapshots_gives_each_table_s_rows_in_file_order(spark: SparkSession, tmp_path: Path) -> None:
    m = pair()
    (tmp_path / "snapshots" / "s").mkdir(parents=True)
    (tmp_path / "snapshots" / "t").mkdir(parents=True)
    jsonl = tmp_path / "snapshots" / "s" / "T.jsonl"
    jsonl.write_text('{"ID": 2, "NAME": "b"}\n\n{"ID": 1}\n{"NAME": "c", "ID": 3}\n')  # plain: Spark types it
    csv = tmp_path / "snapshots" / "t" / "T.csv"
    csv.write_text('ID,NAME\n10,"Smith, J"\n11,\n')  # a quoted cell: the reference reads it
    lines, ordinals = _snapshot_inputs(spark, tmp_path, m)
    got = read_snapshots(spark, tmp_path, m, lines, ordinals)
    assert sorted(got) == ["s.T", "t.T"]
    expected = {"s.T": [row(2, "b"), row(1, None), row(3, "c")], "t.T": [row(10, "Smith, J"), row(11, None)]}
    for key, path in (("s.T", jsonl), ("t.T", csv)):
        table_ = m.table(key)
        assert table_ is not None
        assert read_snapshot_file(path, table_) == expected[key]  # the reference's reading
        frame = got[key]
        assert frame.select("seq").distinct().count() == frame.count()  # `seq` orders the rows
        assert_frames(frame.orderBy("seq").select("row"),
                      spark.createDataFrame([(r,) for r in expected[key]], f"row {ROW}"), ordered=True)


@pytest.mark.parametrize(("name", "text", "says"), [
    ("s/T.jsonl", '{"ID": 1, "NAME": "a"}\n{"ID": 2}\n{"ID": 1, "NAME": "again"}\n',
     "{path}:3: duplicate primary key (ID=1), first at {path}:1"),
    ("t/T.csv", "ID,NAME\n1,a\nten,b\n", "{path}:3: column ID: not a number: 'ten'"),
    ("s/T.jsonl", '{"ID": 1, "NAME": "a"}\n{"ID": 2} junk\n', "{path}:2: not JSON: Extra data (column 11)"),
], ids=["duplicate-key", "csv-not-a-number", "jsonl-trailing"])
def test_read_snapshots_fails_on_a_bad_snapshot_as_the_reference_does(spark: SparkSession, tmp_path: Path,
                                                                     name: str, text: str, says: str) -> None:
    m = pair()
    path = tmp_path / "snapshots" / name
    path.parent.mkdir(parents=True)
    path.write_text(text)
    table_ = m.table(f"{path.parent.name}.T")
    assert table_ is not None
    with pytest.raises(InputError) as reference:
        read_snapshot_file(path, table_)
    assert str(reference.value) == says.format(path=path)
    lines, ordinals = _snapshot_inputs(spark, tmp_path, m)
    with pytest.raises(InputError) as got:
        read_snapshots(spark, tmp_path, m, lines, ordinals)
    assert str(got.value) == str(reference.value)


def test_read_snapshots_takes_a_parquet_file_spark_cannot_read_to_the_reference(spark: SparkSession,
                                                                                tmp_path: Path) -> None:
    """Spark refuses a Parquet schema with nanosecond timestamps (what pandas writes by default) and one with
    two columns named alike but for case; the reference reads the first, and refuses the second naming the
    file, as it does: the run then does the same, not fail in Spark's analysis."""
    cols = [col("ID", nullable=False), col("TS", "TIMESTAMP")]
    m = model([server("s", "postgresql"), server("t", "postgresql")],
              [table("s", "T", cols, pk=["ID"]), table("t", "T", cols, pk=["ID"])],
              [mapping("m", "s.T", "t.T", {"ID": "ID", "TS": "TS"})])
    folder = tmp_path / "snapshots" / "s"
    folder.mkdir(parents=True)
    path = folder / "T.parquet"
    times = [datetime(2026, 1, 5, 10, 0, 0, 1), datetime(2026, 1, 5, 11)]
    pq.write_table(pa.table({"ID": pa.array([1, 2], pa.int32()), "TS": pa.array(times, pa.timestamp("ns"))}), path)
    table_ = m.table("s.T")
    assert table_ is not None
    expected = [{"ID": i, "TS": t.replace(tzinfo=UTC)} for i, t in enumerate(times, start=1)]
    assert read_snapshot_file(path, table_) == expected
    lines, ordinals = _snapshot_inputs(spark, tmp_path, m)
    got = read_snapshots(spark, tmp_path, m, lines, ordinals)
    assert_frames(got["s.T"].orderBy("seq").select("row"),
                  spark.createDataFrame([(r,) for r in expected], "row struct<ID: int, TS: timestamp>"), ordered=True)

    pq.write_table(pa.table({"ID": [1], "TS": pa.array(times[:1], pa.timestamp("us")), "ts": ["x"]}), path)
    with pytest.raises(InputError) as reference:
        read_snapshot_file(path, table_)
    with pytest.raises(InputError) as spark_says:
        read_snapshots(spark, tmp_path, m, lines, ordinals)
    assert str(spark_says.value) == str(reference.value) and str(path) in str(reference.value)


def test_read_snapshots_reads_a_csv_whose_quoted_cell_holds_a_comma(spark: SparkSession, tmp_path: Path) -> None:
    m = pair()
    (tmp_path / "snapshots" / "t").mkdir(parents=True)
    csv = tmp_path / "snapshots" / "t" / "T.csv"
    csv.write_text('NAME,ID\n"Smith, J",10\n,11\n')  # the comma shifts the split cells: ' J"' where ID is
    table_ = m.table("t.T")
    assert table_ is not None
    expected = [{"ID": 10, "NAME": "Smith, J"}, {"ID": 11, "NAME": None}]
    assert read_snapshot_file(csv, table_) == expected  # the reference reads it
    lines, ordinals = _snapshot_inputs(spark, tmp_path, m)
    got = read_snapshots(spark, tmp_path, m, lines, ordinals)
    assert_frames(got["t.T"].orderBy("seq").select("row"),
                  spark.createDataFrame([(r,) for r in expected], f"row {ROW}"), ordered=True)


def test_suspicious_snapshots_are_found_for_every_table_in_one_aggregation(spark: SparkSession) -> None:
    """The tables the reference must read: a duplicate primary key or unique-index value, a NULL
    primary-key column, an unclean value; not a unique index whose values repeat only as NULL, nor an
    empty snapshot, nor a key repeated in another table."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    names = ["fine", "dup_pk", "dup_unique", "null_pk", "unclean", "empty", "nulls_only"]
    keyless = [table("s", n, cols) for n in ("nokey", "nokey_unclean")]  # no key set: only its flags count
    m = model([server("s")], [table("s", n, cols, pk=["ID"], unique={"UX": ["NAME"]}) for n in names] + keyless)
    snapshots = {"fine": [(1, "a", True), (2, "b", True), (3, None, True)],
                 "dup_pk": [(1, "a", True), (1, "b", True)],
                 "dup_unique": [(1, "x", True), (2, "y", True), (3, "x", True)],
                 "null_pk": [(None, "a", True), (2, "b", True)],
                 "unclean": [(1, "a", True), (2, "b", False)],
                 "empty": [],
                 "nulls_only": [(1, None, True), (2, None, True), (3, "a", True)],
                 "nokey": [(1, "a", True), (1, "a", True)],
                 "nokey_unclean": [(1, "a", True), (2, "b", False)]}
    frames = {f"s.{n}": spark.createDataFrame([(seq, clean, {"ID": i, "NAME": name})
                                               for seq, (i, name, clean) in enumerate(rows)],
                                              f"seq long, clean boolean, row {ROW}")
              for n, rows in snapshots.items()}
    assert _suspicious(frames, m) == ["s.dup_pk", "s.dup_unique", "s.nokey_unclean", "s.null_pk", "s.unclean"]
    assert _suspicious({k: frames[k] for k in ("s.fine", "s.empty", "s.nulls_only", "s.nokey")}, m) == []


# --- net effect -----------------------------------------------------------------------------------------

SCHEDULE = {"links": [{"from": "s", "to": "t", "delay_s": 5,
                       "down": [["2026-01-05T10:01:00Z", "2026-01-05T10:03:00Z"]]}]}
NET_LINES: list[str | bytes] = [
    record("s", "t1", "2026-01-05T10:00:00Z", "I", after=row(1, "a"), seq=1),
    record("s", "t2", "2026-01-05T10:01:00Z", "U", before=row(1, "a"), after=row(1, "b"), seq=1),
    record("s", "t3", "2026-01-05T10:02:00Z", "I", after=row(200, "z"), seq=1),  # the where filters it
    record("s", "t4", "2026-01-05T10:04:00Z", "U", before=row(5, "x"), after=row(5, "y"), seq=2),
    record("s", "t4", "2026-01-05T10:04:00Z", "I", after=row(5, "x"), seq=1),  # a chain of two, out of line order
    record("s", "t5", "2026-01-05T10:05:00Z", "U", before=row(6, "p"), after=row(150, "p"), seq=1),  # key moves
    record("t", "t6", "2026-01-05T10:06:00Z", "I", after=row(9, "q"), seq=1),  # no mapping reads t.T
]


def test_net_effect_gives_local_commits_and_timed_deliveries(spark: SparkSession) -> None:
    m = pair()
    m = m.model_copy(update={"mappings": [m.mappings[0].model_copy(update={"where": "ID < 100"})]})
    decoded = decode(lines_frame(spark, NET_LINES), m, ["changes/a.jsonl"], {})
    snapshot = spark.createDataFrame([(0, row(2, "snap"))], f"seq long, row {ROW}")
    events = net_effect(decoded.records, {"t.T": snapshot}, m, decoded.tables, SCHEDULE)
    columns = ["kind", "rank", "at", "commit_ts", "origin", "txn", "seq", "op", "mapping", "version", "error", "old",
               "new"]
    schema = EVENTS.replace("old_json string, new_json string, ", "")

    def instants(frame: DataFrame) -> DataFrame:
        """The times as microseconds since 1970 (PySpark cannot collect a timestamp of the year 1)."""
        return frame.select(*(F.unix_micros(c).alias(c) if c in ("at", "commit_ts") else F.col(c) for c in columns))

    def local(txn: str, when: datetime, seq: int, op: str, old: Any, new: Any, site: str = "s") -> tuple[Any, ...]:
        return ("local", 1, when, when, site, txn, seq, op, None, None, None, old, new)

    def delivery(txn: str, commit: datetime, when: datetime, seq: int, op: str, old: Any, new: Any) -> tuple[Any, ...]:
        return ("delivery", 2, when, commit, "s", txn, seq, op, "m", None, None, old, new)

    expected_s = [
        local("t1", at(10, 0), 0, "I", None, row(1, "a")),
        local("t2", at(10, 1), 0, "U", row(1, "a"), row(1, "b")),
        local("t3", at(10, 2), 0, "I", None, row(200, "z")),
        local("t4", at(10, 4), 0, "I", None, row(5, "x")),
        local("t4", at(10, 4), 2, "U", row(5, "x"), row(5, "y")),
        local("t5", at(10, 5), 0, "D", row(6, "p"), None),  # an update that moves the row: a delete and an insert
        local("t5", at(10, 5), 1, "I", None, row(150, "p")),
    ]
    expected_t = [
        ("snapshot", 0, BEGINNING, BEGINNING, "t", "", 0, "I", None, None, None, None, row(2, "snap")),
        local("t6", at(10, 6), 0, "I", None, row(9, "q"), site="t"),
        delivery("t1", at(10, 0), at(10, 0, 5), 0, "I", None, row(1, "a")),
        delivery("t2", at(10, 1), at(10, 3), 0, "U", row(1, "a"), row(1, "b")),  # 10:01:05 is down: at its end
        delivery("t4", at(10, 4), at(10, 4, 5), 0, "I", None, row(5, "y")),  # INSERT...UPDATE: the final insert
        delivery("t5", at(10, 5), at(10, 5, 5), 0, "D", row(6, "p"), None),  # T,F: a delete of the initial image
    ]
    for key, rows in (("s.T", expected_s), ("t.T", expected_t)):
        assert_frames(instants(events.tables[key]), instants(spark.createDataFrame(rows, schema)))

    # the reference builds the same events, and counts t3's insert as filtered
    ctx = build_context(m)
    snapshots = {"t.T": [row(2, "snap")]}
    reference, deliveries, filtered = build_events(ctx, decoded_records(NET_LINES, m), snapshots,
                                                   parse_schedule(SCHEDULE))
    by_table = {key: sorted((e["kind"], e["at"], e["txn"], e["seq"], e["op"], e["old"], e["new"])
                            for e in reference + deliveries if e["table"] == key) for key in ("s.T", "t.T")}
    for key, rows in (("s.T", expected_s), ("t.T", expected_t)):
        assert sorted((r[0], r[2], r[5], r[6], r[7], r[11], r[12]) for r in rows) == by_table[key]
    native = events.transactions.where(~F.col("_complex")).agg(F.sum("_filtered"), F.sum("_deliveries")).first()
    by_reference = events.reference.agg(F.sum("filtered"), F.count(F.when(F.col("kind") == "delivery", 1))).first()
    assert native is not None and by_reference is not None
    assert (filtered, len(deliveries)) == (1, 4)
    assert ((native[0] or 0) + (by_reference[0] or 0), (native[1] or 0) + (by_reference[1] or 0)) == (1, 4)



@pytest.mark.parametrize("several", [True, False], ids=["with-a-transaction-of-two", "each-of-one-record"])
def test_net_effect_gives_a_transaction_of_one_record_the_window_s_facts_without_the_window(
        spark: SparkSession, several: bool) -> None:
    """Where no transaction has several records, no record is shuffled by transaction (no window): each
    one's facts are its own, as the window gives them."""
    m = pair()
    lines = [line for line in NET_LINES if several or '"t4"' not in str(line)]
    decoded = decode(lines_frame(spark, lines), m, ["changes/a.jsonl"], {})
    txns = net_effect(decoded.records, {}, m, decoded.tables, SCHEDULE).transactions
    assert ("Window" in txns._jdf.queryExecution().optimizedPlan().toString()) == several
    numbered = neteffect._numbered(decoded.records)
    windowed = neteffect._finished(neteffect._together(
        neteffect._changed(numbered, m, build_context(m), decoded.tables, sql_natively=True)))
    columns = sorted(windowed.columns)
    assert sorted(txns.columns) == columns and txns.count() == len(lines)
    assertDataFrameEqual(txns.select(*columns), windowed.select(*columns))


def test_net_effect_counts_what_spark_mapped_as_it_keeps_the_transactions(spark: SparkSession) -> None:
    """With `observe`, the job that keeps the transactions adds up what Spark's own mapping filtered and
    delivered: the same sums as a scan of the kept transactions, without that scan."""
    m = pair()
    decoded = decode(lines_frame(spark, NET_LINES), m, ["changes/a.jsonl"], {})
    events = net_effect(decoded.records, {}, m, decoded.tables, SCHEDULE,
                        keep=lambda frame: frame.localCheckpoint(eager=True), observe=True)
    scanned = events.transactions.where(~F.col("_complex")).agg(
        F.sum("_filtered").alias("filtered"), F.sum("_deliveries").alias("deliveries")).collect()[0].asDict()
    assert scanned["deliveries"] > 0
    assert events.native_counts == scanned
    unobserved = net_effect(decoded.records, {}, m, decoded.tables, SCHEDULE)
    assert unobserved.native_counts == {}
    assert events.mapped() == unobserved.mapped() == scanned  # the run's counts, counted or scanned


def test_net_effect_numbers_a_transactions_deliveries_in_seq_order(spark: SparkSession) -> None:
    """A transaction over two tables, its records interleaved: its deliveries are numbered in `seq` order
    across both tables (a table's change is examined where the transaction made it, contract section 7), as
    the reference numbers them (and none of its rows is changed twice, so Spark takes it whole)."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    m = model([server("s"), server("t")], [table(site, name, cols, pk=["ID"]) for site in ("s", "t") for name in "AB"],
              [mapping(f"m{name}", f"s.{name}", f"t.{name}", {"ID": "ID", "NAME": "NAME"}) for name in "AB"])
    commit = "2026-01-05T10:00:00Z"

    def rec(name: str, seq: int, op: str, before: Any = None, after: Any = None) -> str:
        doc = {"site": "s", "txn": "t1", "commit_ts": commit, "table": name, "op": op, "seq": seq}
        return json.dumps(doc | ({"before": before} if before else {}) | ({"after": after} if after else {}))

    lines: list[str | bytes] = [rec("B", 1, "I", after=row(1, "b1")), rec("A", 2, "I", after=row(1, "a1")),
                                rec("B", 3, "U", before=row(2, "x"), after=row(2, "b2")),
                                rec("A", 4, "D", before=row(3, "y")), rec("B", 5, "I", after=row(3, "b3")),
                                json.dumps({"site": "s", "txn": "t2", "commit_ts": commit, "table": "A", "op": "I",
                                            "seq": 1, "after": row(9, "z")})]
    schedule = {"links": [{"from": "s", "to": "t", "delay_s": 5}]}
    decoded = decode(lines_frame(spark, lines), m, ["changes/a.jsonl"], {})
    events = net_effect(decoded.records, {}, m, decoded.tables, schedule)
    assert events.transactions.where(F.col("_complex")).count() == 0
    got = {key: sorted((r["txn"], r["seq"], r["op"], r["new"]["ID"] if r["new"] else r["old"]["ID"])
                       for r in events.tables[key].where(F.col("kind") == "delivery").collect())
           for key in ("t.A", "t.B")}
    _, deliveries, _ = build_events(build_context(m), decoded_records(lines, m), {}, parse_schedule(schedule))
    want = {key: sorted((e["txn"], e["seq"], e["op"], (e["new"] or e["old"])["ID"]) for e in deliveries
                        if e["table"] == key) for key in ("t.A", "t.B")}
    assert got == want
    assert want == {"t.A": [("t1", 1, "I", 1), ("t1", 3, "D", 3), ("t2", 0, "I", 9)],
                    "t.B": [("t1", 0, "I", 1), ("t1", 2, "U", 2), ("t1", 4, "I", 3)]}

# --- resolve --------------------------------------------------------------------------------------------


def _resolve_events() -> dict[str, list[dict[str, Any]]]:
    """Per table of `pair()`, its events as `fold.fold_events` takes them."""
    def event(kind: str, site: str, when: datetime, origin: str, txn: str, seq: int, op: str, old: Any, new: Any,
              table_: str = "t.T") -> dict[str, Any]:
        delay = timedelta(seconds=5 if kind == "delivery" else 0)  # a delivery comes 5 s after its commit
        out = {"kind": kind, "site": site, "table": table_, "at": when,
               "commit_ts": BEGINNING if kind == "snapshot" else when - delay, "origin": origin, "txn": txn,
               "seq": seq, "op": op, "old": old, "new": new}
        if kind == "delivery":
            out["mapping"] = "m"
        return out
    return {
        "s.T": [event("snapshot", "s", BEGINNING, "s", "", 0, "I", None, row(1, "a"), "s.T"),
                event("local", "s", at(10, 0), "s", "t1", 0, "U", row(1, "a"), row(1, "b"), "s.T")],
        "t.T": [event("snapshot", "t", BEGINNING, "t", "", 0, "I", None, row(1, "a")),
                event("snapshot", "t", BEGINNING, "t", "", 1, "I", None, row(2, "y")),
                event("delivery", "t", at(10, 0, 5), "s", "t1", 0, "U", row(1, "a"), row(1, "b")),  # applies
                event("delivery", "t", at(10, 1, 5), "s", "t2", 0, "I", None, row(2, "x")),  # the row exists
                event("delivery", "t", at(10, 2, 5), "s", "t3", 0, "D", row(3, "c"), None),  # no such row
                event("local", "t", at(10, 3), "t", "t4", 0, "I", None, row(4, "d"))],
    }


def _events_frame(spark: SparkSession, events: list[dict[str, Any]]) -> DataFrame:
    rank = {"snapshot": 0, "local": 1, "delivery": 2}
    return spark.createDataFrame(
        [(e["kind"], rank[e["kind"]], e["at"], e["commit_ts"], e["origin"], e["txn"], e["seq"], e["op"],
          e.get("mapping"), None, None, None, None, e["old"], e["new"]) for e in events], EVENTS)


def _statuses(resolved: Resolved) -> DataFrame:
    """How many deliveries ended each status (`status`, `n`): the reference's outcomes and the native ones."""
    native = resolved.reference.sparkSession.createDataFrame([("applied", resolved.applied_natively())],
                                                             "status string, n long")
    return (resolved.reference.where(F.col("kind") == "outcome").select("status", "n").unionByName(native)
            .groupBy("status").agg(F.sum("n").alias("n")).where("n > 0"))


def test_resolve_applies_what_meets_no_conflict_and_folds_the_rest_as_the_reference(spark: SparkSession) -> None:
    m = pair()
    events = _resolve_events()
    resolved = resolve({key: _events_frame(spark, e) for key, e in events.items()}, m)
    oracle = fold_events([e for group in events.values() for e in group], build_context(m))

    finals = {"s.T": [row(1, "b")], "t.T": [row(1, "b"), row(2, "y"), row(4, "d")]}
    for key, rows in finals.items():
        table_ = m.table(key)
        assert table_ is not None
        assert [r["values"] for r in oracle.rows if r["table"] == key] == rows
        expected = spark.createDataFrame([(r,) for r in rows], f"row {ROW}")
        assert_frames(rows_of(resolved, table_).select("row"), expected)

    folded = resolved.reference
    assert [(c["type"], c["txn"], c["outcome"]) for c in oracle.conflicts] == \
        [("uniqueness", "t2", "unresolved"), ("delete", "t3", "unresolved")]
    assert_frames(folded.where(F.col("kind") == "conflict").select("sort", "text"),
                  spark.createDataFrame([(time_order_key(c), jsonl_line(c)) for c in oracle.conflicts],
                                        "sort string, text string"))
    assert_frames(folded.where(F.col("kind") == "queue").select("sort", "text"),
                  spark.createDataFrame([(time_order_key(q), jsonl_line(q)) for q in oracle.queue],
                                        "sort string, text string"))
    assert sorted(o["status"] for o in oracle.outcomes) == ["applied", "queued", "queued"]
    assert_frames(_statuses(resolved), spark.createDataFrame([("applied", 1), ("queued", 2)], "status string, n long"))


def test_resolve_folds_a_key_natively_up_to_its_first_conflict_and_the_rest_from_the_row_there(
        spark: SparkSession, monkeypatch: pytest.MonkeyPatch) -> None:
    """Site priority compares a conflict's origin with the site that last wrote the row: where the native
    fold hands a key to the reference part way, the row it hands over keeps its writer, and an update that
    changes nothing does not make its origin the writer (`detect.Delivery._resolve_groups`)."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    m = model([server("t", priority=10), server("a", priority=30), server("c", priority=25)],
              [table(site, "T", cols, pk=["ID"]) for site in ("t", "a", "c")],
              [mapping(f"{site}_t", f"{site}.T", "t.T", {"ID": "ID", "NAME": "NAME"}) for site in ("a", "c")],
              conflicts=[{"table": "t.T", "column_groups": [
                  {"name": "name_cg", "columns": ["NAME"], "resolution": [{"method": "site_priority"}]}]}])

    def event(kind: str, when: datetime, origin: str, txn: str, op: str, old: Any, new: Any) -> dict[str, Any]:
        out = {"kind": kind, "site": "t", "table": "t.T", "at": when, "origin": origin, "txn": txn, "seq": 0,
               "op": op, "old": old, "new": new,
               "commit_ts": BEGINNING if kind == "snapshot" else when - timedelta(seconds=5 if origin != "t" else 0)}
        if kind == "delivery":
            out["mapping"] = f"{origin}_t"
        return out

    events = [
        # key 1: a (30) writes the row, then c (25) meets a conflict: the row's writer a wins, b stays
        event("snapshot", BEGINNING, "t", "", "I", None, row(1, "a")),
        event("delivery", at(10, 0), "a", "a1", "U", row(1, "a"), row(1, "b")),
        event("delivery", at(10, 1), "c", "c1", "U", row(1, "a"), row(1, "c")),
        # key 2: a's update changes nothing, so t (10) is still the writer: c's conflicting update wins
        event("snapshot", BEGINNING, "t", "", "I", None, row(2, "a")),
        event("delivery", at(10, 0), "a", "a2", "U", row(2, "a"), row(2, "a")),
        event("delivery", at(10, 1), "c", "c2", "U", row(2, "x"), row(2, "c")),
        event("local", at(10, 2), "t", "t2", "U", row(2, "c"), row(2, "d")),
        # key 3: a local insert (t writes), a's update applies, a delete, a's insert, then c's conflict
        event("local", at(9, 0), "t", "t3", "I", None, row(3, "a")),
        event("delivery", at(9, 1), "a", "a3", "U", row(3, "a"), row(3, "b")),
        event("local", at(9, 2), "t", "t4", "D", row(3, "b"), None),
        event("delivery", at(9, 3), "a", "a4", "I", None, row(3, "e")),
        event("delivery", at(9, 4), "c", "c3", "U", row(3, "x"), row(3, "f")),
        # key 4: a conflict first: the reference folds the whole key
        event("snapshot", BEGINNING, "t", "", "I", None, row(4, "a")),
        event("delivery", at(10, 0), "c", "c4", "U", row(4, "x"), row(4, "c")),
        event("delivery", at(10, 1), "a", "a5", "U", row(4, "c"), row(4, "g")),
    ]
    frames = {key: _events_frame(spark, [e for e in events if e["table"] == key]) for key in ("t.T",)}
    frames |= {key: spark.createDataFrame([], EVENTS) for key in ("a.T", "c.T")}
    kept: list[DataFrame] = []

    def keeping(frame: DataFrame) -> DataFrame:
        kept.append(frame.localCheckpoint())
        return kept[-1]

    resolved = resolve(frames, m, keeping, rounds=0)  # the hand-over itself: no second check
    oracle = fold_events(events, build_context(m))
    # the check keeps only the events read again: each key's last, those the reference folds, and the one
    # whose row it takes over (key 4's snapshot, before its first conflict); not the 5 events before these
    checks = [frame for frame in kept if "_past" in frame.columns]  # one a table
    assert sorted(r["txn"] for frame in checks for r in frame.select("txn").collect()) == \
        sorted(["a1", "c1", "a2", "c2", "t2", "a4", "c3", "", "c4", "a5"])
    # and the reference's fold of what each check hands over is kept as it runs (the run reads it four ways)
    folds = [frame for frame in kept if "_past" not in frame.columns]
    assert len(folds) == len(checks) == 3 and all(f.columns == resolved.reference.columns for f in folds)

    finals = [row(1, "b"), row(2, "d"), row(3, "e"), row(4, "g")]
    assert [r["values"] for r in oracle.rows] == finals
    t_table = m.table("t.T")
    assert t_table is not None
    assert_frames(rows_of(resolved, t_table).select("row"), spark.createDataFrame([(r,) for r in finals], f"row {ROW}"))
    assert sorted((c["txn"], c["method"], c["outcome"]) for c in oracle.conflicts) == \
        [("c1", "site_priority", "local"), ("c2", "site_priority", "remote"), ("c3", "site_priority", "local"),
         ("c4", "site_priority", "remote")]
    assert_frames(resolved.reference.where(F.col("kind") == "conflict").select("sort", "text"),
                  spark.createDataFrame([(time_order_key(c), jsonl_line(c)) for c in oracle.conflicts],
                                        "sort string, text string"))
    expected = sorted((s, [o["status"] for o in oracle.outcomes].count(s)) for s in {"applied", "resolved"})
    assert_frames(_statuses(resolved), spark.createDataFrame(expected, "status string, n long"))
    # the deliveries before each key's first conflict were applied natively: keys 1, 2 and 3 (one, one, two)
    assert resolved.applied_natively() == 4 == resolved.native_applied().count()
    # counted as each table's check was kept (t.T's four; a.T and c.T have no event), not by another scan
    assert sorted(o.get["applied"] for o in resolved.observed) == [0, 0, 4]

    # with rounds of native resolution (`resolve_native`), what the check hands over is checked again:
    # site priority resolves each conflict there, its line written by Spark; the same rows and lines, and
    # nothing left to Python (a.T and c.T, which hand nothing over, plan no second check and no fold)
    kept.clear()
    again = resolve(frames, m, keeping, rounds=2, observe=True)
    assert len([frame for frame in kept if "_past" in frame.columns]) == 3  # too little handed over to check again
    kept.clear()
    monkeypatch.setattr(resolve_native, "ROUNDS_FROM_EVENTS", 1)  # as if t.T handed over enough
    again = resolve(frames, m, keeping, rounds=2, observe=True)
    assert len([frame for frame in kept if "_past" in frame.columns]) == 4  # t.T checked twice
    assert_frames(rows_of(again, t_table).select("row"), spark.createDataFrame([(r,) for r in finals], f"row {ROW}"))
    assert_frames(again.reference.where(F.col("kind") == "conflict").select("sort", "text"),
                  spark.createDataFrame([(time_order_key(c), jsonl_line(c)) for c in oracle.conflicts],
                                        "sort string, text string"))
    assert_frames(_statuses(again), spark.createDataFrame(expected, "status string, n long"))
    assert again.applied_natively() == 4 + 1 == again.native_applied().count()  # a5 too, after c4
    assert again.tally is not None and again.tally.figures()["rows"] == 0


def test_resolve_gives_one_final_row_for_a_key_handed_over_at_a_value_spark_cannot_compare(
        spark: SparkSession) -> None:
    """A delivered update is folded natively only where every value of the row is finite (the reference
    compares NaN otherwise than Spark): a key handed over there for an unmapped column's NaN, though
    every delivery applies, has its final row from the reference alone, not also from Spark."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col("F", "DOUBLE")]
    m = model([server("t"), server("a")], [table(site, "T", cols, pk=["ID"]) for site in ("t", "a")],
              [mapping("a_t", "a.T", "t.T", {"ID": "ID", "NAME": "NAME"})])
    nan = float("nan")
    when = at(10, 0)
    events = [{"kind": "snapshot", "site": "t", "table": "t.T", "at": BEGINNING, "commit_ts": BEGINNING,
               "origin": "t", "txn": "", "seq": 0, "op": "I", "old": None, "new": {"ID": 1, "NAME": "a", "F": nan}},
              {"kind": "delivery", "site": "t", "table": "t.T", "at": when, "commit_ts": when - timedelta(seconds=5),
               "origin": "a", "txn": "a1", "seq": 0, "op": "U", "mapping": "a_t", "old": {"ID": 1, "NAME": "a"},
               "new": {"ID": 1, "NAME": "b"}}]
    oracle = fold_events(events, build_context(m))
    assert [r["values"]["NAME"] for r in oracle.rows] == ["b"] and [o["status"] for o in oracle.outcomes] == ["applied"]
    image = "struct<ID: int, NAME: string, F: double>"
    schema = EVENTS.replace(f"old {ROW}, new {ROW}", f"old {image}, new {image}")
    rank = {"snapshot": 0, "delivery": 2}
    frame = spark.createDataFrame(
        [(e["kind"], rank[e["kind"]], e["at"], e["commit_ts"], e["origin"], e["txn"], e["seq"], e["op"],
          e.get("mapping"), None, None, None, None, e["old"] and {"F": None, **e["old"]},
          e["new"] and {"F": None, **e["new"]}) for e in events], schema)
    resolved = resolve({"t.T": frame, "a.T": spark.createDataFrame([], schema)}, m)
    t_table = m.table("t.T")
    assert t_table is not None
    got = rows_of(resolved, t_table).select("row.ID", "row.NAME", F.isnan("row.F").alias("nan")).collect()
    assert [tuple(r) for r in got] == [(1, "b", True)]
    assert_frames(_statuses(resolved), spark.createDataFrame([("applied", 1)], "status string, n long"))


# --- converge -------------------------------------------------------------------------------------------


def test_converge_compares_each_key_of_source_and_target(spark: SparkSession) -> None:
    m = pair()
    m = m.model_copy(update={"mappings": [m.mappings[0].model_copy(update={"where": "NAME <> 'hide'"})]})
    source = [row(1, "a"), row(2, "b"), row(3, "c"), row(5, "hide")]
    target = [row(4, "d"), row(2, "B"), row(1, "a")]
    rows = {"s.T": spark.createDataFrame([(i, r) for i, r in enumerate(source)], f"seq long, row {ROW}"),
            "t.T": spark.createDataFrame([(i, r) for i, r in enumerate(target)], f"seq long, row {ROW}")}
    kept: list[DataFrame] = []

    def keep(frame: DataFrame) -> DataFrame:
        kept.append(frame)
        return frame

    got = reports(rows, m, keep=keep)
    # the step that compares: one row a distribution key, whether it counts and whether it diverged
    assert len(kept) == 1
    assert_frames(kept[0], spark.createDataFrame(
        [("m", True, False, None), ("m", True, True, '{"ID":2}'), ("m", True, True, '{"ID":3}'),
         ("m", True, True, '{"ID":4}')], "mapping string, counted boolean, diverged boolean, key_json string"))
    want = converge(build_context(m), {"s.T": source, "t.T": target})
    assert got == want
    assert got[0]["compared"] == 4 and got[0]["diverged"] == 3  # key 5 is not sent: the where holds no row
    assert [e["dkey"] for e in got[0]["examples"]] == [{"ID": 2}, {"ID": 3}, {"ID": 4}]


def test_converge_compares_the_mappings_of_one_target_together_each_as_the_reference_does(
        spark: SparkSession) -> None:
    """Three mappings into one table by one key: two in the same key order (one aggregation, the target's
    rows hashed once per set of compared columns) and one in the other order (it explains keys only)."""
    cols = [col("ID", nullable=False), col("K", nullable=False), col("NAME", "VARCHAR(40)")]
    into = [*cols, col("SRC", "VARCHAR(4)")]
    m = model([server(s) for s in "abct"],
              [*(table(s, "T", cols, pk=["ID", "K"]) for s in "abc"), table("t", "T", into, pk=["ID", "K"])],
              [mapping("ma", "a.T", "t.T", {"ID": "ID", "K": "K", "NAME": "NAME",
                                            "SRC": {"method": "constant", "value": "a"}}, distribution_key=["ID", "K"]),
               mapping("mb", "b.T", "t.T", {"ID": "ID", "K": "K", "NAME": "NAME"}, distribution_key=["ID", "K"],
                       where="NAME <> 'hide'"),
               mapping("mc", "c.T", "t.T", {"ID": "ID", "K": "K", "NAME": "NAME"}, distribution_key=["K", "ID"])])

    def r(id_: int, k: int, name: str, src: str | None = None) -> dict[str, Any]:
        return {"ID": id_, "K": k, "NAME": name, **({"SRC": src} if src is not None else {})}

    given = {"a.T": [r(1, 1, "x"), r(2, 1, "y"), r(3, 1, "z")],
             "b.T": [r(1, 1, "x"), r(4, 1, "w"), r(5, 1, "hide"), r(6, 1, "v")],
             "c.T": [r(7, 1, "c"), r(8, 1, "d")],
             "t.T": [r(1, 1, "x", "a"), r(2, 1, "y", "b"), r(4, 1, "W", None), r(7, 1, "c", None),
                     r(9, 1, "q", "a"), r(10, 1, "q", None)]}
    struct = {key: "struct<ID: int, K: int, NAME: string" + (", SRC: string>" if key == "t.T" else ">")
              for key in given}
    rows = {key: spark.createDataFrame([(i, v) for i, v in enumerate(values)], f"seq long, row {struct[key]}")
            for key, values in given.items()}
    got = reports(rows, m)
    want = converge(build_context(m), given)
    assert got == want
    # ma: 1 equal, 2 (SRC), 3 (no row) and 9 (its constant, no other source) diverge; 10 is not its (SRC);
    # mb compares no SRC: 1 equal, 4, 6, 9 and 10 diverge (5 is not sent); mc: 7 equal, 8, 9 and 10 diverge
    assert [(g["mapping"], g["compared"], g["diverged"]) for g in got] == [("ma", 4, 3), ("mb", 5, 4), ("mc", 4, 3)]


# --- output ---------------------------------------------------------------------------------------------


def test_write_table_writes_one_parquet_file_in_identity_order(spark: SparkSession, tmp_path: Path) -> None:
    m = model([server("s")], [table("s", "W", [col("ID", nullable=False), col("R", "REAL"), col("D", "DECIMAL(10,2)"),
                                               col("U", "DECIMAL"), col("TS", "TIMESTAMP")], pk=["ID"])])
    table_ = m.tables[0]
    rows: list[dict[str, Any]] = [
        {"ID": 3, "R": 1.5, "D": Decimal("2.50"), "U": "12.345", "TS": at(10, 0)},
        {"ID": 1, "R": None, "D": Decimal("-1.00"), "U": "7", "TS": None},
        {"ID": 2, "R": 0.25, "D": None, "U": None, "TS": at(11, 30, 1)},
    ]
    struct = "struct<ID: int, R: double, D: decimal(10,2), U: string, TS: timestamp>"  # U: the exact text
    frame = spark.createDataFrame([(9 - r["ID"], r) for r in rows], f"seq long, row {struct}")
    path = tmp_path / "tables" / "s" / "W.parquet"
    output.write_table(frame.repartition(2), table_, path)
    assert path.is_file() and sorted(p.name for p in path.parent.iterdir()) == ["W.parquet"]  # no scratch left
    expected = spark.createDataFrame([
        (1, None, Decimal("-1.00"), Decimal("7"), None),
        (2, 0.25, None, None, at(11, 30, 1)),
        (3, 1.5, Decimal("2.50"), Decimal("12.345"), at(10, 0)),
    ], "ID int, R float, D decimal(10,2), U decimal(38,10), TS timestamp")
    assert_frames(spark.read.parquet(str(path)), expected, ordered=True)
    reference = table_arrow(table_, [{**r, "U": None if r["U"] is None else Decimal(r["U"])} for r in rows])
    assert pq.read_schema(path).remove_metadata() == reference.schema  # the reference's Parquet types


def test_write_table_rounds_an_unbounded_decimal_half_away_from_zero_as_the_reference_does(
        spark: SparkSession, tmp_path: Path) -> None:
    m = model([server("s")], [table("s", "W", [col("ID", nullable=False), col("U", "DECIMAL")], pk=["ID"])])
    t = m.tables[0]
    values = ["0.00000000025", "-0.00000000035", "123456789012345678901234567.00000000005"]
    frame = spark.createDataFrame([(i, {"ID": i, "U": v}) for i, v in enumerate(values)],
                                  "seq long, row struct<ID: int, U: string>")  # DECIMAL without precision: exact text
    path = tmp_path / "W.parquet"
    output.write_table(frame, t, path)
    reference = table_arrow(t, [{"ID": i, "U": Decimal(v)} for i, v in enumerate(values)])
    assert [r["U"] for r in reference.to_pylist()] == [
        Decimal("3E-10"), Decimal("-4E-10"), Decimal("123456789012345678901234567.0000000001")]
    assert_frames(spark.read.parquet(str(path)),
                  spark.createDataFrame(reference.to_pylist(), "ID int, U decimal(38,10)"))


def test_write_lines_concatenates_the_parts_in_sort_order(spark: SparkSession, tmp_path: Path) -> None:
    given = [("c", "three"), ("a", "one"), ("b\x00z", "two-b"), ("b", "two"), ("d", '{"x": 1}')]
    lines = spark.createDataFrame(given, "sort string, text string").repartition(3)
    path = tmp_path / "out" / "conflicts.jsonl"
    output.write_lines(lines, path)
    assert path.read_bytes() == b'one\ntwo\ntwo-b\nthree\n{"x": 1}\n'
    assert sorted(p.name for p in path.parent.iterdir()) == ["conflicts.jsonl"]
    assert_frames(spark.read.text(str(path)),
                  spark.createDataFrame([(t,) for t in ["one", "two", "two-b", "three", '{"x": 1}']], "value string"),
                  ordered=True)
    empty = tmp_path / "out" / "error_queue.jsonl"
    output.write_lines(lines.where("FALSE"), empty)
    assert empty.read_bytes() == b""  # an empty output is an empty file, as the reference writes it


def test_write_conflicts_parquet_writes_the_reference_s_flat_table(spark: SparkSession, tmp_path: Path) -> None:
    m = pair()
    events = _resolve_events()
    conflicts = fold_events([e for group in events.values() for e in group], build_context(m)).conflicts
    assert len(conflicts) == 2
    flat = [{"sort": time_order_key(c), **conflict_flat(c)} for c in reversed(conflicts)]
    ddl = ", ".join([*(f"`{n}` string" for n in ("site", "origin", "table", "mapping", "txn", "commit_ts",
                                                 "delivered_at", "type", "column_group", "index", "method",
                                                 "outcome", "reason")),
                     "methods_tried array<string>", "applied boolean",
                     *(f"{n} string" for n in ("dkey", "local", "remote_old", "remote_new", "result"))])
    frame = spark.createDataFrame(flat, f"sort string, {ddl}").repartition(2)
    path = tmp_path / "conflicts.parquet"
    output.write_conflicts_parquet(frame, path)
    reference = conflicts_arrow(in_time_order(conflicts))
    assert_frames(spark.read.parquet(str(path)), spark.createDataFrame(reference.to_pylist(), ddl), ordered=True)
    assert pq.read_table(path).to_pylist() == reference.to_pylist()


# --- grouped --------------------------------------------------------------------------------------------


@pytest.fixture
def small_arrow_batches(spark: SparkSession) -> Iterator[int]:
    """Arrow batches of 3 records, for one test."""
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key)
    spark.conf.set(key, "3")
    yield 3
    if before is None:
        spark.conf.unset(key)
    else:
        spark.conf.set(key, before)


def test_fold_groups_folds_whole_groups_in_order_across_arrow_batches(spark: SparkSession,
                                                                       small_arrow_batches: int) -> None:
    sizes = {"a": 7, "b": 1, "c": 5, "d": 4, "e": 9}
    rows = [(g, k, k * 10 + len(g)) for g, n in sizes.items() for k in range(n)]
    assert all(n > small_arrow_batches for g, n in sizes.items() if g != "b")  # these groups span batches
    frame = spark.createDataFrame(list(reversed(rows)), "g string, k int, v long").repartition(3)

    def batch_sizes(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        yield pa.RecordBatch.from_pylist([{"n": b.num_rows} for b in batches], schema=pa.schema([("n", pa.int64())]))

    sizes_seen = [r["n"] for r in frame.repartition("g").mapInArrow(batch_sizes, "n long").collect()]
    assert sum(sizes_seen) == len(rows) and max(sizes_seen) == small_arrow_batches  # Python sees batches of 3

    def running_sum() -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:  # defined here: shipped by value
        def fold(group: list[dict[str, Any]]) -> list[dict[str, Any]]:
            total, out = 0, []
            for r in group:
                total += r["v"]
                out.append({"g": r["g"], "k": r["k"], "running": total, "size": len(group)})
            return out
        return fold

    schema = pa.schema([("g", pa.string()), ("k", pa.int32()), ("running", pa.int64()), ("size", pa.int64())])
    got = fold_groups(frame, ["g"], ["k"], running_sum, schema, "g string, k int, running long, size long")
    expected = []
    for g, n in sizes.items():
        total = 0
        for k in range(n):
            total += k * 10 + len(g)
            expected.append((g, k, total, n))  # `size`: the fold saw the whole group at once
    assert_frames(got, spark.createDataFrame(expected, "g string, k int, running long, size long"))


def test_a_fold_and_the_transaction_windows_run_in_the_session_s_partitions_under_aqe(spark: SparkSession) -> None:
    """A large run is adaptive, and AQE coalesces a shuffle by its bytes: a Python fold of a few megabytes
    became three tasks on two cores, one of them twice the others and alone in a second round. The fold's
    shuffle and the transactions' keep the session's partitions, each of them holding rows."""
    configure(spark, input_bytes=SMALL_INPUT_BYTES + 1)
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    assert spark.conf.get("spark.sql.adaptive.enabled") == "true" and partitions >= 2
    frame = spark.range(0, 4000).select((F.col("id") % 400).cast("string").alias("g"), F.col("id").alias("v"))
    assert frame.repartition("g").select(F.spark_partition_id()).distinct().count() < partitions  # AQE's

    def sizes() -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:  # defined here: shipped by value
        return lambda group: [{"g": group[0]["g"], "n": len(group)}]

    schema = pa.schema([("g", pa.string()), ("n", pa.int64())])
    folded = fold_groups(frame, ["g"], [], sizes, schema, "g string, n long")
    used = folded.select(F.spark_partition_id().alias("p")).groupBy("p").count().collect()
    assert len(used) == partitions and sum(r["count"] for r in used) == 400
    assert folded.where(F.col("n") != 10).count() == 0  # each group whole
    assert spread(frame, "g").select(F.spark_partition_id()).distinct().count() == partitions


# --- progress -------------------------------------------------------------------------------------------


def _sleeping_job(spark: SparkSession, tasks: int, millis: int) -> None:
    spark.range(0, tasks, 1, tasks).select(
        F.expr(f"java_method('java.lang.Thread', 'sleep', CAST({millis} AS BIGINT))")).collect()


def test_job_progress_reports_the_tasks_of_the_jobs_started_since(spark: SparkSession) -> None:
    running = threading.Thread(target=_sleeping_job, args=(spark, 2, 1000))  # a job already running: not counted
    running.start()
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + 60
    while not tracker.getActiveStageIds() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert tracker.getActiveStageIds(), "the first job never started"
    seen: list[tuple[int, int]] = []
    lock = threading.Lock()

    def report(done: int, total: int) -> None:
        with lock:
            seen.append((done, total))

    watch = JobProgress(spark, report)
    watch.start()
    try:
        _sleeping_job(spark, 4, 400)  # one stage of 4 tasks, 2 at a time on local[2]
        _sleeping_job(spark, 2, 600)  # then one of 2: the total grows
        time.sleep(0.8)  # a poll after the last task ends
    finally:
        watch.stop()
        running.join()
    assert seen, "no progress reported"
    assert seen[-1] == (6, 6)
    assert any(total == 4 for _, total in seen)  # the second job alone
    assert all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(seen, seen[1:], strict=False))
    assert all(0 <= done <= total for done, total in seen)
    assert len(set(seen)) == len(seen)  # reported when they change only
