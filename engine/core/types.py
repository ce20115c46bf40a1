"""Column type strings, parsed into a small typed value (docs/contract.md §1).

`parse_type("DECIMAL(10,2)")` gives a `SqlType` with its family, length,
precision and scale. The families drive the distribution-key, conflict and
data-type rules; `byte_length` is the size DK003 adds up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from engine.limits import MAX_TYPE_DEPTH


class TypeFamily(StrEnum):
    CHARACTER = "character"
    EXACT_NUMERIC = "exact_numeric"
    APPROX_NUMERIC = "approx_numeric"
    DATETIME = "datetime"
    BIT = "bit"
    BINARY = "binary"
    LARGE_OBJECT = "large_object"
    BOOLEAN = "boolean"
    UDT = "udt"
    COMPLEX = "complex"


class TypeError_(ValueError):
    """A type string that names no known type."""


@dataclass(frozen=True)
class SqlType:
    """A parsed column type. `name` is the canonical upper-case base name."""

    name: str
    family: TypeFamily
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    udt: str | None = None
    elements: tuple[SqlType, ...] = ()

    @property
    def is_serial(self) -> bool:
        return self.name in ("SERIAL", "SERIAL8")

    @property
    def is_numeric(self) -> bool:
        return self.family in (TypeFamily.EXACT_NUMERIC, TypeFamily.APPROX_NUMERIC)

    @property
    def holds_udt(self) -> bool:
        """True for a UDT, or a complex type with a UDT anywhere inside it."""
        return self.family is TypeFamily.UDT or any(e.holds_udt for e in self.elements)

    @property
    def byte_length(self) -> int | None:
        """Bytes the type takes in a distribution key (DK003); None where the contract gives none
        (a DECIMAL without a precision: see `key_bytes`, which knows the DBMS)."""
        if self.family in (TypeFamily.CHARACTER, TypeFamily.BINARY):
            return self.length
        if self.precision is not None and self.family is TypeFamily.EXACT_NUMERIC:
            return self.precision // 2 + 1
        return _FIXED_BYTES.get(self.name)

    def key_bytes(self, dbms: str | None) -> int | None:
        """`byte_length` on a server of `dbms`: a DECIMAL, NUMERIC or NUMBER without a precision takes that
        DBMS's default precision (`DEFAULT_DECIMAL_PRECISION`), floor(p/2)+1 bytes like any other."""
        if self.name in _DECIMALS and self.precision is None:
            return default_decimal_precision(dbms) // 2 + 1
        return self.byte_length

    def comparable(self) -> SqlType:
        """The type with synonyms folded, for asking whether two declarations are one type (SC001):
        `NUMERIC(10,2)`, `DECIMAL(10,2)` and `NUMBER(10,2)` are one type, as are `VARCHAR(n)` and
        Oracle's `VARCHAR2(n)`; `CHAR` and `VARCHAR`, or `NCHAR` and `CHAR`, stay apart (padding and
        character set differ). `DECIMAL` and `NUMERIC` without a precision are one type; `NUMBER`
        without one is Oracle's floating decimal, not them. A complex type folds its elements."""
        name = _SYNONYMS.get(self.name, self.name)
        if self.name == "NUMBER" and self.precision is None:
            name = self.name
        elements = tuple(e.comparable() for e in self.elements)
        if (name, elements) == (self.name, self.elements):
            return self
        return SqlType(name, self.family, self.length, self.precision, self.scale, self.udt, elements)

    def __str__(self) -> str:
        if self.family is TypeFamily.UDT:
            return f"UDT:{self.udt}"
        if self.family is TypeFamily.COMPLEX:
            return f"{self.name}({', '.join(str(e) for e in self.elements)})"
        if self.precision is not None:
            return f"{self.name}({self.precision},{self.scale or 0})"
        if self.length is not None and self.name != "UUID":
            return f"{self.name}({self.length})"
        return self.name


# The precision a DECIMAL / NUMERIC / NUMBER declared without one gets: DB2 5, SQL Server and Sybase ASE 18,
# Informix 16 (its floating DECIMAL), MySQL 10, Oracle 38 (NUMBER's maximum); any other DBMS 38, the widest
# of them, so a key is never thought shorter than it may be.
DEFAULT_DECIMAL_PRECISION = {"db2": 5, "mssql": 18, "ase": 18, "informix": 16, "mysql": 10, "oracle": 38}
OTHER_DECIMAL_PRECISION = 38
_DECIMALS = ("DECIMAL", "NUMERIC", "NUMBER")


