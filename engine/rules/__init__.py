"""Validation rules (CONTRACT section 3): each a small function returning typed findings."""

from engine.rules.findings import CODES, Finding, Location, Severity, count
from engine.rules.validate import Validator, validate

__all__ = ["CODES", "Finding", "Location", "Severity", "Validator", "count", "validate"]
