"""The ordinary business day: orders placed, paid, shipped and billed; price lists and stock counts;
customers registering, moving and collecting points.

An entity is changed by one site at a time, and only once its previous change has reached every site
(`Shop.pick`, `Shop.emit`), so ordinary work never conflicts. And it converges: a site does not pass on
what it receives (docs/contract.md §4), and customers replicate HQ<->branch and HQ<->web only, so HQ makes
every change to what all three hold (sign-ups, moves, phone numbers, closing) and the branch changes only
what the web does not hold (points, credit limits); the web shop deletes an abandoned order (a void
order would leave HQ and stay at the web). What diverges after a run comes from the scenarios.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from engine.sampledata.catalogue import REGIONS, money, moved, payment, person, phone, product, reprice, shipping, total
from engine.sampledata.malformed import record_malformed
from engine.sampledata.shop import Shop
from engine.sampledata.timetable import HOUR_WEIGHTS, OPEN, later
from engine.sampledata.transactions import Op, Row, update

NEXT_STATUS = {"ordered": "paid", "paid": "shipped", "shipped": "billed"}


def ordinary_day(shop: Shop, budget: int, malformed: int) -> None:
    """About `budget` records of ordinary work at times shaped like a shop's day, with `malformed`
    malformed lines among them."""
    activities: list[tuple[Callable[[Shop, datetime], int], float]] = [
        (branch_order, 9), (branch_order_status, 10), (branch_line_edit, 3),
        (branch_stock_count, 2), (branch_customer, 8), (web_order, 14),
        (web_payment, 10), (hq_ship, 10), (hq_bill, 6), (hq_price_list, 2), (hq_new_product, 1),
        (hq_discontinue, 1), (hq_customer, 18), (hq_new_customer, 6), (hq_phone_order, 3)]
    functions, weights = zip(*activities, strict=True)
    slots = sorted([(day_time(shop), "work") for _ in range(budget)] +
                   [(day_time(shop), "bad") for _ in range(malformed)])
    written = done = 0
    for at, kind in slots:
        if kind == "bad":
            record_malformed(shop, at)
            continue
        done += 1
        if written < done:  # one record per slot keeps pace with the day (an activity writes 0-12)
            written += shop.rng.choices(functions, weights)[0](shop, at)


def day_time(shop: Shop) -> datetime:
    hour = shop.rng.choices(range(len(HOUR_WEIGHTS)), HOUR_WEIGHTS)[0]
    return later(OPEN + timedelta(hours=hour), shop.rng.randrange(3600))


# --- the branch -------------------------------------------------------------------


def branch_order(shop: Shop, at: datetime) -> int:
    """A counter sale: the order and its lines in one transaction."""
    order = shop.new_order("branch", shop.rng.choice(shop.pools.customers["branch"] + shop.pools.customers["hq"]), at)
    lines = shop.new_lines(order, shop.rng.choices((1, 2, 3, 4), (3, 4, 2, 1))[0])
    shop.pools.orders["branch"].append(order["ORDER_NO"])
    shop.pools.lines[order["ORDER_NO"]] = [line["LINE_NO"] for line in lines]
    return shop.emit("branch", at, [Op("branch.ORDERS", "I", after=order),
                                    *(Op("branch.ORDER_LINE", "I", after=line) for line in lines)],
                     [("order", order["ORDER_NO"])])


def branch_order_status(shop: Shop, at: datetime) -> int:
    number = shop.pick(shop.pools.orders["branch"], at, lambda n: ("order", n),
                       lambda n: shop.row("branch.ORDERS", n)["STATUS"] in NEXT_STATUS)
    if number is None:
        return 0
    before = shop.row("branch.ORDERS", number)
    status = "void" if before["STATUS"] == "ordered" and shop.rng.random() < 0.08 else NEXT_STATUS[before["STATUS"]]
    return shop.emit("branch", at, [update("branch.ORDERS", before, STATUS=status)], [("order", number)])


def branch_line_edit(shop: Shop, at: datetime) -> int:
    """A customer changes a quantity: the line and the order's total, in one transaction."""
    number = shop.pick(shop.pools.orders["branch"], at, lambda n: ("order", n),
                       lambda n: shop.row("branch.ORDERS", n)["STATUS"] == "ordered")
    if number is None:
        return 0
    lines = [shop.row("branch.ORDER_LINE", number, n) for n in shop.pools.lines[number]]
    i = shop.rng.randrange(len(lines))
    before = lines[i]
    lines[i] = {**before, "QTY": max(1, before["QTY"] + shop.rng.choice((-2, -1, 1, 2, 3)))}
    ops = [Op("branch.ORDER_LINE", "U", before, lines[i]),
           update("branch.ORDERS", shop.row("branch.ORDERS", number), TOTAL_AMOUNT=total(lines))]
    return shop.emit("branch", at, ops, [("order", number)])


