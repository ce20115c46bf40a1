"""Mapping rules on what the tables' database features let a mapping do: write a generated column (MP007),
land child rows whose parents come from nowhere (FK001), read a partitioned table published under its
partitions' names (PT001).

FK001 reads, besides the mapping's own tables, the tables its target's foreign keys reference and the
mappings into them: the validator re-checks a mapping when one of those changes (`engine.rules.validate`).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.schema import Mapping, Table
from engine.rules.constraints import fk_label, referenced_key
from engine.rules.context import Context
from engine.rules.findings import Finding, Location


def check_landing(ctx: Context, mapping: Mapping, source: Table, target: Table) -> list[Finding]:
    return [*generated_targets(mapping, target), *parents_replicated(ctx, mapping, source, target),
            *partitioned_source(ctx, mapping, source)]


def generated_targets(mapping: Mapping, target: Table) -> Iterator[Finding]:
    """MP007: no column map writes a generated column of the target: the database computes its value and
    refuses one given to it."""
    for name in mapping.columns:
        column = target.column(name)
        if column is not None and column.generated is not None:
            yield Finding("MP007", f"{name} is a generated column of {target.key}: the database computes it and "
                          "refuses a written value; remove its column map",
                          Location(mapping=mapping.id, table=target.key, column=name))


def source_servers_into(ctx: Context, table_key: str) -> set[str]:
    """Servers of the (known) source tables of the mappings that land rows in `table_key`."""
    found: set[str] = set()
    for mapping_id in ctx.graph.mappings_writing(table_key):
        ends = ctx.graph.endpoints(mapping_id)
        server = ctx.graph.server_of(ends[0]) if ends else None
        if server is not None:
            found.add(server)
    return found


def parents_replicated(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """FK001 (a warning), once per foreign key of the target: the table it references (on the target's
    server) is fed by some mapping from the source's server, so a child row does not arrive without the
    mapping that brings its parent. A mapping within one server needs none (the parent lives beside the
    source); an unknown referenced table is TB006's."""
    if source.server == target.server:
        return
    for fk in target.foreign_keys:
        parent = referenced_key(target, fk)
        if ctx.model.table(parent) is None or source.server in source_servers_into(ctx, parent):
            continue
        yield Finding("FK001", f"{fk_label(target, fk)} references {parent}, but no mapping from server "
                      f"{source.server} lands rows in {parent}: rows this mapping brings may arrive without their "
                      "parent (the apply fails, or leaves orphans); replicate the parent table too",
                      Location(mapping=mapping.id, table=target.key, index=fk.name))


def partitioned_source(ctx: Context, mapping: Mapping, source: Table) -> Iterator[Finding]:
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
