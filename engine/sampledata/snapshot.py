"""The morning's snapshot: the rows at every site before the day begins, the same data at every site."""

from __future__ import annotations

from datetime import timedelta

from engine.sampledata.catalogue import REGIONS, money, person, product, shipping
from engine.sampledata.shop import Shop
from engine.sampledata.timetable import NIGHTLY_SYNC, later
from engine.sampledata.transactions import Key, Row


def snapshot(shop: Shop, rows: int) -> dict[str, list[Row]]:
    """About `rows` rows: customers and products from HQ, orders where they were placed, each copied to
    the other sites through the model's mappings. Fills the replica and the pools; returns the rows by
    table."""
    rng, sites, scale = shop.rng, shop.sites, rows / 10_000
    for _ in range(max(40, round(1000 * scale))):
        region = rng.choice(sorted(REGIONS))
        joined = NIGHTLY_SYNC - timedelta(days=rng.randrange(1, 900))
        row = person(rng, region, shop.next_id("customer.snapshot", 10_000), joined)
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
        shop.pools.customers["hq" if home == "web" and not at_web else home].append((region, row["CUST_NO"]))
    for _ in range(max(20, round(400 * scale))):
        listed = NIGHTLY_SYNC - timedelta(days=rng.randrange(1, 200))
        row = product(rng, shop.next_id("product.snapshot", 0), listed)
        row["DISCONTINUED"] = "Y" if rng.random() < 0.05 else "N"
        sites.put("hq.PRODUCT", row)
        branch = sites.copy_through("product_hq_to_branch", row, NIGHTLY_SYNC, "hq")
        sites.put("branch.PRODUCT", {**branch, "QTY_ON_HAND": rng.randrange(0, 80)})
        if row["DISCONTINUED"] == "N":
            sites.put("web.PRODUCT", sites.copy_through("product_hq_to_web", row, NIGHTLY_SYNC, "hq"))
        shop.pools.products.append(row["SKU"])
    customers = sorted(sites.rows["hq.CUSTOMER"])
    for site, count in (("branch", 700), ("web", 600), ("hq", 300)):
        for _ in range(max(10, round(count * scale))):
            snapshot_order(shop, site, rng.choice(customers))
    return {table: list(held.values()) for table, held in sites.rows.items() if held}


def snapshot_order(shop: Shop, site: str, customer: Key) -> None:
    """An order placed before today where `site` took it, at some stage of its life, with its copies."""
    rng, sites = shop.rng, shop.sites
    status = rng.choices(("ordered", "paid", "shipped", "billed"), (3, 3, 2, 4))[0]
    days = 20 if status in ("ordered", "paid") else 1  # a shipped order left the day before, at least
    placed = NIGHTLY_SYNC - timedelta(minutes=rng.randrange(10 * days, 60 * 24 * 20))
    order = {**shop.new_order(site, customer, placed), "STATUS": status}
    number = order["ORDER_NO"]
    shipped = shipping(rng, later(placed, rng.randrange(2 * 3600, 20 * 3600))) if days == 1 else {}
    if site == "branch":
        lines = shop.new_lines(order, rng.choices((1, 2, 3, 4), (3, 4, 2, 1))[0])
        sites.put("branch.ORDERS", order)
        sites.put("hq.ORDERS", sites.copy_through("orders_branch_to_hq", order, placed, "branch"))
        for line in lines:
            sites.put("branch.ORDER_LINE", line)
            sites.put("hq.ORDER_LINE", sites.copy_through("order_line_branch_to_hq", line, placed, "branch"))
        shop.pools.lines[number] = [line["LINE_NO"] for line in lines]
    elif site == "web":
        order.update(shipped)
        sites.put("web.ORDERS", order)
        sites.put("hq.ORDERS", {**sites.copy_through("orders_web_to_hq", order, placed, "web"), **shipped})
    else:
        sites.put("hq.ORDERS", {**order, **shipped})
    shop.pools.orders[site].append(number)
