"""`mapwright verify`: a model with validation errors is refused as `run` refuses it, before any server starts;
what the reference run cannot execute is one line, never a traceback. No PostgreSQL server is started here."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import cli
from engine.run.semantics.context import RunModelError
from engine.sql.errors import UnsupportedSql

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"

TWO_SITES: dict[str, Any] = {
    "format": "mapwright/1",
    "servers": [{"id": "a", "dbms": "postgresql", "priority": 1}, {"id": "b", "dbms": "postgresql", "priority": 2}],
    "tables": [{"server": s, "name": "T", "primary_key": ["ID"],
                "columns": [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "N", "type": "VARCHAR(10)"}]}
               for s in ("a", "b")],
    "mappings": [{"id": "m", "source": "a.T", "target": "b.T", "columns": {"ID": "ID", "N": "N"}}],
}
"""A valid model of two PostgreSQL servers; each case below breaks it in one place."""


def _no_key(doc: dict[str, Any]) -> None:
    for table in doc["tables"]:
        table["primary_key"] = []


def _mapping(**changes: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["mappings"][0].update(changes)
    return edit


TRACEBACKS = {  # what the probe found ending in a traceback from the reference run
    "DK001": _no_key,
    "MP002": _mapping(target="b.NOPE"),
    "DK011": _mapping(distribution_key=["ZZ"]),
    "MP003 where that does not parse": _mapping(where="ID = ("),
    "MP004": _mapping(columns={"ID": "ID", "N": {"method": "expression", "sql": "ID +"}}),
}
BROKEN = TRACEBACKS | {  # and what got through every check to the embedded PostgreSQL start
    "MP003 where naming an unknown column": _mapping(where="NOPE = 1"),
    "MP001": _mapping(columns={"ID": "ID", "N": "NOPE"}),
}
"""Only the traceback cases run as a command of their own: were the check lost, the others would start real
servers, where `test_an_invalid_model_starts_nothing` stands in for them."""


def write_model(folder: Path, edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    doc = copy.deepcopy(TWO_SITES)
    if edit is not None:
        edit(doc)
    path = folder / "model.json"
    path.write_text(json.dumps(doc))
    (folder / "data").mkdir()
    return path


def mw(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("case", list(TRACEBACKS))
def test_a_model_with_validation_errors_is_refused_in_one_line_exit_1(case: str, tmp_path: Path) -> None:
    write_model(tmp_path, TRACEBACKS[case])
    out = mw("verify", "model.json", "--data", "data", cwd=tmp_path)
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 1, out.stderr
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("mapwright: verify failed: the model has "), lines[0]
    assert lines[0].endswith("validation error(s); see `mapwright validate model.json`"), lines[0]


def test_verify_gives_the_reason_and_exit_code_run_gives(tmp_path: Path) -> None:
    """`run` validates before its work and fails with this reason (its manifest holds it): `verify` says the same."""
    write_model(tmp_path, _no_key)
    ran = mw("run", "model.json", "--data", "data", "--out", "rundir", cwd=tmp_path)
    finished = json.loads(ran.stdout.splitlines()[-1])
    assert (ran.returncode, finished["status"]) == (1, "failed"), ran.stderr
    verified = mw("verify", "model.json", "--data", "data", cwd=tmp_path)
    assert verified.returncode == ran.returncode
    assert verified.stderr == f"mapwright: verify failed: {finished['reason']}\n"
    assert ran.stderr.splitlines()[-1].startswith(f"mapwright: run failed: {finished['reason']} (")


def _errors(model: Path) -> int:
    return int(json.loads(mw("validate", str(model), "--format", "json", cwd=model.parent).stdout)["errors"])


def _must_not_run(what: str) -> Callable[..., Any]:
    def fail(*_args: Any, **_kwargs: Any) -> Any:
        pytest.fail(f"verify {what} for a model with validation errors")
    return fail


@pytest.mark.parametrize("case", list(BROKEN))
def test_an_invalid_model_starts_nothing(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """MP001 and MP003 models got through every check to the embedded PostgreSQL start."""
    import engine.deploy.verify as verify_module

    monkeypatch.setattr(verify_module, "running_servers", _must_not_run("started the servers"))
    monkeypatch.setattr(verify_module, "run_reference", _must_not_run("ran the reference"))
    model = write_model(tmp_path, BROKEN[case])
    assert cli.main(["verify", str(model), "--data", str(tmp_path / "data")]) == 1
    assert capsys.readouterr().err == ("mapwright: verify failed: the model has "
                                       f"{_errors(model)} validation error(s); see `mapwright validate {model}`\n")


@pytest.mark.parametrize("error", [RunModelError("mapping m has no distribution key (DK001)"),
                                   UnsupportedSql("does not parse: 'ID = (':\nRequired keyword")])
def test_a_model_the_run_cannot_execute_is_one_line_exit_2_not_a_traceback(
        error: Exception, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """What validation lets through and the reference run refuses is exit 2, as `run` gives it."""
    import engine.deploy.verify as verify_module

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(verify_module, "running_servers", _must_not_run("started the servers"))
    monkeypatch.setattr(verify_module, "run_reference", refuse)
    model = write_model(tmp_path)
    assert cli.main(["verify", str(model), "--data", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("mapwright: "), err
    assert str(error).splitlines()[0] in err
