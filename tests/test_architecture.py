"""The engine is headless: import-linter forbids it from importing Qt or the designer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"


def lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([LINT_IMPORTS, "--config", str(cwd / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_engine_never_imports_qt_or_the_designer() -> None:
    out = lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "KEPT" in out.stdout and "BROKEN" not in out.stdout


def test_the_contract_catches_a_violation(tmp_path: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("")
    (tmp_path / "engine" / "sneaky.py").write_text("def f():\n    from PySide6 import QtCore\n")
    (tmp_path / "designer").mkdir()
    (tmp_path / "designer" / "__init__.py").write_text("import engine\n")
    out = lint(tmp_path)
    assert out.returncode != 0
    assert "engine.sneaky -> PySide6" in out.stdout
