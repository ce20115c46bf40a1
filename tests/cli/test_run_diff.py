"""`mapwright diff RUN_A RUN_B`: two in-process runs of the ordering example that differ in a server's
priority and in one inserted row, compared; a run against itself; unusable arguments."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.run.rundir.write import RunInfo, run_reference_to_dir, write_failed_run
from engine.rundiff_rows import diff_table

INSERT = ('{{"site": "A", "txn": "{txn}", "seq": 1, "commit_ts": "2026-01-05T10:30:00Z", "table": "T", '
          '"op": "I", "after": {{"ID": {id}, "X": {x}}}}}\n')


def _variant(examples: Path, folder: Path, a_priority: int, inserts: list[tuple[int, int]]) -> Path:
    """The ordering example with server A's priority and extra inserts at A; returns its run directory."""
    source = examples / "ordering_conflict"
    shutil.copytree(source / "data", folder / "data")
    model = json.loads((source / "model.json").read_text())
    next(s for s in model["servers"] if s["id"] == "A")["priority"] = a_priority
    (folder / "model.json").write_text(json.dumps(model))
    with (folder / "data" / "changes" / "changes.jsonl").open("a") as fh:
        for n, (key, x) in enumerate(inserts):
            fh.write(INSERT.format(txn=f"extra{n}", id=key, x=x))
    status, out = run_reference_to_dir(folder / "model.json", folder / "data", folder / "run")
    assert status == "succeeded"
    return out


@pytest.fixture(scope="module")
def two_runs(examples: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Run A: the example, plus ID 3 inserted at A. Run B: A's priority 20 (below B's 25, so at C the late
    change from A loses to B's: C ends with X 7, not 5, and converges), plus IDs 2 and 4 inserted at A."""
    a = _variant(examples, tmp_path_factory.mktemp("a"), 30, [(3, 30)])
    b = _variant(examples, tmp_path_factory.mktemp("b"), 20, [(2, 20), (4, 40)])
    return a, b


def _diff(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_diff_finds_exactly_what_changed(two_runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = two_runs
    code, out, err = _diff(capsys, str(a), str(b), "--format", "json")
    assert (code, err) == (1, "")
    doc = json.loads(out)
    assert doc["equal"] is False
    changed = {k: (v["a"], v["b"]) for k, v in doc["counts"].items() if v["a"] != v["b"]}
    # one record more; each insert is delivered to B and C (2 deliveries, applied) more
    assert changed == {"records": (3, 4), "deliveries": (6, 8), "applied": (4, 6)}
    conflicts = {(c["table"], c["outcome"]): (c["a"], c["b"]) for c in doc["conflicts"] if c["a"] != c["b"]}
    assert conflicts == {("C.T", "remote"): (2, 1), ("C.T", "local"): (0, 1)}
    diverged = {c["mapping"]: (c["diverged_a"], c["diverged_b"]) for c in doc["convergence"]
                if c["diverged_a"] != c["diverged_b"]}
    assert diverged == {m: (1, 0) for m in ("A_to_C", "B_to_C", "C_to_A", "C_to_B")}
    tables = {t["table"]: t for t in doc["tables"]}
    assert set(tables) == {"A.T", "B.T", "C.T"}
    for name, t in tables.items():
        assert t["key"] == ["ID"]
        assert (t["rows_a"], t["rows_b"], t["only_a"], t["only_b"]) == (2, 3, 1, 2)
        assert t["examples"]["only_a"] == [{"ID": 3}]
        assert t["examples"]["only_b"] == [{"ID": 2}, {"ID": 4}]
        differing = t["examples"]["differing"]
        if name == "C.T":
            assert differing == [{"key": {"ID": 1}, "columns": ["X"], "a": {"ID": 1, "X": 5},
                                  "b": {"ID": 1, "X": 7}}]
        assert t["differing"] == len(differing) == (name == "C.T")

    code, text, err = _diff(capsys, str(a), str(b))
    assert (code, err) == (1, "")
    assert "  records      3 -> 4" in text
    assert "C.T remote" in text and "2 -> 1" in text
    assert "  C.T (key ID; 2 -> 3 row(s)): 1 only in A, 2 only in B, 1 differ" in text
    assert "    ID=1: X 5 -> 7" in text
    assert "    only in B: ID=4" in text


def test_a_run_equals_itself_and_its_copy(two_runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    a, _ = two_runs
    code, out, _ = _diff(capsys, str(a), str(a))
    assert code == 0
    assert "the runs are equal: counts, 2 conflict(s), the convergence of 6 mapping(s) and the final rows of " \
           "3 table(s)" in out
    copy = shutil.copytree(a, tmp_path / "copy")
    code, out, _ = _diff(capsys, str(copy), str(a), "--format", "json")
    assert code == 0 and json.loads(out)["equal"] is True


def test_equal_numbers_whatever_their_scale_are_equal_rows() -> None:
    cols = ["ID", "AMOUNT"]
    a = (cols, [{"ID": 1, "AMOUNT": Decimal("0.00")}, {"ID": 2, "AMOUNT": Decimal("1.50")}])
    b = (cols, [{"ID": Decimal("1.0"), "AMOUNT": Decimal("0")}, {"ID": 2, "AMOUNT": Decimal("1.5")}])
    assert diff_table("s.T", ("ID",), a, b).equal
    b[1][1]["AMOUNT"] = Decimal("1.51")
    changed = diff_table("s.T", ("ID",), a, b)
    assert (changed.differing_count, changed.differing[0].columns) == (1, ("AMOUNT",))
    keyless = diff_table("s.T", (), a, b)  # no key known: whole rows, a changed row is one only in each run
    assert (keyless.only_a_count, keyless.only_b_count, keyless.differing_count) == (1, 1, 0)


def _failed_run(folder: Path) -> Path:
    write_failed_run(folder, "failed", "a snapshot row has no key", RunInfo("0" * 64))
    return folder


@pytest.mark.parametrize(("make", "says"), [
    (lambda p: p / "absent", "no such folder"),
    (lambda p: (p / "plain").mkdir() or p / "plain", "not a run directory (no manifest.json)"),
    (_failed_run, "the run failed (a snapshot row has no key): only runs that succeeded can be compared"),
])
def test_an_unusable_run_is_exit_2_with_one_line(two_runs: tuple[Path, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str], make: Any, says: str) -> None:
    bad = make(tmp_path / "x") if make is _failed_run else make(tmp_path)
    for args in ([str(two_runs[0]), str(bad)], [str(bad), str(two_runs[0])]):
        code, out, err = _diff(capsys, *args)
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and str(bad) in err and says in err, err
