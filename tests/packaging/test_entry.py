"""The packaged application's entry point tells `python -m MODULE` command lines (the designer's runs, the warm
worker, Spark's Python workers start the application so) from the `mapwright` command line."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ENTRY = Path(__file__).resolve().parents[2] / "packaging" / "entry.py"


@pytest.fixture(scope="module")
def entry() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mapwright_entry", ENTRY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("argv", "expected"), [
    (["app", "-m", "engine.worker", "--master", "local[2]"], ("engine.worker", ["engine.worker", "--master",
                                                                                   "local[2]"], False)),
    (["app", "-u", "-m", "pyspark.daemon"], ("pyspark.daemon", ["pyspark.daemon"], True)),
    (["app", "-X", "dev", "-bu", "-m", "engine.cli", "validate", "m.json"],
     ("engine.cli", ["engine.cli", "validate", "m.json"], True)),
    (["app", "validate", "-m", "x"], None),  # a subcommand's own -m, not the interpreter's
    (["app", "--version"], None),
    (["app", "-m"], None),
    (["app"], None),
])
def test_module_command_lines_are_told_from_the_cli(entry: ModuleType, argv: list[str],
                                                    expected: tuple[str, list[str], bool] | None) -> None:
    assert entry.module_command(argv) == expected
