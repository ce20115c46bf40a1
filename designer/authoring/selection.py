"""A selection that follows renames: the ref the properties panel shows, carried through a batch of edits.

Pure (no Qt): renaming a server, table, column or mapping keeps what was
selected selected, under its new name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.edits import Edit

Ref = tuple[Any, ...]


def _renamed_column(before: Any, after: Any, name: str) -> str | None:
    """The new name of column `name` when `after` renames it (same place, one name changed)."""
    old, new = before.column_names(), after.column_names()
    if name in new or name not in old or len(old) != len(new):
        return None
    at = old.index(name)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return new[at] if changed == [at] else None


def follow_ref(ref: Ref, edits: Sequence[Edit]) -> Ref:
    """`ref` after `edits` (applied in order): renamed along with the entity it names."""
    for edit in edits:
        if edit.before is None or edit.after is None or not ref:
            continue
        kind = ref[0]
        if edit.kind == "server" and kind == "server" and ref[1] == edit.before.id:
            ref = ("server", edit.after.id)
        elif edit.kind == "table" and kind in ("table", "column") and ref[1] == edit.before.key:
            ref = (kind, edit.after.key, *ref[2:])
            if kind == "column":
                new_name = _renamed_column(edit.before, edit.after, ref[2])
                ref = ("column", edit.after.key, new_name or ref[2])
        elif edit.kind == "mapping" and kind in ("mapping", "link", "method", "reverse") and ref[1] == edit.before.id:
            ref = (kind, edit.after.id, *ref[2:])
    return ref
