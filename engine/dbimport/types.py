"""Reflected SQLAlchemy column types as the contract's type strings (docs/contract.md §1).

`contract_type(t)` gives the type string and, when the database's type has no exact counterpart, the
reason it was imported as the nearest one: the importer reports each such column, never silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeEngine

from engine.core.types import TypeError_, parse_type
from engine.model.schema import EnumValues


@dataclass(frozen=True)
class MappedType:
    type: str
    note: str | None = None  # set when `type` is the nearest type, not the same one
    enum: EnumValues | None = None  # an enumerated type's values (the type is then TEXT)


def type_name(t: TypeEngine[Any], dialect: Dialect | None = None) -> str:
    """How the database spells the type (for messages)."""
    try:
        return str(t.compile(dialect=dialect))
    except Exception:
        return type(t).__name__


def contract_type(t: TypeEngine[Any], dialect: Dialect | None = None) -> MappedType:
    """The contract type string of a reflected type, or the nearest with a note saying what was lost."""
    base = _domain_base(t)
    if base is not None:
        return _domain(t, base, dialect)
    if isinstance(t, sa.Enum) and t.enums:
        # TEXT, not VARCHAR of the longest value: a value added later (ALTER TYPE ... ADD VALUE) still fits
        return MappedType("TEXT", enum=EnumValues(name=getattr(t, "name", None) or None, values=list(t.enums)))
    if isinstance(t, sa.ARRAY):
        return _array(t, dialect)
    if isinstance(t, sa.DateTime) and getattr(t, "timezone", False):
        if dialect is None or dialect.name == "postgresql":  # a point in time, as PostgreSQL's timestamptz is
            return MappedType("TIMESTAMPTZ")
        return MappedType("TIMESTAMPTZ", f"{type_name(t, dialect)} keeps each value's time zone; imported as "
                                         "TIMESTAMPTZ (a point in time, without its zone)")
    exact = _exact(t)
    if exact is not None and _parses(exact):
        return MappedType(exact)
    nearest, why = _nearest(t)
    if exact is not None:  # the type is the contract's, its size is not (NUMERIC(3,-1)): keep the family
        why = "has a size the contract cannot hold"
    if not _parses(nearest):
        nearest, why = "TEXT", why + " and no nearer type"
    return MappedType(nearest, f"{type_name(t, dialect)} {why}; imported as {nearest}")


def _array(t: sa.ARRAY[Any], dialect: Dialect | None) -> MappedType:
    """PostgreSQL's array (any number of dimensions) as ARRAY of its element's type, noted when the element's
    type is only the nearest one."""
    inner = contract_type(t.item_type, dialect)
    mapped = f"ARRAY({inner.type})"
    if not _parses(mapped):
        return MappedType("TEXT", f"{type_name(t, dialect)} is an array the contract cannot hold; imported as TEXT")
    if inner.note is None and inner.enum is None:
        return MappedType(mapped)
    if inner.note is not None:  # the element's note, its "; imported as" said once, of the array
        why = inner.note.rsplit("; imported as ", 1)[0]
        return MappedType(mapped, f"{type_name(t, dialect)} is an array; its elements: {why}; imported as {mapped}")
    name = f" {inner.enum.name}" if inner.enum is not None and inner.enum.name else ""
    return MappedType(mapped, f"{type_name(t, dialect)} is an array of enumeration{name}, whose values are not kept; "
                              f"imported as {mapped}")


def _domain_base(t: TypeEngine[Any]) -> TypeEngine[Any] | None:
    """The type a PostgreSQL domain is defined over (None for any other type)."""
    base = getattr(t, "data_type", None) if _class_name(t) == "DOMAIN" else None
    return base if isinstance(base, TypeEngine) else None


def _domain(t: TypeEngine[Any], base: TypeEngine[Any], dialect: Dialect | None) -> MappedType:
    """A domain holds its base type's values: it comes in as that type (never as TEXT), noted because its
    checks do not come along."""
    mapped = contract_type(base, dialect)
    name = getattr(t, "name", None) or type_name(t, dialect)
    what = f"{name} is a domain (its checks are not kept)"
    if mapped.note:
        return MappedType(mapped.type, f"{what}; its type {mapped.note}", mapped.enum)
    return MappedType(mapped.type, f"{what} over {mapped.type}; imported as {mapped.type}", mapped.enum)


def _parses(text: str) -> bool:
    try:
        parse_type(text)
    except TypeError_:
        return False
    return True


def _class_name(t: TypeEngine[Any]) -> str:
    return type(t).__name__.upper()


def _length(t: TypeEngine[Any]) -> int | None:
    length = getattr(t, "length", None)
    return length if isinstance(length, int) and length > 0 else None


def _exact(t: TypeEngine[Any]) -> str | None:  # noqa: C901 - one flat table of cases
    name = _class_name(t)
    if isinstance(t, sa.Boolean):
        return "BOOLEAN"
    if name == "NUMBER":  # Oracle's NUMBER is both Numeric and Integer in SQLAlchemy
        precision, scale = getattr(t, "precision", None), getattr(t, "scale", None)
        return f"NUMBER({precision},{scale or 0})" if precision else "NUMBER"
    if isinstance(t, sa.SmallInteger):
        return "SMALLINT"
    if isinstance(t, sa.BigInteger):
        return "BIGINT"
    if isinstance(t, sa.Integer):
        return "INTEGER"
    if isinstance(t, sa.REAL):
        return "REAL"
    if isinstance(t, sa.Double):
        return "DOUBLE"
    if isinstance(t, sa.Float):
        return "FLOAT"
    if isinstance(t, sa.Numeric) and name not in ("MONEY", "SMALLMONEY"):
        base = "DECIMAL" if isinstance(t, sa.DECIMAL) else "NUMERIC"
        if t.precision is None:
            return None if t.scale else base
        if (t.scale or 0) > t.precision:
            return None
        return f"{base}({t.precision},{t.scale or 0})"
    if isinstance(t, sa.Enum):
        return None
    if isinstance(t, sa.Text):
        if name == "LONG":
            return "LONG"
        return "CLOB" if isinstance(t, sa.CLOB) or name == "NCLOB" else "TEXT"
    if isinstance(t, sa.String):
        length = _length(t)
        if isinstance(t, sa.NCHAR):
            return f"NCHAR({length or 1})"
        if isinstance(t, sa.CHAR):
            return f"CHAR({length or 1})"
        if length is None:
            return None
        if isinstance(t, (sa.NVARCHAR, sa.Unicode)) or name == "NVARCHAR2":
            return f"NVARCHAR({length})"
        return f"VARCHAR2({length})" if name == "VARCHAR2" else f"VARCHAR({length})"
    if name == "RAW" and _length(t):
        return f"RAW({_length(t)})"
    if isinstance(t, (sa.BINARY, sa.VARBINARY)) and _length(t):
        return f"{'BINARY' if isinstance(t, sa.BINARY) else 'VARBINARY'}({_length(t)})"
    if isinstance(t, sa.LargeBinary) and not isinstance(t, (sa.BINARY, sa.VARBINARY)):
        return "BLOB"
    if name == "DATE" or (isinstance(t, sa.Date) and not isinstance(t, sa.DateTime)):
        return "DATE"
    if isinstance(t, sa.DateTime) and not getattr(t, "timezone", False):
        return "DATETIME" if isinstance(t, sa.DATETIME) else "TIMESTAMP"
    if name == "BIT" and (getattr(t, "length", 1) or 1) == 1 and not getattr(t, "varying", False):
        return "BIT"
    if isinstance(t, sa.Uuid):
        return "UUID"
    return None


def _nearest(t: TypeEngine[Any]) -> tuple[str, str]:
    """(nearest contract type, what is lost) for a type with no exact counterpart."""
    name = _class_name(t)
    if isinstance(t, sa.Enum):  # one with values is exact (`contract_type`)
        return "TEXT", "is an enumeration without values"
    if name in ("MONEY", "SMALLMONEY"):
        return "DECIMAL(19,4)", "is a money type"
    if isinstance(t, sa.Numeric):
        return "NUMBER" if name == "NUMBER" else "NUMERIC", "has a precision and scale the contract cannot hold"
    if isinstance(t, sa.String):
        return "TEXT", "has no length"
    if isinstance(t, (sa.LargeBinary, sa.BINARY, sa.VARBINARY)) or _class_name(t) == "RAW":
        return "BLOB", "has no length"
    if isinstance(t, sa.Time):
        return "TIMESTAMP", "is a time of day (the contract has no time type)"
    if isinstance(t, sa.Interval) or name == "INTERVAL":
        return "VARCHAR(40)", "is an interval (the contract has no interval type)"
    if isinstance(t, sa.JSON):
        return "TEXT", "is JSON (the contract has no JSON type)"
    if name == "BIT":
        return "BIT", "is a bit string longer than one bit"
    if isinstance(t, sa.types.NullType):
        return "TEXT", "is a type SQLAlchemy does not know"
    return "TEXT", "has no counterpart in the contract"
