"""`generate`: one business day of sample data, from the snapshot to the files."""

from __future__ import annotations

from pathlib import Path

from engine.model.schema import Model
from engine.sampledata.day import ordinary_day
from engine.sampledata.debezium import DebeziumWriter
from engine.sampledata.malformed import MALFORMED_SHARE
from engine.sampledata.scenarios import scenarios
from engine.sampledata.shop import SampleDataError, SampleModelError, Shop
from engine.sampledata.snapshot import snapshot
from engine.sampledata.transactions import Row, Txn
from engine.sampledata.writer import Writer, check_out, write_out


def generate(model: Model, out: Path, seed: int = 7, rows: int = 10_000, changes: int = 3_000,
             debezium: bool = False) -> None:
    """Write the sample data set of `model` (the bundled sample) into `out`: about `rows` snapshot rows
    and `changes` change records, replacing the files of an earlier day (and no other file).

    `out` must be absent, empty or a folder the generator wrote, holding no file it did not write
    (`check_out`); it is checked, and the whole day generated, before anything is written, and the day is
    staged beside it and swapped in (`write_out`), so a refusal (`SampleDataError`), a kill or a full disk
    leaves it as it was. With `debezium`, the same day is written as Debezium change events
    (`DebeziumWriter`)."""
    out = Path(out)
    check_out(out)
    try:
        shop = Shop(model, seed)
        start, txns = day(shop, rows, changes)
    except SampleDataError:
        raise
    except (KeyError, ValueError, RuntimeError) as exc:  # a model that changes what the script relies on
        raise SampleModelError(f"the sample day does not fit this model: {type(exc).__name__}: {exc}") from exc
    writer = (DebeziumWriter if debezium else Writer)(model, shop.ctx)
    write_out(out, lambda staged: writer.write(staged, start, txns))


def day(shop: Shop, rows: int, changes: int) -> tuple[dict[str, list[Row]], list[Txn]]:
    """The snapshot's rows by table and the day's transactions.

    The order of the steps is the order in which they draw from the one random source: the snapshot,
    the scenarios, then the ordinary day filling what the scenarios left of `changes`."""
    start = snapshot(shop, rows)
    scenarios(shop, changes)
    scripted = sum(len(txn.ops) for txn in shop.txns)
    malformed = round(changes * MALFORMED_SHARE)
    ordinary_day(shop, max(0, changes - scripted - malformed), malformed)
    return start, shop.txns