def branch_stock_count(shop: Shop, at: datetime) -> int:
    """A shelf count: a few products' stock in one transaction (branch only, replicated nowhere)."""
    skus = {shop.pick(shop.pools.products, at, lambda s: ("product", s)) for _ in range(shop.rng.randrange(2, 7))}
    ops = [update("branch.PRODUCT", shop.row("branch.PRODUCT", sku), QTY_ON_HAND=shop.rng.randrange(0, 80))
           for sku in sorted(s for s in skus if s is not None)]
    return shop.emit("branch", at, ops, [("product", op.after["SKU"]) for op in ops if op.after]) if ops else 0


def customer_edit(shop: Shop, table: str, before: Row, at: datetime, kinds: Sequence[str]) -> Op:
    """One of `kinds` of change to a customer: a move, a new phone number, points, a credit limit, closing."""
    kind = shop.rng.choice(kinds)
    if kind == "move":
        return update(table, before, **moved(shop.rng, before, at))
    if kind == "phone":
        return update(table, before, PHONE=phone(shop.rng), CONTACT_VERSION=before["CONTACT_VERSION"] + 1)
    if kind == "points":
        return update(table, before, LOYALTY_POINTS=before["LOYALTY_POINTS"] + shop.rng.randrange(10, 300))
    if kind == "credit":
        return update(table, before, CREDIT_LIMIT=money(shop.rng.choice((750, 1500, 3000, 6000))))
    return update(table, before, STATUS="closed")


def branch_customer(shop: Shop, at: datetime) -> int:
    """Points earned at the counter or a new credit limit: columns the web does not hold, so HQ, which
    receives the change, need not pass it on (it could not: a site does not pass on what it receives)."""
    key = shop.pick(shop.pools.customers["branch"], at, lambda k: ("customer", *k))
    if key is None:
        return 0
    op = customer_edit(shop, "branch.CUSTOMER", shop.row("branch.CUSTOMER", f"{key[0]}-{key[1]}"), at,
                       ("points", "points", "points", "credit"))
    return shop.emit("branch", at, [op], [("customer", *key)])


# --- the web shop -----------------------------------------------------------------


def web_order(shop: Shop, at: datetime) -> int:
    """An order placed at the web shop by one of its customers (signing up is done at HQ: `hq_new_customer`)."""
    order = shop.new_order("web", shop.rng.choice(sorted(shop.sites.rows["web.CUSTOMER"])), at)
    shop.pools.orders["web"].append(order["ORDER_NO"])
    return shop.emit("web", at, [Op("web.ORDERS", "I", after=order)], [("order", order["ORDER_NO"])])


def web_payment(shop: Shop, at: datetime) -> int:
    """A web order paid, or, abandoned, deleted: HQ's copy goes with it. (Voided, it would leave HQ, by the
    mapping's `STATUS <> 'void'`, and stay at the web, a divergence of `orders_hq_to_web`.)"""
    number = shop.pick(shop.pools.orders["web"], at, lambda n: ("order", n),
                       lambda n: shop.row("web.ORDERS", n)["STATUS"] == "ordered")
    if number is None:
        return 0
    before = shop.row("web.ORDERS", number)
    if shop.rng.random() < 0.07:
        op = Op("web.ORDERS", "D", before=before)
        shop.pools.orders["web"].remove(number)
    else:
        op = update("web.ORDERS", before, STATUS="paid", PAYMENT_REF=payment(shop.rng, at))
    return shop.emit("web", at, [op], [("order", number)])


