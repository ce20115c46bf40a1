"""Edits: every change to a model replaces one entity (or one setting) with another.

An `Edit` knows what it touches, so the validator can re-check only that,
and it inverts exactly, so the designer's undo stack is a list of edits.
Entities are built with `evolve`, which re-validates them; `replace`, `add`
and `set_setting` then check the new entity (or value) as the loader would
read it back from a saved file (`unloadable`), so no edit makes a model that
saves but no longer opens (an integer of 400 digits, a lone surrogate).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from engine.limits import MAX_INT_DIGITS
from engine.model.jsonsafe import JsonLimitError, load_json
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
        where = self._where(items) if self.before is not None else None
        if self.before is not None and where is None:
            raise KeyError(f"{self.kind} {self.key!r} is not in the model")
        if self.after is None:
            del items[where]  # type: ignore[arg-type]
        elif where is None:
            items.insert(self.position if self.position is not None else len(items), self.after)
        else:
            items[where] = self.after
        model.drop_index()

    def _where(self, items: list[Any]) -> int | None:
        """The index of the entity this edit replaces: first where it stood when the edit was made (it is
        there when the edits are applied in order, so a batch of removals costs no scan), else found by key."""
        at = self.position
        if at is not None and 0 <= at < len(items) and entity_key(self.kind, items[at]) == self.key:
            return at
        return next((i for i, e in enumerate(items) if entity_key(self.kind, e) == self.key), None)

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


class UnloadableValue(ValueError):
    """An edit whose new value a model file could not hold: saved, the file would not open again. The message
    names the field and gives the loader's own reason."""


def unloadable(value: Any) -> tuple[str, str] | None:
    """(where, why) when `value` (an entity, or a setting's value), written to a model file as a save writes
    it, is refused by the loader's JSON checks (`engine.model.jsonsafe`: integers of more than
    `MAX_INT_DIGITS` digits, NaN, infinities, lone surrogates, nesting); None when the loader reads it back.
    `where` is the field's path inside `value` (list items named by their name or id where they have one)."""
    data = value.model_dump(mode="json", exclude_defaults=True, by_alias=True) if isinstance(value, BaseModel) \
        else value
    try:
        text = json.dumps(data, ensure_ascii=False)
    except ValueError:  # an integer too long for Python to write at all (over 4,300 digits)
        return _field(data, _huge_integer(data)), (f"an integer of more than 4,300 digits is out of range "
                                                   f"(at most {MAX_INT_DIGITS})")
    try:
        load_json(text)
    except JsonLimitError as exc:
        return _field(data, exc.path), exc.message
    return None


def check_loadable(value: Any, what: str = "") -> None:
    """Raise `UnloadableValue` when a model file could not hold `value` (see `unloadable`)."""
    problem = unloadable(value)
    if problem is not None:
        inner = problem[0]
        where = f"{what}.{inner}" if what and inner and not inner.startswith("[") else what + inner
        raise UnloadableValue(f"{where}: {problem[1]}" if where else problem[1])


def _field(data: Any, path: tuple[str | int, ...]) -> str:
    """`path` inside `data` as `columns[AMOUNT].default`: a list item by its name (or id) when it has one."""
    out, node = "", data
    for step in path:
        node = _child(node, step)
        if isinstance(step, int):
            label = next((node[k] for k in ("name", "id") if isinstance(node, dict) and isinstance(node.get(k), str)),
                         step)
            out += f"[{label}]"
        else:
            out += f".{step}" if out else step
    return out


def _child(node: Any, step: str | int) -> Any:
    """`node[step]`, or None where the path leads nowhere."""
    if isinstance(node, list) and isinstance(step, int):
        return node[step] if 0 <= step < len(node) else None
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(step)
    return None


def _huge_integer(data: Any) -> tuple[str | int, ...]:
    """The path of the first integer in `data` too long for Python to write (more than 4,300 digits)."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, int) and not isinstance(node, bool) and abs(node).bit_length() > 14_000:
            return path
        if isinstance(node, dict):
            stack.extend(reversed([((*path, k), v) for k, v in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(node)]))
    return ()


def replace(model: Model, kind: EditKind, old: Any, new: Any) -> Edit:
    """The edit that replaces `old` (None: add) with `new` (None: remove), remembering its position.
    Raises `UnloadableValue` when a saved file could not hold `new`."""
    if kind == "settings":
        raise ValueError("use set_setting for settings")
    if new is not None:
        check_loadable(new)
    items: list[Any] = getattr(model, _LISTS[kind])
    position = next((i for i, e in enumerate(items) if e is old), None) if old is not None else None
    key = entity_key(kind, old if old is not None else new)
    return Edit(kind, key, old, new, position)


def set_setting(model: Model, name: str, value: Any) -> Edit:
    """The edit that sets a model-wide setting. Raises `UnloadableValue` when a saved file could not hold
    `value` (of a dict, such as the layout, only the entries that change are checked)."""
    if name not in SETTINGS:
        raise ValueError(f"unknown setting {name!r}")
    before = getattr(model, name)
    changed = {k: v for k, v in value.items() if k not in before or before[k] != v} \
        if isinstance(value, dict) and isinstance(before, dict) else value
    check_loadable(changed, name)
    return Edit("settings", name, before, value)


def add(model: Model, entity: Server | Table | Mapping | TableConflicts) -> Edit:
    """The edit that adds `entity` at the end of its list. Raises `UnloadableValue` (see `replace`)."""
    check_loadable(entity)
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
