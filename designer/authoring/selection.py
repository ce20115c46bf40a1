"""A selection that follows renames: the ref the properties panel shows, carried through a batch of edits.

Pure (no Qt): renaming a server, table, column or mapping keeps what was
selected selected, under its new name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import authoring as au
from engine.edits import Edit
from engine.model.schema import Model

Ref = tuple[Any, ...]


def _renamed_key(old: list[str], new: list[str], name: str) -> str:
    """`name` after a rename that changed only it, in place (else `name` unchanged)."""
    if name in new or name not in old or len(old) != len(new):
        return name
    at = old.index(name)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return new[at] if changed == [at] else name


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
                ref = ("column", edit.after.key,
                       _renamed_key(edit.before.column_names(), edit.after.column_names(), ref[2]))
        elif edit.kind == "mapping" and kind in ("mapping", "link", "method", "reverse") and ref[1] == edit.before.id:
            ref = (kind, edit.after.id, *ref[2:])
            if kind in ("link", "method"):  # the target column renamed: its column map moved to the new name
                ref = (kind, ref[1], _renamed_key(list(edit.before.columns), list(edit.after.columns), ref[2]),
                       *ref[3:])
    return ref


def ref_exists(model: Model, ref: Ref) -> bool:
    """Whether `ref` names something `model` holds (an undo may have taken it away); () names nothing."""
    if not ref:
        return True
    kind = ref[0]
    if kind == "server":
        return model.server(str(ref[1])) is not None
    if kind in ("table", "column"):
        table = model.table(str(ref[1]))
        return table is not None and (kind == "table" or str(ref[2]) in table.column_names())
    mapping = model.mapping(str(ref[1])) if kind in ("mapping", "reverse", "link", "method") else None
    if mapping is None or kind in ("mapping", "reverse"):
        return mapping is not None
    if str(ref[2]) not in mapping.columns:
        return False
    return kind == "link" or isinstance(au.node_at(mapping.columns[str(ref[2])].model_dump(mode="json"),
                                                    tuple(ref[3])), dict)
