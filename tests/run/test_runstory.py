"""`engine.runstory`: a run's queued changes and diverged mappings said in plain words, with the fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.model.io import parse_model
from engine.model.schema import Model
from engine.runstory import not_passed_on, run_story


def table(server: str) -> dict[str, Any]:
    return {"server": server, "name": "T", "primary_key": ["K"],
            "columns": [{"name": "K", "type": "INTEGER", "nullable": False}, {"name": "V", "type": "VARCHAR(20)"},
                        {"name": "S", "type": "VARCHAR(10)"}]}


def mapping(source: str, target: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"{source}_to_{target}", "source": f"{source}.T", "target": f"{target}.T",
            "columns": {"K": "K", "V": "V", "S": "S"}, "distribution_key": ["K"], **extra}


@pytest.fixture(scope="module")
def star() -> Model:
    """HQ in the middle; the branch and the web each replicate both ways with HQ only."""
    doc = {"format": "mapwright/1", "servers": [{"id": s, "dbms": "other", "priority": p}
                                                for s, p in (("hq", 30), ("branch", 20), ("web", 10))],
           "tables": [table(s) for s in ("hq", "branch", "web")],
           "mappings": [mapping("hq", "branch"), mapping("branch", "hq"), mapping("hq", "web"), mapping("web", "hq")],
           "conflicts": [{"table": "hq.T", "column_groups": [{"name": "v_cg", "columns": ["V"],
                                                               "resolution": [{"method": "latest_timestamp",
                                                                               "column": "V"}]}]}]}
    return parse_model(json.dumps(doc))


def queued(reason: str, op: str = "U", key: int = 1, site: str = "branch", origin: str = "hq",
           txn: str = "t1") -> dict[str, Any]:
    image = {"K": key, "V": "x", "S": "a"}
    return {"site": site, "table": "T", "op": op, "origin": origin, "txn": txn, "mapping": f"{origin}_to_{site}",
            "before": image if op != "I" else None, "after": image if op != "D" else None, "reason": reason}


@pytest.mark.parametrize(("reason", "op", "says"), [
    ("a row with this distribution key already exists", "I", "on_insert_exists: as_update"),
    ("the row to update is missing", "U", "on_update_missing: insert"),
    ("the row to delete is missing", "D", "on_delete_missing: discard"),
    ("old values differ from the current row in V", "D", "a person decides"),
    ("shadow column group differs in S", "U", "put S in a column group"),
])
def test_each_queued_reason_names_its_fix(star: Model, reason: str, op: str, says: str) -> None:
    lines = run_story(star, [], [queued(reason, op), queued(reason, op, key=2)], [])
    assert len(lines) == 1
    assert lines[0].startswith(f"2 {dict(I='inserts', U='updates', D='deletes')[op]} from hq queued at branch.T "
                               "(hq_to_branch)")
    assert says in lines[0]


def test_a_chain_that_ends_undecided_asks_for_a_backup_method(star: Model) -> None:
    conflict = {"site": "hq", "table": "hq.T", "txn": "t9", "mapping": "branch_to_hq", "column_group": "v_cg",
                "outcome": "unresolved", "type": "update", "dkey": {"K": 1}, "methods_tried": ["latest_timestamp"]}
    lines = run_story(star, [conflict], [queued("update conflict unresolved", site="hq", origin="branch", txn="t9")],
                      [])
    assert lines == ["1 update from branch queued at hq.T (branch_to_hq): no method of v_cg decided (every one "
                     "tied or could not order the values) — add site_priority as the last method of v_cg"]


def test_rolled_back_changes_are_one_line_whatever_their_transactions(star: Model) -> None:
    entries = [queued(f"transaction {t} rolled back at branch: a row with this distribution key already exists",
                      op="I", txn=t) for t in ("a", "b", "c")]
    lines = run_story(star, [], entries, [])
    assert len(lines) == 1 and lines[0].startswith("3 inserts") and "scope: transaction" in lines[0]


def test_a_star_without_forwarding_is_why_keys_diverge_with_no_conflict(star: Model) -> None:
    convergence = [{"mapping": "hq_to_branch", "compared": 50, "diverged": 30,
                    "examples": [{"dkey": {"K": k}, "source": {"K": k, "V": "new"}, "target": {"K": k, "V": "old"}}
                                 for k in range(1, 21)]},
                   {"mapping": "branch_to_hq", "compared": 50, "diverged": 0, "examples": []}]
    lines = run_story(star, [], [queued("the row to delete is missing", "D", key=3)], convergence)
    assert len(lines) == 2
    assert lines[1].startswith("hq_to_branch diverged on 30 keys: of 20 example keys, 19 with no conflict: hq.T "
                               "receives changes from web.T (web_to_hq) that are not passed on to branch.T")
    assert "map web.T to branch.T too" in lines[1]
    assert "1 with a change queued" in lines[1]


def test_copies_kept_apart_by_design_are_said_so(star: Model) -> None:
    conflicts = [{"site": "hq", "table": "hq.T", "dkey": {"K": 1}, "column_group": "v_cg", "method": "discard",
                  "outcome": "local", "type": "update"},
                 {"site": "hq", "table": "hq.T", "dkey": {"K": 2}, "column_group": None, "index": "UX_V",
                  "method": "append_site_name", "outcome": "remote", "type": "uniqueness"}]
    convergence = [{"mapping": "branch_to_hq", "compared": 9, "diverged": 2,
                    "examples": [{"dkey": {"K": 1}}, {"dkey": {"K": 2}}]}]
    [line] = run_story(star, conflicts, [], convergence)
    assert line.startswith("branch_to_hq diverged on 2 keys: 1 where ")
    assert "discard kept hq.T's own v_cg: the copies differ by design (overwrite would converge them)" in line
    assert "append_site_name on UX_V of hq.T renamed a value" in line


def test_a_full_mesh_and_a_clean_run_have_nothing_to_say(star: Model) -> None:
    doc = star.model_dump(mode="json", exclude_none=True)
    doc["mappings"] += [mapping("branch", "web"), mapping("web", "branch")]
    mesh = parse_model(json.dumps(doc))
    assert not_passed_on(mesh, "hq_to_branch") == []
    assert not_passed_on(star, "hq_to_branch") != []
    assert run_story(star, [], [], [{"mapping": "hq_to_branch", "compared": 5, "diverged": 0, "examples": []}]) == []
