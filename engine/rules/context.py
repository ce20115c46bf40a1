"""What the rules read: the model, its graph, and a few derived facts."""

from __future__ import annotations

from dataclasses import dataclass

from engine.graph import MappingGraph
from engine.keys import DistributionKey, distribution_key
from engine.model.schema import Mapping, Model, Server, Table


@dataclass
class Context:
    model: Model
    graph: MappingGraph

    def dkey(self, mapping: Mapping) -> DistributionKey | None:
        return distribution_key(self.model, mapping)

    def server_of(self, table: Table) -> Server | None:
        return self.model.server(table.server)

    def dbms_of(self, table: Table) -> str | None:
        server = self.server_of(table)
        return server.dbms if server else None

    def feeding(self, mapping: Mapping, target_columns: tuple[str, ...] | list[str]) -> set[str]:
        """Source columns whose values flow into any of `target_columns`, named as the source table names
        them (an expression's SQL may write `id` for `ID`)."""
        found: set[str] = set()
        for column in target_columns:
            found |= self.graph.feeding_columns(mapping.id, column)
        source = self.model.table(mapping.source)
        if source is None:
            return found
        actual = {name.lower(): name for name in source.column_names()}
        return {name if name in actual.values() else actual.get(name.lower(), name) for name in found}
