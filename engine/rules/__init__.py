"""Validation rules (docs/contract.md §3): each code declared once in `catalog`, checked by a small function of
its family's module that returns typed findings."""

from engine.rules.findings import CODES, Finding, Location, Severity, count
from engine.rules.validate import Validator, validate

__all__ = ["CODES", "Finding", "Location", "Severity", "Validator", "count", "validate"]
