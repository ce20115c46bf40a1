"""Numbers and timestamps a run cannot hold exactly (issue 36), Spark against the reference: an unbounded
NUMERIC/NUMBER value beyond DECIMAL(38,10) and a timestamp with sub-microsecond digits are rejects with the
reference's reasons, word for word (Spark had failed the run: NUMERIC_VALUE_OUT_OF_RANGE ... Decimal(38, 10));
TIMESTAMPTZ, UUID and ARRAY columns run; a value of a bounded column mapped to an unbounded
one that does not fit it goes to the error queue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from builders import col, mapping, model, server, table
from sparkkit import reference_run, rundir_doc, spark_run

COLUMNS = [col("ID", nullable=False), col("PRICE", "NUMERIC"), col("N", "NUMBER"), col("TS", "TIMESTAMP"),
           col("TZ", "TIMESTAMPTZ"), col("U", "UUID"), col("A", "ARRAY(INTEGER)")]
PLAIN = [col("ID", nullable=False), col("TS", "TIMESTAMP"), col("TZ", "TIMESTAMPTZ"), col("U", "UUID")]
"""s.P has no column Spark holds as text, so Spark types its clean records natively (T's go to the reference);
its W, NUMERIC(38,0), is mapped to t.P's unbounded W, which not every value fits."""
MODEL = model([server("s"), server("t")],
              [*(table(site, "T", COLUMNS, pk=["ID"]) for site in ("s", "t")),
               table("s", "P", [*PLAIN, col("W", "NUMERIC(38,0)")], pk=["ID"]),
               table("t", "P", [*PLAIN, col("W", "NUMERIC")], pk=["ID"])],
              [mapping(f"m{name}", f"s.{name}", f"t.{name}", {c: c for c in columns})
               for name, columns in (("T", [c["name"] for c in COLUMNS]), ("P", ["ID", "TS", "TZ", "U", "W"]))])
UUID = "123e4567-e89b-12d3-a456-426614174000"
AFTERS: list[tuple[str, str]] = [  # (table, the after image's JSON without ID)
    ("T", '"PRICE": 123456789012345678901234567890'),
    ("T", '"PRICE": 0.123456789012345'),
    ("T", '"N": 12345678901234567890123456789012345678'),
    ("T", '"PRICE": 1.50000000000000, "N": "9999999999999999999999999999.9999999999", "A": [1, 2], '
          f'"TS": "2026-01-05T10:00:00.123456000Z", "TZ": "2026-01-05T12:00:00+02:00", "U": "{UUID}"'),
    ("T", '"TS": "2026-01-05T10:00:00.1234567Z"'),
    ("P", '"TS": "2026-01-05T10:00:00.1234567Z"'),
    ("P", '"TZ": "2026-01-05T12:00:00.000000001+02:00"'),
    ("P", f'"TS": "2026-01-05T10:00:00.1234560", "TZ": "2026-01-05T12:00:00.5+02:00", "U": "{UUID}"'),
    ("P", '"TZ": "2026-01-05T12:00:00-03:30"'),
    ("P", f'"U": "{UUID}x"'),
    ("P", '"W": 123456789012345678901234567890'),
    ("P", '"W": 1234567890123456789012345678'),
]


def _write(data: Path) -> None:
    (data / "changes").mkdir(parents=True)
    (data / "changes" / "a.jsonl").write_text("".join(
        f'{{"site": "s", "txn": "x{i}", "seq": 1, "commit_ts": "2026-01-05T10:00:{i:02d}Z", "table": "{name}", '
        f'"op": "I", "after": {{"ID": {i}, {after}}}}}\n' for i, (name, after) in enumerate(AFTERS, 1)))


def test_values_beyond_what_a_column_holds_are_the_same_rejects_in_both_engines(spark: Any, tmp_path: Path) -> None:
    """The same run directory from both engines, byte for byte: its rejects, error queue and final rows."""
    _write(tmp_path / "data")
    reference_run(MODEL, tmp_path / "data", tmp_path / "reference")
    spark_run(spark, MODEL, tmp_path / "data", tmp_path / "spark")
    got, want = rundir_doc(tmp_path / "spark"), rundir_doc(tmp_path / "reference")
    assert got == want
    reasons = [json.loads(line)["reason"] for line in got["rejects.jsonl"].splitlines()]
    limit = "(at most 28 digits before the point and 10 after)"
    sub = "has sub-microsecond digits; a TIMESTAMP holds microseconds"
    assert reasons == [
        f"after: column 'PRICE': 123456789012345678901234567890 does not fit an unbounded NUMERIC {limit}",
        f"after: column 'PRICE': 0.123456789012345 does not fit an unbounded NUMERIC {limit}",
        f"after: column 'N': 12345678901234567890123456789012345678 does not fit an unbounded NUMBER {limit}",
        f"after: column 'TS': '2026-01-05T10:00:00.1234567Z' {sub}",
        f"after: column 'TS': '2026-01-05T10:00:00.1234567Z' {sub}",
        f"after: column 'TZ': '2026-01-05T12:00:00.000000001+02:00' {sub}",
        f"after: column 'U': 37 characters do not fit UUID ('{UUID}x')"]
    assert got["manifest"]["counts"]["records"] == len(AFTERS)
    target = got["tables/t/T.parquet"]["rows"]
    assert [(r["ID"], str(r["PRICE"]), str(r["N"]), r["A"], r["TS"] and r["TS"].isoformat(),
             r["TZ"] and r["TZ"].isoformat()) for r in target] == [
        (4, "1.5000000000", "9999999999999999999999999999.9999999999", "[1, 2]", "2026-01-05T10:00:00.123456+00:00",
         "2026-01-05T10:00:00+00:00")]
    plain = got["tables/t/P.parquet"]["rows"]
    assert [(r["ID"], r["TS"] and r["TS"].isoformat(), r["TZ"] and r["TZ"].isoformat(), r["U"]) for r in plain] == [
        (8, "2026-01-05T10:00:00.123456+00:00", "2026-01-05T10:00:00.500000+00:00", UUID),
        (9, None, "2026-01-05T15:30:00+00:00", None), (12, None, None, None)]
    [queued] = [json.loads(line) for line in got["error_queue.jsonl"].splitlines()]
    assert (queued["after"]["ID"], queued["reason"]) == (11, "a value does not fit its target column: "
                                                             f"123456789012345678901234567890 does not fit an "
                                                             f"unbounded NUMERIC {limit}")
    assert str(got["tables/t/P.parquet"]["rows"][-1]["W"]) == "1234567890123456789012345678.0000000000"

