"""Sample data for the bundled sample model: one business day at three sites (CONTRACT section 4).

`generate(model, out)` writes what `mapwright run --data out` reads:

    out/snapshots/<server>/<table>.csv|.jsonl    the rows at 06:00, the same data at every site
    out/changes/<site>-am.jsonl, <site>-pm.jsonl  the day's change records, split at 13:00
    out/schedule.json                             propagation delays and two outage windows

The day holds three kinds of traffic:

- Ordinary work: orders placed, paid, shipped and billed; price lists, stock counts; customers
  registering, moving and collecting points. An entity is changed by one site at a time, and only
  once its previous change has reached every site, so ordinary work never conflicts. `Sites`, a
  replica of every site kept through the model's own mappings, gives each change its true before
  image (and checks, as a run would, that no delivery meets a conflict).
- Scenarios: short scripted stories on entities set aside for them, each written to meet a
  conflict: two sites moving one customer within the propagation delay, an order number keyed
  twice, a product delisted at the branch and repriced at HQ... Between them every resolution
  method of the model decides at least once, and some changes end in the error queue.
- Malformed lines (1.5%): torn JSON, an unknown table or op, a bad timestamp, a column the
  record's schema version lacks, a missing key column. A run rejects them and goes on.

`web.ORDERS` gains `PAYMENT_REF` with the web shop's release at noon (replication definition
version 2): its records carry `schema_version` 1 before noon and 2 after (seed 002).

Deterministic: one `random.Random(seed)`, whole-second timestamps, files written in a fixed order;
the same model and seed give byte-identical files.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from engine.model.io import load_model
from engine.model.schema import Model
from engine.model.types import SqlType
from engine.run.context import MappingPlan, RunContext, build_context, default_value
from engine.run.methods import SystemValues, map_image, replication_key, where_holds
from engine.run.net_effect import Chain, RowOp, net_effect
from engine.run.schedule import Schedule, delivery_time, parse_schedule
from engine.run.values import conform, same_value
from resources import SAMPLE_MODEL

Row = dict[str, Any]
Key = tuple[Any, ...]
T = TypeVar("T")

DAY = datetime(2026, 1, 5, tzinfo=UTC)  # a Monday
OPEN, NOON, SPLIT = (DAY.replace(hour=h) for h in (8, 12, 13))
SNAPSHOT_AT = DAY.replace(hour=6)
NIGHTLY_SYNC = DAY - timedelta(hours=2)  # when the snapshot's copies were last synchronised
SCHEDULE: dict[str, Any] = {"links": [
    {"from": "hq", "to": "branch", "delay_s": 30},
    {"from": "hq", "to": "web", "delay_s": 5},
    {"from": "branch", "to": "hq", "delay_s": 45,  # the branch's WAN link is down over lunch
     "down": [["2026-01-05T12:30:00Z", "2026-01-05T12:50:00Z"]]},
    {"from": "web", "to": "hq", "delay_s": 5,  # the web database fails over
     "down": [["2026-01-05T15:10:00Z", "2026-01-05T15:14:00Z"]]},
]}
TABLES = ("hq.CUSTOMER", "branch.CUSTOMER", "web.CUSTOMER", "hq.PRODUCT", "branch.PRODUCT", "web.PRODUCT",
          "hq.ORDERS", "branch.ORDERS", "web.ORDERS", "hq.ORDER_LINE", "branch.ORDER_LINE")
JSONL_SNAPSHOTS = ("web.CUSTOMER", "web.PRODUCT", "web.ORDERS")  # the PostgreSQL site exports JSON lines
MALFORMED_SHARE = 0.015
DEFECTS = ("torn", "unknown_table", "unknown_op", "bad_timestamp", "version_column", "missing_key")
HOUR_WEIGHTS = (3, 6, 8, 7, 5, 4, 6, 7, 6, 3)  # activity from 08:00 to 18:00, hour by hour
SCENARIO_ROUNDS_PER = 750  # changes per round of every scenario

FIRST = ("Anna", "Bjorn", "Carla", "David", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Karin", "Lars",
         "Maja", "Nils", "Olga", "Pia", "Rui", "Sofia", "Tomas", "Ulla", "Vera", "Wim", "Yara", "Zoe")
LAST = ("Berg", "Costa", "Dahl", "Eriksen", "Fischer", "Garcia", "Hansen", "Ivanova", "Jensen", "Kowalski",
        "Lund", "Moreau", "Novak", "Olsen", "Petrov", "Quinn", "Rossi", "Silva", "Tanaka", "Vogel", "Weber")
REGIONS = {"NO": (("Tromso", "9008"), ("Bodo", "8006"), ("Alta", "9510")),
           "SO": (("Kristiansand", "4611"), ("Mandal", "4514"), ("Arendal", "4836")),
           "EA": (("Hamar", "2317"), ("Lillehammer", "2609"), ("Elverum", "2406")),
           "WE": (("Bergen", "5003"), ("Stavanger", "4006"), ("Haugesund", "5527"))}
STREETS = ("Harbour Road", "Mill Lane", "Station Street", "Church Street", "Park Avenue", "Kings Road",
           "Market Square", "River Walk", "Oak Street", "Elm Row", "Bridge Street", "Hill View")
GOODS = {"kitchen": ("kettle", "chef's knife", "frying pan", "spice rack"),
         "garden": ("hose reel", "pruning shears", "planter", "rake"),
         "tools": ("cordless drill", "socket set", "spirit level", "hammer"),
         "lighting": ("desk lamp", "LED strip", "pendant light", "torch"),
         "storage": ("shelf unit", "storage box", "coat rack", "shoe cabinet"),
         "textiles": ("bath towel", "duvet cover", "throw blanket", "cushion")}
STYLES = ("Compact", "Classic", "Heavy-duty", "Foldable", "Stainless", "Bamboo", "Nordic", "Pro")
CARRIERS = ("PN", "DHL", "UPS")
NEXT_STATUS = {"ordered": "paid", "paid": "shipped", "shipped": "billed"}


def money(value: float | Decimal) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def later(base: datetime, seconds: float) -> datetime:
    return base + timedelta(seconds=int(seconds))


@dataclass
class Op:
    """One operation of a transaction on one table (`"srv.T"`), images in the table's columns."""

    table: str
    op: str
    before: Row | None = None
    after: Row | None = None


@dataclass
class Txn:
    """A transaction committed at one site; `defect` says how its one record is to be malformed."""

    site: str
    at: datetime
    ops: list[Op]
    defect: str | None = None
    id: str = ""


# --- the replica -------------------------------------------------------------


