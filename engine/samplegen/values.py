"""Realistic column values, chosen by column name and type (Faker), that fit the column.

Faker is seeded once per generator; each kind of value (names, emails, cities...) is drawn into a pool
once and picked from with the generator's `random.Random`, so values are quick to make and the same seed
gives the same values. Every value is conformed to its column's type (`core.values.conform`), cut to its
length: what is written is what a run reads back.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from engine.core.types import SqlType, TypeFamily
from engine.core.values import INTEGER_BITS, ConversionError, conform, is_binary

POOL = 200
DAY = datetime(2026, 1, 5, tzinfo=UTC)
KINDS: tuple[tuple[str, str], ...] = (
    (r"E_?MAIL", "email"), (r"FIRST_?NAME|GIVEN", "first_name"), (r"LAST_?NAME|SURNAME|FAMILY", "last_name"),
    (r"COMPANY|FIRM|VENDOR|SUPPLIER|CUSTOMER_NAME", "company"), (r"CITY|TOWN", "city"),
    (r"STREET|ADDRESS|ADDR", "street_address"), (r"ZIP|POSTAL|POSTCODE", "postcode"),
    (r"PHONE|MOBILE|FAX|TEL", "phone_number"), (r"COUNTRY", "country"), (r"STATE|PROVINCE|REGION", "state_abbr"),
    (r"URL|WEB|SITE", "url"), (r"CURRENCY|CCY", "currency_code"), (r"COLOU?R", "color_name"),
    (r"TITLE|DESCR|NOTE|COMMENT|TEXT|REMARK|MEMO", "sentence"), (r"NAME", "name"),
    (r"STATUS|STATE|STAGE", "status"), (r"CATEGORY|TYPE|KIND|CLASS|GROUP", "word"),
    (r"SKU|CODE|REF|NUMBER|_NO$|NO$|ID$", "code"), (r"IBAN|ACCOUNT", "iban"), (r"USER|LOGIN", "user_name"),
    (r"JOB|ROLE|POSITION", "job"),
)
STATUSES = ("new", "active", "pending", "open", "closed", "paid", "shipped", "cancelled")
MONEY = re.compile(r"PRICE|AMOUNT|TOTAL|COST|BALANCE|LIMIT|FEE|SALARY|PAY|VALUE|SUM")
COUNT = re.compile(r"QTY|QUANTITY|COUNT|STOCK|ON_HAND|POINTS|UNITS|AGE|LEVEL|VERSION|RANK|SEQ|LINE")


def kind_of(column: str) -> str | None:
    """The Faker provider a column's name asks for (None: by type alone)."""
    name = column.upper()
    return next((kind for pattern, kind in KINDS if re.search(pattern, name)), None)


