"""The run's inputs declared as pydantic types (engine/run/input/, engine/run/rundir/documents.py): the first
fault is still the one told, in the contract's words, whatever else the input gets wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runkit import pair, rec

from engine.run.input.records import ChangeRecord, Reject, decode_record
from engine.run.input.schedule import ScheduleError, parse_schedule
from engine.run.rundir.read import RunDirDamaged, check_convergence, check_manifest

MODEL = pair()


def reason(line: str) -> str:
    result = decode_record(line, "changes.jsonl", 3, MODEL)
    assert isinstance(result, Reject), result
    return result.reason


@pytest.mark.parametrize("version", [{}, [], {"v": 1}, [1]])
def test_a_schema_version_that_is_an_object_or_a_list_is_a_reject_not_a_crash(version: object) -> None:
    # it had raised TypeError (unhashable) out of the decoder and stopped the run with a traceback
    line = rec("s", "1", "I", after={"ID": 1, "A": 1, "B": 1}, schema_version=version)
    assert reason(line) == f"schema_version must be a number, got {version!r}"


def test_a_record_s_faults_are_told_site_table_op_txn_seq_commit_ts_in_that_order() -> None:
    good = {"site": "s", "table": "T", "op": "I", "txn": "1", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z",
            "after": {"ID": 1, "A": 1, "B": 1}}
    assert isinstance(decode_record(json.dumps(good), "c.jsonl", 1, MODEL), ChangeRecord)
    faults = [("site", "nowhere", "unknown site 'nowhere'"), ("table", "NOPE", "unknown table s.NOPE"),
              ("op", "X", "unknown op 'X' (expected I, U or D)"), ("txn", "", "missing txn"),
              ("seq", 2**63, f"seq {2**63} is out of range ({-(2**63)} to {2**63 - 1})"),
              ("commit_ts", "1899-12-31T00:00:00Z",
               "commit_ts '1899-12-31T00:00:00Z' is outside the years 1900-8999")]
    for i, (field, _, told) in enumerate(faults):
        doc = dict(good)
        for later_field, value, _ in faults[i:]:
            doc[later_field] = value  # this fault and every later one
        assert reason(json.dumps(doc)) == told, field


def test_a_schedule_tells_a_window_s_bad_instant_before_a_later_window_s_bad_shape() -> None:
    doc = {"links": [{"from": "a", "to": "b", "down": [["2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"], ["x"]]}]}
    with pytest.raises(ScheduleError) as caught:
        parse_schedule(doc, "schedule.json")
    assert str(caught.value) == "schedule.json links[0].down[0]: link a->b: the window ends before it starts"
    doc["links"][0]["delay_s"] = True  # the delay's fault comes first
    with pytest.raises(ScheduleError, match=r"links\[0\]\.delay_s: link a->b: the delay must be a number .* got True"):
        parse_schedule(doc, "schedule.json")


def test_a_manifest_tells_inconsistent_counts_before_bad_tables_and_a_convergence_its_first_mapping() -> None:
    counts = {"records": 1, "rejects": 2, "filtered": 0, "deliveries": 0, "applied": 0, "resolved": 0,
              "queued": 0, "conflicts": 0}
    manifest = {"engine": "mapwright 1.0", "status": "succeeded", "counts": counts, "tables": 7, "reason": 3}
    text = json.dumps(manifest, indent=1)
    with pytest.raises(RunDirDamaged) as caught:
        check_manifest(Path("run/manifest.json"), text, manifest)
    assert str(caught.value) == "run/manifest.json:5 counts.records: 1 is fewer than the 2 rejects"
    convergence = {"mappings": [{"mapping": "m", "compared": 1, "diverged": 2, "examples": 5}, {"mapping": 3}]}
    with pytest.raises(RunDirDamaged) as caught:
        check_convergence(Path("run/convergence.json"), json.dumps(convergence), convergence)
    assert str(caught.value) == "run/convergence.json:1 mappings[0].diverged: 2 is more than the 1 compared"
