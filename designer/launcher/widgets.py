"""Small helpers the launcher's widgets share."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QObject

_O = TypeVar("_O", bound=QObject)


def named(obj: _O, name: str) -> _O:
    """`obj` with its object name set (tests and style sheets find widgets by it)."""
    obj.setObjectName(name)
    return obj