# --- HQ -----------------------------------------------------------------------------


def hq_order_step(shop: Shop, at: datetime, status: str, changes: Callable[[], Row]) -> int:
    """HQ moves a web or phone order on from `status` (shipping, billing)."""
    number = shop.pick(shop.pools.orders["web"] + shop.pools.orders["hq"], at, lambda n: ("order", n),
                       lambda n: (shop.sites.get("hq.ORDERS", n) or {}).get("STATUS") == status)
    if number is None:
        return 0
    return shop.emit("hq", at, [update("hq.ORDERS", shop.row("hq.ORDERS", number), **changes())],
                     [("order", number)])


def hq_ship(shop: Shop, at: datetime) -> int:
    scanned = later(at, -shop.rng.randrange(60, 3600))
    return hq_order_step(shop, at, "paid", lambda: {"STATUS": "shipped", **shipping(shop.rng, scanned)})


def hq_bill(shop: Shop, at: datetime) -> int:
    return hq_order_step(shop, at, "shipped", lambda: {"STATUS": "billed"})


def hq_price_list(shop: Shop, at: datetime) -> int:
    """Pricing publishes a batch of new prices in one transaction."""
    skus = {shop.pick(shop.pools.products, at, lambda s: ("product", s)) for _ in range(shop.rng.randrange(3, 13))}
    ops = [reprice(shop.row("hq.PRODUCT", sku), shop.rng.choice(("0.9", "0.95", "1.04", "1.08")), at)
           for sku in sorted(s for s in skus if s is not None)]
    return shop.emit("hq", at, ops, [("product", op.after["SKU"]) for op in ops if op.after]) if ops else 0


def hq_new_product(shop: Shop, at: datetime) -> int:
    row = product(shop.rng, shop.next_id("product", 5_000), at)
    shop.pools.products.append(row["SKU"])
    return shop.emit("hq", at, [Op("hq.PRODUCT", "I", after=row)], [("product", row["SKU"])])


def hq_discontinue(shop: Shop, at: datetime) -> int:
    sku = shop.pick(shop.pools.products, at, lambda s: ("product", s),
                    lambda s: shop.row("hq.PRODUCT", s)["DISCONTINUED"] == "N")
    if sku is None:
        return 0
    op = update("hq.PRODUCT", shop.row("hq.PRODUCT", sku), DISCONTINUED="Y", UPDATED_AT=at)
    return shop.emit("hq", at, [op], [("product", sku)])


def hq_customer(shop: Shop, at: datetime) -> int:
    """A customer of HQ's or the web shop's moves, changes phone number, earns points, gets a credit limit or
    closes the account: HQ passes it on to both other sites."""
    key = shop.pick(shop.pools.customers["hq"] + shop.pools.customers["web"], at, lambda k: ("customer", *k))
    if key is None:
        return 0
    op = customer_edit(shop, "hq.CUSTOMER", shop.row("hq.CUSTOMER", *key), at,
                       ("move", "phone", "points", "credit", "move", "points", "close"))
    return shop.emit("hq", at, [op], [("customer", *key)])


def hq_new_customer(shop: Shop, at: datetime) -> int:
    """A customer signs up (at the counter, by phone or at the web shop): HQ registers them, and passes the
    row on to the branch and the web."""
    region = shop.rng.choice(sorted(REGIONS))
    row = person(shop.rng, region, shop.next_id("customer.hq", 50_000), at)
    shop.pools.customers["hq"].append((region, row["CUST_NO"]))
    return shop.emit("hq", at, [Op("hq.CUSTOMER", "I", after=row)], [("customer", region, row["CUST_NO"])])


def hq_phone_order(shop: Shop, at: datetime) -> int:
    """A phone order keyed at HQ: ORIGIN 'HQ', so it goes nowhere (filtered)."""
    order = shop.new_order("hq", shop.rng.choice(shop.pools.customers["hq"]), at)
    shop.pools.orders["hq"].append(order["ORDER_NO"])
    return shop.emit("hq", at, [Op("hq.ORDERS", "I", after=order)], [("order", order["ORDER_NO"])])
