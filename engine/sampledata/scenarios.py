"""Scenarios: short scripted stories on entities set aside for them, each written to meet a conflict.

Two sites moving one customer within the propagation delay, an order number keyed twice, a product
delisted at the branch and repriced at HQ... Between them every resolution method of the model decides
at least once, and some changes end in the error queue. A scenario's transactions are recorded, not
applied to the replica: its entities are taken out of the pools and never touched again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TypeVar

from engine.sampledata.catalogue import REGIONS, money, moved, payment, person, phone, product, reprice, shipping
from engine.sampledata.shop import SampleDataError, Shop
from engine.sampledata.timetable import DAY, OPEN, later
from engine.sampledata.transactions import Key, Op, Row, Txn, update

T = TypeVar("T")

SCENARIO_ROUNDS_PER = 750  # changes per round of every scenario


def scenarios(shop: Shop, changes: int) -> None:
    """Every scenario once a round (a round per 750 of the day's `changes`), at times spread over the day;
    the first address race falls in the branch's lunchtime outage."""
    stories: list[Callable[[Shop, datetime, int], None]] = [
        address_race, address_same_second, contact_versions, points_both_sides,
        credit_both_sides, paid_while_shipped, paid_twice, dispatch_scans,
        line_amended_twice, branch_markdown, web_title_kept, duplicate_title,
        purchase_order_reused, shared_email, card_registered_twice, order_number_clash,
        delisted_then_repriced, cancelled_while_shipped, purged_twice, erased_twice,
        erased_while_earning, blocked_while_closed]
    for n in range(max(1, round(changes / SCENARIO_ROUNDS_PER))):
        for story in stories:
            t0 = later(OPEN + timedelta(minutes=15), shop.rng.randrange(9 * 3600))
            if n == 0 and story is address_race:
                t0 = later(DAY.replace(hour=12, minute=36), shop.rng.randrange(300))
            story(shop, t0, n)


def scenario(shop: Shop, site: str, at: datetime, *ops: Op) -> None:
    """A scripted transaction: recorded, not applied (its entities are never touched again)."""
    shop.txns.append(Txn(site, at, list(ops)))


# --- setting entities aside -----------------------------------------------------------


def reserve(shop: Shop, pool: list[T], ok: Callable[[T], bool]) -> T:
    """Take a random item that passes `ok` out of `pool`."""
    candidates = [i for i, item in enumerate(pool) if ok(item)]
    if not candidates:
        raise SampleDataError("too few snapshot rows for the scenarios of this many changes: "
                              "raise --rows or lower --changes")
    return pool.pop(shop.rng.choice(candidates))


def reserve_customer(shop: Shop) -> tuple[Key, Row, Row, Row]:
    """An HQ-looked-after customer that every site holds: its key and its hq, branch and web rows."""
    key = reserve(shop, shop.pools.customers["hq"], lambda k: shop.sites.get("web.CUSTOMER", *k) is not None)
    return (key, shop.row("hq.CUSTOMER", *key), shop.row("branch.CUSTOMER", f"{key[0]}-{key[1]}"),
            shop.row("web.CUSTOMER", *key))


def reserve_order(shop: Shop, site: str, *statuses: str) -> int:
    return reserve(shop, shop.pools.orders[site], lambda n: shop.row(f"{site}.ORDERS", n)["STATUS"] in statuses)


def reserve_product(shop: Shop) -> str:
    return reserve(shop, shop.pools.products, lambda s: shop.row("hq.PRODUCT", s)["DISCONTINUED"] == "N")


# --- customers ------------------------------------------------------------------------


def address_race(shop: Shop, t0: datetime, n: int) -> None:
    """HQ and the branch move one customer within the delay: the later UPDATED_AT wins (latest_timestamp)."""
    _, hq, branch, _ = reserve_customer(shop)
    t1 = later(t0, shop.rng.randrange(5, 25))
    scenario(shop, "hq", t0, update("hq.CUSTOMER", hq, **moved(shop.rng, hq, t0)))
    scenario(shop, "branch", t1, update("branch.CUSTOMER", branch, **moved(shop.rng, branch, t1)))


def address_same_second(shop: Shop, t0: datetime, n: int) -> None:
    """Both moves in the same second: latest_timestamp ties, site_priority decides."""
    _, hq, branch, _ = reserve_customer(shop)
    scenario(shop, "hq", t0, update("hq.CUSTOMER", hq, **moved(shop.rng, hq, t0)))
    scenario(shop, "branch", t0, update("branch.CUSTOMER", branch, **moved(shop.rng, branch, t0)))


def contact_versions(shop: Shop, t0: datetime, n: int) -> None:
    """HQ edits contact details twice while the web edits them once: maximum(CONTACT_VERSION) keeps
    HQ's at HQ; at the web HQ's first edit ties and site_priority decides."""
    key, hq, _, web = reserve_customer(shop)
    version = hq["CONTACT_VERSION"]
    first = update("hq.CUSTOMER", hq, PHONE=phone(shop.rng), CONTACT_VERSION=version + 1)
    assert first.after is not None
    scenario(shop, "hq", t0, first)
    scenario(shop, "web", later(t0, 1), update("web.CUSTOMER", web, PHONE=phone(shop.rng),
                                               CONTACT_VERSION=version + 1))
    scenario(shop, "hq", later(t0, 2), update("hq.CUSTOMER", first.after, CONTACT_VERSION=version + 2,
                                              EMAIL=f"{key[0]}.{key[1]}@mail.example.com".lower()))


def points_both_sides(shop: Shop, t0: datetime, n: int) -> None:
    """Points earned at HQ and at the branch at once: additive keeps both."""
    _, hq, branch, _ = reserve_customer(shop)
    scenario(shop, "hq", t0, update("hq.CUSTOMER", hq, LOYALTY_POINTS=hq["LOYALTY_POINTS"] + 150))
    scenario(shop, "branch", later(t0, shop.rng.randrange(3, 25)),
             update("branch.CUSTOMER", branch, LOYALTY_POINTS=branch["LOYALTY_POINTS"] + 80))


def credit_both_sides(shop: Shop, t0: datetime, n: int) -> None:
    """Two credit officers revise one limit: average splits the difference."""
    _, hq, branch, _ = reserve_customer(shop)
    scenario(shop, "hq", t0, update("hq.CUSTOMER", hq, CREDIT_LIMIT=money(6000)))
    scenario(shop, "branch", later(t0, shop.rng.randrange(3, 25)),
             update("branch.CUSTOMER", branch, CREDIT_LIMIT=money(4500)))


def shared_email(shop: Shop, t0: datetime, n: int) -> None:
    """HQ gives a customer the e-mail address another web customer already has: the web discards it."""
    _, hq, _, _ = reserve_customer(shop)
    _, _, _, other = reserve_customer(shop)
    scenario(shop, "hq", t0, update("hq.CUSTOMER", hq, EMAIL=other["EMAIL"],
                                    CONTACT_VERSION=hq["CONTACT_VERSION"] + 1))


def card_registered_twice(shop: Shop, t0: datetime, n: int) -> None:
    """One loyalty card registered at the branch counter and by HQ's call centre: each insert meets the
    other's row (on_insert_exists: as_update), resolved group by group."""
    region = shop.rng.choice(sorted(REGIONS))
    new = person(shop.rng, region, shop.next_id("customer.card", 80_000), t0)
    t1 = later(t0, 20)
    scenario(shop, "branch", t0, Op("branch.CUSTOMER", "I",
                                    after=shop.sites.copy_through("cust_hq_to_branch", new, t0, "branch")))
    typed_by_phone = {**new, **moved(shop.rng, new, t1), "PHONE": phone(shop.rng)}
    scenario(shop, "hq", t1, Op("hq.CUSTOMER", "I", after=typed_by_phone))


def erased_twice(shop: Shop, t0: datetime, n: int) -> None:
    """A customer erased at HQ and at the branch: each delete finds the row gone, an error (queued)."""
    _, hq, branch, _ = reserve_customer(shop)
    scenario(shop, "hq", t0, Op("hq.CUSTOMER", "D", before=hq))
    scenario(shop, "branch", later(t0, 10), Op("branch.CUSTOMER", "D", before=branch))


def erased_while_earning(shop: Shop, t0: datetime, n: int) -> None:
    """HQ erases a customer while the branch adds points: the update finds no row at HQ, the delete a
    changed row at the branch; both queued."""
    _, hq, branch, _ = reserve_customer(shop)
    scenario(shop, "hq", t0, Op("hq.CUSTOMER", "D", before=hq))
    scenario(shop, "branch", later(t0, 10),
             update("branch.CUSTOMER", branch, LOYALTY_POINTS=branch["LOYALTY_POINTS"] + 40))


def blocked_while_closed(shop: Shop, t0: datetime, n: int) -> None:
    """The branch blocks a customer locally; HQ closes the account: STATUS is in no column group at the
    branch, so the difference is unresolved (queued)."""
    _, hq, branch, _ = reserve_customer(shop)
    scenario(shop, "branch", t0, update("branch.CUSTOMER", branch, STATUS="blocked"))
    scenario(shop, "hq", later(t0, shop.rng.randrange(300, 3600)), update("hq.CUSTOMER", hq, STATUS="closed"))


# --- orders ---------------------------------------------------------------------------


def paid_while_shipped(shop: Shop, t0: datetime, n: int) -> None:
    """The web records a payment while HQ ships cash on delivery: priority_group, shipped > paid."""
    number = reserve_order(shop, "web", "ordered")
    web, hq = shop.row("web.ORDERS", number), shop.row("hq.ORDERS", number)
    scenario(shop, "web", t0, update("web.ORDERS", web, STATUS="paid", PAYMENT_REF=payment(shop.rng, t0)))
    scenario(shop, "hq", later(t0, 2), update("hq.ORDERS", hq, STATUS="shipped",
                                              **shipping(shop.rng, later(t0, -900))))


def paid_twice(shop: Shop, t0: datetime, n: int) -> None:
    """A card payment at the web and a bank transfer booked at HQ: priority_group ties, site_priority
    decides."""
    number = reserve_order(shop, "web", "ordered")
    web, hq = shop.row("web.ORDERS", number), shop.row("hq.ORDERS", number)
    scenario(shop, "web", t0, update("web.ORDERS", web, STATUS="paid", PAYMENT_REF=payment(shop.rng, t0)))
    scenario(shop, "hq", later(t0, 1), update("hq.ORDERS", hq, STATUS="paid"))


def dispatch_scans(shop: Shop, t0: datetime, n: int) -> None:
    """The warehouse (HQ) and the carrier's webhook (web) both record a dispatch: the earlier scan wins
    (earliest_timestamp), HQ's in even rounds, the carrier's in odd ones."""
    number = reserve_order(shop, "web", "paid")
    web, hq = shop.row("web.ORDERS", number), shop.row("hq.ORDERS", number)
    hq_scan, web_scan = later(t0, -600), later(t0, -300)
    if n % 2:
        hq_scan, web_scan = web_scan, hq_scan
    scenario(shop, "hq", t0, update("hq.ORDERS", hq, STATUS="shipped", **shipping(shop.rng, hq_scan)))
    scenario(shop, "web", later(t0, 2), update("web.ORDERS", web, **shipping(shop.rng, web_scan)))


def line_amended_twice(shop: Shop, t0: datetime, n: int) -> None:
    """HQ's sales desk and the branch both amend a line's quantity: minimum(QTY) ships the smaller;
    equal quantities tie and site_priority keeps HQ's."""
    number = reserve_order(shop, "branch", "ordered", "paid")
    line_no = shop.pools.lines[number][0]
    hq, branch = shop.row("hq.ORDER_LINE", number, line_no), shop.row("branch.ORDER_LINE", number, line_no)
    hq_qty = branch["QTY"] + 2
    branch_qty = (hq_qty + 1, hq_qty - 1, hq_qty)[n % 3]
    line_total = money(hq_qty * hq["UNIT_PRICE"] * (100 - hq["DISCOUNT_PCT"]) / 100)
    scenario(shop, "hq", t0, update("hq.ORDER_LINE", hq, QTY=hq_qty, LINE_TOTAL=line_total))
    discount = money(5) if branch_qty == hq_qty else branch["DISCOUNT_PCT"]
    scenario(shop, "branch", later(t0, shop.rng.randrange(60, 600)),
             update("branch.ORDER_LINE", branch, QTY=branch_qty, DISCOUNT_PCT=discount))


def purchase_order_reused(shop: Shop, t0: datetime, n: int) -> None:
    """A customer quotes one purchase-order number at the branch and at the web shop: HQ's unique
    ORDER_REF takes the origin's name (append_site_name)."""
    statuses = ("ordered", "paid", "shipped", "billed")
    if n % 2 == 0:
        existing = shop.row("branch.ORDERS", reserve_order(shop, "branch", *statuses))
        region, cust_no = str(existing["CUST_KEY"]).split("-")
        order = {**shop.new_order("web", (region, int(cust_no)), t0), "ORDER_REF": existing["ORDER_REF"]}
        scenario(shop, "web", t0, Op("web.ORDERS", "I", after=order))
        return
    existing = shop.row("web.ORDERS", reserve_order(shop, "web", *statuses))
    order = {**shop.new_order("branch", (existing["REGION"], existing["CUST_NO"]), t0),
             "ORDER_REF": existing["ORDER_REF"]}
    lines = shop.new_lines(order, 2)
    scenario(shop, "branch", t0, Op("branch.ORDERS", "I", after=order),
             *(Op("branch.ORDER_LINE", "I", after=line) for line in lines))


def order_number_clash(shop: Shop, t0: datetime, n: int) -> None:
    """HQ keys a phone order under a number from the branch's block; the branch's order and its lines then
    meet it at HQ: insert exists, an error, and hq.ORDERS' transaction scope queues the lines too."""
    number = shop.next_id("order.clash", 2_090_000)
    scenario(shop, "hq", t0, Op("hq.ORDERS", "I", after=shop.new_order(
        "hq", shop.rng.choice(shop.pools.customers["hq"]), t0, number)))
    order = shop.new_order("branch", shop.rng.choice(shop.pools.customers["branch"]), t0, number)
    lines = shop.new_lines(order, 2)
    scenario(shop, "branch", later(t0, shop.rng.randrange(30, 300)), Op("branch.ORDERS", "I", after=order),
             *(Op("branch.ORDER_LINE", "I", after=line) for line in lines))


def cancelled_while_shipped(shop: Shop, t0: datetime, n: int) -> None:
    """The customer cancels at the web as HQ ships: HQ cannot delete a row that changed (a delete
    conflict, queued), the web has no row to update (discarded)."""
    number = reserve_order(shop, "web", "paid")
    scenario(shop, "web", t0, Op("web.ORDERS", "D", before=shop.row("web.ORDERS", number)))
    scenario(shop, "hq", later(t0, 2), update("hq.ORDERS", shop.row("hq.ORDERS", number), STATUS="shipped",
                                              **shipping(shop.rng, t0)))


def purged_twice(shop: Shop, t0: datetime, n: int) -> None:
    """A billed order archived at HQ and at the web: each delete finds the row gone (discard)."""
    number = reserve_order(shop, "web", "billed")
    scenario(shop, "hq", t0, Op("hq.ORDERS", "D", before=shop.row("hq.ORDERS", number)))
    scenario(shop, "web", later(t0, 1), Op("web.ORDERS", "D", before=shop.row("web.ORDERS", number)))


# --- products -------------------------------------------------------------------------


def branch_markdown(shop: Shop, t0: datetime, n: int) -> None:
    """The branch marks a product down; HQ's next price list overwrites it."""
    sku = reserve_product(shop)
    branch = shop.row("branch.PRODUCT", sku)
    markdown = money(branch["UNIT_PRICE"] * Decimal("0.8"))
    scenario(shop, "branch", t0, update("branch.PRODUCT", branch, UNIT_PRICE=markdown))
    at = later(t0, shop.rng.randrange(600, 3600))
    scenario(shop, "hq", at, reprice(shop.row("hq.PRODUCT", sku), "1.05", at))


def web_title_kept(shop: Shop, t0: datetime, n: int) -> None:
    """The web team rewrites a product title; HQ's new description is discarded there."""
    sku = reserve_product(shop)
    web, hq = shop.row("web.PRODUCT", sku), shop.row("hq.PRODUCT", sku)
    scenario(shop, "web", t0, update("web.PRODUCT", web, TITLE=f"{web['TITLE']} - free delivery"))
    at = later(t0, shop.rng.randrange(600, 3600))
    scenario(shop, "hq", at, update("hq.PRODUCT", hq, DESCRIPTION=f"{hq['DESCRIPTION']} (2026)", UPDATED_AT=at))


def duplicate_title(shop: Shop, t0: datetime, n: int) -> None:
    """New colour variants keep an existing product's description: the web's unique titles get `.1`,
    `.2` appended (append_sequence)."""
    original = shop.row("hq.PRODUCT", reserve_product(shop))
    scenario(shop, "hq", t0, *(Op("hq.PRODUCT", "I", after={
        **product(shop.rng, shop.next_id("product", 5_000), t0), "DESCRIPTION": original["DESCRIPTION"],
        "CATEGORY": original["CATEGORY"]}) for _ in range(1 + n % 2)))


def delisted_then_repriced(shop: Shop, t0: datetime, n: int) -> None:
    """The branch delists a product; HQ reprices it: the update finds no row (on_update_missing: insert)."""
    sku = reserve_product(shop)
    scenario(shop, "branch", t0, Op("branch.PRODUCT", "D", before=shop.row("branch.PRODUCT", sku)))
    at = later(t0, shop.rng.randrange(300, 3000))
    scenario(shop, "hq", at, reprice(shop.row("hq.PRODUCT", sku), "0.9", at))
