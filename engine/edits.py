"""Edits: every change to a model replaces one entity (or one setting) with another.

An `Edit` knows what it touches, so the validator can re-check only that,
and it inverts exactly, so the designer's undo stack is a list of edits.
Entities are built with `evolve`, which re-validates them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from engine.model.schema import Mapping, Model, Server, Table, TableConflicts

EditKind = Literal["server", "table", "mapping", "conflicts", "settings"]
SETTINGS = ("name", "protected", "float_transfer", "layout")
NOT_VALIDATED = ("name", "layout")
E = TypeVar("E", bound=BaseModel)

_LISTS: dict[str, str] = {"server": "servers", "table": "tables", "mapping": "mappings", "conflicts": "conflicts"}


def entity_key(kind: EditKind, entity: Any) -> str:
    if kind == "server":
        return str(entity.id)
    if kind == "table":
        return str(entity.key)
    if kind == "mapping":
        return str(entity.id)
    return str(entity.table)


def evolve(entity: E, **changes: Any) -> E:
    """A copy of `entity` with `changes`, validated like a loaded one."""
    data = entity.model_dump(mode="python", round_trip=True)
    data.update({k: (v.model_dump(mode="python", round_trip=True) if isinstance(v, BaseModel) else v)
                 for k, v in changes.items()})
    return type(entity).model_validate(data)


@dataclass(frozen=True)
class Edit:
    """Replace `before` with `after` (None on either side: add or remove) at `position` of its list.

    For `settings`, `key` is the setting's name and before/after are its values.
    """

    kind: EditKind
    key: str
    before: Any
    after: Any
    position: int | None = None

    def apply(self, model: Model) -> None:
        if self.kind == "settings":
            setattr(model, self.key, self.after)
            return
        items: list[Any] = getattr(model, _LISTS[self.kind])
        where = next((i for i, e in enumerate(items) if entity_key(self.kind, e) == self.key), None) \
            if self.before is not None else None
        if self.before is not None and where is None:
            raise KeyError(f"{self.kind} {self.key!r} is not in the model")
        if self.after is None:
            del items[where]  # type: ignore[arg-type]
        elif where is None:
            items.insert(self.position if self.position is not None else len(items), self.after)
        else:
            items[where] = self.after
        model.drop_index()

    def inverted(self) -> Edit:
        """The edit that undoes this one."""
        new_key = self.key if self.after is None or self.kind == "settings" else entity_key(self.kind, self.after)
        old_key = self.key if self.before is None or self.kind == "settings" else entity_key(self.kind, self.before)
        return Edit(self.kind, new_key if self.after is not None else old_key, self.after, self.before, self.position)

    def touched(self) -> set[str]:
        """Identities this edit touches, before and after (a rename touches both)."""
        if self.kind == "settings":
            return {self.key}
        return {entity_key(self.kind, e) for e in (self.before, self.after) if e is not None}


def replace(model: Model, kind: EditKind, old: Any, new: Any) -> Edit:
    """The edit that replaces `old` (None: add) with `new` (None: remove), remembering its position."""
    if kind == "settings":
        raise ValueError("use set_setting for settings")
    items: list[Any] = getattr(model, _LISTS[kind])
    position = next((i for i, e in enumerate(items) if e is old), None) if old is not None else None
    key = entity_key(kind, old if old is not None else new)
    return Edit(kind, key, old, new, position)


def set_setting(model: Model, name: str, value: Any) -> Edit:
    if name not in SETTINGS:
        raise ValueError(f"unknown setting {name!r}")
    return Edit("settings", name, getattr(model, name), value)


def add(model: Model, entity: Server | Table | Mapping | TableConflicts) -> Edit:
    kind: EditKind = {Server: "server", Table: "table", Mapping: "mapping",
                      TableConflicts: "conflicts"}[type(entity)]  # type: ignore[assignment]
    return Edit(kind, entity_key(kind, entity), None, entity)


def chain(model: Model, *steps: Callable[[Model], list[Edit]]) -> list[Edit]:
    """Edits built one step after another, each step seeing the model as the earlier ones left it.

    The model is left as it was; applying the result in order makes the whole change, and undoing it in
    reverse order unmakes it.
    """
    done: list[Edit] = []
    try:
        for step in steps:
            for edit in step(model):
                edit.apply(model)
                done.append(edit)
    finally:
        for edit in reversed(done):
            edit.inverted().apply(model)
    return done
