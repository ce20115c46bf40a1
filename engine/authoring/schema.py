"""Servers, tables and columns: add, edit, rename (with every reference), reorder, remove, replicate, move on
the canvas."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError

from engine.authoring.errors import AuthoringError, evolve_checked
from engine.authoring.references import (
    rename_in_conflicts,
    rename_in_method,
    rename_in_sql,
    renamed,
    without_in_conflicts,
)
from engine.core.types import TypeError_, parse_type
from engine.edits import Edit, EditKind, chain, entity_key, replace, set_setting
from engine.model.schema import Model, Server, Table

Step = Callable[[Model], list[Edit]]


def _built(cls: Any, data: dict[str, Any]) -> Any:
    """`cls` validated from `data`, or an AuthoringError naming the first bad field."""
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in err["loc"])
        raise AuthoringError(f"{where}: {err['msg']}") from None


def checked_name(text: str, what: str) -> str:
    """`text` stripped, as the name of a `what` (server, table, column): not empty, no dot, no space (a dot
    separates a key's parts); raises `AuthoringError`."""
    name = text.strip()
    if not name:
        raise AuthoringError(f"a {what} needs a name")
    if "." in name or any(ch.isspace() for ch in name):
        raise AuthoringError(f"a {what} name cannot hold a dot or a space: {name!r}")
    return name


def _table(model: Model, key: str) -> Table:
    table = model.table(key)
    if table is None:
        raise AuthoringError(f"no table {key!r}")
    return table


def _case_twin(table: Table, name: str, other_than: str | None = None) -> str | None:
    """The column of `table` (not `other_than`) whose name differs from `name` only in case: refused here, as
    TB004 would refuse it at run time (Spark cannot tell the two apart)."""
    folded = name.casefold()
    return next((c.name for c in table.columns
                 if c.name != name and c.name != other_than and c.name.casefold() == folded), None)


def _refuse_case_twin(table: Table, name: str, other_than: str | None = None) -> None:
    twin = _case_twin(table, name, other_than)
    if twin is not None:
        raise AuthoringError(f"{table.key} already has a column {twin}, which differs from {name} only in case "
                             "(Spark cannot tell them apart)")


def type_problem(text: str) -> str | None:
    """Why `text` is not a type string of the contract (None when it is one)."""
    if not text.strip():
        return "a column needs a type"
    try:
        parse_type(text)
    except TypeError_ as exc:
        return str(exc)
    return None


# --- servers -------------------------------------------------------------------------------------------------

def add_server(model: Model, server_id: str, dbms: str, priority: float | None = None,
               float_format: str | None = None) -> list[Edit]:
    sid = checked_name(server_id, "server")
    if model.server(sid) is not None:
        raise AuthoringError(f"a server {sid!r} already exists")
    server = _built(Server, {"id": sid, "dbms": dbms, "priority": priority, "float_format": float_format or None})
    return [replace(model, "server", None, server)]


def edit_server(model: Model, server_id: str, **fields: Any) -> list[Edit]:
    """Change a server's DBMS, priority or float format (and its id, through `rename_server`)."""
    server = model.server(server_id)
    if server is None:
        raise AuthoringError(f"no server {server_id!r}")
    new_id = fields.pop("id", server_id)
    steps: list[Step] = []
    if fields:
        changed = evolve_checked(server, **fields)
        if changed != server:
            steps.append(lambda m: [replace(m, "server", m.server(server_id), changed)])
    if new_id != server_id:
        steps.append(lambda m: rename_server(m, server_id, new_id))
    return chain(model, *steps)


def rename_server(model: Model, old: str, new: str) -> list[Edit]:
    """Rename a server and every key that names it: its tables, mappings' ends, conflicts, layout."""
    server = model.server(old)
    if server is None:
        raise AuthoringError(f"no server {old!r}")
    new = checked_name(new, "server")
    if new == old:
        return []
    if model.server(new) is not None:
        raise AuthoringError(f"a server {new!r} already exists")
    keys = {t.key: f"{new}.{t.name}" for t in model.tables if t.server == old}
    steps: list[Step] = [lambda m: [replace(m, "server", m.server(old), evolve_checked(server, id=new))]]
    steps += [lambda m, k=k: [replace(m, "table", _table(m, k), evolve_checked(_table(m, k), server=new))]  # type: ignore[misc]
              for k in keys]
    steps.append(lambda m: _retarget(m, keys))
    return chain(model, *steps)


def remove_server(model: Model, server_id: str) -> list[Edit]:
    """A server and its tables (with everything that names them)."""
    if model.server(server_id) is None:
        raise AuthoringError(f"no server {server_id!r}")
    keys = [t.key for t in model.tables if t.server == server_id]
    return chain(model, lambda m: delete_tables(m, keys),  # one pass over the model, however many tables
                 lambda m: [replace(m, "server", m.server(server_id), None)])


# --- tables --------------------------------------------------------------------------------------------------

def add_table(model: Model, server_id: str, name: str, columns: list[dict[str, Any]] | None = None,
              primary_key: list[str] | None = None) -> list[Edit]:
    if model.server(server_id) is None:
        raise AuthoringError(f"no server {server_id!r}")
    name = checked_name(name, "table")
    if model.table(f"{server_id}.{name}") is not None:
        raise AuthoringError(f"a table {server_id}.{name} already exists")
    table = _built(Table, {"server": server_id, "name": name, "columns": columns or [],
                           "primary_key": primary_key or []})
    return [replace(model, "table", None, table)]


def rename_table(model: Model, key: str, new_name: str) -> list[Edit]:
    """Rename a table and every reference: mappings' ends, its conflicts entry, its position, children's parent."""
    table = _table(model, key)
    new_name = checked_name(new_name, "table")
    new_key = f"{table.server}.{new_name}"
    if new_key == key:
        return []
    if model.table(new_key) is not None:
        raise AuthoringError(f"a table {new_key} already exists")
    children = [t.key for t in model.tables if t.server == table.server and t.parent == table.name and t.key != key]
    parent = new_name if table.parent == table.name else table.parent  # a table that is its own parent (TB002)
    steps: list[Step] = [lambda m: [replace(m, "table", table, evolve_checked(table, name=new_name, parent=parent))]]
    steps += [lambda m, c=c: [replace(m, "table", _table(m, c), evolve_checked(_table(m, c), parent=new_name))]  # type: ignore[misc]
              for c in children]
    steps.append(lambda m: _retarget(m, {key: new_key}))
    return chain(model, *steps)


def delete_table(model: Model, table_key: str) -> list[Edit]:
    """A table and everything that names it: the mappings in and out, its conflict settings, its position."""
    return delete_tables(model, [table_key])


def delete_tables(model: Model, table_keys: Iterable[str]) -> list[Edit]:
    """Tables and everything that names them, in one pass over each of the model's lists (not one pass per
    table: deleting a thousand tables stays linear). The mappings go first, then the conflict settings, then the
    tables, then their positions (one layout edit). Each removal records where its entity stands when it is
    applied, after the removals before it, so undoing them in reverse puts everything back in its place."""
    tables = [t for t in map(model.table, table_keys) if t is not None]
    if not tables:
        return []
    keys = {t.key for t in tables}
    edits = _removals(model, "mapping", [m for m in model.mappings if m.source in keys or m.target in keys])
    edits += _removals(model, "conflicts", [c for c in map(model.conflicts_for, keys) if c is not None])
    edits += _removals(model, "table", tables)
    if any(k in model.layout for k in keys):
        edits.append(set_setting(model, "layout", {k: v for k, v in model.layout.items() if k not in keys}))
    return edits


def _removals(model: Model, kind: EditKind, doomed: list[Any]) -> list[Edit]:
    """Edits removing `doomed` (entities of `kind`'s list) one after another in the list's order: each at its
    position once the ones before it are gone."""
    gone = {id(e) for e in doomed}
    items: list[Any] = getattr(model, {"mapping": "mappings", "conflicts": "conflicts", "table": "tables"}[kind])
    at = [i for i, e in enumerate(items) if id(e) in gone]
    return [Edit(kind, entity_key(kind, items[i]), items[i], None, i - n) for n, i in enumerate(at)]


def move_table(model: Model, table_key: str, x: float, y: float) -> list[Edit]:
    """A table dragged on the canvas: its position in the layout, in whole pixels."""
    layout: dict[str, list[int | float]] = {**model.layout, table_key: [_pixel(x), _pixel(y)]}
    return [set_setting(model, "layout", layout)]


def _pixel(v: float) -> int | float:
    """A whole pixel (tidy diffs); a float as it is beyond 1e15 (already whole), where the integer would
    have more digits than a model file may hold (`engine.limits.MAX_INT_DIGITS`) and the file would not open."""
    return round(v) if abs(v) < 1e15 else v


def _retarget(model: Model, keys: dict[str, str]) -> list[Edit]:
    """Mappings, conflicts and layout that name a table key in `keys`, moved to its new key."""
    edits: list[Edit] = []
    for mapping in [m for m in model.mappings if m.source in keys or m.target in keys]:
        edits.append(replace(model, "mapping", mapping, evolve_checked(
            mapping, source=keys.get(mapping.source, mapping.source), target=keys.get(mapping.target, mapping.target))))
    for entry in [c for c in model.conflicts if c.table in keys]:
        edits.append(replace(model, "conflicts", entry, evolve_checked(entry, table=keys[entry.table])))
    if any(k in model.layout for k in keys):
        edits.append(set_setting(model, "layout", {keys.get(k, k): v for k, v in model.layout.items()}))
    return edits


def replicate_table(model: Model, key: str, server_id: str, name: str | None = None) -> list[Edit]:
    """A copy of a table's definition (columns, keys, indexes) on another server: "Replicate this table to…"."""
    table = _table(model, key)
    if model.server(server_id) is None:
        raise AuthoringError(f"no server {server_id!r}")
    new_name = checked_name(name or table.name, "table")
    if model.table(f"{server_id}.{new_name}") is not None:
        raise AuthoringError(f"a table {server_id}.{new_name} already exists")
    copy = table.model_dump(mode="python", round_trip=True)
    copy.update(server=server_id, name=new_name, parent=None, replication_definitions=None)
    return [replace(model, "table", None, _built(Table, copy))]


# --- columns -------------------------------------------------------------------------------------------------

def _columns(table: Table) -> list[dict[str, Any]]:
    return [c.model_dump(mode="python") for c in table.columns]


def add_column(model: Model, key: str, name: str, type_: str, nullable: bool = True, default: Any = None,
               position: int | None = None) -> list[Edit]:
    table = _table(model, key)
    name = checked_name(name, "column")
    if table.column(name) is not None:
        raise AuthoringError(f"{key} already has a column {name}")
    _refuse_case_twin(table, name)
    problem = type_problem(type_)
    if problem:
        raise AuthoringError(f"{name}: {problem}")
    columns = _columns(table)
    columns.insert(len(columns) if position is None else position,
                   {"name": name, "type": type_.strip(), "nullable": nullable, "default": default})
    return [replace(model, "table", table, evolve_checked(table, columns=columns))]


def set_column(model: Model, key: str, name: str, **fields: Any) -> list[Edit]:
    """Change a column's type, nullability, default, storage or stream support (a rename: `rename_column`)."""
    table = _table(model, key)
    if table.column(name) is None:
        raise AuthoringError(f"{key} has no column {name}")
    if "type" in fields:
        problem = type_problem(str(fields["type"]))
        if problem:
            raise AuthoringError(f"{name}: {problem}")
        fields["type"] = str(fields["type"]).strip()
    columns = [c | fields if c["name"] == name else c for c in _columns(table)]
    changed = evolve_checked(table, columns=columns)
    return [] if changed == table else [replace(model, "table", table, changed)]


def move_column(model: Model, key: str, name: str, delta: int) -> list[Edit]:
    """Move a column up (delta < 0) or down in its table; nothing at either end."""
    table = _table(model, key)
    names = table.column_names()
    if name not in names:
        raise AuthoringError(f"{key} has no column {name}")
    at = names.index(name)
    to = at + delta
    if not 0 <= to < len(names) or delta == 0:
        return []
    columns = _columns(table)
    columns.insert(to, columns.pop(at))
    return [replace(model, "table", table, evolve_checked(table, columns=columns))]


def rename_column(model: Model, key: str, old: str, new: str) -> list[Edit]:
    """Rename a column and what names it: the table's keys and indexes, the column maps into it (and their
    distribution keys), the inputs and `where` clauses of mappings out of it, its conflict settings.

    Replication definitions are history (data in flight uses them): they keep the old name, and SC001 then
    asks for a new version, as for any schema change (seed 002)."""
    table = _table(model, key)
    new = checked_name(new, "column")
    if table.column(old) is None:
        raise AuthoringError(f"{key} has no column {old}")
    if new == old:
        return []
    if table.column(new) is not None:
        raise AuthoringError(f"{key} already has a column {new}")
    _refuse_case_twin(table, new, other_than=old)
    clash = next((m.id for m in model.mappings if m.target == key and old in m.columns and new in m.columns), None)
    if clash is not None:  # the renamed column's map and the stray one would fall on one key: one would be lost
        raise AuthoringError(f"mapping {clash} also maps {new}, which {key} does not have: remove that map first")
    columns = [c | {"name": new} if c["name"] == old else c for c in _columns(table)]
    indexes = [{"name": ux.name, "columns": renamed(ux.columns, old, new)} for ux in table.unique_indexes]
    edits = [replace(model, "table", table, evolve_checked(table, columns=columns, primary_key=renamed(
        table.primary_key, old, new), unique_indexes=indexes))]
    for mapping in model.mappings:
        changes: dict[str, Any] = {}
        if mapping.target == key:
            changes["columns"] = {(new if k == old else k): v.model_dump(mode="json")
                                  for k, v in mapping.columns.items()}
            if mapping.distribution_key:
                changes["distribution_key"] = renamed(mapping.distribution_key, old, new)
        if mapping.source == key:
            current = changes.get("columns") or {k: v.model_dump(mode="json") for k, v in mapping.columns.items()}
            changes["columns"] = {k: rename_in_method(v, old, new) for k, v in current.items()}
            if mapping.where:
                changes["where"] = rename_in_sql(mapping.where, old, new)
        if changes:
            changed = evolve_checked(mapping, **changes)
            if changed != mapping:
                edits.append(replace(model, "mapping", mapping, changed))
    entry = model.conflicts_for(key)
    if entry is not None:
        changed_entry = _built(type(entry), rename_in_conflicts(entry.model_dump(mode="python"), old, new))
        if changed_entry != entry:
            edits.append(replace(model, "conflicts", entry, changed_entry))
    return edits


def remove_column(model: Model, key: str, name: str) -> list[Edit]:
    """Remove a column with its place in the keys and indexes (an index left empty goes), the column maps into
    it and its conflict settings. Mappings that read it keep their inputs: MP001 then says what to fix."""
    table = _table(model, key)
    if table.column(name) is None:
        raise AuthoringError(f"{key} has no column {name}")
    indexes = [{"name": ux.name, "columns": [c for c in ux.columns if c != name]} for ux in table.unique_indexes]
    edits = [replace(model, "table", table, evolve_checked(
        table, columns=[c for c in _columns(table) if c["name"] != name],
        primary_key=[c for c in table.primary_key if c != name],
        unique_indexes=[ux for ux in indexes if ux["columns"]]))]
    for mapping in [m for m in model.mappings if m.target == key]:
        dkey = mapping.distribution_key
        changed = evolve_checked(mapping, columns={k: v.model_dump(mode="json") for k, v in mapping.columns.items()
                                           if k != name},
                         distribution_key=([c for c in dkey if c != name] or None) if dkey else dkey)
        if changed != mapping:
            edits.append(replace(model, "mapping", mapping, changed))
    entry = model.conflicts_for(key)
    if entry is not None:
        gone = {str(ux["name"]) for ux in indexes if not ux["columns"]}
        changed_entry = _built(type(entry), without_in_conflicts(entry.model_dump(mode="python"), name, gone))
        if changed_entry != entry:
            edits.append(replace(model, "conflicts", entry, changed_entry))
    return edits


def set_keys(model: Model, key: str, primary_key: list[str] | None = None,
             unique_indexes: list[dict[str, Any]] | None = None) -> list[Edit]:
    """Set a table's primary key and/or unique indexes ({"name", "columns"}); unknown columns are TB001."""
    table = _table(model, key)
    changes: dict[str, Any] = {}
    if primary_key is not None:
        changes["primary_key"] = primary_key
    if unique_indexes is not None:
        names = [ux["name"] for ux in unique_indexes]
        if len(set(names)) != len(names):
            raise AuthoringError("two unique indexes have the same name")
        changes["unique_indexes"] = unique_indexes
    changed = evolve_checked(table, **changes)
    return [] if changed == table else [replace(model, "table", table, changed)]
