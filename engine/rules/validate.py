"""Whole-model and incremental validation.

Findings are kept per *scope*: one mapping, one table, one table's conflict
settings, or the model's table hierarchies. Each scope reads a known part of
the model, so after an edit the graph says which scopes can have changed and
only those are checked again. A property test holds this equal to a full
validation after every edit.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.edits import NOT_VALIDATED, Edit
from engine.graph import MappingGraph
from engine.model.schema import Model
from engine.rules.conflicts import check_conflicts
from engine.rules.context import Context
from engine.rules.findings import Finding
from engine.rules.mappings import check_mapping
from engine.rules.tables import check_table, hierarchy_rules

Scope = tuple[str, str]  # ("mapping", id) | ("table", key) | ("conflicts", table) | ("model", "")
MODEL_SCOPE: Scope = ("model", "")


def validate(model: Model) -> list[Finding]:
    """Every finding of the model, errors first."""
    return Validator(model).findings()


class Validator:
    """Holds a model's findings and keeps them current as edits are applied."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.graph = MappingGraph(model)
        self._ctx = Context(model, self.graph)
        self._by_scope: dict[Scope, list[Finding]] = {}
        for scope in self._all_scopes():
            self._check(scope)

    def findings(self) -> list[Finding]:
        out = [f for fs in self._by_scope.values() for f in fs]
        return sorted(out, key=lambda f: (f.location.mapping or "", f.location.table or "", *f.sort_key()))

    def apply(self, edit: Edit) -> set[Scope]:
        """Apply `edit` to the model and re-check what it touches; returns the scopes checked."""
        scopes = self.affected(edit)
        edit.apply(self.model)
        self._refresh_graph(edit)
        scopes |= self.affected(edit)
        for scope in scopes:
            if self._exists(scope):
                self._check(scope)
            else:
                self._by_scope.pop(scope, None)
        return scopes

    def affected(self, edit: Edit) -> set[Scope]:
        """Scopes whose findings may depend on what `edit` touches, by the graph as it is now."""
        g = self.graph
        scopes: set[Scope] = set()
        if edit.kind == "settings":
            if edit.key in NOT_VALIDATED:
                return set()
            return {("mapping", m.id) for m in self.model.mappings}
        for key in edit.touched():
            if edit.kind == "mapping":
                scopes.add(("mapping", key))
                scopes |= {("mapping", m) for m in g.mappings_reversing(key)}
                ends = g.endpoints(key)
                for table in ends or ():
                    scopes.add(("conflicts", table))
                    scopes |= {("mapping", m) for m in g.mappings_writing(table)}
            elif edit.kind == "table":
                scopes |= {("table", key), ("conflicts", key), MODEL_SCOPE}
                scopes |= {("table", child) for child in g.children(key)}
                scopes |= {("mapping", m) for m in g.mappings_touching(key)}
                # a table appearing or going changes who writes the tables at the other end of its mappings
                # (masters, writers: CR006, CR007, TY003)
                for other in {t for m in g.mappings_touching(key) for t in g.endpoints(m) or ()}:
                    scopes.add(("conflicts", other))
                    scopes |= {("mapping", m) for m in g.mappings_writing(other)}
                if (edit.before is None) != (edit.after is None) or len(edit.touched()) > 1:
                    scopes |= self._dangling_on(key.partition(".")[0])
            elif edit.kind == "server":
                scopes |= {("mapping", m) for m in g.mappings_on_servers([key])}
                scopes |= {("table", t.key) for t in self.model.tables if t.server == key}  # TB003 reads the DBMS
                scopes |= {("conflicts", t) for t in g.tables_written_from(key)}
                scopes |= self._dangling_on(key)
            elif edit.kind == "conflicts":
                scopes |= {("conflicts", key), MODEL_SCOPE}
        return scopes

    def _dangling_on(self, server_id: str) -> set[Scope]:
        """Mappings naming an unknown table on `server_id`: their MP002 lists the server's tables."""
        prefix = f"{server_id}."
        return {("mapping", m.id) for m in self.model.mappings
                if any(end.startswith(prefix) and self.model.table(end) is None for end in (m.source, m.target))}

    def _refresh_graph(self, edit: Edit) -> None:
        for entity in (edit.before, edit.after):
            if entity is None:
                continue
            if edit.kind == "mapping":
                self.graph.refresh_mapping(entity.id, self.model.mapping(entity.id))
            elif edit.kind == "table":
                self.graph.refresh_table(entity.key, self.model.table(entity.key))
            elif edit.kind == "server":
                self.graph.refresh_server(entity.id, self.model.server(entity.id) is not None)

    def _exists(self, scope: Scope) -> bool:
        """Whether the model has what `scope` checks (by the model's index: not a walk over every entity)."""
        kind, key = scope
        if kind == "mapping":
            return self.model.mapping(key) is not None
        if kind == "table":
            return self.model.table(key) is not None
        if kind == "conflicts":
            return self.model.conflicts_for(key) is not None
        return True

    def _all_scopes(self) -> Iterable[Scope]:
        yield from (("mapping", m.id) for m in self.model.mappings)
        yield from (("table", t.key) for t in self.model.tables)
        yield from (("conflicts", c.table) for c in self.model.conflicts)
        yield MODEL_SCOPE

    def _check(self, scope: Scope) -> None:
        kind, key = scope
        found: list[Finding]
        if kind == "mapping":
            mapping = self.model.mapping(key)
            found = check_mapping(self._ctx, mapping) if mapping else []
        elif kind == "table":
            table = self.model.table(key)
            found = check_table(self.model, table) if table else []
        elif kind == "conflicts":
            entry = self.model.conflicts_for(key)
            found = check_conflicts(self._ctx, entry) if entry else []
        else:
            found = hierarchy_rules(self.model)
        self._by_scope[scope] = found
