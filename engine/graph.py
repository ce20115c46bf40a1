"""The mapping graph: servers, tables, columns, mappings and method nodes (networkx).

Nodes are tuples whose first item is the kind:
`("server", id)`, `("table", "srv.T")`, `("col", "srv.T", name)`,
`("mapping", id)` and `("method", mapping_id, target_column, path)`.
An `expression` method reads the columns its SQL names (`engine.sql.lineage`).
Edges carry a `kind`: `on` (table to server), `of` (column to table),
`reads` (source table to mapping), `writes` (mapping to target table),
`reverse` (mapping to the mapping that carries data back) and `flow`
(source column to method to ... to target column, keyed by mapping id).

The graph answers what the rules and the incremental validator need: which
source columns feed a target column, which mappings and tables an edit
touches, how many masters write a table, and whether a key survives a
mapping followed by its reverse (`engine.reversibility`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine.model.methods import Column, Expression
from engine.model.schema import Mapping, Model, Table
from engine.sql import parse_expression

if TYPE_CHECKING:
    import networkx as nx

Node = tuple[str, ...]


def table_node(key: str) -> Node:
    return ("table", key)


def mapping_node(mapping_id: str) -> Node:
    return ("mapping", mapping_id)


def col_node(table_key: str, column: str) -> Node:
    return ("col", table_key, column)


def _columns_read(method: object) -> tuple[str, ...]:
    """The source columns one method node reads itself: a column's input, the columns an expression's
    SQL names (from its parsed tree, as written: SQL names are case-insensitive)."""
    if isinstance(method, Column):
        return (method.input,)
    if isinstance(method, Expression):
        return parse_expression(method.sql).columns
    return ()


class MappingGraph:
    """A graph kept in step with a model: `refresh_*` after an entity is replaced."""

    def __init__(self, model: Model) -> None:
        import networkx as nx  # loaded by the first graph: a designer paints a large model before it checks it

        self.g: nx.MultiDiGraph = nx.MultiDiGraph()
        self._method_nodes: dict[str, list[Node]] = {}
        for server in model.servers:
            self.g.add_node(("server", server.id))
        for table in model.tables:
            self._add_table(table)
        for mapping in model.mappings:
            self._add_mapping(mapping)

    # --- keeping in step ---------------------------------------------------

    def refresh_table(self, key: str, table: Table | None) -> None:
        """Replace what the graph knows of table `key` (None: it was removed)."""
        node = table_node(key)
        if node in self.g:
            for col, _, _kind in list(self.g.in_edges(node, data="kind")):
                if _kind == "of":
                    self.g.remove_edge(col, node)
            for _, other, kind in list(self.g.out_edges(node, data="kind")):
                if kind in ("on", "parent"):
                    self.g.remove_edge(node, other)
            self.g.nodes[node]["defined"] = False
        if table is not None:
            self._add_table(table)

    def refresh_mapping(self, mapping_id: str, mapping: Mapping | None) -> None:
        """Replace mapping `mapping_id`'s subgraph (None: it was removed).

        Links from other mappings that name it as their reverse stay: they
        belong to those mappings.
        """
        node = mapping_node(mapping_id)
        if node in self.g:
            # every flow edge touches one of the mapping's method nodes, so they go with them
            self.g.remove_nodes_from(self._method_nodes.pop(mapping_id, []))
            self.g.remove_edges_from(list(self.g.out_edges(node, keys=True)))
            self.g.remove_edges_from([(u, v, k) for u, v, k, kind in self.g.in_edges(node, keys=True, data="kind")
                                      if kind == "reads"])
            self.g.nodes[node].update(defined=False, source=None, target=None, reverse=None)
        if mapping is not None:
            self._add_mapping(mapping)

    def refresh_server(self, server_id: str, present: bool) -> None:
        node = ("server", server_id)
        if present:
            self.g.add_node(node)

    def _add_table(self, table: Table) -> None:
        node = table_node(table.key)
        self.g.add_node(node, defined=True, server=table.server)
        self.g.add_edge(node, ("server", table.server), kind="on")
        if table.parent:
            self.g.add_edge(node, table_node(f"{table.server}.{table.parent}"), kind="parent")
        for col in table.columns:
            self.g.add_edge(col_node(table.key, col.name), node, kind="of")

    def _add_mapping(self, mapping: Mapping) -> None:
        node = mapping_node(mapping.id)
        self.g.add_node(node, defined=True, source=mapping.source, target=mapping.target, reverse=mapping.reverse)
        self.g.add_edge(table_node(mapping.source), node, key=mapping.id, kind="reads")
        self.g.add_edge(node, table_node(mapping.target), key=mapping.id, kind="writes")
        if mapping.reverse:
            self.g.add_edge(node, mapping_node(mapping.reverse), key=mapping.id, kind="reverse")
        made: list[Node] = []
        for target_col, method in mapping.columns.items():
            sink = col_node(mapping.target, target_col)
            parents: dict[tuple[int, ...], Node] = {}
            for path, m in method.walk():
                here: Node = ("method", mapping.id, target_col, *map(str, path))
                made.append(here)
                self.g.add_node(here, method=m.method)
                downstream = parents[path[:-1]] if path else sink
                self.g.add_edge(here, downstream, key=mapping.id, kind="flow")
                parents[path] = here
                for name in _columns_read(m):
                    self.g.add_edge(col_node(mapping.source, name), here, key=mapping.id, kind="flow")
        self._method_nodes[mapping.id] = made

    # --- questions ------------------------------------------------------------

    def feeding_columns(self, mapping_id: str, target_column: str) -> set[str]:
        """Source columns whose values flow into `target_column` through mapping `mapping_id`."""
        node = self.g.nodes.get(mapping_node(mapping_id))
        if node is None or not node.get("defined"):
            return set()
        found: set[str] = set()
        stack = [col_node(node["target"], target_column)]
        while stack:
            here = stack.pop()
            for upstream, _, key in self.g.in_edges(here, keys=True):
                if key != mapping_id:
                    continue
                if upstream[0] == "col":
                    found.add(upstream[2])
                else:
                    stack.append(upstream)
        return found

    def mappings_reading(self, table_key: str) -> list[str]:
        node = table_node(table_key)
        if node not in self.g:
            return []
        return sorted(k for _, _, k, kind in self.g.out_edges(node, keys=True, data="kind") if kind == "reads")

    def mappings_writing(self, table_key: str) -> list[str]:
        node = table_node(table_key)
        if node not in self.g:
            return []
        return sorted(k for _, _, k, kind in self.g.in_edges(node, keys=True, data="kind") if kind == "writes")

    def mappings_touching(self, table_key: str) -> set[str]:
        return set(self.mappings_reading(table_key)) | set(self.mappings_writing(table_key))

    def mappings_reversing(self, mapping_id: str) -> list[str]:
        """Mappings that name `mapping_id` as their reverse."""
        node = mapping_node(mapping_id)
        if node not in self.g:
            return []
        return sorted(k for _, _, k, kind in self.g.in_edges(node, keys=True, data="kind") if kind == "reverse")

    def children(self, table_key: str) -> list[str]:
        """Tables whose `parent` is this table."""
        node = table_node(table_key)
        if node not in self.g:
            return []
        return sorted(t[1] for t, _, kind in self.g.in_edges(node, data="kind") if kind == "parent")

    def endpoints(self, mapping_id: str) -> tuple[str, str] | None:
        node = self.g.nodes.get(mapping_node(mapping_id))
        return (node["source"], node["target"]) if node is not None and node.get("defined") else None

    def tables_on(self, server_id: str) -> list[str]:
        node = ("server", server_id)
        if node not in self.g:
            return []
        return sorted(t[1] for t, _, kind in self.g.in_edges(node, data="kind") if kind == "on")

    def server_of(self, table_key: str) -> str | None:
        node = self.g.nodes.get(table_node(table_key))
        return node.get("server") if node and node.get("defined") else None

    def masters(self, table_key: str) -> set[str]:
        """Servers that write the table: the source servers of mappings into it, plus its own
        server if any mapping reads from it (CR006, TY003). A mapping whose source or target is not
        a table of the model (MP002) counts for neither: it gets no other finding, and gives none."""
        found: set[str] = set()
        for mapping_id in self.mappings_writing(table_key):
            source = self.endpoints(mapping_id)
            server = self.server_of(source[0]) if source else None
            if server is not None:
                found.add(server)
        own = self.server_of(table_key)
        if own is not None and any((ends := self.endpoints(m)) and self.server_of(ends[1]) is not None
                                   for m in self.mappings_reading(table_key)):
            found.add(own)
        return found

    def columns_touching(self, table_key: str, column: str) -> set[str]:
        """Mappings in which a column is read or written: what an edit of that column touches."""
        node = col_node(table_key, column)
        if node not in self.g:
            return set()
        keys = {k for *_, k, kind in self.g.in_edges(node, keys=True, data="kind") if kind == "flow"}
        keys |= {k for *_, k, kind in self.g.out_edges(node, keys=True, data="kind") if kind == "flow"}
        return keys

    def writers(self, table_key: str) -> set[str]:
        """Servers that write to the table: its own and the source servers of mappings into it (CR007)."""
        found = {s for m in self.mappings_writing(table_key)
                 if (ep := self.endpoints(m)) and (s := self.server_of(ep[0])) is not None}
        own = self.server_of(table_key)
        return found | ({own} if own else set())

    def tables_written_from(self, server_id: str) -> set[str]:
        """Tables on the server and the targets of mappings that read the server's tables."""
        found = set(self.tables_on(server_id))
        for table_key in list(found):
            for mapping_id in self.mappings_reading(table_key):
                ep = self.endpoints(mapping_id)
                if ep:
                    found.add(ep[1])
        return found

    def mappings_on_servers(self, server_ids: Iterable[str]) -> set[str]:
        return {m for s in server_ids for t in self.tables_on(s) for m in self.mappings_touching(t)}
