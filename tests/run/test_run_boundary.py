"""The run reference is headless and Spark-free: the Spark pipeline builds on it, not the other way."""

from __future__ import annotations

import ast
from pathlib import Path

import engine.run

FORBIDDEN = ("pyspark", "PySide6", "shiboken6", "designer")


def test_no_module_of_engine_run_imports_spark_or_qt() -> None:
    folder = Path(engine.run.__file__).parent
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(folder)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert found == []