class Sites:
    """Every site's rows as the generator knows them: the snapshot, then each ordinary change applied
    where it commits and, through the model's mappings, where it is delivered.

    A delivery is applied at once: ordinary work leaves an entity alone until its last delivery has
    landed, so nothing can tell the difference. Each delivery is checked as a run's conflict
    detection will check it; a failed check is a bug in the generator (`RuntimeError`).
    """

    def __init__(self, ctx: RunContext, schedule: Schedule) -> None:
        self.ctx, self.schedule = ctx, schedule
        self.rows: dict[str, dict[Key, Row]] = {key: {} for key in ctx.tables}

    def key(self, table: str, row: Row) -> Key:
        return tuple(row[c] for c in self.ctx.tables[table].identity)

    def get(self, table: str, *key: Any) -> Row | None:
        row = self.rows[table].get(key)
        return dict(row) if row is not None else None

    def put(self, table: str, row: Row) -> None:
        plan = self.ctx.tables[table]
        self.rows[table][self.key(table, row)] = {c: conform(row.get(c), plan.types[c]) for c in plan.columns}

    def copy_through(self, mapping_id: str, row: Row, at: datetime, origin: str) -> Row:
        """A source row as its mapping writes it into the target table (target defaults filled in)."""
        mapping = self.ctx.mappings[mapping_id]
        target = self.ctx.tables[mapping.target]
        mapped = map_image(mapping, target, row, SystemValues(origin, at, "", "I"))
        return {c: mapped[c] if c in mapped else default_value(target, c, at) for c in target.columns}

    def commit(self, txn: Txn) -> datetime:
        """Apply a transaction where it commits and where it is delivered; returns when its last delivery
        lands (the commit time if it goes nowhere)."""
        landed = txn.at
        for op in txn.ops:
            self._apply(op.table, op.op, op.before, op.after, txn.at, check=False)
            for mapping in self.ctx.reading(op.table):
                target = self.ctx.tables[mapping.target]
                at = delivery_time(self.schedule, txn.site, target.server, txn.at)
                chain = Chain((RowOp(op.op, op.before, op.after),))
                for change in net_effect(chain, partial(_where, mapping, txn.at),
                                         partial(replication_key, mapping, target)):
                    system = SystemValues(txn.site, txn.at, txn.id, change.op)
                    old = map_image(mapping, target, change.old, system) if change.old is not None else None
                    new = map_image(mapping, target, change.new, system) if change.new is not None else None
                    self._apply(mapping.target, change.op, old, new, at, check=True)
                    landed = max(landed, at)
        return landed

    def _apply(self, table: str, op: str, old: Row | None, new: Row | None, at: datetime, check: bool) -> None:
        plan, rows = self.ctx.tables[table], self.rows[table]
        key = self.key(table, old if old is not None else new or {})
        current = rows.get(key)
        if check and (op == "I") == (current is not None):
            raise RuntimeError(f"ordinary work would conflict: {op} on {table} {key}, row exists: {bool(current)}")
        if check and old is not None and current is not None:
            differ = [c for c, v in old.items()
                      if c not in plan.compare_old_off and not same_value(v, current.get(c), plan.types.get(c))]
            if differ:
                raise RuntimeError(f"ordinary work would conflict on {table} {key}: {', '.join(differ)}")
        if op == "D":
            rows.pop(key, None)
            return
        assert new is not None
        rows[key] = {c: conform(new[c], plan.types[c]) if c in new else  # a column the version lacks
                     current[c] if current is not None else default_value(plan, c, at) for c in plan.columns}


def _where(mapping: MappingPlan, now: datetime, image: Row | None) -> bool:
    return where_holds(mapping, image, now)


# --- the day -------------------------------------------------------------------


@dataclass
class Pools:
    """What ordinary work draws on. Customers by the site that looks after them (the only one that edits
    them: copies elsewhere may lag, as changes are not passed on); scenarios take theirs out first."""

    customers: dict[str, list[Key]] = field(default_factory=lambda: {"hq": [], "branch": [], "web": []})
    products: list[str] = field(default_factory=list)
    orders: dict[str, list[int]] = field(default_factory=lambda: {"hq": [], "branch": [], "web": []})
    lines: dict[int, list[int]] = field(default_factory=dict)


