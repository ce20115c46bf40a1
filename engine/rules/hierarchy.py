"""Table hierarchies (`parent`, seed 001): which root each table's chain of parents reaches, or a cycle.

Read by TB002 (a circular hierarchy) and CR009 (uneven conflict resolution across one), both checked in the
model's scope after any table edit: one walk, linear in the tables, serves both.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.schema import Model


@dataclass(frozen=True)
class Hierarchies:
    """`roots`: table key -> the key of its hierarchy's root (itself when it has no known parent), for every
    table whose chain ends; `circular`: the keys of tables whose chain runs into a cycle, in model order;
    `parent_of`: table key -> its parent's key, for tables that name one."""

    roots: dict[str, str]
    circular: list[str]
    parent_of: dict[str, str]


def hierarchies(model: Model) -> Hierarchies:
    parent_of = {t.key: f"{t.server}.{t.parent}" for t in model.tables if t.parent}
    roots: dict[str, str] = {}
    circular: list[str] = []
    root_of: dict[str, str | None] = {}  # a table's root, or None when its chain runs into a cycle
    for key in [t.key for t in model.tables]:
        if key not in root_of:  # walk up until a root, a cycle, or a table already placed: linear overall
            path, on_path, here = [], set(), key
            result: str | None
            while here not in root_of:
                path.append(here)
                on_path.add(here)
                parent = parent_of.get(here)
                if parent is None or model.table(parent) is None:
                    result = here
                    break
                if parent in on_path:
                    result = None
                    break
                here = parent
            else:
                result = root_of[here]
            root_of.update(dict.fromkeys(path, result))
        root = root_of[key]
        if root is None:
            circular.append(key)
        else:
            roots[key] = root
    return Hierarchies(roots, circular, parent_of)


def cycle_text(key: str, parent_of: dict[str, str], shown: int = 8) -> str:
    """`A -> B -> C -> A`: the chain from `key` until it repeats, cut after `shown` tables."""
    path, here = [key], key
    while len(path) <= shown:
        here = parent_of[here]
        if here in path:
            return " -> ".join([*path, here])
        path.append(here)
    return " -> ".join(path) + " -> ..."
