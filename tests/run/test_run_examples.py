"""End to end: the reference on the contract's run examples, checked against their expected.json, both in
memory and through the run directory it writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from runkit import EXAMPLES

from engine.core.values import to_json_value
from engine.model import load_model
from engine.run.rundir.write import run_reference_to_dir
from engine.run.semantics.reference import RunResult, run_reference

RUN_EXAMPLES = ["ordering_conflict", "row_images"]


def expected_of(name: str) -> dict[str, Any]:
    folder = EXAMPLES / name
    if not (folder / "expected.json").is_file():
        pytest.fail(f"the contract example {folder} is missing")
    return json.loads((folder / "expected.json").read_text())


def canonical(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    return sorted(json.dumps({c: to_json_value(r.get(c)) for c in columns}, sort_keys=True) for r in rows)


def check_against(expected: dict[str, Any], tables: dict[str, list[dict[str, Any]]], conflicts: list[dict[str, Any]],
                  queue: int, rejects: int, diverged: dict[str, int]) -> None:
    for table_key, want in expected.get("final", {}).items():
        columns = list(want[0]) if want else []
        assert canonical(tables[table_key], columns) == canonical(want, columns), table_key
        assert len(tables[table_key]) == len(want)
    want_conflicts = expected.get("conflicts")
    if isinstance(want_conflicts, int):
        assert len(conflicts) == want_conflicts
    elif isinstance(want_conflicts, list):
        assert len(conflicts) == len(want_conflicts)
        for w in want_conflicts:
            assert any(all(c.get(k) == v for k, v in w.items()) for c in conflicts), w
    if "error_queue" in expected:
        assert queue == expected["error_queue"]
    if "rejects" in expected:
        assert rejects == expected["rejects"]
    for mapping in expected.get("diverged", []):
        assert diverged[mapping] > 0, mapping
    for mapping in expected.get("converged", []):
        assert diverged[mapping] == 0, mapping


@pytest.mark.parametrize("name", RUN_EXAMPLES)
def test_the_reference_gives_the_expected_result(name: str) -> None:
    folder = EXAMPLES / name
    expected = expected_of(name)
    result: RunResult = run_reference(load_model(folder / "model.json"), folder / "data")
    check_against(expected, result.tables, result.conflicts, len(result.error_queue), len(result.rejects),
                  result.diverged())
    c = result.counts
    assert c.deliveries == c.applied + c.resolved + c.queued
    assert c.conflicts == len(result.conflicts)


@pytest.mark.parametrize("name", RUN_EXAMPLES)
def test_the_run_directory_holds_the_expected_result(name: str, tmp_path: Path) -> None:
    folder = EXAMPLES / name
    expected = expected_of(name)
    status, out = run_reference_to_dir(folder / "model.json", folder / "data", tmp_path / "run")
    assert status == "succeeded"
    tables = {}
    for path in (out / "tables").glob("*/*.parquet"):
        tables[f"{path.parent.name}.{path.stem}"] = pq.read_table(path).to_pylist()
    conflicts = [json.loads(line) for line in (out / "conflicts.jsonl").read_text().splitlines()]
    queue = len((out / "error_queue.jsonl").read_text().splitlines())
    rejects = len((out / "rejects.jsonl").read_text().splitlines())
    convergence = json.loads((out / "convergence.json").read_text())
    diverged = {m["mapping"]: m["diverged"] for m in convergence["mappings"]}
    check_against(expected, tables, conflicts, queue, rejects, diverged)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "succeeded"
    assert manifest["counts"]["conflicts"] == len(conflicts)
    assert pq.read_table(out / "conflicts.parquet").num_rows == len(conflicts)


def test_ordering_conflict_follows_table_5_1_step_by_step() -> None:
    """Site C hears of B's x=7 first (A->C is down), then A's outdated x=5, which wins on priority."""
    folder = EXAMPLES / "ordering_conflict"
    result = run_reference(load_model(folder / "model.json"), folder / "data")
    first, second = result.conflicts
    assert (first["origin"], first["delivered_at"], first["local"]["X"], first["result"]["X"]) == (
        "B", "2026-01-05T10:08:00Z", 2, 7)
    assert (second["origin"], second["delivered_at"], second["local"]["X"], second["result"]["X"]) == (
        "A", "2026-01-05T10:09:00Z", 7, 5)
    example = next(m for m in result.convergence if m["mapping"] == "A_to_C")["examples"][0]
    assert example == {"dkey": {"ID": 1}, "source": {"ID": 1, "X": 7}, "target": {"ID": 1, "X": 5}}
