"""Authoring a model from nothing: servers, tables, columns and mappings, as engine edits (no Qt).

Each function reads the model and returns the `Edit`s that make one change
(renames carry every reference along), or raises `AuthoringError` with a
one-line reason when the change cannot be made (a duplicate name, an
unknown table). The edits invert exactly, so undo is exact.
"""

from engine.authoring.errors import AuthoringError
from engine.authoring.mappings import (
    add_reverse,
    auto_map,
    move_method_input,
    new_mapping,
    remove_mapping,
    rename_mapping,
    set_where,
    where_problems,
)
from engine.authoring.schema import (
    add_column,
    add_server,
    add_table,
    edit_server,
    move_column,
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
    "AuthoringError", "add_column", "add_reverse", "add_server", "add_table", "auto_map", "edit_server",
    "move_column", "move_method_input", "new_mapping", "remove_column", "remove_mapping", "remove_server",
    "rename_column", "rename_mapping", "rename_server", "rename_table", "replicate_table", "set_column",
    "set_keys", "set_where", "type_problem", "where_problems",
]
