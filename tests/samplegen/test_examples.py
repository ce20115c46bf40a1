"""`generate_sample` on every example model: a run of the sample succeeds with no rejects, reads every record
written, meets conflicts at the requested rate, and every configured method decides at least once."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit import configured_methods, conflict_rate, decided, lines_written, masters, record_docs

from engine.model import load_model
from engine.model.schema import Model
from engine.rules import Severity, validate
from engine.run.semantics.reference import run_reference
from engine.samplegen import SampleError, SampleOptions, generate_sample
from resources import SAMPLE_MODEL

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
MODELS = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json")) + \
    sorted(EXAMPLES.glob("*/model.json")) + [Path(SAMPLE_MODEL)]
RATE = 0.1


@pytest.mark.parametrize("path", MODELS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_sample_of_every_example_runs_as_asked(path: Path, tmp_path: Path) -> None:
    model = load_model(path)
    out = tmp_path / "data"
    errors = [f for f in validate(model) if f.severity is Severity.ERROR]
    if errors:
        with pytest.raises(SampleError, match=rf"{len(errors)} validation error\(s\); first: {errors[0].code}"):
            generate_sample(model, out)
        assert not out.exists()
        return
    summary = generate_sample(model, out, SampleOptions(seed=3, rows=40, changes=800, conflict_rate=RATE))
    run = run_reference(model, out)
    assert run.counts.rejects == 0
    assert run.counts.records == lines_written(out) == summary.changes
    assert summary.snapshot_rows > 0 and summary.tables > 0
    if any(len(servers) > 1 for servers in masters(model).values()):
        conflicted, delivered = conflict_rate(model, out, run)
        assert RATE / 2 <= conflicted / delivered <= RATE * 1.5, (conflicted, delivered)
        assert summary.conflict_keys == conflicted
        assert configured_methods(model) <= decided(run), configured_methods(model) - decided(run)
    else:
        assert run.conflicts == [] and summary.conflict_keys == 0


def test_ordinary_changes_never_conflict(tmp_path: Path) -> None:
    model = load_model(SAMPLE_MODEL)
    summary = generate_sample(model, tmp_path, SampleOptions(seed=9, rows=30, changes=1000, conflict_rate=0))
    run = run_reference(model, tmp_path)
    assert run.conflicts == [] and run.counts.queued == 0 and summary.conflict_keys == 0
    assert run.counts.deliveries > 500 and run.counts.rejects == 0
    ops = {d["op"] for d in record_docs(tmp_path)}
    assert ops == {"I", "U", "D"}
    assert any(len(lines) > 1 for lines in _by_txn(tmp_path).values())  # multi-row transactions
    assert any(_key_changed(model, d) for d in record_docs(tmp_path))


def _by_txn(data: Path) -> dict[tuple[str, str], list[dict[str, object]]]:
    out: dict[tuple[str, str], list[dict[str, object]]] = {}
    for doc in record_docs(data):
        out.setdefault((str(doc["site"]), str(doc["txn"])), []).append(doc)
    return out


def _key_changed(model: Model, doc: dict[str, object]) -> bool:
    table = model.table(f"{doc['site']}.{doc['table']}")
    before, after = doc.get("before"), doc.get("after")
    if table is None or not isinstance(before, dict) or not isinstance(after, dict):
        return False
    return any(before.get(c) != after.get(c) for c in table.primary_key)
