"""Authoring commands: each a `QUndoCommand` whose redo/undo only apply engine edits (engine.authoring).

A command builds its edits when it is made, so a change the engine refuses
raises `AuthoringError` (a one-line reason) before anything is pushed; an
empty change (a rename to the same name) is not pushed at all (`push`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from designer.document import Document, EditCommand
from engine import authoring as au
from engine.edits import Edit


class AuthoringCommand(EditCommand):
    """One authoring change, one undo step."""

    def __init__(self, document: Document, edits: list[Edit], text: str) -> None:
        super().__init__(document, edits, text)


def push(document: Document, command: AuthoringCommand) -> bool:
    """Push `command` on the document's undo stack unless it changes nothing; True when pushed."""
    if not command.edits:
        return False
    document.undo_stack.push(command)
    return True


# --- servers ---------------------------------------------------------------------------------------------------

class AddServer(AuthoringCommand):
    def __init__(self, document: Document, server_id: str, dbms: str, priority: float | None = None,
                 float_format: str | None = None) -> None:
        super().__init__(document, au.add_server(document.model, server_id, dbms, priority, float_format),
                         f"Add server {server_id}")


class EditServer(AuthoringCommand):
    def __init__(self, document: Document, server_id: str, **fields: Any) -> None:
        super().__init__(document, au.edit_server(document.model, server_id, **fields), f"Edit server {server_id}")


class RenameServer(AuthoringCommand):
    def __init__(self, document: Document, old: str, new: str) -> None:
        super().__init__(document, au.rename_server(document.model, old, new), f"Rename server {old} to {new}")


class RemoveServer(AuthoringCommand):
    def __init__(self, document: Document, server_id: str) -> None:
        super().__init__(document, au.remove_server(document.model, server_id), f"Remove server {server_id}")


# --- tables ----------------------------------------------------------------------------------------------------

class AddTable(AuthoringCommand):
    def __init__(self, document: Document, server_id: str, name: str,
                 columns: list[dict[str, Any]] | None = None, primary_key: list[str] | None = None) -> None:
        super().__init__(document, au.add_table(document.model, server_id, name, columns, primary_key),
                         f"Add table {server_id}.{name}")


class RenameTable(AuthoringCommand):
    def __init__(self, document: Document, key: str, new_name: str) -> None:
        super().__init__(document, au.rename_table(document.model, key, new_name), f"Rename table {key}")


class ReplicateTable(AuthoringCommand):
    def __init__(self, document: Document, key: str, server_id: str, name: str | None = None) -> None:
        super().__init__(document, au.replicate_table(document.model, key, server_id, name),
                         f"Replicate {key} to {server_id}")


class RemoveTable(AuthoringCommand):
    def __init__(self, document: Document, key: str) -> None:
        super().__init__(document, au.delete_table(document.model, key), f"Remove table {key}")


# --- columns ---------------------------------------------------------------------------------------------------

class AddColumn(AuthoringCommand):
    def __init__(self, document: Document, key: str, name: str, type_: str, nullable: bool = True,
                 default: Any = None, position: int | None = None) -> None:
        super().__init__(document, au.add_column(document.model, key, name, type_, nullable, default, position),
                         f"Add column {name}")


class SetColumn(AuthoringCommand):
    def __init__(self, document: Document, key: str, name: str, **fields: Any) -> None:
        super().__init__(document, au.set_column(document.model, key, name, **fields), f"Edit column {name}")


class RenameColumn(AuthoringCommand):
    def __init__(self, document: Document, key: str, old: str, new: str) -> None:
        super().__init__(document, au.rename_column(document.model, key, old, new), f"Rename column {old} to {new}")


class MoveColumn(AuthoringCommand):
    def __init__(self, document: Document, key: str, name: str, delta: int) -> None:
        super().__init__(document, au.move_column(document.model, key, name, delta),
                         f"Move column {name} {'up' if delta < 0 else 'down'}")


class RemoveColumn(AuthoringCommand):
    def __init__(self, document: Document, key: str, name: str) -> None:
        super().__init__(document, au.remove_column(document.model, key, name), f"Remove column {name}")


class SetKeys(AuthoringCommand):
    def __init__(self, document: Document, key: str, primary_key: list[str] | None = None,
                 unique_indexes: list[dict[str, Any]] | None = None) -> None:
        super().__init__(document, au.set_keys(document.model, key, primary_key, unique_indexes),
                         f"Set keys of {key}")


# --- mappings --------------------------------------------------------------------------------------------------

class NewMapping(AuthoringCommand):
    def __init__(self, document: Document, source: str, target: str, mapping_id: str | None = None,
                 auto: bool = True) -> None:
        super().__init__(document, au.new_mapping(document.model, source, target, mapping_id, auto),
                         f"New mapping {source} → {target}")

    @property
    def mapping_id(self) -> str:
        return self.edits[0].key


class AutoMap(AuthoringCommand):
    def __init__(self, document: Document, mapping_id: str) -> None:
        super().__init__(document, au.auto_map(document.model, mapping_id), f"Auto-map {mapping_id} by name")


class RenameMapping(AuthoringCommand):
    def __init__(self, document: Document, old: str, new: str) -> None:
        super().__init__(document, au.rename_mapping(document.model, old, new), f"Rename mapping {old} to {new}")


class RemoveMapping(AuthoringCommand):
    def __init__(self, document: Document, mapping_id: str) -> None:
        super().__init__(document, au.remove_mapping(document.model, mapping_id), f"Remove mapping {mapping_id}")


class AddReverse(AuthoringCommand):
    def __init__(self, document: Document, mapping_id: str, back_id: str | None = None) -> None:
        super().__init__(document, au.add_reverse(document.model, mapping_id, back_id),
                         f"Mapping back for {mapping_id}")


class SetWhere(AuthoringCommand):
    def __init__(self, document: Document, mapping_id: str, where: str | None) -> None:
        super().__init__(document, au.set_where(document.model, mapping_id, where), f"Edit where of {mapping_id}")


class SetMethod(AuthoringCommand):
    """A target column's whole method (a bare name: a copy; None: no map), as the mapping grid edits it."""

    def __init__(self, document: Document, mapping_id: str, column: str, method: dict[str, Any] | str | None) -> None:
        try:
            edits = au.set_method(document.model, mapping_id, column, method)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            raise au.AuthoringError(f"{column}: {err['msg']}") from None
        super().__init__(document, edits, f"Map {column}")


class MoveMethodInput(AuthoringCommand):
    def __init__(self, document: Document, mapping_id: str, column: str, path: tuple[int, ...], index: int,
                 delta: int) -> None:
        super().__init__(document, au.move_method_input(document.model, mapping_id, column, path, index, delta),
                         f"Move input of {column}")
