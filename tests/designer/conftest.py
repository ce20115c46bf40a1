"""Fixtures the designer's tests share."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import pytest


@pytest.fixture(autouse=True)
def private_autosave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every designer test autosaves into its own folder, never the user's (nor another test's)."""
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


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
