"""Every validation code, found by its code: the declarations of the catalog and the checks that emit them.

`REGISTRY` maps a code to its `Rule`, in catalog order (family by family, as `FAMILIES` lists them). A check
function names the codes it emits with `@emits("DK009")`, so `grep DK009` lands on the declaration and on
the function, and `checks_of` tells the documentation which function that is.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TypeVar

from engine.rules.catalog import bi, cr, dk, fk, mp, nl, nn, pt, sc, tb, ty
from engine.rules.rule import Rule

FAMILIES: tuple[tuple[str, str, ModuleType], ...] = (
    ("DK", "Distribution keys", dk),
    ("BI", "Bidirectional mappings", bi),
    ("NN", "Protected replication", nn),
    ("NL", "NOT NULL columns", nl),
    ("MP", "Mappings and their SQL", mp),
    ("CR", "Conflict resolution", cr),
    ("TY", "Data types", ty),
    ("SC", "Replication definitions (schema changes)", sc),
    ("TB", "Tables, keys and constraints", tb),
    ("FK", "Foreign keys across servers", fk),
    ("PT", "Partitioned tables", pt),
)
"""(family letters, what the family checks, its catalog module)."""


def _collect() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for letters, _, module in FAMILIES:
        rules: tuple[Rule, ...] = module.RULES
        for rule in rules:
            if rule.family != letters or rule.code in found:
                raise ValueError(f"{module.__name__}: {rule.code} is misplaced or declared twice")
            found[rule.code] = rule
    return found


REGISTRY: dict[str, Rule] = _collect()

_CHECKS: dict[str, list[str]] = {}
F = TypeVar("F", bound=Callable[..., object])


def emits(*codes: str) -> Callable[[F], F]:
    """Mark a check function as the one that emits `codes` (each must be declared in the catalog)."""
    unknown = [c for c in codes if c not in REGISTRY]
    if unknown:
        raise ValueError(f"@emits names undeclared code(s) {', '.join(unknown)}: declare them in engine.rules.catalog")

    def mark(function: F) -> F:
        name = f"{function.__module__}.{getattr(function, '__qualname__', repr(function))}"
        for code in codes:
            if name not in _CHECKS.setdefault(code, []):
                _CHECKS[code].append(name)
        return function

    return mark


def checks_of(code: str) -> list[str]:
    """The dotted names of the functions that emit `code` (filled as the rule modules are imported)."""
    return list(_CHECKS.get(code, []))


def lookup(code: str) -> Rule | None:
    """The rule of `code`, any case (`dk009` is DK009), or None."""
    return REGISTRY.get(code.strip().upper())


def family_title(letters: str) -> str:
    return next(title for fam, title, _ in FAMILIES if fam == letters)
