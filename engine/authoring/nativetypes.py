"""Converting a table's column types to its server's DBMS: what TY006 suggests, made as one edit.

The table of which types belong to which DBMS, and what each DBMS holds instead, is TY006's
(`engine.rules.nativetypes.OWN_TYPES`): the rule and the conversion cannot disagree. A column whose type
has no exact equal on the server (Oracle's NUMBER without a precision on DB2, Informix's SET elsewhere) is
left as it is, and TY006 goes on saying why. Replication definitions are history and keep their types:
SC001 then asks for a new version where a type changed in more than a synonym (seed 002).
"""

from __future__ import annotations

from typing import Any

from engine.authoring.errors import AuthoringError, evolve_checked
from engine.edits import Edit, replace
from engine.model.schema import Model
from engine.rules.nativetypes import adds_identity, native
from engine.rules.nativetypes import native_type as native_type

__all__ = ["convert_table_types", "dbms_of", "native_type"]


def dbms_of(model: Model, table_key: str) -> str:
    """The DBMS of the server of table `table_key`; raises `AuthoringError` for an unknown table or server."""
    table = model.table(table_key)
    if table is None:
        raise AuthoringError(f"no table {table_key!r}")
    server = model.server(table.server)
    if server is None:
        raise AuthoringError(f"{table_key}: no server {table.server!r}")
    return server.dbms


def convert_table_types(model: Model, table_key: str) -> list[Edit]:
    """The edit that gives each column of `table_key` whose type is another DBMS's (TY006) the native type of
    its server's DBMS (a serial also an identity, which numbers it there); [] when none has one to take."""
    dbms = dbms_of(model, table_key)
    table = model.table(table_key)
    assert table is not None
    columns: list[dict[str, Any]] = []
    changed = False
    for column in table.columns:
        data = column.model_dump(mode="python")
        instead = native(column.sql_type, dbms)
        if instead is not None and instead.type is not None:
            data["type"] = instead.type
            if adds_identity(column, instead):
                data["identity"] = {}
            changed = True
        columns.append(data)
    if not changed:
        return []
    return [replace(model, "table", table, evolve_checked(table, columns=columns))]