class Day:
    """One business day of the sample model: the snapshot (`start`) and the transactions (`txns`)."""

    def __init__(self, model: Model, seed: int, rows: int, changes: int) -> None:
        missing = [t for t in TABLES if model.table(t) is None]
        if missing:
            raise ValueError(f"the sample data needs the sample model's tables; missing: {', '.join(missing)}")
        self.model, self.rng = model, random.Random(seed)
        self.scale, self.changes = rows / 10_000, changes
        self.ctx = build_context(model)
        self.sites = Sites(self.ctx, parse_schedule(SCHEDULE))
        self.pools = Pools()
        self.busy: dict[Key, datetime] = {}
        self.txns: list[Txn] = []
        self.counters: dict[str, int] = {}
        self.start: dict[str, list[Row]] = {}
        self.defects = 0

    # --- helpers ---------------------------------------------------------------

    def next_id(self, name: str, start: int) -> int:
        self.counters[name] = self.counters.get(name, start) + 1
        return self.counters[name]

    def row(self, table: str, *key: Any) -> Row:
        row = self.sites.get(table, *key)
        if row is None:
            raise KeyError(f"{table} {key}")
        return row

    @staticmethod
    def update(table: str, before: Row, **changes: Any) -> Op:
        return Op(table, "U", before, {**before, **changes})

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

    # --- people and things -------------------------------------------------------

    def phone(self) -> str:
        return f"+47 {self.rng.randrange(400, 999)} {self.rng.randrange(10, 99)} {self.rng.randrange(100, 999)}"

    def person(self, region: str, number: int, at: datetime) -> Row:
        first, last = self.rng.choice(FIRST), self.rng.choice(LAST)
        domain = self.rng.choice(("com", "net", "org"))
        return {"REGION": region, "CUST_NO": number, "NAME": f"{first} {last}",
                "EMAIL": f"{first}.{last}.{number}@example.{domain}".lower(), "PHONE": self.phone(),
                "CONTACT_VERSION": 1, **self.address(region, at), "LOYALTY_POINTS": 0, "CREDIT_LIMIT": None,
                "STATUS": "active"}

    def address(self, region: str, at: datetime) -> Row:
        city, zip_code = self.rng.choice(REGIONS[region])
        return {"STREET": f"{self.rng.randrange(1, 120)} {self.rng.choice(STREETS)}", "CITY": city,
                "ZIP": zip_code, "UPDATED_AT": at}

    def moved(self, row: Row, at: datetime) -> Row:
        """A new address for a customer row of any site (branch rows carry the region in CUST_KEY)."""
        return self.address(str(row["REGION"] if "REGION" in row else row["CUST_KEY"].split("-")[0]), at)

    def product(self, number: int, at: datetime) -> Row:
        category = self.rng.choice(sorted(GOODS))
        ean12 = f"70{number:010d}"
        check = (10 - sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(ean12)) % 10) % 10
        model_no = f"{category[:2].upper()}-{number:03d}"
        return {"SKU": f"SKU-{number:05d}", "EAN": f"{ean12}{check}",
                "DESCRIPTION": f"{self.rng.choice(STYLES)} {self.rng.choice(GOODS[category])} {model_no}",
                "CATEGORY": category, "UNIT_PRICE": money(self.rng.uniform(4, 400)), "DISCONTINUED": "N",
                "UPDATED_AT": at}

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
        order["TOTAL_AMOUNT"] = self.total(lines)
        return lines

    @staticmethod
    def total(lines: Sequence[Row]) -> Decimal:
        return money(sum((r["QTY"] * r["UNIT_PRICE"] * (100 - r["DISCOUNT_PCT"]) / 100 for r in lines), Decimal(0)))

    def shipping(self, scanned: datetime) -> Row:
        carrier = self.rng.choice(CARRIERS)
        return {"TRACKING_NO": f"{carrier}{self.rng.randrange(10**9, 10**10)}", "SHIPPED_AT": scanned}

    def payment(self, at: datetime) -> str | None:
        """A payment reference: the web shop records them from its release at noon."""
        return f"PAY-{self.rng.getrandbits(48):012x}" if at >= NOON else None

    def reprice(self, row: Row, factor: str, at: datetime) -> Op:
        return self.update("hq.PRODUCT", row, UNIT_PRICE=money(row["UNIT_PRICE"] * Decimal(factor)), UPDATED_AT=at)

    # --- the snapshot ------------------------------------------------------------

    def snapshot(self) -> None:
        """The morning's rows: customers and products from HQ, orders where they were placed, each
        copied to the other sites through the model's mappings."""
        rng, sites = self.rng, self.sites
        for i in range(max(40, round(1000 * self.scale))):
            region = rng.choice(sorted(REGIONS))
            row = self.person(region, 10_001 + i, NIGHTLY_SYNC - timedelta(days=rng.randrange(1, 900)))
            row.update(CONTACT_VERSION=rng.randrange(1, 5), LOYALTY_POINTS=rng.randrange(0, 4000),
                       CREDIT_LIMIT=money(rng.choice((500, 1000, 2500, 5000))) if rng.random() < 0.6 else None,
                       EMAIL=None if rng.random() < 0.06 else row["EMAIL"],
                       STATUS="closed" if rng.random() < 0.04 else "active")
            sites.put("hq.CUSTOMER", row)
            sites.put("branch.CUSTOMER", sites.copy_through("cust_hq_to_branch", row, NIGHTLY_SYNC, "hq"))
            at_web = row["EMAIL"] is not None and row["STATUS"] == "active"
            if at_web:
                sites.put("web.CUSTOMER", sites.copy_through("cust_hq_to_web", row, NIGHTLY_SYNC, "hq"))
            home = rng.choices(("hq", "branch", "web"), (5, 3, 2))[0]
            self.pools.customers["hq" if home == "web" and not at_web else home].append((region, row["CUST_NO"]))
        for i in range(max(20, round(400 * self.scale))):
            row = self.product(i + 1, NIGHTLY_SYNC - timedelta(days=rng.randrange(1, 200)))
            row["DISCONTINUED"] = "Y" if rng.random() < 0.05 else "N"
            sites.put("hq.PRODUCT", row)
            branch = sites.copy_through("product_hq_to_branch", row, NIGHTLY_SYNC, "hq")
            sites.put("branch.PRODUCT", {**branch, "QTY_ON_HAND": rng.randrange(0, 80)})
            if row["DISCONTINUED"] == "N":
                sites.put("web.PRODUCT", sites.copy_through("product_hq_to_web", row, NIGHTLY_SYNC, "hq"))
            self.pools.products.append(row["SKU"])
        customers = sorted(sites.rows["hq.CUSTOMER"])
        for site, count in (("branch", 700), ("web", 600), ("hq", 300)):
            for _ in range(max(10, round(count * self.scale))):
                self.snapshot_order(site, rng.choice(customers))
        self.start = {table: list(rows.values()) for table, rows in sites.rows.items() if rows}

    def snapshot_order(self, site: str, customer: Key) -> None:
        status = self.rng.choices(("ordered", "paid", "shipped", "billed"), (3, 3, 2, 4))[0]
        days = 20 if status in ("ordered", "paid") else 1  # a shipped order left the day before, at least
        placed = NIGHTLY_SYNC - timedelta(minutes=self.rng.randrange(10 * days, 60 * 24 * 20))
        order = {**self.new_order(site, customer, placed), "STATUS": status}
        number = order["ORDER_NO"]
        shipped = self.shipping(later(placed, self.rng.randrange(2 * 3600, 20 * 3600))) if days == 1 else {}
        if site == "branch":
            lines = self.new_lines(order, self.rng.choices((1, 2, 3, 4), (3, 4, 2, 1))[0])
            self.sites.put("branch.ORDERS", order)
            self.sites.put("hq.ORDERS", self.sites.copy_through("orders_branch_to_hq", order, placed, "branch"))
            for line in lines:
                self.sites.put("branch.ORDER_LINE", line)
                self.sites.put("hq.ORDER_LINE", self.sites.copy_through("order_line_branch_to_hq", line, placed,
                                                                        "branch"))
            self.pools.lines[number] = [line["LINE_NO"] for line in lines]
        elif site == "web":
            order.update(shipped)
            self.sites.put("web.ORDERS", order)
            self.sites.put("hq.ORDERS", {**self.sites.copy_through("orders_web_to_hq", order, placed, "web"),
                                         **shipped})
        else:
            self.sites.put("hq.ORDERS", {**order, **shipped})
        self.pools.orders[site].append(number)

    # --- ordinary work -------------------------------------------------------------

    def ordinary_day(self, budget: int, malformed: int) -> None:
        """About `budget` records of ordinary work at times shaped like a shop's day, with `malformed`
        malformed lines among them."""
        activities: list[tuple[Callable[[datetime], int], float]] = [
            (self.branch_order, 9), (self.branch_order_status, 10), (self.branch_line_edit, 3),
            (self.branch_stock_count, 2), (self.branch_customer, 8), (self.web_register, 4),
            (self.web_customer, 8), (self.web_order, 12), (self.web_payment, 10), (self.hq_ship, 10),
            (self.hq_bill, 6), (self.hq_price_list, 2), (self.hq_new_product, 1), (self.hq_discontinue, 1),
            (self.hq_customer, 10), (self.hq_new_customer, 2), (self.hq_phone_order, 3)]
        functions, weights = zip(*activities, strict=True)
        slots = sorted([(self.day_time(), "work") for _ in range(budget)] +
                       [(self.day_time(), "bad") for _ in range(malformed)])
        written = done = 0
        for at, kind in slots:
            if kind == "bad":
                self.malformed(at)
                continue
            done += 1
            if written < done:  # one record per slot keeps pace with the day (an activity writes 0-12)
                written += self.rng.choices(functions, weights)[0](at)

    def day_time(self) -> datetime:
        hour = self.rng.choices(range(len(HOUR_WEIGHTS)), HOUR_WEIGHTS)[0]
        return later(OPEN + timedelta(hours=hour), self.rng.randrange(3600))

    def branch_order(self, at: datetime) -> int:
        """A counter sale: the order and its lines in one transaction."""
        order = self.new_order("branch", self.rng.choice(self.pools.customers["branch"] + self.pools.customers["hq"]),
                               at)
        lines = self.new_lines(order, self.rng.choices((1, 2, 3, 4), (3, 4, 2, 1))[0])
        self.pools.orders["branch"].append(order["ORDER_NO"])
        self.pools.lines[order["ORDER_NO"]] = [line["LINE_NO"] for line in lines]
        return self.emit("branch", at, [Op("branch.ORDERS", "I", after=order),
                                        *(Op("branch.ORDER_LINE", "I", after=line) for line in lines)],
                         [("order", order["ORDER_NO"])])

    def branch_order_status(self, at: datetime) -> int:
        number = self.pick(self.pools.orders["branch"], at, lambda n: ("order", n),
                           lambda n: self.row("branch.ORDERS", n)["STATUS"] in NEXT_STATUS)
        if number is None:
            return 0
        before = self.row("branch.ORDERS", number)
        status = "void" if before["STATUS"] == "ordered" and self.rng.random() < 0.08 else NEXT_STATUS[before["STATUS"]]
        return self.emit("branch", at, [self.update("branch.ORDERS", before, STATUS=status)], [("order", number)])

    def branch_line_edit(self, at: datetime) -> int:
        """A customer changes a quantity: the line and the order's total, in one transaction."""
        number = self.pick(self.pools.orders["branch"], at, lambda n: ("order", n),
                           lambda n: self.row("branch.ORDERS", n)["STATUS"] == "ordered")
        if number is None:
            return 0
        lines = [self.row("branch.ORDER_LINE", number, n) for n in self.pools.lines[number]]
        i = self.rng.randrange(len(lines))
        before = lines[i]
        lines[i] = {**before, "QTY": max(1, before["QTY"] + self.rng.choice((-2, -1, 1, 2, 3)))}
        ops = [Op("branch.ORDER_LINE", "U", before, lines[i]),
               self.update("branch.ORDERS", self.row("branch.ORDERS", number), TOTAL_AMOUNT=self.total(lines))]
        return self.emit("branch", at, ops, [("order", number)])

    def branch_stock_count(self, at: datetime) -> int:
        """A shelf count: a few products' stock in one transaction (branch only, replicated nowhere)."""
        skus = {self.pick(self.pools.products, at, lambda s: ("product", s)) for _ in range(self.rng.randrange(2, 7))}
        ops = [self.update("branch.PRODUCT", self.row("branch.PRODUCT", sku), QTY_ON_HAND=self.rng.randrange(0, 80))
               for sku in sorted(s for s in skus if s is not None)]
        return self.emit("branch", at, ops, [("product", op.after["SKU"]) for op in ops if op.after]) if ops else 0

    def customer_edit(self, table: str, before: Row, at: datetime, kinds: Sequence[str]) -> Op:
        kind = self.rng.choice(kinds)
        if kind == "move":
            return self.update(table, before, **self.moved(before, at))
        if kind == "phone":
            return self.update(table, before, PHONE=self.phone(), CONTACT_VERSION=before["CONTACT_VERSION"] + 1)
        if kind == "points":
            return self.update(table, before, LOYALTY_POINTS=before["LOYALTY_POINTS"] + self.rng.randrange(10, 300))
        if kind == "credit":
            return self.update(table, before, CREDIT_LIMIT=money(self.rng.choice((750, 1500, 3000, 6000))))
        return self.update(table, before, STATUS="closed")

    def branch_customer(self, at: datetime) -> int:
        key = self.pick(self.pools.customers["branch"], at, lambda k: ("customer", *k))
        if key is None:
            return 0
        op = self.customer_edit("branch.CUSTOMER", self.row("branch.CUSTOMER", f"{key[0]}-{key[1]}"), at,
                                ("move", "phone", "points", "points", "credit"))
        return self.emit("branch", at, [op], [("customer", *key)])

    def web_register(self, at: datetime) -> int:
        """A customer signs up at the web shop, often placing a first order in the same transaction."""
        region = self.rng.choice(sorted(REGIONS))
        person = self.person(region, self.next_id("customer.web", 70_000), at)
        key = (region, person["CUST_NO"])
        ops = [Op("web.CUSTOMER", "I", after={c: person[c] for c in self.ctx.tables["web.CUSTOMER"].columns})]
        entities: list[Key] = [("customer", *key)]
        if self.rng.random() < 0.4:
            order = self.new_order("web", key, at)
            ops.append(Op("web.ORDERS", "I", after=order))
            entities.append(("order", order["ORDER_NO"]))
            self.pools.orders["web"].append(order["ORDER_NO"])
        self.pools.customers["web"].append(key)
        return self.emit("web", at, ops, entities)

    def web_customer(self, at: datetime) -> int:
        key = self.pick(self.pools.customers["web"], at, lambda k: ("customer", *k))
        if key is None:
            return 0
        op = self.customer_edit("web.CUSTOMER", self.row("web.CUSTOMER", *key), at, ("move", "phone"))
        return self.emit("web", at, [op], [("customer", *key)])

    def web_order(self, at: datetime) -> int:
        order = self.new_order("web", self.rng.choice(sorted(self.sites.rows["web.CUSTOMER"])), at)
        self.pools.orders["web"].append(order["ORDER_NO"])
        return self.emit("web", at, [Op("web.ORDERS", "I", after=order)], [("order", order["ORDER_NO"])])

    def web_payment(self, at: datetime) -> int:
        number = self.pick(self.pools.orders["web"], at, lambda n: ("order", n),
                           lambda n: self.row("web.ORDERS", n)["STATUS"] == "ordered")
        if number is None:
            return 0
        before = self.row("web.ORDERS", number)
        if self.rng.random() < 0.07:
            op = self.update("web.ORDERS", before, STATUS="void")  # abandoned: it leaves HQ (STATUS <> 'void')
        else:
            op = self.update("web.ORDERS", before, STATUS="paid", PAYMENT_REF=self.payment(at))
        return self.emit("web", at, [op], [("order", number)])

    def hq_order_step(self, at: datetime, status: str, changes: Callable[[], Row]) -> int:
        """HQ moves a web or phone order on from `status` (shipping, billing)."""
        number = self.pick(self.pools.orders["web"] + self.pools.orders["hq"], at, lambda n: ("order", n),
                           lambda n: (self.sites.get("hq.ORDERS", n) or {}).get("STATUS") == status)
        if number is None:
            return 0
        return self.emit("hq", at, [self.update("hq.ORDERS", self.row("hq.ORDERS", number), **changes())],
                         [("order", number)])

    def hq_ship(self, at: datetime) -> int:
        scanned = later(at, -self.rng.randrange(60, 3600))
        return self.hq_order_step(at, "paid", lambda: {"STATUS": "shipped", **self.shipping(scanned)})

    def hq_bill(self, at: datetime) -> int:
        return self.hq_order_step(at, "shipped", lambda: {"STATUS": "billed"})

    def hq_price_list(self, at: datetime) -> int:
        """Pricing publishes a batch of new prices in one transaction."""
        skus = {self.pick(self.pools.products, at, lambda s: ("product", s)) for _ in range(self.rng.randrange(3, 13))}
        ops = [self.reprice(self.row("hq.PRODUCT", sku), self.rng.choice(("0.9", "0.95", "1.04", "1.08")), at)
               for sku in sorted(s for s in skus if s is not None)]
        return self.emit("hq", at, ops, [("product", op.after["SKU"]) for op in ops if op.after]) if ops else 0

    def hq_new_product(self, at: datetime) -> int:
        row = self.product(self.next_id("product", 5_000), at)
        self.pools.products.append(row["SKU"])
        return self.emit("hq", at, [Op("hq.PRODUCT", "I", after=row)], [("product", row["SKU"])])

    def hq_discontinue(self, at: datetime) -> int:
        sku = self.pick(self.pools.products, at, lambda s: ("product", s),
                        lambda s: self.row("hq.PRODUCT", s)["DISCONTINUED"] == "N")
        if sku is None:
            return 0
        op = self.update("hq.PRODUCT", self.row("hq.PRODUCT", sku), DISCONTINUED="Y", UPDATED_AT=at)
        return self.emit("hq", at, [op], [("product", sku)])

    def hq_customer(self, at: datetime) -> int:
        key = self.pick(self.pools.customers["hq"], at, lambda k: ("customer", *k))
        if key is None:
            return 0
        op = self.customer_edit("hq.CUSTOMER", self.row("hq.CUSTOMER", *key), at,
                                ("move", "phone", "points", "credit", "move", "points", "close"))
        return self.emit("hq", at, [op], [("customer", *key)])

    def hq_new_customer(self, at: datetime) -> int:
        region = self.rng.choice(sorted(REGIONS))
        row = self.person(region, self.next_id("customer.hq", 50_000), at)
        self.pools.customers["hq"].append((region, row["CUST_NO"]))
        return self.emit("hq", at, [Op("hq.CUSTOMER", "I", after=row)], [("customer", region, row["CUST_NO"])])

    def hq_phone_order(self, at: datetime) -> int:
        """A phone order keyed at HQ: ORIGIN 'HQ', so it goes nowhere (filtered)."""
        order = self.new_order("hq", self.rng.choice(self.pools.customers["hq"]), at)
        self.pools.orders["hq"].append(order["ORDER_NO"])
        return self.emit("hq", at, [Op("hq.ORDERS", "I", after=order)], [("order", order["ORDER_NO"])])

    def malformed(self, at: datetime) -> None:
        """A line a run must reject (an order being paid, but broken); its change is never applied."""
        n, self.defects = self.defects, self.defects + 1
        defect = DEFECTS[n % len(DEFECTS)]
        if defect == "unknown_op":
            defect += "=" + ("X", "UPSERT", "u")[n // len(DEFECTS) % 3]
        if defect == "version_column":  # a web node not yet restarted after the release writes the new column
            at = min(at, later(NOON, -1 - n))
        site = "web" if defect in ("version_column", "missing_key") or self.rng.random() < 0.5 else "branch"
        table, orders = f"{site}.ORDERS", self.pools.orders[site]
        number = self.rng.choice([n for n in orders if self.row(table, n)["STATUS"] == "ordered"] or orders)
        paid: Row = {"STATUS": "paid", "PAYMENT_REF": f"PAY-{self.rng.getrandbits(48):012x}"} if site == "web" \
            else {"STATUS": "paid"}
        self.txns.append(Txn(site, at, [self.update(table, self.row(table, number), **paid)], defect=defect))

    # --- scenarios -----------------------------------------------------------------

    def scenarios(self) -> None:
        """Every scenario once a round (a round per 750 changes), at times spread over the day; the first
        address race falls in the branch's lunchtime outage."""
        stories: list[Callable[[datetime, int], None]] = [
            self.address_race, self.address_same_second, self.contact_versions, self.points_both_sides,
            self.credit_both_sides, self.paid_while_shipped, self.paid_twice, self.dispatch_scans,
            self.line_amended_twice, self.branch_markdown, self.web_title_kept, self.duplicate_title,
            self.purchase_order_reused, self.shared_email, self.card_registered_twice, self.order_number_clash,
            self.delisted_then_repriced, self.cancelled_while_shipped, self.purged_twice, self.erased_twice,
            self.erased_while_earning, self.blocked_while_closed]
        for n in range(max(1, round(self.changes / SCENARIO_ROUNDS_PER))):
            for story in stories:
                t0 = later(OPEN + timedelta(minutes=15), self.rng.randrange(9 * 3600))
                if n == 0 and story == self.address_race:
                    t0 = later(DAY.replace(hour=12, minute=36), self.rng.randrange(300))
                story(t0, n)

    def scenario(self, site: str, at: datetime, *ops: Op) -> None:
        """A scripted transaction: recorded, not applied (its entities are never touched again)."""
        self.txns.append(Txn(site, at, list(ops)))

    def reserve(self, pool: list[T], ok: Callable[[T], bool]) -> T:
        candidates = [i for i, item in enumerate(pool) if ok(item)]
        if not candidates:
            raise ValueError("too few rows for the scenarios: raise `rows`")
        return pool.pop(self.rng.choice(candidates))

    def reserve_customer(self) -> tuple[Key, Row, Row, Row]:
        """An HQ-looked-after customer that every site holds: its key and its hq, branch and web rows."""
        key = self.reserve(self.pools.customers["hq"], lambda k: self.sites.get("web.CUSTOMER", *k) is not None)
        return (key, self.row("hq.CUSTOMER", *key), self.row("branch.CUSTOMER", f"{key[0]}-{key[1]}"),
                self.row("web.CUSTOMER", *key))

    def reserve_order(self, site: str, *statuses: str) -> int:
        return self.reserve(self.pools.orders[site], lambda n: self.row(f"{site}.ORDERS", n)["STATUS"] in statuses)

    def reserve_product(self) -> str:
        return self.reserve(self.pools.products, lambda s: self.row("hq.PRODUCT", s)["DISCONTINUED"] == "N")

    def address_race(self, t0: datetime, n: int) -> None:
        """HQ and the branch move one customer within the delay: the later UPDATED_AT wins (latest_timestamp)."""
        _, hq, branch, _ = self.reserve_customer()
        t1 = later(t0, self.rng.randrange(5, 25))
        self.scenario("hq", t0, self.update("hq.CUSTOMER", hq, **self.moved(hq, t0)))
        self.scenario("branch", t1, self.update("branch.CUSTOMER", branch, **self.moved(branch, t1)))

    def address_same_second(self, t0: datetime, n: int) -> None:
        """Both moves in the same second: latest_timestamp ties, site_priority decides."""
        _, hq, branch, _ = self.reserve_customer()
        self.scenario("hq", t0, self.update("hq.CUSTOMER", hq, **self.moved(hq, t0)))
        self.scenario("branch", t0, self.update("branch.CUSTOMER", branch, **self.moved(branch, t0)))

    def contact_versions(self, t0: datetime, n: int) -> None:
        """HQ edits contact details twice while the web edits them once: maximum(CONTACT_VERSION) keeps
        HQ's at HQ; at the web HQ's first edit ties and site_priority decides."""
        key, hq, _, web = self.reserve_customer()
        version = hq["CONTACT_VERSION"]
        first = self.update("hq.CUSTOMER", hq, PHONE=self.phone(), CONTACT_VERSION=version + 1)
        assert first.after is not None
        self.scenario("hq", t0, first)
        self.scenario("web", later(t0, 1), self.update("web.CUSTOMER", web, PHONE=self.phone(),
                                                       CONTACT_VERSION=version + 1))
        self.scenario("hq", later(t0, 2), self.update("hq.CUSTOMER", first.after, CONTACT_VERSION=version + 2,
                                                      EMAIL=f"{key[0]}.{key[1]}@mail.example.com".lower()))

    def points_both_sides(self, t0: datetime, n: int) -> None:
        """Points earned at HQ and at the branch at once: additive keeps both."""
        _, hq, branch, _ = self.reserve_customer()
        self.scenario("hq", t0, self.update("hq.CUSTOMER", hq, LOYALTY_POINTS=hq["LOYALTY_POINTS"] + 150))
        self.scenario("branch", later(t0, self.rng.randrange(3, 25)),
                      self.update("branch.CUSTOMER", branch, LOYALTY_POINTS=branch["LOYALTY_POINTS"] + 80))

    def credit_both_sides(self, t0: datetime, n: int) -> None:
        """Two credit officers revise one limit: average splits the difference."""
        _, hq, branch, _ = self.reserve_customer()
        self.scenario("hq", t0, self.update("hq.CUSTOMER", hq, CREDIT_LIMIT=money(6000)))
        self.scenario("branch", later(t0, self.rng.randrange(3, 25)),
                      self.update("branch.CUSTOMER", branch, CREDIT_LIMIT=money(4500)))

    def paid_while_shipped(self, t0: datetime, n: int) -> None:
        """The web records a payment while HQ ships cash on delivery: priority_group, shipped > paid."""
        number = self.reserve_order("web", "ordered")
        web, hq = self.row("web.ORDERS", number), self.row("hq.ORDERS", number)
        self.scenario("web", t0, self.update("web.ORDERS", web, STATUS="paid", PAYMENT_REF=self.payment(t0)))
        self.scenario("hq", later(t0, 2), self.update("hq.ORDERS", hq, STATUS="shipped",
                                                      **self.shipping(later(t0, -900))))

    def paid_twice(self, t0: datetime, n: int) -> None:
        """A card payment at the web and a bank transfer booked at HQ: priority_group ties, site_priority
        decides."""
        number = self.reserve_order("web", "ordered")
        web, hq = self.row("web.ORDERS", number), self.row("hq.ORDERS", number)
        self.scenario("web", t0, self.update("web.ORDERS", web, STATUS="paid", PAYMENT_REF=self.payment(t0)))
        self.scenario("hq", later(t0, 1), self.update("hq.ORDERS", hq, STATUS="paid"))

    def dispatch_scans(self, t0: datetime, n: int) -> None:
        """The warehouse (HQ) and the carrier's webhook (web) both record a dispatch: the earlier scan wins
        (earliest_timestamp), HQ's in even rounds, the carrier's in odd ones."""
        number = self.reserve_order("web", "paid")
        web, hq = self.row("web.ORDERS", number), self.row("hq.ORDERS", number)
        hq_scan, web_scan = later(t0, -600), later(t0, -300)
        if n % 2:
            hq_scan, web_scan = web_scan, hq_scan
        self.scenario("hq", t0, self.update("hq.ORDERS", hq, STATUS="shipped", **self.shipping(hq_scan)))
        self.scenario("web", later(t0, 2), self.update("web.ORDERS", web, **self.shipping(web_scan)))

    def line_amended_twice(self, t0: datetime, n: int) -> None:
        """HQ's sales desk and the branch both amend a line's quantity: minimum(QTY) ships the smaller;
        equal quantities tie and site_priority keeps HQ's."""
        number = self.reserve_order("branch", "ordered", "paid")
        line_no = self.pools.lines[number][0]
        hq, branch = self.row("hq.ORDER_LINE", number, line_no), self.row("branch.ORDER_LINE", number, line_no)
        hq_qty = branch["QTY"] + 2
        branch_qty = (hq_qty + 1, hq_qty - 1, hq_qty)[n % 3]
        line_total = money(hq_qty * hq["UNIT_PRICE"] * (100 - hq["DISCOUNT_PCT"]) / 100)
        self.scenario("hq", t0, self.update("hq.ORDER_LINE", hq, QTY=hq_qty, LINE_TOTAL=line_total))
        discount = money(5) if branch_qty == hq_qty else branch["DISCOUNT_PCT"]
        self.scenario("branch", later(t0, self.rng.randrange(60, 600)),
                      self.update("branch.ORDER_LINE", branch, QTY=branch_qty, DISCOUNT_PCT=discount))

    def branch_markdown(self, t0: datetime, n: int) -> None:
        """The branch marks a product down; HQ's next price list overwrites it."""
        sku = self.reserve_product()
        branch = self.row("branch.PRODUCT", sku)
        markdown = money(branch["UNIT_PRICE"] * Decimal("0.8"))
        self.scenario("branch", t0, self.update("branch.PRODUCT", branch, UNIT_PRICE=markdown))
        at = later(t0, self.rng.randrange(600, 3600))
        self.scenario("hq", at, self.reprice(self.row("hq.PRODUCT", sku), "1.05", at))

    def web_title_kept(self, t0: datetime, n: int) -> None:
        """The web team rewrites a product title; HQ's new description is discarded there."""
        sku = self.reserve_product()
        web, hq = self.row("web.PRODUCT", sku), self.row("hq.PRODUCT", sku)
        self.scenario("web", t0, self.update("web.PRODUCT", web, TITLE=f"{web['TITLE']} - free delivery"))
        at = later(t0, self.rng.randrange(600, 3600))
        self.scenario("hq", at, self.update("hq.PRODUCT", hq, DESCRIPTION=f"{hq['DESCRIPTION']} (2026)", UPDATED_AT=at))

    def duplicate_title(self, t0: datetime, n: int) -> None:
        """New colour variants keep an existing product's description: the web's unique titles get `.1`,
        `.2` appended (append_sequence)."""
        original = self.row("hq.PRODUCT", self.reserve_product())
        self.scenario("hq", t0, *(Op("hq.PRODUCT", "I", after={
            **self.product(self.next_id("product", 5_000), t0), "DESCRIPTION": original["DESCRIPTION"],
            "CATEGORY": original["CATEGORY"]}) for _ in range(1 + n % 2)))

    def purchase_order_reused(self, t0: datetime, n: int) -> None:
        """A customer quotes one purchase-order number at the branch and at the web shop: HQ's unique
        ORDER_REF takes the origin's name (append_site_name)."""
        statuses = ("ordered", "paid", "shipped", "billed")
        if n % 2 == 0:
            existing = self.row("branch.ORDERS", self.reserve_order("branch", *statuses))
            region, cust_no = str(existing["CUST_KEY"]).split("-")
            order = {**self.new_order("web", (region, int(cust_no)), t0), "ORDER_REF": existing["ORDER_REF"]}
            self.scenario("web", t0, Op("web.ORDERS", "I", after=order))
            return
        existing = self.row("web.ORDERS", self.reserve_order("web", *statuses))
        order = {**self.new_order("branch", (existing["REGION"], existing["CUST_NO"]), t0),
                 "ORDER_REF": existing["ORDER_REF"]}
        lines = self.new_lines(order, 2)
        self.scenario("branch", t0, Op("branch.ORDERS", "I", after=order),
                      *(Op("branch.ORDER_LINE", "I", after=line) for line in lines))

    def shared_email(self, t0: datetime, n: int) -> None:
        """HQ gives a customer the e-mail address another web customer already has: the web discards it."""
        _, hq, _, _ = self.reserve_customer()
        _, _, _, other = self.reserve_customer()
        self.scenario("hq", t0, self.update("hq.CUSTOMER", hq, EMAIL=other["EMAIL"],
                                            CONTACT_VERSION=hq["CONTACT_VERSION"] + 1))

    def card_registered_twice(self, t0: datetime, n: int) -> None:
        """One loyalty card registered at the branch counter and by HQ's call centre: each insert meets the
        other's row (on_insert_exists: as_update), resolved group by group."""
        region = self.rng.choice(sorted(REGIONS))
        person = self.person(region, self.next_id("customer.card", 80_000), t0)
        t1 = later(t0, 20)
        self.scenario("branch", t0, Op("branch.CUSTOMER", "I",
                                       after=self.sites.copy_through("cust_hq_to_branch", person, t0, "branch")))
        typed_by_phone = {**person, **self.moved(person, t1), "PHONE": self.phone()}
        self.scenario("hq", t1, Op("hq.CUSTOMER", "I", after=typed_by_phone))

    def order_number_clash(self, t0: datetime, n: int) -> None:
        """HQ keys a phone order under a number from the branch's block; the branch's order and its lines then
        meet it at HQ: insert exists, an error, and hq.ORDERS' transaction scope queues the lines too."""
        number = self.next_id("order.clash", 2_090_000)
        self.scenario("hq", t0, Op("hq.ORDERS", "I", after=self.new_order(
            "hq", self.rng.choice(self.pools.customers["hq"]), t0, number)))
        order = self.new_order("branch", self.rng.choice(self.pools.customers["branch"]), t0, number)
        lines = self.new_lines(order, 2)
        self.scenario("branch", later(t0, self.rng.randrange(30, 300)), Op("branch.ORDERS", "I", after=order),
                      *(Op("branch.ORDER_LINE", "I", after=line) for line in lines))

    def delisted_then_repriced(self, t0: datetime, n: int) -> None:
        """The branch delists a product; HQ reprices it: the update finds no row (on_update_missing: insert)."""
        sku = self.reserve_product()
        self.scenario("branch", t0, Op("branch.PRODUCT", "D", before=self.row("branch.PRODUCT", sku)))
        at = later(t0, self.rng.randrange(300, 3000))
        self.scenario("hq", at, self.reprice(self.row("hq.PRODUCT", sku), "0.9", at))

    def cancelled_while_shipped(self, t0: datetime, n: int) -> None:
        """The customer cancels at the web as HQ ships: HQ cannot delete a row that changed (a delete
        conflict, queued), the web has no row to update (discarded)."""
        number = self.reserve_order("web", "paid")
        self.scenario("web", t0, Op("web.ORDERS", "D", before=self.row("web.ORDERS", number)))
        self.scenario("hq", later(t0, 2), self.update("hq.ORDERS", self.row("hq.ORDERS", number), STATUS="shipped",
                                                      **self.shipping(t0)))

    def purged_twice(self, t0: datetime, n: int) -> None:
        """A billed order archived at HQ and at the web: each delete finds the row gone (discard)."""
        number = self.reserve_order("web", "billed")
        self.scenario("hq", t0, Op("hq.ORDERS", "D", before=self.row("hq.ORDERS", number)))
        self.scenario("web", later(t0, 1), Op("web.ORDERS", "D", before=self.row("web.ORDERS", number)))

    def erased_twice(self, t0: datetime, n: int) -> None:
        """A customer erased at HQ and at the branch: each delete finds the row gone, an error (queued)."""
        _, hq, branch, _ = self.reserve_customer()
        self.scenario("hq", t0, Op("hq.CUSTOMER", "D", before=hq))
        self.scenario("branch", later(t0, 10), Op("branch.CUSTOMER", "D", before=branch))

    def erased_while_earning(self, t0: datetime, n: int) -> None:
        """HQ erases a customer while the branch adds points: the update finds no row at HQ, the delete a
        changed row at the branch; both queued."""
        _, hq, branch, _ = self.reserve_customer()
        self.scenario("hq", t0, Op("hq.CUSTOMER", "D", before=hq))
        self.scenario("branch", later(t0, 10),
                      self.update("branch.CUSTOMER", branch, LOYALTY_POINTS=branch["LOYALTY_POINTS"] + 40))

    def blocked_while_closed(self, t0: datetime, n: int) -> None:
        """The branch blocks a customer locally; HQ closes the account: STATUS is in no column group at the
        branch, so the difference is unresolved (queued)."""
        _, hq, branch, _ = self.reserve_customer()
        self.scenario("branch", t0, self.update("branch.CUSTOMER", branch, STATUS="blocked"))
        self.scenario("hq", later(t0, self.rng.randrange(300, 3600)), self.update("hq.CUSTOMER", hq, STATUS="closed"))


# --- files -------------------------------------------------------------------------


def render(value: Any, t: SqlType | None) -> Any:
    """A value as JSON: timestamps ISO 8601 with `Z` (DATE columns as the date), decimals as numbers."""
    if isinstance(value, datetime):
        if t is not None and t.name == "DATE":
            return value.date().isoformat()
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, Decimal):
        return float(value)
    return value


