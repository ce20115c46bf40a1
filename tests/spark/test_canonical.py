"""Canonical tokens read back into the reference's values: the per-table reader a fold uses equals
`value_of` column by column, for every representation and either side's spelling."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

from engine.model import Model
from engine.spark.canonical import row_reader, row_tokens, row_values, row_writer, value_of
from tests.builders import col, model, server, table


def _table() -> Model:
    return model([server("s")], [table("s", "T", [
        col("ID", nullable=False), col("NAME", "VARCHAR(20)"), col("AMOUNT", "DECIMAL(10,2)"),
        col("RATE", "DOUBLE"), col("AT", "TIMESTAMP"), col("OK", "BOOLEAN"), col("RAW", "VARBINARY(16)")],
        pk=["ID"])])


def test_a_row_reads_back_what_was_written() -> None:
    t = _table().tables[0]
    values = {"ID": 7, "NAME": "seven", "AMOUNT": Decimal("1.50"), "RATE": 0.25,
              "AT": datetime(2026, 1, 5, 8, 0, 0, 500000, tzinfo=UTC), "OK": True, "RAW": b"\x00\xff"}
    text = row_tokens(values, t)
    assert row_values(text, t) == values
    assert row_reader(t)(text) == values
    assert row_reader(t, ("ID", "AMOUNT"))(text) == {"ID": 7, "AMOUNT": Decimal("1.50")}
    assert row_reader(t)(None) is None


def test_the_per_table_writer_writes_what_row_tokens_writes() -> None:
    t = _table().tables[0]
    rows = [{"ID": 7, "NAME": "seven", "AMOUNT": Decimal("1.50"), "RATE": float("nan"),
             "AT": datetime(2026, 1, 5, 8, 0, 0, 500000, tzinfo=UTC), "OK": False, "RAW": b"\x00\xff"},
            {"ID": 8, "NAME": None, "AMOUNT": None, "RATE": float("-inf"), "AT": None, "OK": None, "RAW": b""},
            {"ID": 9}]  # a column the row lacks is NULL
    write = row_writer(t)
    for values in rows:
        assert write(values) == row_tokens(values, t)
    assert json.loads(write(rows[0]))["c3"] == "NaN" and json.loads(write(rows[2]))["c1"] is None


def test_the_reader_takes_sparks_spellings_as_value_of_does() -> None:
    t = _table().tables[0]
    doc = {"c0": 7, "c1": 12, "c2": "1.5", "c3": "1.0E20", "c4": "2026-01-05 10:00:00.5", "c5": 1, "c6": "00ff"}
    read = row_reader(t)(json.dumps(doc))
    assert read == {c.name: value_of(doc[f"c{i}"], c.sql_type) for i, c in enumerate(t.columns)}
    assert read is not None and read["NAME"] == "12" and read["OK"] is True and read["AMOUNT"] == Decimal("1.50")


def test_a_missing_token_is_null_and_columns_left_out_stay_out() -> None:
    t = _table().tables[0]
    assert row_reader(t, ("ID", "NAME"))(json.dumps({"c0": 1})) == {"ID": 1, "NAME": None}
