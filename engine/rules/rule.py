"""What a validation code is: its severity, the scope its check reads, and the text that explains it.

Each code is declared once, as a `Rule`, in the catalog module of its family (`engine.rules.catalog.dk` holds
DK001-DK011). The validator's findings, `mapwright codes` / `mapwright explain`, the designer and the
documentation's pages all read these declarations (`engine.rules.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


Scope = Literal["mapping", "table", "conflicts", "model"]
"""What a check reads, and what the incremental validator re-checks after an edit: one mapping, one table,
one table's conflict settings, or the whole model (table hierarchies)."""

ModelDict = dict[str, Any]
"""A model as its JSON file holds it (`format`, `servers`, `tables`, ...)."""


@dataclass(frozen=True, eq=False)
class Rule:
    """One validation code.

    `example` is a whole model that fires the code; `near_miss` a closely related model that does not (a
    test validates both). `meaning` and `fix` are plain prose, a paragraph each."""

    code: str
    severity: Severity
    scopes: tuple[Scope, ...]
    title: str
    meaning: str
    fix: str
    example: ModelDict | None = None
    near_miss: ModelDict | None = None

    @property
    def family(self) -> str:
        """`DK` for DK009: the letters that name the code's family (and its catalog module)."""
        return self.code[:2]
