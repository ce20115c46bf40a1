"""Authoring a model: servers, tables, columns, mappings and their method trees, as engine edits (no Qt).

Every change a front end makes to a model is here, once: each function reads the model and returns the
`Edit`s that make one change (renames carry every reference along), or raises `AuthoringError` with a
one-line reason when the change cannot be made (a duplicate name, an unknown table). The canvas's gestures
(a column dropped on a column, a method inserted, a table moved or deleted) return [] where the thing they
act on is gone. The edits invert exactly, so undo is exact.
"""

from engine.authoring.errors import AuthoringError
from engine.authoring.mappings import (
    add_reverse,
    auto_map,
    connect_columns,
    new_mapping,
    remove_mapping,
    rename_mapping,
    set_where,
    toggle_dkey,
    unique_mapping_id,
    where_problems,
)
from engine.authoring.methods import (
    add_method_input,
    default_method,
    insert_method,
    move_method_input,
    node_at,
    replace_node,
    set_method,
    set_method_fields,
)
from engine.authoring.schema import (
    add_column,
    add_server,
    add_table,
    delete_table,
    delete_tables,
    edit_server,
    move_column,
    move_table,
    remove_column,
    remove_server,
    rename_column,
    rename_server,
    rename_table,
    replicate_table,
    set_column,
    set_keys,
    type_problem,
)

__all__ = [
    "AuthoringError", "add_column", "add_method_input", "add_reverse", "add_server", "add_table", "auto_map",
    "connect_columns", "default_method", "delete_table", "delete_tables", "edit_server", "insert_method",
    "move_column", "move_method_input", "move_table", "new_mapping", "node_at", "remove_column",
    "remove_mapping", "remove_server", "rename_column", "rename_mapping", "rename_server", "rename_table",
    "replace_node", "replicate_table", "set_column", "set_keys", "set_method", "set_method_fields",
    "set_where", "toggle_dkey", "type_problem", "unique_mapping_id", "where_problems",
]
