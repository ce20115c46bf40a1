"""TY006: a column's type is another DBMS's own type, not one of its server's, and the type to use instead.

The model's generic types (CHAR, VARCHAR, NCHAR, NVARCHAR, the integers, DECIMAL, NUMERIC, REAL, FLOAT,
DOUBLE, DATE, TIMESTAMP, BIT, BINARY, VARBINARY, BLOB, CLOB, UUID, ARRAY, UDTs) are SQL's: the DDL writer
spells each in its server's dialect. The types in `OWN_TYPES` belong to some DBMSs only; on any other the
DDL silently writes something else (a `VARCHAR2` on PostgreSQL is a `VARCHAR`), so the rule names whose type
it is and what to write on the server instead. Only clear-cut cases are listed: a type that some release of
a DBMS has counts as that DBMS's (Oracle 23's and DB2 11.1's BOOLEAN). SQLite takes any type name and
`other` is unknown: neither is checked. The elements of a complex type are not checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine.core.types import SqlType, TypeError_, parse_type
from engine.model.schema import ColumnDef, Model, Table
from engine.rules.findings import Finding, Location
from engine.rules.registry import emits

NAMES = {"oracle": "Oracle", "db2": "DB2", "mssql": "SQL Server", "informix": "Informix", "ase": "ASE",
         "postgresql": "PostgreSQL", "mysql": "MySQL", "sqlite": "SQLite"}
UNCHECKED = ("sqlite", "other")  # SQLite takes any type name; `other` is unknown
# the most digits a DECIMAL holds on each DBMS (a NUMBER(p,s) wider than that has no native equal there)
DECIMAL_DIGITS = {"db2": 31, "informix": 32, "mssql": 38, "ase": 38, "mysql": 65, "postgresql": 1000}
SERIALS = {"SERIAL": "INTEGER", "SERIAL8": "BIGINT"}


@dataclass(frozen=True)
class Native:
    """What a server should hold instead of another DBMS's type: `type` (None when it has no exact equal,
    and `why` says what to do), and whether the column then needs an identity to keep its numbering."""

    type: str | None
    why: str = ""
    identity: bool = False


def _decimal(t: SqlType, dbms: str) -> Native:
    """Oracle's NUMBER: a DECIMAL of its precision where the DBMS holds that many digits; without a
    precision it is a floating decimal of up to 38 digits, which only PostgreSQL's unbounded DECIMAL holds."""
    if t.precision is None:
        return Native("DECIMAL") if dbms == "postgresql" else Native(None, "choose a DECIMAL(p,s) that holds "
                                                                      "its values")
    most = DECIMAL_DIGITS.get(dbms)
    if most is not None and t.precision > most:
        return Native(None, f"a DECIMAL holds at most {most} digits there")
    return Native(f"DECIMAL({t.precision},{t.scale or 0})")


def _serial(t: SqlType, dbms: str) -> Native:
    return Native(SERIALS[t.name], identity=True)


def _character_lob(t: SqlType, dbms: str) -> Native:
    return Native("CLOB" if dbms in ("oracle", "db2") else "TEXT")


def _fixed(native: str) -> Callable[[SqlType, str], Native]:
    return lambda t, dbms: Native(native)


def _none(why: str) -> Callable[[SqlType, str], Native]:
    return lambda t, dbms: Native(None, why)


_COMPLEX = _none("the DDL writes it as text; model it otherwise")

# type name -> (the DBMSs whose own type it is, what any other DBMS holds instead): the one table of TY006
OWN_TYPES: dict[str, tuple[frozenset[str], Callable[[SqlType, str], Native]]] = {
    "VARCHAR2": (frozenset({"oracle"}), lambda t, dbms: Native(f"VARCHAR({t.length})")),
    "NUMBER": (frozenset({"oracle"}), _decimal),
    "RAW": (frozenset({"oracle"}), lambda t, dbms: Native(f"VARBINARY({t.length})")),
    "LONG": (frozenset({"oracle"}), _character_lob),
    "LONG RAW": (frozenset({"oracle"}), _fixed("BLOB")),
    # MySQL's SERIAL is another type (BIGINT UNSIGNED AUTO_INCREMENT); elsewhere an identity numbers the column
    "SERIAL": (frozenset({"informix", "postgresql"}), _serial),
    "SERIAL8": (frozenset({"informix", "postgresql"}), _serial),  # PostgreSQL: BIGSERIAL's other name
    "BYTE": (frozenset({"informix"}), _fixed("BLOB")),
    "TEXT": (frozenset({"informix", "postgresql", "mysql", "mssql", "ase"}), _character_lob),
    "DATETIME": (frozenset({"mssql", "mysql", "ase", "informix"}), _fixed("TIMESTAMP")),
    "BOOLEAN": (frozenset({"oracle", "db2", "informix", "postgresql", "mysql"}), _fixed("BIT")),
    "LIST": (frozenset({"informix"}), _COMPLEX),
    "SET": (frozenset({"informix"}), _COMPLEX),
    "MULTISET": (frozenset({"informix"}), _COMPLEX),
    "ROW": (frozenset({"informix"}), _COMPLEX),
}


def native(t: SqlType, dbms: str) -> Native | None:
    """What a `dbms` server holds instead of `t`, or None when `t` is a type of `dbms` (or is not checked)."""
    own = OWN_TYPES.get(t.name)
    if own is None or dbms in UNCHECKED or dbms in own[0]:
        return None
    return own[1](t, dbms)


def native_type(type_str: str, dbms: str) -> str | None:
    """The type string a `dbms` server holds instead of `type_str`; None when `type_str` is already a type of
    `dbms` (or `dbms` is not checked), has no exact equal there, or is no type string at all."""
    try:
        found = native(parse_type(type_str), dbms)
    except TypeError_:
        return None
    return found.type if found else None


def owners(t: SqlType, dbms: str) -> str:
    """`Oracle's`, `Informix's and PostgreSQL's`; a type most DBMSs have is `not SQL Server's`."""
    names = sorted(NAMES[d] for d in OWN_TYPES[t.name][0])
    if len(names) > 2:
        return f"not {NAMES.get(dbms, dbms)}'s"
    return " and ".join(f"{n}'s" for n in names)


def adds_identity(column: ColumnDef, instead: Native) -> bool:
    """Whether converting `column` gives it an identity: a serial's numbering, where nothing else sets it."""
    return instead.identity and column.identity is None and column.default is None and column.generated is None


@emits("TY006")
def native_types(model: Model, table: Table) -> Iterator[Finding]:
    """TY006 for each column whose type is another DBMS's own type (`OWN_TYPES`), with what to use instead."""
    server = model.server(table.server)
    dbms = server.dbms if server else "other"
    for column in table.columns:
        t = column.sql_type
        instead = native(t, dbms)
        if instead is None:
            continue
        if instead.type is None:
            advice = f"{dbms} has no exact equal: {instead.why}"
        else:
            advice = f"on {dbms} use {instead.type}{' with an identity' if adds_identity(column, instead) else ''}"
        yield Finding("TY006", f"{column.name}: {t} is {owners(t, dbms)}; {advice}",
                      Location(table=table.key, column=column.name))