def default_decimal_precision(dbms: str | None) -> int:
    return DEFAULT_DECIMAL_PRECISION.get(dbms or "", OTHER_DECIMAL_PRECISION)


_FIXED_BYTES = {
    "SMALLINT": 2, "INTEGER": 4, "INT": 4, "SERIAL": 4, "BIGINT": 8, "SERIAL8": 8,
    "REAL": 4, "FLOAT": 8, "DOUBLE": 8, "DATE": 4, "TIMESTAMP": 10, "TIMESTAMPTZ": 10, "DATETIME": 10,
    "BOOLEAN": 1, "BIT": 1,
}

# base name -> (family, takes a length, takes precision/scale)
_SIMPLE: dict[str, tuple[TypeFamily, str]] = {
    "CHAR": (TypeFamily.CHARACTER, "length"),
    "VARCHAR": (TypeFamily.CHARACTER, "length"),
    "VARCHAR2": (TypeFamily.CHARACTER, "length"),
    "NCHAR": (TypeFamily.CHARACTER, "length"),
    "NVARCHAR": (TypeFamily.CHARACTER, "length"),
    "SMALLINT": (TypeFamily.EXACT_NUMERIC, ""),
    "INTEGER": (TypeFamily.EXACT_NUMERIC, ""),
    "INT": (TypeFamily.EXACT_NUMERIC, ""),
    "BIGINT": (TypeFamily.EXACT_NUMERIC, ""),
    "SERIAL": (TypeFamily.EXACT_NUMERIC, ""),
    "SERIAL8": (TypeFamily.EXACT_NUMERIC, ""),
    "DECIMAL": (TypeFamily.EXACT_NUMERIC, "precision"),
    "NUMERIC": (TypeFamily.EXACT_NUMERIC, "precision"),
    "NUMBER": (TypeFamily.EXACT_NUMERIC, "precision"),
    "REAL": (TypeFamily.APPROX_NUMERIC, ""),
    "FLOAT": (TypeFamily.APPROX_NUMERIC, ""),
    "DOUBLE": (TypeFamily.APPROX_NUMERIC, ""),
    "DATE": (TypeFamily.DATETIME, ""),
    "TIMESTAMP": (TypeFamily.DATETIME, ""),
    "TIMESTAMPTZ": (TypeFamily.DATETIME, ""),  # a point in time: values with an offset are kept as UTC
    "DATETIME": (TypeFamily.DATETIME, ""),
    "BIT": (TypeFamily.BIT, ""),
    "BINARY": (TypeFamily.BINARY, "length"),
    "VARBINARY": (TypeFamily.BINARY, "length"),
    "RAW": (TypeFamily.BINARY, "length"),
    "TEXT": (TypeFamily.LARGE_OBJECT, ""),
    "CLOB": (TypeFamily.LARGE_OBJECT, ""),
    "BLOB": (TypeFamily.LARGE_OBJECT, ""),
    "BYTE": (TypeFamily.LARGE_OBJECT, ""),
    "LONG": (TypeFamily.LARGE_OBJECT, ""),
    "LONG RAW": (TypeFamily.LARGE_OBJECT, ""),
    "BOOLEAN": (TypeFamily.BOOLEAN, ""),
    "UUID": (TypeFamily.CHARACTER, ""),  # held as its 36-character text form
}
_ALIASES = {"INT": "INTEGER", "TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ"}
_SYNONYMS = {"NUMERIC": "DECIMAL", "NUMBER": "DECIMAL", "VARCHAR2": "VARCHAR"}  # see `SqlType.comparable`
_COMPLEX = ("ROW", "SET", "LIST", "MULTISET", "ARRAY")  # ARRAY: PostgreSQL's arrays, of one element type
_CALL = re.compile(r"^(LONG\s+RAW|TIMESTAMP\s+WITH\s+TIME\s+ZONE|[A-Z][A-Z0-9_]*)\s*(?:\((.*)\))?$", re.S | re.I)


@lru_cache(maxsize=4096)
def type_name(value: str) -> str:
    """`value` where it names a column type; else a plain ValueError with the reason (what a pydantic
    validator raises to report it)."""
    try:
        parse_type(value)
    except TypeError_ as exc:
        raise ValueError(str(exc)) from None
    return value


