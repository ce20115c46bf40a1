"""A column's method tree: put a method on a column, change its parameters, feed it a source column, reorder
a concat's inputs. The tree is edited in its JSON form and the mapping re-validated as one edit."""

from __future__ import annotations

from typing import Any

from engine.authoring.errors import AuthoringError
from engine.edits import Edit, evolve, replace
from engine.methods import INSERTABLE, KINDS
from engine.model.methods import Column, Method
from engine.model.schema import Mapping, Model

Path_ = tuple[int, ...]


def columns_json(mapping: Mapping) -> dict[str, Any]:
    """A mapping's column maps in their JSON form (target column -> method tree), ready to change."""
    return {k: v.model_dump(mode="json") for k, v in mapping.columns.items()}


def default_method(kind: str, current: Method | None, source_columns: list[str]) -> dict[str, Any]:
    """A new method of `kind` (`MethodKind.new`) wired to what the column had (or the first source column)."""
    first = current.model_dump(mode="json") if current is not None else (source_columns[0] if source_columns else "")
    taken = current.input if isinstance(current, Column) else first if isinstance(first, str) else None
    others = [c for c in source_columns if c != taken]
    return next(k for k in KINDS.values() if k.name == kind).new(first, others, current)


def insert_method(model: Model, mapping_id: str, target_col: str, kind: str) -> list[Edit]:
    """Put a method of `kind` on a target column, taking the column's current map as its input."""
    mapping = model.mapping(mapping_id)
    if mapping is None or kind not in INSERTABLE:
        return []
    source = model.table(mapping.source)
    columns = columns_json(mapping)
    columns[target_col] = default_method(kind, mapping.columns.get(target_col),
                                         source.column_names() if source else [])
    return [replace(model, "mapping", mapping, evolve(mapping, columns=columns))]


def set_method(model: Model, mapping_id: str, target_col: str, method: dict[str, Any] | str | None) -> list[Edit]:
    """Replace a target column's whole method (None removes the column map)."""
    mapping = model.mapping(mapping_id)
    if mapping is None:
        return []
    columns = columns_json(mapping)
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


def move_method_input(model: Model, mapping_id: str, column: str, path: Path_, index: int,
                      delta: int) -> list[Edit]:
    """Move input `index` of the multi-input method at `path` (a concat) up (delta < 0) or down."""
    if model.mapping(mapping_id) is None:
        raise AuthoringError(f"no mapping {mapping_id!r}")
    found = _method_node(model, mapping_id, column, path)
    if found is None or "inputs" not in found[1]:
        return []
    root, node = found
    inputs: list[Any] = list(node["inputs"])
    to = index + delta
    if not (0 <= index < len(inputs) and 0 <= to < len(inputs)) or delta == 0:
        return []
    inputs.insert(to, inputs.pop(index))
    return set_method(model, mapping_id, column, replace_node(root, path, {**node, "inputs": inputs}))
