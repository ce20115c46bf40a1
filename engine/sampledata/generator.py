"""`generate`: one business day of sample data, from the snapshot to the files."""

from __future__ import annotations

from pathlib import Path

from engine.model.schema import Model
from engine.sampledata.day import ordinary_day
from engine.sampledata.debezium import DebeziumWriter
from engine.sampledata.malformed import MALFORMED_SHARE
from engine.sampledata.scenarios import scenarios
from engine.sampledata.shop import Shop
from engine.sampledata.snapshot import snapshot
from engine.sampledata.writer import Writer


def generate(model: Model, out: Path, seed: int = 7, rows: int = 10_000, changes: int = 3_000,
             debezium: bool = False) -> None:
    """Write the sample data set of `model` (the bundled sample) into `out`: about `rows` snapshot rows
    and `changes` change records. Files a run would read that this data set does not have are removed.

    The order of the steps is the order in which they draw from the one random source: the snapshot,
    the scenarios, then the ordinary day filling what the scenarios left of `changes`. With `debezium`,
    the same day is written as Debezium change events (`DebeziumWriter`)."""
    shop = Shop(model, seed)
    start = snapshot(shop, rows)
    scenarios(shop, changes)
    scripted = sum(len(txn.ops) for txn in shop.txns)
    malformed = round(changes * MALFORMED_SHARE)
    ordinary_day(shop, max(0, changes - scripted - malformed), malformed)
    (DebeziumWriter if debezium else Writer)(model, shop.ctx).write(Path(out), start, shop.txns)
