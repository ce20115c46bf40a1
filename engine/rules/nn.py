"""NN: protected replication with Oracle or DB2 (seed 000): NN001 (declared in `catalog.nn`)."""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.schema import Mapping, Table
from engine.rules.context import Context
from engine.rules.dk import MappedKey
from engine.rules.findings import Finding
from engine.rules.mp import at
from engine.rules.registry import emits

NOT_NULL_KEY_DBMS = ("oracle", "db2")


@emits("NN001")
def protected_not_null(ctx: Context, mapping: Mapping, source: Table, target: Table,
                       key: MappedKey | None) -> Iterator[Finding]:
    """NN001: in protected replication with Oracle or DB2, each side needs a NOT NULL key column: on the
    target one of the key's, on the source one of those feeding them. Read only when the key is complete."""
    if key is None or not key.complete or not ctx.model.protected:
        return
    if not ({ctx.dbms_of(source), ctx.dbms_of(target)} & set(NOT_NULL_KEY_DBMS)):
        return
    sides = []
    if not any((c := target.column(n)) is not None and not c.nullable for n in key.columns):
        sides.append(f"target {target.key} ({', '.join(key.columns)})")
    if key.feeding and not any((c := source.column(n)) is not None and not c.nullable for n in key.feeding):
        sides.append(f"source {source.key} ({', '.join(sorted(key.feeding))})")
    if sides:
        yield Finding("NN001", "protected replication with Oracle or DB2 needs a NOT NULL distribution-key "
                      f"column on each server; none on {' and '.join(sides)}", at(mapping, target))
