"""Made-up people and goods: names, addresses, products, prices and parcels, drawn from one random source.

Each function takes the generator's `random.Random` and draws from it in a fixed order, so the same seed
makes the same rows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from engine.sampledata.timetable import NOON
from engine.sampledata.transactions import Op, Row, update

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


def money(value: float | Decimal) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def phone(rng: random.Random) -> str:
    return f"+47 {rng.randrange(400, 999)} {rng.randrange(10, 99)} {rng.randrange(100, 999)}"


def person(rng: random.Random, region: str, number: int, at: datetime) -> Row:
    """A new customer as HQ holds it."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    domain = rng.choice(("com", "net", "org"))
    return {"REGION": region, "CUST_NO": number, "NAME": f"{first} {last}",
            "EMAIL": f"{first}.{last}.{number}@example.{domain}".lower(), "PHONE": phone(rng),
            "CONTACT_VERSION": 1, **address(rng, region, at), "LOYALTY_POINTS": 0, "CREDIT_LIMIT": None,
            "STATUS": "active"}


def address(rng: random.Random, region: str, at: datetime) -> Row:
    city, zip_code = rng.choice(REGIONS[region])
    return {"STREET": f"{rng.randrange(1, 120)} {rng.choice(STREETS)}", "CITY": city,
            "ZIP": zip_code, "UPDATED_AT": at}


def moved(rng: random.Random, row: Row, at: datetime) -> Row:
    """A new address for a customer row of any site (branch rows carry the region in CUST_KEY)."""
    return address(rng, str(row["REGION"] if "REGION" in row else row["CUST_KEY"].split("-")[0]), at)


def product(rng: random.Random, number: int, at: datetime) -> Row:
    """A new product as HQ holds it, with a valid EAN-13."""
    category = rng.choice(sorted(GOODS))
    ean12 = f"70{number:010d}"
    check = (10 - sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(ean12)) % 10) % 10
    model_no = f"{category[:2].upper()}-{number:03d}"
    return {"SKU": f"SKU-{number:05d}", "EAN": f"{ean12}{check}",
            "DESCRIPTION": f"{rng.choice(STYLES)} {rng.choice(GOODS[category])} {model_no}",
            "CATEGORY": category, "UNIT_PRICE": money(rng.uniform(4, 400)), "DISCONTINUED": "N",
            "UPDATED_AT": at}


def total(lines: Sequence[Row]) -> Decimal:
    """An order's total: its lines' quantities at their prices, less discounts."""
    return money(sum((r["QTY"] * r["UNIT_PRICE"] * (100 - r["DISCOUNT_PCT"]) / 100 for r in lines), Decimal(0)))


def shipping(rng: random.Random, scanned: datetime) -> Row:
    carrier = rng.choice(CARRIERS)
    return {"TRACKING_NO": f"{carrier}{rng.randrange(10**9, 10**10)}", "SHIPPED_AT": scanned}


def payment(rng: random.Random, at: datetime) -> str | None:
    """A payment reference: the web shop records them from its release at noon."""
    return f"PAY-{rng.getrandbits(48):012x}" if at >= NOON else None


def reprice(row: Row, factor: str, at: datetime) -> Op:
    """HQ's new price for a product: the old one times `factor`."""
    return update("hq.PRODUCT", row, UNIT_PRICE=money(row["UNIT_PRICE"] * Decimal(factor)), UPDATED_AT=at)
