"""`mapwright codes` and `mapwright explain CODE`: every code the validator can emit is listed and explained."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.rules.explain import page
from engine.rules.registry import REGISTRY

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"


def test_codes_lists_every_code_with_its_severity_and_title(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["codes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(REGISTRY)
    for line, rule in zip(lines, REGISTRY.values(), strict=True):
        code, severity, title = line.split(maxsplit=2)
        assert (severity, title) == (rule.severity.value, rule.title)


def test_explain_prints_each_code_s_page(capsys: pytest.CaptureFixture[str]) -> None:
    for code, rule in REGISTRY.items():
        assert main(["explain", code.lower()]) == 0, code
        assert capsys.readouterr().out == page(rule)


def test_explain_of_an_unknown_code_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "DK999\x1b[2J"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "\x1b" not in captured.err
    assert captured.err.startswith("mapwright: DK999") and "mapwright codes" in captured.err


def test_the_installed_command_explains_a_code() -> None:
    out = subprocess.run([MAPWRIGHT, "explain", "DK009"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("# DK009: source columns feeding the key are not unique\n")
    assert "warning DK009 (mapping m, table s.T)" in out.stdout
