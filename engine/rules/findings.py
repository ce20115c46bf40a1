"""Findings: what a rule says about a model, as small typed values.

Codes, severities and titles are declared once, in the catalog of the code's family (`engine.rules.catalog`);
`CODES` is that registry, so the command line, the Problems panel, the documentation and the tests read the
same source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.rules.registry import REGISTRY
from engine.rules.rule import Rule, Severity

__all__ = ["CODES", "Finding", "Location", "Severity", "count"]


@dataclass(frozen=True, order=True)
class Location:
    """Where a finding points; fields that do not apply stay None."""

    mapping: str | None = None
    table: str | None = None
    column: str | None = None
    group: str | None = None
    index: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True, order=True)
class Finding:
    code: str
    message: str
    location: Location = field(default_factory=Location)

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity.value, "message": self.message,
                "location": self.location.as_dict()}

    def sort_key(self) -> tuple[int, str, str, str]:
        return (0 if self.severity is Severity.ERROR else 1, self.code,
                self.location.column or "", self.message)


CODES: dict[str, Rule] = REGISTRY
"""Every code's declaration, by code: its severity, title and documentation (`engine.rules.catalog`)."""


def count(findings: list[Finding]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    return errors, len(findings) - errors
