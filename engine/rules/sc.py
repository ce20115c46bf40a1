"""SC: a table against its replication definitions (seed 002): SC001, SC002 (declared in `catalog.sc`)."""

from __future__ import annotations

from collections.abc import Iterator

from engine.core.types import parse_type
from engine.model.schema import Table
from engine.rules.findings import Finding, Location
from engine.rules.registry import emits


@emits("SC001", "SC002")
def replication_definitions(table: Table) -> Iterator[Finding]:
    """SC002 (versions and names), then SC001 (the table against its latest definition; types are compared
    with their synonyms folded, `SqlType.comparable`: NUMERIC(10,2) is DECIMAL(10,2))."""
    defs = table.replication_definitions
    if not defs:
        return
    for before, after in zip(defs, defs[1:], strict=False):
        if after.version <= before.version:
            yield Finding("SC002", f"replication definition versions must increase: {after.version} follows "
                          f"{before.version}", Location(table=table.key))
    for d in defs:
        seen: set[str] = set()
        for listed in d.columns:
            if listed.name in seen:
                yield Finding("SC002", f"replication definition version {d.version} lists {listed.name} twice",
                              Location(table=table.key, column=listed.name))
            seen.add(listed.name)
    latest = table.latest_definition()
    assert latest is not None
    in_def = {c.name: c for c in latest.columns}
    for col in table.columns:
        spec = in_def.get(col.name)
        if spec is None:
            yield Finding("SC001", f"{col.name} is in the table but not in replication definition version "
                          f"{latest.version}: its values would not replicate (data loss)",
                          Location(table=table.key, column=col.name))
        elif spec.type is not None and parse_type(spec.type).comparable() != col.sql_type.comparable():
            yield Finding("SC001", f"{col.name} is {col.sql_type} in the table but {parse_type(spec.type)} in "
                          f"replication definition version {latest.version}",
                          Location(table=table.key, column=col.name))
    for name in in_def:
        if table.column(name) is None:
            yield Finding("SC001", f"{name} is in replication definition version {latest.version} but no longer in "
                          "the table: replicating it would fail", Location(table=table.key, column=name))
