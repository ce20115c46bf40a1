"""Distribution keys: the explicit one, or the default rule of docs/contract.md §3 (seed 000)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.model.methods import Column
from engine.model.schema import Mapping, Model

KeyOrigin = Literal["explicit", "primary_key", "unique_index", "source_key"]


@dataclass(frozen=True)
class DistributionKey:
    """A set of target columns (docs/contract.md §3), in the order first named, each once: a key or
    index that names a column twice (TB005) does not make it count twice (DK003's bytes)."""

    columns: tuple[str, ...]
    origin: KeyOrigin

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(dict.fromkeys(self.columns)))


def distribution_key(model: Model, mapping: Mapping) -> DistributionKey | None:
    """The mapping's DKey: its own, else the target's primary key, else its first unique index,
    else the target columns copied from every source primary-key column; None when there is none. Only
    an absent key takes the default rule: an empty one (`[]`) names no column, so there is none."""
    if mapping.distribution_key is not None:
        return DistributionKey(tuple(mapping.distribution_key), "explicit") if mapping.distribution_key else None
    target = model.table(mapping.target)
    if target is None:
        return None
    if target.primary_key:
        return DistributionKey(tuple(target.primary_key), "primary_key")
    if target.unique_indexes:
        return DistributionKey(tuple(target.unique_indexes[0].columns), "unique_index")
    source = model.table(mapping.source)
    if source is None or not source.primary_key:
        return None
    copied = {m.input: t for t, m in mapping.columns.items() if isinstance(m, Column)}
    if all(c in copied for c in source.primary_key):
        return DistributionKey(tuple(copied[c] for c in source.primary_key), "source_key")
    return None
