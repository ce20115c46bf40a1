"""Values Spark reads otherwise than the reference unless told: a DECIMAL(38, s) with s > 18 (Spark reads a
number as DECIMAL(38,18) first), a negative zero, and snapshot rows whose identity is NULL or that have no
key. Each case runs both engines on a tiny input and compares what they give (docs/contract.md §6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from builders import col, mapping, model, server, table
from sparkkit import reference_run, rundir_doc, spark_run

from engine.model import Model
from engine.run.input.files import InputError

DEC38 = model([server("s")], [table("s", "T", [col("ID", nullable=False), col("D", "DECIMAL(38,30)")], pk=["ID"])])


def _both_fail(spark: Any, m: Model, data: Path, out: Path) -> str:
    """The input error both engines give (the same, word for word)."""
    with pytest.raises(InputError) as reference:
        reference_run(m, data, out / "reference")
    with pytest.raises(InputError) as got:
        spark_run(spark, m, data, out / "spark")
    assert str(got.value) == str(reference.value)
    return str(reference.value)


def _both_equal(spark: Any, m: Model, data: Path, out: Path) -> dict[str, Any]:
    reference_run(m, data, out / "reference")
    spark_run(spark, m, data, out / "spark")
    got, want = rundir_doc(out / "spark"), rundir_doc(out / "reference")
    assert got == want
    return got


def test_a_record_whose_decimal_does_not_fit_decimal_38_30_is_a_reject(spark: Any, tmp_path: Path) -> None:
    """123456789 has nine digits before the point, DECIMAL(38,30) eight: the record is a reject with the
    reference's reason, the run goes on (Spark had failed the run: NUMERIC_VALUE_OUT_OF_RANGE)."""
    data = tmp_path / "data"
    (data / "changes").mkdir(parents=True)
    (data / "changes" / "a.jsonl").write_text("".join(json.dumps(
        {"site": "s", "txn": f"x{i}", "seq": 1, "commit_ts": f"2026-01-05T10:00:0{i}Z", "table": "T", "op": "I",
         "after": {"ID": i, "D": d}}) + "\n" for i, d in ((1, 123456789), (2, 12345678), (3, 0.5))))
    got = _both_equal(spark, DEC38, data, tmp_path)
    assert "123456789 does not fit DECIMAL(38,30)" in got["rejects.jsonl"]
    assert got["manifest"]["counts"]["rejects"] == 1


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_a_snapshot_whose_decimal_does_not_fit_decimal_38_30_is_an_input_error(spark: Any, tmp_path: Path,
                                                                               suffix: str) -> None:
    """As the reference: an input error naming file and line (Spark had kept the row with D NULL, or failed
    the run in an ANSI cast)."""
    folder = tmp_path / "data" / "snapshots" / "s"
    folder.mkdir(parents=True)
    path = folder / f"T.{suffix}"
    if suffix == "csv":
        path.write_text("ID,D\n1,12345678\n2,123456789\n")
    elif suffix == "jsonl":
        path.write_text('{"ID": 1, "D": 12345678}\n{"ID": 2, "D": 123456789}\n')
    else:
        pq.write_table(pa.table({"ID": pa.array([1, 2], pa.int32()), "D": pa.array([12345678, 123456789])}), path)
    says = _both_fail(spark, DEC38, tmp_path / "data", tmp_path)
    line = 3 if suffix == "csv" else 2  # a CSV's header is its line 1, a Parquet file's rows count from 1
    assert says == f"{path}:{line}: column D: 123456789 does not fit DECIMAL(38,30)"


DOUBLE_KEY = model([server("s"), server("t")],
                   [table(site, "T", [col("K", "DOUBLE", nullable=False), col("F", "DOUBLE")], pk=["K"])
                    for site in ("s", "t")],
                   [mapping("m", "s.T", "t.T", {"K": "K", "F": "F"})])


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_keys_zero_and_negative_zero_are_a_duplicate_in_a_snapshot(spark: Any, tmp_path: Path, suffix: str) -> None:
    """0.0 == -0.0: the reference says duplicate primary key (Spark had kept one of the rows)."""
    folder = tmp_path / "data" / "snapshots" / "s"
    folder.mkdir(parents=True)
    path = folder / f"T.{suffix}"
    if suffix == "csv":
        path.write_text("K,F\n0.0,1\n-0.0,2\n")
    else:
        pq.write_table(pa.table({"K": [0.0, -0.0], "F": [1.0, 2.0]}), path)
    assert "duplicate primary key" in _both_fail(spark, DOUBLE_KEY, tmp_path / "data", tmp_path)


def test_a_jsonl_snapshots_negative_zero_keeps_its_sign(spark: Any, tmp_path: Path) -> None:
    """Spark's JSON reading drops the sign of `-0.0`: the line goes to the reference, as a record's does."""
    folder = tmp_path / "data" / "snapshots" / "s"
    folder.mkdir(parents=True)
    (folder / "T.jsonl").write_text('{"K": 1, "F": -0.0}\n{"K": 2, "F": 0.0}\n')
    _both_equal(spark, DOUBLE_KEY, tmp_path / "data", tmp_path)
    rows = pq.read_table(tmp_path / "spark" / "tables" / "s" / "T.parquet").to_pylist()
    assert [str(r["F"]) for r in sorted(rows, key=lambda r: r["K"])] == ["-0.0", "0.0"]


def test_snapshot_rows_with_a_null_identity_or_no_key_are_all_kept(spark: Any, tmp_path: Path) -> None:
    """Two rows whose unique column is NULL are no duplicate (a key with a NULL part is none), and a table
    without any key keeps two equal rows: both engines keep every row (Spark had kept one of each)."""
    m = model([server("s")], [table("s", "U1", [col("S", "VARCHAR(8)"), col("X")], unique={"UX": ["S"]}),
                              table("s", "U2", [col("S", "VARCHAR(8)"), col("X")])])
    folder = tmp_path / "data" / "snapshots" / "s"
    folder.mkdir(parents=True)
    (folder / "U1.jsonl").write_text('{"S": null, "X": 1}\n{"S": null, "X": 2}\n')
    (folder / "U2.jsonl").write_text('{"S": "a", "X": 1}\n{"S": "a", "X": 1}\n')
    _both_equal(spark, m, tmp_path / "data", tmp_path)
    for name in ("U1", "U2"):
        assert pq.read_table(tmp_path / "spark" / "tables" / "s" / f"{name}.parquet").num_rows == 2
