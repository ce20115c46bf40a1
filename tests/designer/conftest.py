"""Fixtures the designer's tests share."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import pytest

from engine.run.rundir import run_reference_to_dir

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"


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


@pytest.fixture(scope="module")
def ordering_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference engine's run directory of the ordering example (read-only: copy it to change it)."""
    example = EXAMPLES / "ordering_conflict"
    status, out = run_reference_to_dir(example / "model.json", example / "data", tmp_path_factory.mktemp("r") / "run")
    assert status == "succeeded"
    return out
