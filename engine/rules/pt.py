"""PT: partitioned tables as replication sources: PT001 (declared in `catalog.pt`)."""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.schema import Mapping, Table
from engine.rules.context import Context
from engine.rules.findings import Finding, Location
from engine.rules.registry import emits


@emits("PT001")
def partitioned_source(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """PT001 (a warning): a partitioned PostgreSQL source publishes with publish_via_partition_root, else its
    changes are published under its partitions' names, tables the target does not have."""
    part = source.partitioning
    if part is None or part.publish_via_partition_root or ctx.dbms_of(source) != "postgresql":
        return
    names = ", ".join(p.name for p in part.partitions[:5]) + (", ..." if len(part.partitions) > 5 else "")
    yield Finding("PT001", f"{source.key} is partitioned and does not publish via its partition root: its "
                  f"changes would be published under its partitions' names{f' ({names})' if names else ''}, "
                  "which the target does not have; set publish_via_partition_root",
                  Location(mapping=mapping.id, table=source.key))
