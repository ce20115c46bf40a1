"""The contract's validation examples, exactly, and the bundled sample (valid, warnings only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.model import load_model
from engine.rules import Severity, validate
from resources import SAMPLE_MODEL


@pytest.mark.parametrize("name", ["bidirectional", "dkey_rules"])
def test_validation_example(examples: Path, name: str) -> None:
    expected = json.loads((examples / f"{name}.expected.json").read_text())
    findings = validate(load_model(examples / f"{name}.json"))
    got: dict[str, list[tuple[str, str | None]]] = {}
    for f in findings:
        got.setdefault(f.location.mapping or "", []).append((f.code, f.location.column))
    for mapping, want in expected.get("by_mapping", {}).items():
        have = got.get(mapping, [])
        assert sorted(c for c, _ in have) == sorted(c for c, _ in want), mapping
        for code, column in want:
            if column:
                assert (code, column) in have, (mapping, code, column)
    for pair, codes in expected.get("pairs", {}).items():
        for code in codes:
            assert any(code in [c for c, _ in got.get(m, [])] for m in pair.split("|")), (pair, code)


def test_ordering_example_warns_cr006_on_each_table(examples: Path) -> None:
    findings = validate(load_model(examples / "ordering_conflict" / "model.json"))
    assert sorted((f.code, f.location.table) for f in findings) == [
        ("CR006", "A.T"), ("CR006", "B.T"), ("CR006", "C.T")]


def test_row_images_example_is_clean(examples: Path) -> None:
    assert validate(load_model(examples / "row_images" / "model.json")) == []


def test_bundled_sample_is_valid_with_warnings_only() -> None:
    model = load_model(SAMPLE_MODEL)
    findings = validate(model)
    assert findings, "the sample should show a new user what warnings look like"
    assert all(f.severity is Severity.WARNING for f in findings), [f for f in findings
                                                                   if f.severity is Severity.ERROR]
    dbms = {s.dbms for s in model.servers}
    assert len(model.servers) >= 3 and len(dbms) >= 3
    methods = {m.method for mp in model.mappings for col in mp.columns.values() for _, m in col.walk()}
    assert {"concat", "split", "cast"} <= methods
    assert any(mp.reverse for mp in model.mappings)
    chains = [g.resolution for c in model.conflicts for g in c.column_groups]
    assert any(len(chain) > 1 for chain in chains)
