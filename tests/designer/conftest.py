"""Fixtures the designer's tests share."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import TracebackType

import pytest


@pytest.fixture
def unhandled() -> Iterator[list[BaseException]]:
    """What reaches the event loop (a slot's exception goes to sys.excepthook)."""
    errors: list[BaseException] = []
    old = sys.excepthook

    def hook(_kind: type[BaseException], exc: BaseException, _tb: TracebackType | None) -> None:
        errors.append(exc)
    sys.excepthook = hook
    yield errors
    sys.excepthook = old
