"""How rows are keyed, by input and semantics alike: the columns that identify a row, and a value as a dict key.

Below the semantics (`engine.run.semantics`), so that the input (snapshots' key checks, Debezium's old rows
of a `default` replica identity) and the run share one definition.
"""

from __future__ import annotations

import json
from typing import Any

from engine.model.schema import Model, Table


def identity_columns(table: Table) -> tuple[str, ...]:
    """The columns that identify a row of the table at its own site: the primary key, else the first
    unique index, else every column. A `default` capture (`replica`) keeps the old values of these."""
    if table.primary_key:
        return tuple(table.primary_key)
    if table.unique_indexes:
        return tuple(table.unique_indexes[0].columns)
    return tuple(table.column_names())


def identity_of(model: Model, server_id: str) -> str:
    """The server's `replica_identity` ("full" for a server the model lacks)."""
    server = model.server(server_id)
    return server.replica_identity if server is not None else "full"


NAN = float("nan")
"""The one NaN every key holds: NaN equals NaN in a key (as `values.same_value`, Spark's `<=>`, its joins and
its grouping have it), but two NaN floats are neither equal nor, in Python 3.10+, of one hash, so a dict
finds one NaN only by itself."""


def hashable(value: Any) -> Any:
    """A value as a dict key: JSON values (UDT, complex) as canonical text, NaN as `NAN`, the rest as they
    are (`-0.0` finds `0.0`: equal floats share a hash)."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, float) and value != value:
        return NAN
    return value