def parse_type(text: str) -> SqlType:
    """Parse a type string (case-insensitive); raises `TypeError_` with a readable reason.

    Cached: `SqlType` is immutable, and a large model repeats a few dozen type strings.

    The nesting of complex types is measured first (`MAX_TYPE_DEPTH`), so the parse, which recurses
    once per level, never runs out of stack.
    """
    if _nested_deeper_than(text, MAX_TYPE_DEPTH):
        raise TypeError_(f"ROW, SET, LIST and MULTISET types are nested more than {MAX_TYPE_DEPTH} deep "
                         f"(at most {MAX_TYPE_DEPTH})")
    return _parse(text)


_NOT_PAREN = re.compile(r"[^()]+")


def _nested_deeper_than(text: str, limit: int) -> bool:
    """Whether parentheses nest more than `limit` deep; each pass drops the innermost pairs."""
    parens = _NOT_PAREN.sub("", text)
    for _ in range(limit):
        shorter = parens.replace("()", "")
        if shorter == parens:
            return False
        parens = shorter
    return "()" in parens


def _parse(text: str) -> SqlType:
    src = text.strip()
    if src[:4].upper() == "UDT:":
        name = src[4:].strip()
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            raise TypeError_(f"bad user type name in {_clip(text)!r}")
        return SqlType("UDT", TypeFamily.UDT, udt=name)
    match = _CALL.match(src)
    if not match:
        raise TypeError_(f"unknown type {_clip(text)!r}")
    base, args = " ".join(match.group(1).upper().split()), match.group(2)
    base = _ALIASES.get(base, base)
    if base in _COMPLEX:
        if args is None or not args.strip():
            raise TypeError_(f"{base} needs element types, as in {base}(INTEGER)")
        elements = tuple(_parse_element(p) for p in _split_top_level(args))
        if base == "ARRAY" and len(elements) != 1:
            raise TypeError_(f"ARRAY takes one element type, as in ARRAY(TEXT), not {_clip(text)!r}")
        return SqlType(base, TypeFamily.COMPLEX, elements=elements)
    if base not in _SIMPLE:
        raise TypeError_(f"unknown type {_clip(text)!r}")
    family, takes = _SIMPLE[base]
    if args is None:
        if base in ("CHAR", "NCHAR"):
            return SqlType(base, family, length=1)
        if base == "UUID":
            return SqlType(base, family, length=36)
        if takes == "length":
            raise TypeError_(f"{base} needs a length, as in {base}(20)")
        return SqlType(base, family)
    numbers = [a.strip() for a in args.split(",")]
    if not takes or not all(n.isdigit() for n in numbers):
        raise TypeError_(f"bad size in type {_clip(text)!r}")
    if any(len(n) > 18 for n in numbers):
        raise TypeError_(f"size out of range in type {_clip(text)!r}")
    values = [int(n) for n in numbers]
    if takes == "length" and len(values) == 1 and values[0] > 0:
        return SqlType(base, family, length=values[0])
    if takes == "precision" and 1 <= len(values) <= 2 and values[0] > 0:
        scale = values[1] if len(values) == 2 else 0
        if scale > values[0]:
            raise TypeError_(f"scale is larger than precision in {_clip(text)!r}")
        return SqlType(base, family, precision=values[0], scale=scale)
    raise TypeError_(f"bad size in type {_clip(text)!r}")


def _split_top_level(text: str) -> list[str]:
    """Split `a, ROW(b, c), d` on the commas that are not inside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_FIELD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s+([A-Za-z].*)", re.S)  # a name, then a type
_ELEMENT_NOT_NULL = re.compile(r"\s+NOT\s+NULL\s*$", re.I)


def _parse_element(part: str) -> SqlType:
    """One element of a complex type: a type, or a named field, as in ROW(x INTEGER, p UDT:point).

    A field's name may be any identifier, a type's name too (`ROW(date DATE, text VARCHAR(10))`): the
    element is read as a type first (`LONG RAW`), and as a name and a type when that fails. When both
    fail, the error is the named field's (its type is what is wrong), unless the element has no name.

    A trailing `NOT NULL` is read and left out (`SET(INTEGER NOT NULL)`): Informix requires it of the
    elements of a SET, MULTISET or LIST, and types compare without nullability."""
    part = _ELEMENT_NOT_NULL.sub("", part)
    try:
        return _parse(part)
    except TypeError_ as whole:
        field = _FIELD.fullmatch(part)
        if field is None:
            raise whole from None
        return _parse(field.group(2))


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."
