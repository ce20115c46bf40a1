"""FK: foreign keys across servers: FK001 (declared in `catalog.fk`).

FK001 reads, besides the mapping's own tables, the tables its target's foreign keys reference and the
mappings into them: the validator re-checks a mapping when one of those changes (`engine.rules.validate`).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.schema import Mapping, Table
from engine.rules.context import Context
from engine.rules.findings import Finding, Location
from engine.rules.registry import emits
from engine.rules.tb import fk_label, referenced_key


def source_servers_into(ctx: Context, table_key: str) -> set[str]:
    """Servers of the (known) source tables of the mappings that land rows in `table_key`."""
    found: set[str] = set()
    for mapping_id in ctx.graph.mappings_writing(table_key):
        ends = ctx.graph.endpoints(mapping_id)
        server = ctx.graph.server_of(ends[0]) if ends else None
        if server is not None:
            found.add(server)
    return found


@emits("FK001")
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
