"""Where a natively checked table hands the rest of a key to the reference's fold, its images cross into
Python as typed Arrow structs, not as JSON text, and read as the reference's values exactly as the rows of
tokens they replaced read."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from engine.model import load_model
from engine.spark import pipeline
from engine.spark import resolve as resolve_module
from engine.spark import sqltext as sql
from engine.spark.canonical import row_reader, typed_row_reader, write_row_sql
from engine.spark.types import table_struct
from tests.spark.test_canonical import _table  # one table of every representation


def _same(a: Any, b: Any) -> bool:
    """Equal and of one type; NaN is NaN, and -0.0 keeps its sign."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return bool(a == b)


def test_typed_images_read_as_the_tokens_did(spark: Any) -> None:
    t = _table().tables[0]
    rows = [(7, "seven", Decimal("1.50"), 0.25, datetime(2026, 1, 5, 8, 0, 0, 500000, tzinfo=UTC), True, b"\x00\xff"),
            (8, "", Decimal("-0.00"), float("nan"), datetime(1999, 12, 31, 23, 59, 59, tzinfo=UTC), False, b""),
            (9, "é", Decimal("12345678.99"), -0.0, None, None, None),
            (10, None, None, float("-inf"), datetime(2026, 3, 29, 1, 30, tzinfo=UTC), None, b"\x01")]
    schema = T.StructType([T.StructField("new", table_struct(t))])
    view = sql.view(spark.createDataFrame([(row,) for row in rows], schema))
    both = spark.sql(f"SELECT new, {write_row_sql('new', t)} AS new_text FROM {view}")
    names = [c.name for c in t.columns]
    typed, tokens = typed_row_reader(t, names), row_reader(t)
    read = 0
    for row in both.toArrow().to_pylist():
        by_type, by_token = typed(row["new"]), tokens(row["new_text"])
        assert by_type is not None and by_token is not None
        assert list(by_type) == names
        assert all(_same(by_type[n], by_token[n]) for n in names), (by_type, by_token)
        read += 1
    assert read == len(rows)
    assert typed(None) is None
    assert typed_row_reader(t, ("ID", "AT"))({n: None for n in names} | {"ID": 3}) == {"ID": 3, "AT": None}


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[DataFrame]:
    """The frames the reference's folds of natively checked tables are given (spied, not replaced)."""
    frames: list[DataFrame] = []
    fold_within = resolve_module.fold_within

    def spy(frame: DataFrame, *args: Any, **kwargs: Any) -> DataFrame:
        frames.append(frame)
        return fold_within(frame, *args, **kwargs)
    monkeypatch.setattr(resolve_module, "fold_within", spy)
    return frames


def test_a_natively_checked_table_hands_its_images_over_typed(spark: Any, examples: Path, tmp_path: Path,
                                                               handed: list[DataFrame]) -> None:
    example = examples / "ordering_conflict"
    loaded = load_model(example / "model.json")
    ran = pipeline.run_spark(spark, loaded, example / "data", tmp_path / "out")
    assert ran.counts.conflicts == len(json.loads((example / "expected.json").read_text())["conflicts"]) > 0
    assert handed  # the conflicting keys were handed to the fold
    for frame in handed:
        fields = {f.name: f.dataType for f in frame.schema.fields}
        assert "old_text" not in fields and "new_text" not in fields
        assert fields["old"] == fields["new"] in [table_struct(t) for t in loaded.tables]
