"""The B2 benchmark's 3-master generator: deterministic, a valid model, 10% of keys changed at several
sites within the propagation delay, and before images that the run semantics settle as it predicts."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from benchmarks import topology
from engine.model import load_model
from engine.rules import Severity, validate
from engine.run import run_reference

EVENTS = 1_200


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, topology.Topology]:
    out = tmp_path_factory.mktemp("three-masters")
    return out, topology.generate(out, EVENTS, seed=5)


def test_the_same_seed_writes_the_same_bytes_and_another_seed_does_not(
        generated: tuple[Path, topology.Topology], tmp_path: Path) -> None:
    out, _ = generated
    topology.generate(tmp_path / "again", EVENTS, seed=5)
    topology.generate(tmp_path / "other", EVENTS, seed=6)
    assert tree(tmp_path / "again") == tree(out)
    assert tree(tmp_path / "other")["data/changes/east.jsonl"] != tree(out)["data/changes/east.jsonl"]


def test_the_model_is_three_masters_mapped_both_ways_and_validates(generated: tuple[Path, topology.Topology]) -> None:
    out, _ = generated
    model = load_model(out / "model.json")
    assert [f for f in validate(model) if f.severity is Severity.ERROR] == []
    pairs = {(m.source, m.target) for m in model.mappings}
    sites = [s.id for s in model.servers]
    assert len(sites) == 3
    assert pairs == {(f"{a}.ACCOUNT", f"{b}.ACCOUNT") for a in sites for b in sites if a != b}
    methods = {tuple(step.method for step in g.resolution) for c in model.conflicts for g in c.column_groups}
    assert methods == {("latest_timestamp", "site_priority"), ("additive",)}


def test_there_are_n_events_and_ten_percent_of_keys_change_at_several_sites_within_the_delay(
        generated: tuple[Path, topology.Topology]) -> None:
    out, topo = generated
    lines = [json.loads(line) for f in sorted((out / "data" / "changes").glob("*.jsonl"))
             for line in f.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == EVENTS == len(topo.changes)
    assert topo.keys == EVENTS // topology.EVENTS_PER_KEY
    assert len(topo.burst_keys) == round(topo.keys * topology.CONFLICT_SHARE)
    assert topology.within_delay(topo.changes) == topo.burst_keys  # measured from the events, not the plan
    written = [topology.Change(topology.datetime.fromisoformat(r["commit_ts"]), r["site"], r["before"]["ID"], {}, {})
               for r in lines]
    assert topology.within_delay(written) == topo.burst_keys  # the same in the files a run reads


def test_the_reference_run_settles_every_site_on_the_rows_the_generator_predicts(
        generated: tuple[Path, topology.Topology]) -> None:
    out, topo = generated
    result = run_reference(load_model(out / "model.json"), out / "data")
    assert result.counts.rejects == 0 and result.counts.queued == 0
    assert result.counts.deliveries == 2 * EVENTS
    assert result.counts.conflicts >= len(topo.burst_keys)  # every burst is at least one conflict somewhere
    assert {c["method"] for c in result.conflicts} == {"latest_timestamp", "additive"}
    assert all(m["diverged"] == 0 for m in result.convergence)
    for table, rows in result.tables.items():
        got = {r["ID"]: (r["NAME"], r["CITY"], r["UPDATED_AT"], r["BALANCE"]) for r in rows}
        want = {k: (r["NAME"], r["CITY"], r["UPDATED_AT"], Decimal(r["BALANCE"]) / 100) for k, r in topo.final.items()}
        assert got == want, table


def test_generating_again_into_a_folder_removes_change_files_a_run_would_also_read(tmp_path: Path) -> None:
    topology.generate(tmp_path, 100, seed=1)
    stray = tmp_path / "data" / "changes" / "old.jsonl"
    stray.write_text('{"site": "east"}\n', encoding="utf-8")
    topology.generate(tmp_path, 100, seed=1)
    assert not stray.exists()
    assert sorted(p.name for p in (tmp_path / "data" / "changes").iterdir()) == ["east.jsonl", "south.jsonl",
                                                                                 "west.jsonl"]


def test_the_command_line_refuses_a_count_that_is_not_a_positive_number(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        topology.main(["--events", "0", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert "at least one change event" in capsys.readouterr().err
    assert not (tmp_path / "model.json").exists()
