"""The shop being simulated: the state every part of the generator shares.

One `Shop` holds the random source, the replica of every site, what ordinary work draws on (`Pools`),
which entities are busy, and the transactions recorded so far. The snapshot, the ordinary day, the
scenarios and the malformed lines all work on it, in that order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from engine.model.schema import Model
from engine.run.input.schedule import parse_schedule
from engine.run.semantics.context import build_context
from engine.sampledata.catalogue import money, total
from engine.sampledata.replica import Sites
from engine.sampledata.timetable import SCHEDULE, SNAPSHOT_AT
from engine.sampledata.transactions import Key, Op, Row, Txn

T = TypeVar("T")

class SampleDataError(ValueError):
    """The sample day cannot be written as asked (a model it does not fit, too few rows, an `out` that is not
    the generator's); the message is one line for the user."""


class SampleModelError(SampleDataError):
    """The model is not one the sample day fits: the day is scripted for the bundled sample's tables,
    mappings, columns and types, and a model that changes them fails somewhere inside."""


TABLES = ("hq.CUSTOMER", "branch.CUSTOMER", "web.CUSTOMER", "hq.PRODUCT", "branch.PRODUCT", "web.PRODUCT",
          "hq.ORDERS", "branch.ORDERS", "web.ORDERS", "hq.ORDER_LINE", "branch.ORDER_LINE")
MAPPINGS = {"cust_hq_to_branch": ("hq.CUSTOMER", "branch.CUSTOMER"),
            "cust_hq_to_web": ("hq.CUSTOMER", "web.CUSTOMER"),
            "product_hq_to_branch": ("hq.PRODUCT", "branch.PRODUCT"),
            "product_hq_to_web": ("hq.PRODUCT", "web.PRODUCT"),
            "orders_branch_to_hq": ("branch.ORDERS", "hq.ORDERS"),
            "orders_web_to_hq": ("web.ORDERS", "hq.ORDERS"),
            "order_line_branch_to_hq": ("branch.ORDER_LINE", "hq.ORDER_LINE")}
"""The mappings the snapshot copies its rows through, by id: (source, target)."""


@dataclass
class Pools:
    """What ordinary work draws on; scenarios take theirs out first. Customers by the site that looks after
    them: HQ edits its own and the web shop's (a change made at the web would reach HQ and never the branch,
    as sites do not pass on what they receive), the branch its own, in columns the web does not hold."""

    customers: dict[str, list[Key]] = field(default_factory=lambda: {"hq": [], "branch": [], "web": []})
    products: list[str] = field(default_factory=list)
    orders: dict[str, list[int]] = field(default_factory=lambda: {"hq": [], "branch": [], "web": []})
    lines: dict[int, list[int]] = field(default_factory=dict)


class Shop:
    """The sample model's three sites as the generator drives them: one `random.Random(seed)`, the
    replica (`sites`), the pools, the busy entities and the recorded transactions (`txns`)."""

    def __init__(self, model: Model, seed: int) -> None:
        missing = [t for t in TABLES if model.table(t) is None]
        if missing:
            raise SampleModelError(f"the sample data needs the sample model's tables; missing: {', '.join(missing)}")
        have = {m.id: (m.source, m.target) for m in model.mappings}
        missing = [f"{i} ({s} -> {t})" for i, (s, t) in MAPPINGS.items() if have.get(i) != (s, t)]
        if missing:
            raise SampleModelError(f"the sample data needs the sample model's mappings; missing: {', '.join(missing)}")
        self.model, self.rng = model, random.Random(seed)
        self.ctx = build_context(model)
        self.sites = Sites(self.ctx, parse_schedule(SCHEDULE))
        self.pools = Pools()
        self.busy: dict[Key, datetime] = {}
        self.txns: list[Txn] = []
        self.counters: dict[str, int] = {}
        self.issued: dict[str, set[int]] = {}

    def next_id(self, name: str, start: int) -> int:
        """The next number of the sequence `name` (the first is `start + 1`) that no sequence of its kind
        has given out (the kind is the name up to the dot: `order.hq` and `order.web` are both orders).
        Each sequence starts in a block of its own, but a big snapshot or a long day runs one block into
        the next: a new product numbered like one of the snapshot's would be a key both sites insert."""
        taken = self.issued.setdefault(name.split(".", 1)[0], set())
        number = self.counters.get(name, start) + 1
        while number in taken:
            number += 1
        self.counters[name] = number
        taken.add(number)
        return number

    def row(self, table: str, *key: Any) -> Row:
        """A copy of the replica's row of `table` at `key`; it must exist."""
        row = self.sites.get(table, *key)
        if row is None:
            raise KeyError(f"{table} {key}")
        return row

    def emit(self, site: str, at: datetime, ops: Sequence[Op], entities: Sequence[Key] = ()) -> int:
        """Record and apply an ordinary transaction; its entities stay busy until it has landed everywhere.
        Returns the number of records."""
        txn = Txn(site, at, list(ops))
        self.txns.append(txn)
        landed = self.sites.commit(txn)
        for entity in entities:
            self.busy[entity] = landed
        return len(ops)

    def pick(self, candidates: Sequence[T], at: datetime, entity: Callable[[T], Key],
             ok: Callable[[T], bool] = lambda _: True) -> T | None:
        """A random candidate whose entity is idle at `at` and that passes `ok`; None if none is found soon."""
        for _ in range(40 if candidates else 0):
            choice = candidates[self.rng.randrange(len(candidates))]
            if self.busy.get(entity(choice), SNAPSHOT_AT) < at and ok(choice):
                return choice
        return None

    def new_order(self, site: str, customer: Key, placed: datetime, number: int | None = None) -> Row:
        """An order as its site writes it: the branch keys the customer by CUST_KEY, HQ adds ORIGIN.
        ORDER_REF is the customer's purchase-order number."""
        region, cust_no = customer
        start = {"hq": 1_000_000, "branch": 2_000_000, "web": 3_000_000}[site]
        order: Row = {"ORDER_NO": number or self.next_id(f"order.{site}", start),
                      "ORDER_REF": f"PO-{cust_no}-{self.next_id('ref', 1000)}",
                      "ORDER_DATE": placed.replace(hour=0, minute=0, second=0), "STATUS": "ordered",
                      "TOTAL_AMOUNT": money(self.rng.uniform(15, 900)),
                      "CURRENCY": "EUR" if self.rng.random() < 0.85 else "NOK"}
        if site == "branch":
            return {"CUST_KEY": f"{region}-{cust_no}", **order}
        order.update(REGION=region, CUST_NO=cust_no)
        return {**order, "ORIGIN": "HQ"} if site == "hq" else order

    def new_lines(self, order: Row, count: int) -> list[Row]:
        """Lines at the branch's prices; the order's total is set to their sum."""
        lines = []
        for line_no in range(1, count + 1):
            sku = self.rng.choice(self.pools.products)
            lines.append({"ORDER_NO": order["ORDER_NO"], "LINE_NO": line_no, "SKU": sku,
                          "QTY": self.rng.randrange(1, 12), "UNIT_PRICE": self.row("branch.PRODUCT", sku)["UNIT_PRICE"],
                          "DISCOUNT_PCT": money(self.rng.choice((0, 0, 0, 5, 10, 12.5)))})
        order["TOTAL_AMOUNT"] = total(lines)
        return lines
