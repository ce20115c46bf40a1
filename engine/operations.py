"""What a designer gesture does to the model, as engine edits (no Qt, no rules).

Each function reads the model and returns the `Edit`s that make the change;
the designer pushes them as one undo step. Keeping them here lets them be
tested without a window and reused by any front end.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.edits import Edit, EditKind, entity_key, evolve, replace, set_setting
from engine.keys import distribution_key
from engine.model.methods import METHOD_CLASSES, Column, Method
from engine.model.schema import Mapping, Model

Path_ = tuple[int, ...]


def _columns_json(mapping: Mapping) -> dict[str, Any]:
    return {k: v.model_dump(mode="json") for k, v in mapping.columns.items()}


def unique_mapping_id(model: Model, source: str, target: str) -> str:
    base = f"{source.replace('.', '_')}_to_{target.replace('.', '_')}"
    candidate, n = base, 2
    while model.mapping(candidate) is not None:
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def connect_columns(model: Model, source: str, source_col: str, target: str, target_col: str) -> list[Edit]:
    """Dropping a source column on a target column: a copy map, in the mapping between the two tables
    (a new mapping if there is none). Nothing when either column is not (or no longer) in its table."""
    tables = model.table(source), model.table(target)
    if source == target or tables[0] is None or tables[1] is None or source_col not in tables[0].column_names() \
            or target_col not in tables[1].column_names():
        return []
    existing = next((m for m in model.mappings if m.source == source and m.target == target), None)
    if existing is None:
        new = Mapping.model_validate({"id": unique_mapping_id(model, source, target), "source": source,
                                      "target": target, "columns": {target_col: source_col}})
        return [replace(model, "mapping", None, new)]
    columns = _columns_json(existing)
    columns[target_col] = source_col
    return [replace(model, "mapping", existing, evolve(existing, columns=columns))]


def default_method(kind: str, current: Method | None, source_columns: list[str]) -> dict[str, Any]:
    """A new method of `kind` wired to what the column had (or the first source column)."""
    first = current.model_dump(mode="json") if current is not None else (source_columns[0] if source_columns else "")
    taken = current.input if isinstance(current, Column) else first if isinstance(first, str) else None
    others = [c for c in source_columns if c != taken]
    choices: dict[str, dict[str, Any]] = {
        "concat": {"method": "concat", "inputs": [first, *(others[:1])], "sep": "-"},
        "split": {"method": "split", "input": first, "sep": "-", "index": 0},
        "substring": {"method": "substring", "input": first, "start": 1, "length": 10},
        "cast": {"method": "cast", "input": first, "type": "VARCHAR(40)"},
        "constant": {"method": "constant", "value": ""},
        "system": {"method": "system", "name": "commit_ts"},
        "upper": {"method": "upper", "input": first},
        "lower": {"method": "lower", "input": first},
        "trim": {"method": "trim", "input": first},
        "expression": {"method": "expression", "sql": current.input if isinstance(current, Column) else "NULL"},
    }
    return choices[kind]


def insert_method(model: Model, mapping_id: str, target_col: str, kind: str) -> list[Edit]:
    """Put a method of `kind` on a target column, taking the column's current map as its input."""
    mapping = model.mapping(mapping_id)
    if mapping is None or kind not in METHOD_CLASSES or kind == "column":
        return []
    source = model.table(mapping.source)
    columns = _columns_json(mapping)
    columns[target_col] = default_method(kind, mapping.columns.get(target_col),
                                         source.column_names() if source else [])
    return [replace(model, "mapping", mapping, evolve(mapping, columns=columns))]


def set_method(model: Model, mapping_id: str, target_col: str, method: dict[str, Any] | str | None) -> list[Edit]:
    """Replace a target column's whole method (None removes the column map)."""
    mapping = model.mapping(mapping_id)
    if mapping is None:
        return []
    columns = _columns_json(mapping)
    if method is None:
        if target_col not in columns:
            return []
        del columns[target_col]
    else:
        columns[target_col] = method
    return [replace(model, "mapping", mapping, evolve(mapping, columns=columns))]


def node_at(method: dict[str, Any] | str, path: Path_) -> dict[str, Any] | str | None:
    """The node at `path`, or None where the path leads nowhere (a node an undo took away)."""
    node = method
    for i in path:
        if not isinstance(node, dict):
            return None
        if "inputs" in node:
            if not 0 <= i < len(node["inputs"]):
                return None
            node = node["inputs"][i]
        elif "input" in node:
            node = node["input"]
        else:
            return None
    return node


def replace_node(method: dict[str, Any] | str, path: Path_, new: dict[str, Any] | str) -> dict[str, Any] | str:
    """A copy of `method` with the node at `path` replaced."""
    if not path:
        return new
    assert isinstance(method, dict)
    out = dict(method)
    head, rest = path[0], path[1:]
    if "inputs" in out:
        inputs = list(out["inputs"])
        inputs[head] = replace_node(inputs[head], rest, new)
        out["inputs"] = inputs
    else:
        out["input"] = replace_node(out["input"], rest, new)
    return out


def _method_node(model: Model, mapping_id: str, target_col: str,
                 path: Path_) -> tuple[dict[str, Any] | str, dict[str, Any]] | None:
    """(the column's whole method, the method node at `path`) as JSON, or None when there is no such node."""
    mapping = model.mapping(mapping_id)
    if mapping is None or target_col not in mapping.columns:
        return None
    root = mapping.columns[target_col].model_dump(mode="json")
    node = node_at(root, path)
    return (root, node) if isinstance(node, dict) else None


def set_method_fields(model: Model, mapping_id: str, target_col: str, path: Path_, **fields: Any) -> list[Edit]:
    """Change parameters (sep, index, type, value...) of the method node at `path`."""
    found = _method_node(model, mapping_id, target_col, path)
    if found is None:
        return []
    root, node = found
    return set_method(model, mapping_id, target_col, replace_node(root, path, {**node, **fields}))


def add_method_input(model: Model, mapping_id: str, target_col: str, path: Path_, source_col: str) -> list[Edit]:
    """Dropping a source column on a method node: a concat gains an input; others take it as their input."""
    found = _method_node(model, mapping_id, target_col, path)
    if found is None:
        return []
    root, node = found
    if "inputs" in node:
        new = {**node, "inputs": [*node["inputs"], source_col]}
    elif "input" in node:
        new = {**node, "input": source_col}
    else:
        return []
    return set_method(model, mapping_id, target_col, replace_node(root, path, new))


def toggle_dkey(model: Model, mapping_id: str, target_col: str) -> list[Edit]:
    """Add a target column to the mapping's distribution key, or take it out (starting from the default)."""
    mapping = model.mapping(mapping_id)
    if mapping is None:
        return []
    current = distribution_key(model, mapping)
    key = list(current.columns) if current else []
    key = [c for c in key if c != target_col] if target_col in key else [*key, target_col]
    return [replace(model, "mapping", mapping, evolve(mapping, distribution_key=key or None))]


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
    layout: dict[str, list[int | float]] = {**model.layout, table_key: [_pixel(x), _pixel(y)]}
    return [set_setting(model, "layout", layout)]


def _pixel(v: float) -> int | float:
    """A whole pixel (tidy diffs); a float as it is beyond 1e15 (already whole), where the integer would
    have more digits than a model file may hold (`engine.limits.MAX_INT_DIGITS`) and the file would not open."""
    return round(v) if abs(v) < 1e15 else v
