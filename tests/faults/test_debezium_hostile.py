"""Hostile Debezium input (issue 35, round two): a Decimal of megabytes is refused by its length, in linear
time and with the real reason; a Debezium file that is not a regular file is an input error naming it.

Spark decodes Debezium events with the same `decode_event` (test_transaction_order_spark.py runs one such
event through both engines)."""

from __future__ import annotations

import base64
import json
import os
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.model.schema import Model
from engine.run.input.debezium.files import read_debezium
from engine.run.input.files import MAX_INPUT_FILE_BYTES, InputError

DECIMAL = "org.apache.kafka.connect.data.Decimal"


def priced() -> Model:
    columns = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "AMT", "type": "DECIMAL(38,2)"}]
    return Model.model_validate({"format": "mapwright/1", "name": "t", "servers": [{"id": "a", "dbms": "postgresql"}],
                                 "tables": [{"server": "a", "name": "PRICE", "columns": columns,
                                             "primary_key": ["ID"]}]})


def priced_event(key: int, amount: str, wrapper: bool = True) -> str:
    """A `c` event of a.PRICE whose AMT is `amount` (base64 unscaled bytes, scale 2)."""
    payload = {"op": "c", "after": {"ID": key, "AMT": amount},
               "source": {"table": "PRICE", "ts_ms": 1767607200000, "txId": key}}
    if not wrapper:
        return json.dumps(payload)
    fields = [{"field": "ID", "type": "int32"},
              {"field": "AMT", "type": "bytes", "name": DECIMAL, "parameters": {"scale": "2"}}]
    schema = {"type": "struct", "fields": [{"field": "after", "type": "struct", "fields": fields}]}
    return json.dumps({"schema": schema, "payload": payload})


def unscaled(number: int, size: int | None = None) -> str:
    return base64.b64encode(number.to_bytes(size or (number.bit_length() + 8) // 8, "big", signed=True)).decode()


def test_a_decimal_of_megabytes_is_refused_by_its_length_quickly(tmp_path: Path) -> None:
    """The probe's 2.7 MB Decimal (it had held the decode for 364 s, and been refused for a "scale 2 out of
    range"), with and without the wrapper; a 17-byte Decimal is refused alike; 16 bytes, 38 digits, read."""
    huge = base64.b64encode(b"\x01" * 2_700_000).decode()
    widest = 10**38 - 1
    lines = [priced_event(1, huge), priced_event(2, huge, wrapper=False), priced_event(3, unscaled(5, 17)),
             priced_event(4, unscaled(widest, 16)), priced_event(5, unscaled(-(10**37), 16), wrapper=False)]
    folder = tmp_path / "changes" / "debezium" / "a"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n")
    start = time.perf_counter()
    got = read_debezium(tmp_path, priced())
    assert time.perf_counter() - start < 5  # 364 s before; linear reading takes well under a second
    reasons = {r.line: r.reason for r in got.rejects}
    assert sorted(reasons) == [1, 2, 3]
    assert "Decimal of 3600000 base64 characters: longer than the 16 bytes" in reasons[1]
    assert "Decimal of 3600000 base64 characters: longer than the 16 bytes" in reasons[2]
    assert "Decimal of 17 bytes: longer than the 16 bytes" in reasons[3]
    assert [r.after["AMT"] for r in got.records] == [Decimal(widest).scaleb(-2), Decimal(-(10**37)).scaleb(-2)]


def _data(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "changes" / "debezium" / "a"
    folder.mkdir(parents=True)
    (folder / "good.jsonl").write_text(priced_event(1, unscaled(100)) + "\n")
    return tmp_path, folder


@pytest.mark.parametrize("kind", ["fifo", "device", "broken", "folder"])
def test_a_debezium_file_that_is_not_a_regular_file_is_an_input_error_naming_it(tmp_path: Path, kind: str) -> None:
    """A FIFO had blocked the run for ever, a link to /dev/zero had read without end."""
    data, folder = _data(tmp_path)
    bad = folder / "bad.jsonl"
    make: dict[str, Any] = {"fifo": lambda: os.mkfifo(bad), "device": lambda: bad.symlink_to("/dev/zero"),
                            "broken": lambda: bad.symlink_to(tmp_path / "gone"), "folder": lambda: bad.mkdir()}
    make[kind]()
    with pytest.raises(InputError) as caught:
        read_debezium(data, priced())
    assert str(caught.value).startswith(f"{bad}: ") and "\n" not in str(caught.value)


def test_a_debezium_file_beyond_the_size_bound_is_refused_unread(tmp_path: Path) -> None:
    data, folder = _data(tmp_path)
    sparse = folder / "huge.jsonl"
    with sparse.open("wb") as stream:
        stream.truncate(MAX_INPUT_FILE_BYTES + 1)  # sparse: no disk, and never read
    with pytest.raises(InputError, match="is larger than a run reads from one file"):
        read_debezium(data, priced())
    sparse.unlink()
    (folder / "linked.jsonl").symlink_to(folder / "good.jsonl")  # a link to a regular file is read, as Spark does
    assert [r.after["ID"] for r in read_debezium(data, priced()).records] == [1, 1]
