"""`mapwright requeue RUNDIR --model MODEL --out NEWRUN [--txn ID]`: a run whose table t.T has no resolution
queues two transactions (an update conflict and an insert onto an existing key); executed again with a
model that resolves them, with the same model, for one transaction, with a model that lost the mapping;
input it refuses. RUNDIR is never written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from engine.cli import main
from engine.run.rundir.read import read_run_files
from engine.run.rundir.write import run_reference_to_dir

COLUMNS = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"}]
RESOLVED = [{"table": "t.T", "column_groups": [{"name": "g", "columns": ["NAME"],
                                                "resolution": [{"method": "overwrite"}]}],
             "on_insert_exists": "overwrite"}]
CHANGES = [
    {"site": "s", "txn": "t1", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "U",
     "before": {"ID": 1, "NAME": "a"}, "after": {"ID": 1, "NAME": "b"}},  # t holds NAME x: old values differ
    {"site": "s", "txn": "t2", "seq": 1, "commit_ts": "2026-01-05T10:01:00Z", "table": "T", "op": "I",
     "after": {"ID": 2, "NAME": "n"}},  # t holds ID 2 already
]


def _model(folder: Path, name: str, conflicts: list[dict[str, Any]], mapping_id: str = "m") -> Path:
    doc = {"format": "mapwright/1", "name": "rq", "servers": [{"id": "s", "dbms": "postgresql"},
                                                              {"id": "t", "dbms": "postgresql"}],
           "tables": [{"server": srv, "name": "T", "columns": COLUMNS, "primary_key": ["ID"]} for srv in "st"],
           "mappings": [{"id": mapping_id, "source": "s.T", "target": "t.T", "columns": {"ID": "ID", "NAME": "NAME"}}],
           "conflicts": conflicts}
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def queued_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run directory with t1 and t2 in its error queue (read-only)."""
    folder = tmp_path_factory.mktemp("requeue")
    data = folder / "data"
    for site, rows in (("s", [{"ID": 1, "NAME": "a"}]), ("t", [{"ID": 1, "NAME": "x"}, {"ID": 2, "NAME": "y"}])):
        (data / "snapshots" / site).mkdir(parents=True)
        (data / "snapshots" / site / "T.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (data / "changes").mkdir()
    (data / "changes" / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CHANGES))
    status, out = run_reference_to_dir(_model(folder, "model.json", []), data, folder / "run")
    assert status == "succeeded"
    assert [e["txn"] for e in _queue(out)] == ["t1", "t2"]
    return out


def _queue(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "error_queue.jsonl").read_text().splitlines()]


def _rows(run: Path) -> dict[int, str]:
    return {r["ID"]: r["NAME"] for r in pq.read_table(run / "tables" / "t" / "T.parquet").to_pylist()}


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _counts(run: Path) -> dict[str, int]:
    return json.loads((run / "manifest.json").read_text())["counts"]  # type: ignore[no-any-return]


def test_a_model_with_a_resolution_resolves_the_queue(queued_run: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    before = _digest(queued_run)
    new = tmp_path / "new"
    assert main(["requeue", str(queued_run), "--model", str(_model(tmp_path, "m.json", RESOLVED)),
                 "--out", str(new)]) == 0
    assert "2 resolved, 0 queued" in capsys.readouterr().out
    conflicts = [json.loads(line) for line in (new / "conflicts.jsonl").read_text().splitlines()]
    assert [(c["txn"], c["type"], c["method"], c["outcome"]) for c in conflicts] == [
        ("t1", "update", "overwrite", "remote"), ("t2", "uniqueness", "overwrite", "remote")]
    assert _queue(new) == []
    assert _rows(new) == {1: "b", 2: "n"}
    assert _counts(new) == {"records": 2, "rejects": 0, "filtered": 0, "deliveries": 2, "applied": 0,
                            "resolved": 2, "queued": 0, "conflicts": 2}
    assert json.loads((new / "convergence.json").read_text())["mappings"][0]["diverged"] == 0
    assert read_run_files(new).manifest["status"] == "succeeded"  # what `conflicts` and the designer read
    assert _digest(queued_run) == before


def test_the_same_model_queues_them_again_and_txn_picks_some(queued_run: Path, tmp_path: Path) -> None:
    before = _digest(queued_run)
    same = tmp_path / "same"
    assert main(["requeue", str(queued_run), "--model", str(_model(tmp_path, "m.json", [])),
                 "--out", str(same)]) == 0
    assert _queue(same) == _queue(queued_run)  # re-executable again, reasons and times as they were
    assert _rows(same) == {1: "x", 2: "y"}
    assert _counts(same)["queued"] == 2
    one = tmp_path / "one"
    assert main(["requeue", str(queued_run), "--model", str(_model(tmp_path, "r.json", RESOLVED)),
                 "--out", str(one), "--txn", "t2"]) == 0
    assert [e["txn"] for e in _queue(one)] == ["t1"]  # not executed: still queued, with its reason
    assert _queue(one)[0]["reason"] == _queue(queued_run)[0]["reason"]
    assert _rows(one) == {1: "x", 2: "n"}
    assert (_counts(one)["resolved"], _counts(one)["queued"]) == (1, 1)
    gone = tmp_path / "gone"  # the mapping the changes came through is no longer in the model: rejects
    assert main(["requeue", str(queued_run), "--model", str(_model(tmp_path, "g.json", RESOLVED, "m2")),
                 "--out", str(gone)]) == 0
    rejects = [json.loads(line) for line in (gone / "rejects.jsonl").read_text().splitlines()]
    assert [(r["line"], r["reason"]) for r in rejects] == [(1, "mapping 'm' is not in the model"),
                                                           (2, "mapping 'm' is not in the model")]
    assert _rows(gone) == {1: "x", 2: "y"}
    assert _digest(queued_run) == before


def test_bad_input_is_one_line_and_exit_2(queued_run: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    before = _digest(queued_run)
    model = str(_model(tmp_path, "m.json", RESOLVED))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    cases = {
        str(queued_run): (str(queued_run), "apart from"),  # NEWRUN would replace RUNDIR
        str(queued_run / "sub"): (str(queued_run), "apart from"),
        str(tmp_path / "mine"): (str(queued_run), "not a Mapwright run directory"),
        str(tmp_path / "a"): (str(tmp_path / "mine"), "not a run directory"),
    }
    for out, (rundir, said) in cases.items():
        assert main(["requeue", rundir, "--model", model, "--out", out]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    assert main(["requeue", str(queued_run), "--model", model, "--out", str(tmp_path / "b"), "--txn", "t9"]) == 2
    assert "--txn t9: no queued change" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
    assert _digest(queued_run) == before
