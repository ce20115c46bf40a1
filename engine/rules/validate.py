"""Whole-model and incremental validation.

Findings are kept per *scope*: one mapping, one table, one table's conflict
settings, or the model's table hierarchies. Each scope reads a known part of
the model, so after an edit the graph says which scopes can have changed and
only those are checked again; after a batch of edits (`Validator.apply_all`,
one undo step of the designer) the union of their scopes is checked once.
Property tests hold this equal to a full validation after every edit and
every batch.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.edits import NOT_VALIDATED, Edit, entity_key
from engine.graph import MappingGraph
from engine.model.schema import Model, Table
from engine.rules.context import Context
from engine.rules.cr import check_conflicts
from engine.rules.findings import Finding
from engine.rules.scopes import check_mapping, check_model, check_table
from engine.rules.tb import referenced_keys

Scope = tuple[str, str]  # ("mapping", id) | ("table", key) | ("conflicts", table) | ("model", "")
MODEL_SCOPE: Scope = ("model", "")


def validate(model: Model) -> list[Finding]:
    """Every finding of the model, errors first."""
    return Validator(model).findings()


class Validator:
    """Holds a model's findings and keeps them current as edits are applied."""

    def __init__(self, model: Model, check: bool = True) -> None:
        """`check=False` builds nothing and checks nothing yet (`findings` is empty until `check_all` or the
        first edit): the designer paints a large model first and checks it on another thread."""
        self.model = model
        self._by_scope: dict[Scope, list[Finding]] = {}
        self._indexed = False
        if check:
            self.check_all()

    def check_all(self) -> None:
        """Check every scope again. The findings are replaced at once when all are known, so a reader on
        another thread sees the old ones or the new, never a half."""
        if not self._indexed:
            self._index()
        self._by_scope = {scope: self._findings_of(scope) for scope in self._all_scopes()}

    def _index(self) -> None:
        """The mapping graph and what the rules look up in it."""
        self.graph = MappingGraph(self.model)
        self._ctx = Context(self.model, self.graph)
        # table key -> keys of the tables whose foreign keys reference it (TB006, FK001 read the parent)
        self._referrers: dict[str, set[str]] = {}
        for table in self.model.tables:
            self._refer(table, add=True)
        self._indexed = True

    def findings(self) -> list[Finding]:
        out = [f for fs in self._by_scope.values() for f in fs]
        return sorted(out, key=lambda f: (f.location.mapping or "", f.location.table or "", *f.sort_key()))

    def apply(self, edit: Edit) -> set[Scope]:
        """Apply `edit` to the model and re-check what it touches; returns the scopes checked."""
        return self.apply_all([edit])

    def apply_all(self, edits: Iterable[Edit]) -> set[Scope]:
        """Apply `edits` in order and re-check, once, the union of the scopes they touch; returns it.

        Each edit's scopes are read from the graph as it stands just before and just after that edit, as
        `apply` does, but no scope is checked until the last edit is in: a change of hundreds of edits (a
        server renamed with its tables) checks each mapping, table and hierarchy once, not once per edit.
        The findings are those of a full validation of the model as the edits leave it.
        """
        edits = list(edits)
        if not self._indexed:  # made with check=False: start from every finding
            self.check_all()
        scopes: set[Scope] = set()
        # the scans over every mapping (MP002's lists of a server's tables, a validated setting) are made once:
        # by the model before the first edit and after the last, not per edit
        servers = {server for edit in edits for server in self._dangling_servers(edit)}
        if servers:
            scopes |= self._dangling_on(servers)
        every_mapping = False
        for edit in edits:
            if edit.kind == "settings":
                every_mapping = every_mapping or edit.key not in NOT_VALIDATED
                edit.apply(self.model)
                continue
            scopes |= self._affected(edit)
            edit.apply(self.model)
            self._refresh_graph(edit)
            scopes |= self._affected(edit)
        if servers:
            scopes |= self._dangling_on(servers)
        if every_mapping:
            scopes |= {("mapping", m.id) for m in self.model.mappings}
        for scope in scopes:
            if self._exists(scope):
                self._check(scope)
            else:
                self._by_scope.pop(scope, None)
        return scopes

    def affected(self, edit: Edit) -> set[Scope]:
        """Scopes whose findings may depend on what `edit` touches, by the graph as it is now."""
        if edit.kind == "settings":
            if edit.key in NOT_VALIDATED:
                return set()
            return {("mapping", m.id) for m in self.model.mappings}
        servers = self._dangling_servers(edit)
        return self._affected(edit) | (self._dangling_on(servers) if servers else set())

    @staticmethod
    def _dangling_servers(edit: Edit) -> set[str]:
        """Servers whose list of tables `edit` may change, as MP002 shows it to mappings naming a table
        the server lacks: a table added, removed or renamed on it, or the server itself edited."""
        if edit.kind == "server":
            return edit.touched()
        if edit.kind == "table" and ((edit.before is None) != (edit.after is None) or len(edit.touched()) > 1):
            return {key.partition(".")[0] for key in edit.touched()}
        return set()

    def _affected(self, edit: Edit) -> set[Scope]:
        """`affected` but for the scans over every mapping (settings, `_dangling_on`): what the graph and the
        edit's own server's tables say."""
        g = self.graph
        scopes: set[Scope] = set()
        if edit.kind == "settings":
            return scopes
        for key in edit.touched():
            if edit.kind == "mapping":
                scopes.add(("mapping", key))
                scopes |= {("mapping", m) for m in g.mappings_reversing(key)}
                ends = g.endpoints(key)
                for table in ends or ():
                    scopes.add(("conflicts", table))
                    scopes |= {("mapping", m) for m in g.mappings_writing(table)}
                    scopes |= self._writing_children(table)  # FK001: who lands rows in a parent
            elif edit.kind == "table":
                scopes |= {("table", key), ("conflicts", key), MODEL_SCOPE}
                scopes |= {("table", child) for child in g.children(key)}
                scopes |= {("table", child) for child in self._referrers.get(key, ())}  # TB006 reads the parent
                scopes |= self._writing_children(key)  # FK001: whether the parent is a table
                scopes |= {("mapping", m) for m in g.mappings_touching(key)}
                # a table appearing or going changes who writes the tables at the other end of its mappings
                # (masters, writers: CR006, CR007, TY003)
                for other in {t for m in g.mappings_touching(key) for t in g.endpoints(m) or ()}:
                    scopes.add(("conflicts", other))
                    scopes |= {("mapping", m) for m in g.mappings_writing(other)}
                    scopes |= self._writing_children(other)  # FK001: the servers landing rows in a parent
            elif edit.kind == "server":
                scopes |= {("mapping", m) for m in g.mappings_on_servers([key])}
                scopes |= {("table", t.key) for t in self.model.tables if t.server == key}  # TB003, TY006 read the DBMS
                scopes |= {("conflicts", t) for t in g.tables_written_from(key)}
            elif edit.kind == "conflicts":
                scopes |= {("conflicts", key), MODEL_SCOPE}
        return scopes

    def _writing_children(self, parent: str) -> set[Scope]:
        """Mappings landing rows in a table whose foreign key references `parent`: FK001 reads which servers
        feed `parent`, and whether it is a table."""
        return {("mapping", m) for child in self._referrers.get(parent, ()) for m in self.graph.mappings_writing(child)}

    def _refer(self, table: Table, add: bool) -> None:
        """Add (or drop) `table` as a referrer of each table its foreign keys reference."""
        for parent in referenced_keys(table):
            if add:
                self._referrers.setdefault(parent, set()).add(table.key)
            elif parent in self._referrers:
                self._referrers[parent].discard(table.key)
                if not self._referrers[parent]:
                    del self._referrers[parent]

    def _dangling_on(self, server_ids: set[str]) -> set[Scope]:
        """Mappings naming an unknown table on one of `server_ids`: their MP002 lists the server's tables."""
        prefixes = tuple(f"{server_id}." for server_id in server_ids)
        return {("mapping", m.id) for m in self.model.mappings
                if any(end.startswith(prefixes) and self.model.table(end) is None for end in (m.source, m.target))}

    def _refresh_graph(self, edit: Edit) -> None:
        """Bring the graph in step with `edit`, just applied. What now stands at each key the edit touches is
        its `after` (keys are unique in a model) or nothing: read from the edit, not the model, whose index
        each edit drops (looking it up would rebuild the index once per edit of a batch)."""
        if edit.kind not in ("mapping", "table", "server"):
            return
        if edit.kind == "table":  # the old definition's references go before the new one's come
            for entity, add in ((edit.before, False), (edit.after, True)):
                if isinstance(entity, Table):
                    self._refer(entity, add)
        after_key = entity_key(edit.kind, edit.after) if edit.after is not None else None
        for entity in (edit.before, edit.after):
            if entity is None:
                continue
            key = entity_key(edit.kind, entity)
            now = edit.after if key == after_key else None
            if edit.kind == "mapping":
                self.graph.refresh_mapping(key, now)
            elif edit.kind == "table":
                self.graph.refresh_table(key, now)
            else:
                self.graph.refresh_server(key, now is not None)

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
        self._by_scope[scope] = self._findings_of(scope)

    def _findings_of(self, scope: Scope) -> list[Finding]:
        kind, key = scope
        if kind == "mapping":
            mapping = self.model.mapping(key)
            return check_mapping(self._ctx, mapping) if mapping else []
        if kind == "table":
            table = self.model.table(key)
            return check_table(self.model, table) if table else []
        if kind == "conflicts":
            entry = self.model.conflicts_for(key)
            return check_conflicts(self._ctx, entry) if entry else []
        return check_model(self.model)