def render_cell(value: Any, t: SqlType | None) -> str:
    """A value as a CSV cell (the empty cell is NULL)."""
    if value is None:
        return ""
    return format(value, "f") if isinstance(value, Decimal) else str(render(value, t))


class Writer:
    """Lays a `Day` out as the files a run reads."""

    def __init__(self, day: Day) -> None:
        self.day, self.model, self.ctx = day, day.model, day.ctx

    def write(self, out: Path) -> None:
        for stale in [*out.glob("changes/*.jsonl"), *out.glob("snapshots/*/*")]:
            if stale.is_file() and stale.suffix in (".csv", ".jsonl", ".parquet"):
                stale.unlink()  # a run would read it with the new files
        for table, rows in self.day.start.items():
            server, name = table.split(".", 1)
            suffix = ".jsonl" if table in JSONL_SNAPSHOTS else ".csv"
            self.put(out / "snapshots" / server / f"{name}{suffix}", self.snapshot_text(table, rows, suffix))
        files: dict[str, list[str]] = {}
        for txn in self.numbered():
            files.setdefault(f"{txn.site}-{'am' if txn.at < SPLIT else 'pm'}.jsonl", []).extend(self.lines(txn))
        for name, lines in sorted(files.items()):
            self.put(out / "changes" / name, "".join(f"{line}\n" for line in lines))
        self.put(out / "schedule.json", json.dumps(SCHEDULE, indent=1) + "\n")

    @staticmethod
    def put(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")

    def snapshot_text(self, table: str, rows: list[Row], suffix: str) -> str:
        plan = self.ctx.tables[table]
        ordered = sorted(rows, key=lambda r: tuple(r[c] for c in plan.identity))
        if suffix == ".jsonl":
            return "".join(json.dumps({c: render(r[c], plan.types[c]) for c in plan.columns}, ensure_ascii=False)
                           + "\n" for r in ordered)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(plan.columns)
        writer.writerows([render_cell(r[c], plan.types[c]) for c in plan.columns] for r in ordered)
        return buffer.getvalue()

    def numbered(self) -> list[Txn]:
        """Transactions in commit order, numbered per site in that order."""
        txns = sorted(enumerate(self.day.txns), key=lambda item: (item[1].at, item[1].site, item[0]))
        counts: dict[str, int] = {}
        for _, txn in txns:
            counts[txn.site] = counts.get(txn.site, 0) + 1
            txn.id = f"{txn.site}-{counts[txn.site]:05d}"
        return [txn for _, txn in txns]

    def version(self, table: str, at: datetime) -> tuple[int | None, set[str]]:
        """The schema version a record of `table` carries at `at` (None: the table has no history) and the
        columns of that version: before noon the one before the latest."""
        plan = self.ctx.tables[table]
        source = self.model.table(table)
        definitions = sorted(source.replication_definitions or () if source else (), key=lambda d: d.version)
        if not definitions:
            return None, set(plan.columns)
        chosen = definitions[-2] if len(definitions) > 1 and at < NOON else definitions[-1]
        return chosen.version, {c.name for c in chosen.columns}

    def lines(self, txn: Txn) -> list[str]:
        out = []
        for seq, op in enumerate(txn.ops, start=1):
            plan = self.ctx.tables[op.table]
            version, columns = self.version(op.table, txn.at)
            record: dict[str, Any] = {"site": txn.site, "txn": txn.id, "seq": seq, "commit_ts": render(txn.at, None),
                                      "table": op.table.split(".", 1)[1], "op": op.op}
            for side, image in (("before", op.before), ("after", op.after)):
                if image is not None:
                    wide = side == "after" and txn.defect == "version_column"  # the new column, old version number
                    record[side] = {c: render(image.get(c), plan.types[c]) for c in plan.columns
                                    if wide or c in columns}
            if version is not None:
                record["schema_version"] = version
            out.append(self.defective(record, txn.defect))
        return out

    @staticmethod
    def defective(record: dict[str, Any], defect: str | None) -> str:
        """The record's line, malformed as `defect` says."""
        if defect == "unknown_table":
            record["table"] = {"web": "ORDER", "branch": "ORDERS_OLD"}.get(record["site"], "INVOICE")
        elif defect and defect.startswith("unknown_op="):
            record["op"] = defect.split("=", 1)[1]
        elif defect == "bad_timestamp":
            record["commit_ts"] = f"{datetime.fromisoformat(record['commit_ts']):%d.%m.%Y %H:%M:%S}"
        elif defect == "missing_key":
            image = record["after"] if "after" in record else record["before"]
            image.pop(next(iter(image)))
        text = json.dumps(record, ensure_ascii=False)
        return text[: len(text) * 2 // 3] if defect == "torn" else text


def generate(model: Model, out: Path, seed: int = 7, rows: int = 10_000, changes: int = 3_000) -> None:
    """Write the sample data set of `model` (the bundled sample) into `out`: about `rows` snapshot rows
    and `changes` change records. Files a run would read that this data set does not have are removed."""
    day = Day(model, seed, rows, changes)
    day.snapshot()
    day.scenarios()
    scripted = sum(len(txn.ops) for txn in day.txns)
    malformed = round(changes * MALFORMED_SHARE)
    day.ordinary_day(max(0, changes - scripted - malformed), malformed)
    Writer(day).write(Path(out))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.sampledata",
                                     description="Write a business day of sample data for the sample model.")
    parser.add_argument("model", nargs="?", default=str(SAMPLE_MODEL), help="model file (default: the bundled sample)")
    parser.add_argument("--out", required=True, type=Path, help="the data folder to write (a run's --data)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rows", type=int, default=10_000, help="snapshot rows, about")
    parser.add_argument("--changes", type=int, default=3_000, help="change records, about")
    args = parser.parse_args(argv)
    generate(load_model(args.model), args.out, seed=args.seed, rows=args.rows, changes=args.changes)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