class ValueMaker:
    """Values for columns: realistic by name and type, fresh (never made before) where a key or unique index
    needs them."""

    def __init__(self, seed: int, rng: random.Random, choices: Mapping[str, Sequence[str]] | None = None) -> None:
        from faker import Faker  # here: every `mapwright` command imports this package, only `sample` needs Faker

        self.rng = rng
        self.fake = Faker()
        self.fake.seed_instance(seed)
        self.pools: dict[str, list[str]] = {}
        self.serial = 0
        self.choices = {k.upper(): list(v) for k, v in (choices or {}).items()}
        """Text values a column must take, by column name (a priority_group's priorities)."""

    def pool(self, kind: str) -> list[str]:
        values = self.pools.get(kind)
        if values is None:
            make: Callable[[], Any] = getattr(self.fake, kind, None) or self.fake.word
            if kind == "status":
                values = list(STATUSES)
            elif kind == "code":
                values = [self.fake.bothify("??-####").upper() for _ in range(POOL)]
            else:
                values = [str(make()).replace("\n", ", ") for _ in range(POOL)]
            self.pools[kind] = values
        return values

    def value(self, column: str, t: SqlType, now: datetime) -> Any:
        """A realistic value of column `column` of type `t` (None for types a run cannot read from JSON)."""
        family, name = t.family, column.upper()
        if name in self.choices and (family is TypeFamily.CHARACTER or family is TypeFamily.LARGE_OBJECT):
            return self.fit(self.rng.choice(self.choices[name]), t)
        if family in (TypeFamily.CHARACTER,) or (family is TypeFamily.LARGE_OBJECT and not is_binary(t)):
            if family is TypeFamily.LARGE_OBJECT:
                return self.fake.paragraph(nb_sentences=3)
            kind = kind_of(column)
            if t.length == 1 and kind is None:
                return self.rng.choice("YN")  # a flag
            if t.length is not None and t.length <= 3 and kind not in ("currency_code", "state_abbr"):
                return self.fit("".join(self.rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(t.length)), t)
            return self.fit(self.rng.choice(self.pool(kind or "word")), t)
        if family is TypeFamily.EXACT_NUMERIC:
            return self.number(name, t)
        if family is TypeFamily.APPROX_NUMERIC:
            return round(self.rng.uniform(0, 1000), 2)
        if family is TypeFamily.DATETIME:
            moment = now - timedelta(seconds=self.rng.randrange(0, 400 * 86400))
            return self.fit(moment.replace(microsecond=0), t)
        if family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
            return self.rng.random() < 0.5
        if is_binary(t):
            size = min(t.length or 32, 32)
            return bytes(self.rng.getrandbits(8) for _ in range(max(1, self.rng.randrange(1, size + 1))))
        return None  # UDT, complex: opaque values a sample cannot make sensibly

    def number(self, name: str, t: SqlType) -> int | Decimal:
        top = self.largest(t)
        if re.search(r"PCT|PERCENT|RATE|DISCOUNT", name):
            percent: int | Decimal = self.rng.choice((0, 0, 5, 10, 15, 25))
            return percent if t.name in INTEGER_BITS else self.fit(Decimal(percent), t)
        if t.name in INTEGER_BITS:
            limit = 50 if COUNT.search(name) else 10_000
            return self.rng.randrange(1, max(2, min(limit, int(top)) + 1))
        scale = t.scale or 0
        cap = min(top, Decimal(5000 if MONEY.search(name) else 1000))
        raw = Decimal(str(round(self.rng.uniform(1, float(cap)), scale)))
        fitted: int | Decimal = self.fit(min(raw, top), t)
        return fitted

    @staticmethod
    def largest(t: SqlType) -> Decimal:
        key = (t.name, t.precision, t.scale)
        top = _LARGEST.get(key)
        if top is None:
            if t.name in INTEGER_BITS:
                top = Decimal(2 ** (INTEGER_BITS[t.name] - 1) - 1)
            else:
                digits = (t.precision or 18) - (t.scale or 0)
                top = Decimal(10) ** digits - Decimal(1).scaleb(-(t.scale or 0))
            _LARGEST[key] = top
        return top

    def fit(self, value: Any, t: SqlType) -> Any:
        """`value` in `t`, text cut to the column's length, a DATE at midnight (as every DBMS's DATE holds it, so
        that it travels between them unchanged)."""
        if isinstance(value, datetime) and t.name == "DATE":
            value = value.replace(hour=0, minute=0, second=0, microsecond=0)
        if isinstance(value, str) and t.family is TypeFamily.CHARACTER:
            return value[: t.length] if t.length is not None else value
        try:
            return conform(value, t)
        except ConversionError:
            return None

    def fresh(self, column: str, t: SqlType, now: datetime) -> Any:
        """A value no other call of `fresh` gave (a serial number woven into a realistic value); None when the
        type cannot hold one more."""
        self.serial += 1
        n = self.serial
        family = t.family
        if family is TypeFamily.EXACT_NUMERIC:
            return n if Decimal(n) <= self.largest(t) else None
        if family is TypeFamily.APPROX_NUMERIC:
            return float(n)
        if family is TypeFamily.DATETIME:
            if t.name == "DATE":
                return DAY - timedelta(days=n)
            return (DAY - timedelta(seconds=n)).replace(microsecond=0)
        if is_binary(t):
            data = n.to_bytes((n.bit_length() + 7) // 8 or 1, "big")
            return data if t.length is None or len(data) <= t.length else None
        if family is TypeFamily.CHARACTER or family is TypeFamily.LARGE_OBJECT:
            tag = str(n) if t.length is None or len(str(n)) <= t.length else _base36(n)
            if t.length is not None and len(tag) > t.length:
                return None
            base = str(self.value(column, t, now) or "")
            if "@" in base:
                user, _, domain = base.partition("@")
                text = f"{user}.{tag}@{domain}"
                if t.length is None or len(text) <= t.length:
                    return text
            room = (t.length - len(tag)) if t.length is not None else 24
            return f"{base[: max(0, min(room - 1, 24))]}_{tag}" if room > 1 and base else tag
        return None


_LARGEST: dict[tuple[str, int | None, int | None], Decimal] = {}


def _base36(n: int) -> str:
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"
