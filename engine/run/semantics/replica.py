"""What a captured old row holds, by its server's `replica_identity` (docs/contract.md §5.5, issue 36).

A server whose captures are `full` (PostgreSQL's REPLICA IDENTITY FULL) gives every column's old value. One
that is `default` (REPLICA IDENTITY DEFAULT, the database's own default) gives only the key columns': the
other old values of its updates and deletes are unknown, not NULL. Detection compares no unknown old value
(as for a `compare_old: false` column, for the changes of that server alone), so a Debezium delete whose
before image holds only the id is no conflict with a row whose other columns are set.

A mapping's target column is unknown when its method reads a source column outside the source table's key
(its primary key, else its first unique index, as `input.keys.identity_columns` has it); a column computed from
key columns only, a constant or a system value is known.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.model.methods import Column, Expression, Method
from engine.model.schema import Model, Table
from engine.run.input.keys import identity_columns, identity_of
from engine.sql import parse_expression

REPLICA_IDENTITIES = ("full", "default")


def unknown_old_columns(model: Model, source: Table, columns: Mapping[str, Method]) -> frozenset[str]:
    """The target columns (of a mapping's `columns`) whose old value is unknown in a change captured at
    `source`'s server: none when that server is `full`; else those whose method reads a non-key column."""
    if identity_of(model, source.server) != "default":
        return frozenset()
    keys = {c.casefold() for c in identity_columns(source)}
    return frozenset(target for target, method in columns.items()
                     if any(name.casefold() not in keys for name in _columns_read(method)))


def _columns_read(method: Method) -> list[str]:
    """The source columns a method tree reads: its columns' inputs and the columns its expressions name."""
    out: list[str] = []
    for _, node in method.walk():
        if isinstance(node, Column):
            out.append(node.input)
        elif isinstance(node, Expression):
            out.extend(parse_expression(node.sql).columns)
    return out


def with_replica_identity(model: Model, overrides: Mapping[str, str]) -> Model:
    """The model with these servers' `replica_identity` replaced (`mapwright run --replica-identity`);
    `ValueError` (one line) for a server the model lacks or a value other than full or default."""
    known = {s.id for s in model.servers}
    for server_id, value in overrides.items():
        if server_id not in known:
            raise ValueError(f"--replica-identity: no server {server_id!r} in the model "
                             f"(servers: {', '.join(sorted(known))})")
        if value not in REPLICA_IDENTITIES:
            raise ValueError(f"--replica-identity {server_id}={value}: expected full or default")
    if not overrides:
        return model
    servers = [s.model_copy(update={"replica_identity": overrides[s.id]}) if s.id in overrides else s
               for s in model.servers]
    copy = model.model_copy(update={"servers": servers})
    copy.drop_index()  # the index was copied with the rest: it names the old servers
    return copy
