"""Helpers shared by the rule tests (docs/contract.md §3).

`assert_fires` / `assert_silent` check one code, optionally at a location;
a location value may be a set of acceptable values. A `Case` is one firing
model plus its near miss: a closely related, correct model on which the code
must not fire. Every topic module lists its cases in `CASES`, and
`test_code_catalog.py` checks that together they cover every code in `CODES`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from builders import col, mapping, model, server, table  # noqa: E402

from engine.model import Model  # noqa: E402
from engine.rules import CODES, Finding, validate  # noqa: E402

S, T = "s", "t"
SRC, TGT = "s.T", "t.T"


# --- assertions ---------------------------------------------------------------


def _matches(f: Finding, code: str, where: dict[str, Any]) -> bool:
    if f.code != code:
        return False
    for key, want in where.items():
        have = getattr(f.location, key)
        if isinstance(want, (set, frozenset)):
            if have not in want:
                return False
        elif have != want:
            return False
    return True


def show(findings: list[Finding]) -> str:
    return "\n".join(f"  {f.code} {f.location.as_dict()} {f.message}" for f in findings) or "  (no findings)"


def fired(m: Model, code: str, **where: Any) -> list[Finding]:
    """Findings of `code` whose location matches every given field."""
    assert code in CODES, f"unknown code {code}"
    return [f for f in validate(m) if _matches(f, code, where)]


def assert_fires(m: Model, code: str, **where: Any) -> list[Finding]:
    found = validate(m)
    hits = [f for f in found if _matches(f, code, where)]
    assert hits, f"expected {code} at {where}; got:\n{show(found)}"
    return hits


def assert_silent(m: Model, code: str, **where: Any) -> None:
    found = validate(m)
    hits = [f for f in found if _matches(f, code, where)]
    assert not hits, f"{code} must not fire{f' at {where}' if where else ''}; got:\n{show(found)}"


# --- cases: a firing model and its near miss ----------------------------------


@dataclass(frozen=True)
class Case:
    code: str
    name: str
    fire: Callable[[], Model]
    miss: Callable[[], Model]
    where: dict[str, Any] = field(default_factory=dict)

    def check_fires(self) -> None:
        hits = assert_fires(self.fire(), self.code, **self.where)
        assert all(h.severity is CODES[self.code].severity for h in hits)

    def check_misses(self) -> None:
        assert_silent(self.miss(), self.code)


def case_params(cases: list[Case]) -> list[Any]:
    return [pytest.param(c, id=f"{c.code}-{c.name}") for c in cases]


# --- builders -------------------------------------------------------------------


def one_way(
    src_cols: list[dict[str, Any]],
    tgt_cols: list[dict[str, Any]] | None = None,
    columns: dict[str, Any] | None = None,
    *,
    src_pk: list[str] | None = None,
    tgt_pk: list[str] | None = None,
    src_unique: dict[str, list[str]] | None = None,
    tgt_unique: dict[str, list[str]] | None = None,
    src_dbms: str = "postgresql",
    tgt_dbms: str = "postgresql",
    src_server: dict[str, Any] | None = None,
    tgt_server: dict[str, Any] | None = None,
    conflicts: list[dict[str, Any]] = (),  # type: ignore[assignment]
    map_extra: dict[str, Any] | None = None,
    more_mappings: list[dict[str, Any]] = (),  # type: ignore[assignment]
    **model_extra: Any,
) -> Model:
    """Servers `s` and `t`, tables s.T and t.T, one mapping `m` s.T -> t.T.

    `tgt_cols` defaults to the source columns; `columns` defaults to copying every
    target column that the source also has."""
    tgt_cols = src_cols if tgt_cols is None else tgt_cols
    if columns is None:
        names = {c["name"] for c in src_cols}
        columns = {c["name"]: c["name"] for c in tgt_cols if c["name"] in names}
    return model(
        [server(S, src_dbms, **(src_server or {})), server(T, tgt_dbms, **(tgt_server or {}))],
        [
            table(S, "T", src_cols, pk=src_pk, unique=src_unique),
            table(T, "T", tgt_cols, pk=tgt_pk, unique=tgt_unique),
        ],
        [mapping("m", SRC, TGT, columns, **(map_extra or {})), *more_mappings],
        list(conflicts),
        **model_extra,
    )


__all__ = [
    "CODES",
    "Case",
    "S",
    "SRC",
    "T",
    "TGT",
    "assert_fires",
    "assert_silent",
    "case_params",
    "col",
    "fired",
    "mapping",
    "model",
    "one_way",
    "server",
    "show",
    "table",
    "validate",
]
