"""`decode` reading a line's values with Spark's JSON reader (`engine/spark/decode_json.py`) and its kinds
from the VARIANT: the records it types equal the reference's, table by table when tables read a column
of one name as two types, and what the JSON reader would read but the VARIANT refuses is the reference's.
"""

from __future__ import annotations

import json
from typing import Any

from builders import col, model, server, table
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from engine.model import Model
from engine.run.input.records import ChangeRecord, Reject, decode_record
from engine.run.rundir.write import jsonl_line
from engine.spark.decode import decode, raw_fields
from engine.spark.decode_json import MAX_GROUP_FIELDS, groups, image_reads
from engine.spark.pipeline import configure
from engine.spark.types import table_type_sql

NAME = "changes/a.jsonl"


def two_tables() -> Model:
    """T and U read `ID` and `AMOUNT` as different types: their images cannot share a struct."""
    return model([server("s")], [
        table("s", "T", [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col("AMOUNT", "DECIMAL(10,2)"),
                         col("OK", "BOOLEAN"), col("X", "DOUBLE"), col("AT", "TIMESTAMP")], pk=["ID"]),
        table("s", "U", [col("ID", "VARCHAR(10)", nullable=False), col("AMOUNT", "DOUBLE")], pk=["ID"]),
        table("s", "V", [col("ID", nullable=False), col("NAME", "VARCHAR(40)")], pk=["ID"])])


def line(table_name: str, txn: str | int, op: str, before: Any = None, after: Any = None, **extra: Any) -> str:
    doc: dict[str, Any] = {"site": "s", "txn": txn, "commit_ts": "2026-01-05T10:00:00+01:00", "table": table_name,
                           "op": op, **extra}
    if before is not None:
        doc["before"] = before
    if after is not None:
        doc["after"] = after
    return json.dumps(doc)


LINES = [
    # every kind a clean token may have: an integer as text, a boolean as 1, integers as a decimal and a double
    line("T", "t1", "I", after={"ID": 1, "NAME": 12, "AMOUNT": 3, "OK": 1, "X": 2, "AT": "2026-01-04T08:00:00Z"}),
    line("T", 7, "U", before={"ID": 1, "NAME": "a", "AMOUNT": 12.5, "OK": True, "X": 2.25, "AT": None},
         after={"ID": 1, "NAME": None, "AMOUNT": -0.01, "OK": False, "X": 1e300}, seq=3),
    line("U", "t3", "I", after={"ID": "k1", "AMOUNT": 0.1}),  # the other group's struct
    # the images first: T's struct cannot read this ID, and the envelope after it is read all the same
    '{"after": {"ID": "k3", "AMOUNT": 2}, "site": "s", "txn": "t", "commit_ts": "2026-01-05T10:00:00Z", '
    '"table": "U", "op": "I"}',
    line("U", "t4", "D", before={"ID": 7}),  # an integer as the text of a VARCHAR key
    line("V", "t5", "I", after={"ID": 5, "NAME": "v"}, schema_version=None),
    # what the JSON reader reads and the VARIANT refuses: the reference's
    line("T", "t6", "I", after={"ID": 6}).replace('"', "'"),  # single quotes: a reject
    line("T", "t7", "I", after={"ID": 7}).replace('{"ID": 7}', '{"ID": 7, "ID": 8}'),  # the last one counts
    line("T", "t8", "I", after={"ID": 9}).replace('{"ID": 9}', '{"ID": 9, "X": NaN}'),  # Python reads NaN
    line("U", "t9", "I", after={"ID": "k2", "AMOUNT": "1.5"}),  # a string of a number for a DOUBLE: 1.5
]


def test_tables_share_an_image_struct_unless_a_column_is_read_as_two_types_or_it_grows_too_wide() -> None:
    m = two_tables()
    t, u, v = m.tables
    assert [[x.key for x in g] for g in groups([t, u, v], raw_fields)] == [["s.T", "s.V"], ["s.U"]]
    reads = image_reads([t, u, v], raw_fields)
    assert reads.source == {"s.T": "_j0", "s.V": "_j0", "s.U": "_j1"}
    assert [alias for _, alias in reads.columns] == ["_e", "_j0", "_j1"] and reads.envelope == "_e"
    assert "_key IN ('s.T', 's.V')" in reads.columns[1][0] and "_key IN ('s.U')" in reads.columns[2][0]
    one = image_reads([t, v], raw_fields)  # one group: the envelope is read with the images, one parse a line
    assert [alias for _, alias in one.columns] == ["_j0"] and one.envelope == "_j0" and "_key" not in one.columns[0][0]

    def wide(n: int) -> dict[str, str]:
        return {f"C{i}": "bigint" for i in range(n)}
    fields = {"a": wide(MAX_GROUP_FIELDS - 1), "b": wide(MAX_GROUP_FIELDS), "c": {"Z": "string"}}
    tables = [m.tables[0].model_copy(update={"name": n}) for n in fields]
    assert [[x.name for x in g] for g in groups(tables, lambda x: fields[x.name])] == [["a", "b"], ["c"]]


def test_decode_reads_values_as_the_reference_types_them_and_leaves_it_what_the_variant_refuses(
        spark: SparkSession) -> None:
    configure(spark, input_bytes=0)
    m = two_tables()
    texts = [t.encode() for t in LINES]
    frame = spark.createDataFrame([(0, n, t.hex(), len(t), False) for n, t in enumerate(texts, start=1)],
                                  "file_ord int, line long, hex string, size int, blank boolean")
    lines = frame.select("file_ord", "line", F.unhex("hex").cast("string").alias("text"), "size", "blank")
    decoded = decode(lines, m, [NAME], {})
    ids = decoded.tables
    images = [f"{side}_{ids[t.key]}" for t in m.tables for side in ("b", "a")]
    got = decoded.records.select("line", "normalized", "site", "txn", "seq", "commit_ts", "table", "op", *images)

    results = [decode_record(text, NAME, n, m) for n, text in enumerate(LINES, start=1)]
    rows = []
    for r in results:
        if isinstance(r, ChangeRecord):
            structs = [None] * len(images)
            for side, image in (("b", r.before), ("a", r.after)):
                table = m.table(r.table)
                if image is not None and table is not None:
                    structs[images.index(f"{side}_{ids[r.table]}")] = {c.name: image.get(c.name)
                                                                       for c in table.columns}
            rows.append((r.line, r.line >= 7, r.site, r.txn, r.seq, r.commit_ts, r.table, r.op, *structs))
    schema = ("line long, normalized boolean, site string, txn string, seq bigint, commit_ts timestamp, "
              "table string, op string, " + ", ".join(f"{name} {table_type_sql(t)}" for t in m.tables
                                                       for name in (f"b_{ids[t.key]}", f"a_{ids[t.key]}")))
    assert [r.line for r in results if isinstance(r, ChangeRecord)] == [1, 2, 3, 4, 5, 6, 8, 9, 10]  # 8: ID 8
    assertDataFrameEqual(got, spark.createDataFrame(rows, schema), rtol=0.0, atol=0.0)

    rejects = decoded.read_by_reference.where(F.col("kind") == "reject").select("line", "reject")
    wanted = [(r.line, jsonl_line(r.as_dict())) for r in results if isinstance(r, Reject)]
    assert [n for n, _ in wanted] == [7]
    assertDataFrameEqual(rejects, spark.createDataFrame(wanted, "line long, reject string"))


def test_a_negative_zero_before_any_blank_or_the_token_s_end_is_the_reference_s_and_a_date_s_is_not(
        spark: SparkSession) -> None:
    """`decode.MAYBE_RED` looks for `-0` followed by what may end a negative zero (plain substrings, no
    pattern over every line): each line holding one is read by the reference, which keeps the sign."""
    configure(spark, input_bytes=0)
    m = model([server("s")], [table("s", "T", [col("ID", nullable=False), col("X", "DOUBLE"), col("D", "DECIMAL(9,2)"),
                                               col("NAME", "VARCHAR(20)")], pk=["ID"])])
    start = '{"site": "s", "txn": "t", "commit_ts": "2026-01-05T10:00:00-05:00", "table": "T", "op": "I", "after": '
    images = ['{"ID": 1, "X": -0 }', '{"ID": 2, "X": -0.0\t}', '{"ID": 3, "D": -0.00}', '{"ID": 4, "X": -0E1}',
              '{"ID": 5, "D": -0, "X": 1}', '{"ID": 6, "NAME": "2026-01-05", "X": -0.5}', '{"ID": 7, "X": -10.0}']
    texts = [start + image + "}" for image in images]
    frame = spark.createDataFrame([(0, n, t, len(t.encode()), False) for n, t in enumerate(texts, start=1)],
                                  "file_ord int, line long, text string, size int, blank boolean")
    got = decode(frame, m, [NAME], {}).records.select("line", "normalized", F.col("a_t0.X").cast("string"),
                                                      F.col("a_t0.D").cast("string")).orderBy("line")
    want = []
    for n, text in enumerate(texts, start=1):
        r = decode_record(text, NAME, n, m)
        assert isinstance(r, ChangeRecord) and r.after is not None
        x, d = r.after.get("X"), r.after.get("D")
        want.append((n, n <= 5, None if x is None else str(x), None if d is None else str(d)))
    assert [w[2:] for w in want[:5]] == [("0.0", None), ("-0.0", None), (None, "0.00"), ("-0.0", None), ("1.0", "0.00")]
    assert [tuple(r) for r in got.collect()] == want
