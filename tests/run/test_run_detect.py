"""Detection and resolution at the destination, through whole runs of two sites (docs/contract.md §5.5).

Site `s` (priority 20) replicates T to site `t` (priority 10). A conflict is
made by giving `t` a snapshot that differs from `s`'s.
"""

from __future__ import annotations

import json
from typing import Any

from runkit import build, copy_mapping, pair, rec, rows, run, table, ts

from engine.run.input.records import ChangeRecord, decode_record
from engine.run.semantics.reference import RunResult

GROUPS = {"column_groups": [{"name": "a_cg", "columns": ["A"], "resolution": [{"method": "maximum", "column": "A"}]},
                            {"name": "b_cg", "columns": ["B"], "resolution": [{"method": "discard"}]}]}


def both(row: dict[str, Any], target: dict[str, Any] | None = None) -> dict[str, list[dict[str, Any]]]:
    return {"s.T": [row], "t.T": [target or row]}


def single_conflict(result: RunResult) -> dict[str, Any]:
    assert len(result.conflicts) == 1, result.conflicts
    return result.conflicts[0]


def assert_accounting(result: RunResult) -> None:
    c = result.counts
    assert c.deliveries == c.applied + c.resolved + c.queued
    assert c.conflicts == len(result.conflicts)
    assert c.queued == len(result.error_queue)


def test_an_update_matching_the_current_row_applies_without_conflict() -> None:
    result = run(pair(conflicts=GROUPS), [rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 5, "B": 1})],
                 both({"ID": 1, "A": 1, "B": 1}))
    assert rows(result, "t.T") == [{"ID": 1, "A": 5, "B": 1}]
    assert (result.counts.applied, result.conflicts) == (1, [])


def test_column_groups_are_analysed_independently() -> None:
    """t changed B; s changes only A: no conflict, and t keeps its B."""
    result = run(pair(conflicts=GROUPS), [rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 5, "B": 1})],
                 both({"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 1, "B": 9}))
    assert rows(result, "t.T") == [{"ID": 1, "A": 5, "B": 9}]
    assert result.conflicts == []


def test_a_group_that_differs_is_resolved_by_its_chain() -> None:
    line = rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 5, "B": 2})
    result = run(pair(conflicts=GROUPS), [line], both({"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 3, "B": 9}))
    assert rows(result, "t.T") == [{"ID": 1, "A": 5, "B": 9}]  # A: maximum takes 5; B: discard keeps 9
    by_group = {c["column_group"]: c for c in result.conflicts}
    assert (by_group["a_cg"]["method"], by_group["a_cg"]["outcome"]) == ("maximum", "remote")
    assert (by_group["b_cg"]["method"], by_group["b_cg"]["outcome"]) == ("discard", "local")
    conflict = by_group["a_cg"]
    assert (conflict["site"], conflict["origin"], conflict["table"], conflict["type"], conflict["txn"]) == (
        "t", "s", "t.T", "update", "t1")
    assert conflict["dkey"] == {"ID": 1}
    assert conflict["local"] == {"ID": 1, "A": 3, "B": 9}
    assert (conflict["remote_old"], conflict["remote_new"]) == ({"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 5, "B": 2})
    assert conflict["result"] == {"ID": 1, "A": 5, "B": 9}
    assert conflict["delivered_at"] == "2026-01-05T10:00:00Z"
    assert result.counts.resolved == 1
    assert_accounting(result)


def test_a_table_without_conflict_settings_puts_every_column_in_the_shadow_group() -> None:
    line = rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 5, "B": 1})
    result = run(pair(), [line], both({"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 2, "B": 1}))
    conflict = single_conflict(result)
    assert (conflict["type"], conflict["column_group"], conflict["method"], conflict["outcome"]) == (
        "update", None, None, "unresolved")
    assert rows(result, "t.T") == [{"ID": 1, "A": 2, "B": 1}]  # not applied
    assert result.counts.queued == 1
    assert_accounting(result)


def test_an_error_queue_entry_is_a_change_record_that_can_run_again_at_the_destination() -> None:
    model = pair()
    line = rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 5, "B": 1}, at=ts(3))
    result = run(model, [line], both({"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 2, "B": 1}))
    [entry] = result.error_queue
    assert (entry["site"], entry["table"], entry["op"], entry["origin"], entry["mapping"]) == ("t", "T", "U", "s", "m")
    assert "shadow" in entry["reason"]
    again = decode_record(json.dumps(entry), "error_queue.jsonl", 1, model)
    assert isinstance(again, ChangeRecord)
    assert (again.site, again.table, again.before, again.after) == (
        "t", "t.T", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 5, "B": 1})


def test_compare_old_false_columns_are_never_compared() -> None:
    line = rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 1, "B": 7})
    result = run(pair(conflicts={"compare_old": {"B": False}}), [line],
                 both({"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 1, "B": 4}))
    assert rows(result, "t.T") == [{"ID": 1, "A": 1, "B": 7}]
    assert result.conflicts == []


def test_additive_merges_the_difference_into_the_current_value() -> None:
    conflicts = {"column_groups": [{"name": "n_cg", "columns": ["A"], "resolution": [{"method": "additive"}]}]}
    line = rec("s", "t1", "U", {"ID": 1, "A": 10, "B": 0}, {"ID": 1, "A": 15, "B": 0})
    result = run(pair(conflicts=conflicts), [line], both({"ID": 1, "A": 10, "B": 0}, {"ID": 1, "A": 100, "B": 0}))
    assert rows(result, "t.T") == [{"ID": 1, "A": 105, "B": 0}]
    assert single_conflict(result)["outcome"] == "merged"


INSERT = rec("s", "t1", "I", after={"ID": 1, "A": 5, "B": 5})
EXISTING = {"t.T": [{"ID": 1, "A": 1, "B": 1}]}


def test_an_insert_onto_an_existing_row_is_a_uniqueness_conflict_error_by_default() -> None:
    result = run(pair(conflicts={}), [INSERT], EXISTING)
    conflict = single_conflict(result)
    assert (conflict["type"], conflict["outcome"], conflict["methods_tried"]) == ("uniqueness", "unresolved", ["error"])
    assert rows(result, "t.T") == [{"ID": 1, "A": 1, "B": 1}]
    assert len(result.error_queue) == 1


def test_on_insert_exists_discard_and_overwrite() -> None:
    kept = run(pair(conflicts={"on_insert_exists": "discard"}), [INSERT], EXISTING)
    assert (rows(kept, "t.T"), single_conflict(kept)["outcome"]) == ([{"ID": 1, "A": 1, "B": 1}], "local")
    taken = run(pair(conflicts={"on_insert_exists": "overwrite"}), [INSERT], EXISTING)
    assert (rows(taken, "t.T"), single_conflict(taken)["outcome"]) == ([{"ID": 1, "A": 5, "B": 5}], "remote")
    assert kept.counts.resolved == taken.counts.resolved == 1


def test_on_insert_exists_as_update_resolves_each_group_with_no_old_values() -> None:
    conflicts = {**GROUPS, "on_insert_exists": "as_update"}
    result = run(pair(conflicts=conflicts), [INSERT], {"t.T": [{"ID": 1, "A": 1, "B": 1}]})
    assert rows(result, "t.T") == [{"ID": 1, "A": 5, "B": 1}]
    assert {(c["type"], c["column_group"], c["outcome"]) for c in result.conflicts} == {
        ("uniqueness", "a_cg", "remote"), ("uniqueness", "b_cg", "local")}


def test_an_update_of_a_missing_row_follows_on_update_missing() -> None:
    line = rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 2, "B": 1})
    snapshots = {"s.T": [{"ID": 1, "A": 1, "B": 1}]}
    error = run(pair(conflicts={}), [line], snapshots)
    assert (single_conflict(error)["type"], single_conflict(error)["outcome"], error.counts.queued) == (
        "delete", "unresolved", 1)
    discarded = run(pair(conflicts={"on_update_missing": "discard"}), [line], snapshots)
    assert (rows(discarded, "t.T"), discarded.counts.resolved) == ([], 1)
    inserted = run(pair(conflicts={"on_update_missing": "insert"}), [line], snapshots)
    assert rows(inserted, "t.T") == [{"ID": 1, "A": 2, "B": 1}]
    assert single_conflict(inserted)["outcome"] == "remote"


def test_a_delete_of_a_missing_row_follows_on_delete_missing() -> None:
    line = rec("s", "t1", "D", {"ID": 1, "A": 1, "B": 1})
    snapshots = {"s.T": [{"ID": 1, "A": 1, "B": 1}]}
    error = run(pair(conflicts={}), [line], snapshots)
    assert (single_conflict(error)["type"], error.counts.queued) == ("delete", 1)
    discarded = run(pair(conflicts={"on_delete_missing": "discard"}), [line], snapshots)
    assert (single_conflict(discarded)["outcome"], discarded.counts.resolved) == ("local", 1)


def test_a_delete_whose_old_values_differ_is_an_unresolved_delete_conflict() -> None:
    line = rec("s", "t1", "D", {"ID": 1, "A": 1, "B": 1})
    result = run(pair(conflicts=GROUPS), [line], both({"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 1, "B": 2}))
    conflict = single_conflict(result)
    assert (conflict["type"], conflict["outcome"]) == ("delete", "unresolved")
    assert rows(result, "t.T") == [{"ID": 1, "A": 1, "B": 2}]
    matching = run(pair(conflicts=GROUPS), [line], both({"ID": 1, "A": 1, "B": 1}))
    assert (rows(matching, "t.T"), matching.counts.applied) == ([], 1)


def unique_pair(length: int, resolution: str | None) -> Any:
    cols = {"NAME": f"VARCHAR({length})", "A": "INTEGER"}
    entry = {"unique": [{"index": "UX_NAME", "resolution": resolution}]} if resolution else {}
    return pair(cols, conflicts=entry, target_extra={"unique_indexes": [{"name": "UX_NAME", "columns": ["NAME"]}]})


NAMED = rec("s", "t1", "I", after={"ID": 1, "NAME": "acme", "A": 1})
TAKEN = {"t.T": [{"ID": 2, "NAME": "acme", "A": 0}]}


def test_a_unique_index_violation_appends_the_site_name() -> None:
    result = run(unique_pair(8, "append_site_name"), [NAMED], TAKEN)
    assert rows(result, "t.T") == [{"ID": 1, "NAME": "acme.s", "A": 1}, {"ID": 2, "NAME": "acme", "A": 0}]
    conflict = single_conflict(result)
    assert (conflict["type"], conflict["index"], conflict["method"], conflict["outcome"]) == (
        "uniqueness", "UX_NAME", "append_site_name", "remote")


def test_append_cuts_the_value_so_the_suffix_fits_the_column() -> None:
    result = run(unique_pair(5, "append_site_name"), [NAMED], TAKEN)
    assert [r["NAME"] for r in rows(result, "t.T")] == ["acm.s", "acme"]
    sequence = run(unique_pair(5, "append_sequence"), [NAMED], TAKEN)
    assert [r["NAME"] for r in rows(sequence, "t.T")] == ["acm.1", "acme"]


def test_append_is_unresolved_when_the_suffix_alone_does_not_fit() -> None:
    result = run(unique_pair(1, "append_site_name"), [rec("s", "t1", "I", after={"ID": 1, "NAME": "a", "A": 1})],
                 {"t.T": [{"ID": 2, "NAME": "a", "A": 0}]})
    assert (single_conflict(result)["outcome"], result.counts.queued) == ("unresolved", 1)


def test_append_sequence_takes_the_next_free_number() -> None:
    taken = {"t.T": [{"ID": 2, "NAME": "acme", "A": 0}, {"ID": 3, "NAME": "acme.1", "A": 0}]}
    result = run(unique_pair(8, "append_sequence"), [NAMED], taken)
    assert [r["NAME"] for r in rows(result, "t.T")] == ["acme.2", "acme", "acme.1"]


def test_a_unique_violation_without_a_unique_entry_is_unresolved_and_discard_drops_the_row() -> None:
    error = run(unique_pair(8, None), [NAMED], TAKEN)
    assert (single_conflict(error)["outcome"], rows(error, "t.T")) == ("unresolved", TAKEN["t.T"])
    discard = run(unique_pair(8, "discard"), [NAMED], TAKEN)
    assert (single_conflict(discard)["outcome"], rows(discard, "t.T"), discard.counts.resolved) == (
        "local", TAKEN["t.T"], 1)


def two_row_transaction(scope: str) -> RunResult:
    lines = [rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 1}, {"ID": 1, "A": 2, "B": 1}, seq=1),
             rec("s", "t1", "U", {"ID": 2, "A": 1, "B": 1}, {"ID": 2, "A": 2, "B": 1}, seq=2)]
    rows_s = [{"ID": 1, "A": 1, "B": 1}, {"ID": 2, "A": 1, "B": 1}]
    rows_t = [{"ID": 1, "A": 1, "B": 1}, {"ID": 2, "A": 9, "B": 1}]  # row 2 conflicts in the shadow group
    return run(pair(conflicts={"scope": scope}), lines, {"s.T": rows_s, "t.T": rows_t})


def test_scope_transaction_queues_the_whole_transaction_at_that_site() -> None:
    result = two_row_transaction("transaction")
    assert rows(result, "t.T") == [{"ID": 1, "A": 1, "B": 1}, {"ID": 2, "A": 9, "B": 1}]
    assert (result.counts.queued, len(result.error_queue)) == (2, 2)
    assert any("rolled back" in e["reason"] for e in result.error_queue)
    assert_accounting(result)


def test_scope_row_queues_only_the_unresolved_row() -> None:
    result = two_row_transaction("row")
    assert rows(result, "t.T") == [{"ID": 1, "A": 2, "B": 1}, {"ID": 2, "A": 9, "B": 1}]
    assert (result.counts.applied, result.counts.queued) == (1, 1)


def test_a_change_applied_from_elsewhere_is_not_passed_on() -> None:
    cols = {"ID": "INTEGER", "A": "INTEGER"}
    model = build([{"id": x, "dbms": "oracle"} for x in ("s", "t", "u")],
                  [table(x, "T", cols, ["ID"]) for x in ("s", "t", "u")],
                  [copy_mapping("s_t", "s.T", "t.T", ["ID", "A"]), copy_mapping("t_u", "t.T", "u.T", ["ID", "A"])])
    result = run(model, [rec("s", "t1", "I", after={"ID": 1, "A": 1})])
    assert (rows(result, "t.T"), rows(result, "u.T")) == ([{"ID": 1, "A": 1}], [])
    assert result.counts.deliveries == 1
    assert result.diverged() == {"s_t": 0, "t_u": 1}


def test_local_commits_apply_unconditionally_and_filtered_changes_are_counted() -> None:
    model = pair(where="A > 0")
    lines = [rec("s", "t1", "I", after={"ID": 1, "A": 0, "B": 1}),   # filtered by the where
             rec("s", "t2", "I", after={"ID": 2, "A": 3, "B": 1}),
             rec("s", "t3", "I", after={"ID": 3, "A": 3, "B": 1}),
             rec("s", "bad", "I", after={"ID": 4, "A": 3, "NOPE": 1})]
    result = run(model, lines, {"s.T": [{"ID": 3, "A": 0, "B": 0}]})  # a local insert onto an existing row
    assert rows(result, "s.T") == [{"ID": 1, "A": 0, "B": 1}, {"ID": 2, "A": 3, "B": 1}, {"ID": 3, "A": 3, "B": 1}]
    assert rows(result, "t.T") == [{"ID": 2, "A": 3, "B": 1}, {"ID": 3, "A": 3, "B": 1}]
    c = result.counts
    assert (c.records, c.rejects, c.filtered, c.deliveries, c.applied) == (4, 1, 1, 2, 2)
    assert result.diverged() == {"m": 0}


def test_a_value_that_cannot_take_its_target_type_is_queued_with_the_reason() -> None:
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
                  [table("s", "T", {"ID": "INTEGER", "V": "VARCHAR(9)"}, ["ID"]),
                   table("t", "T", {"ID": "INTEGER", "V": "INTEGER"}, ["ID"])],
                  [copy_mapping("m", "s.T", "t.T", ["ID", "V"])])
    result = run(model, [rec("s", "t1", "I", after={"ID": 1, "V": "many"})])
    [entry] = result.error_queue
    assert "does not fit" in entry["reason"] and entry["after"] == {"ID": 1, "V": "many"}
    assert (result.counts.queued, result.conflicts) == (1, [])


def test_a_journal_mapping_appends_every_change() -> None:
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
                  [table("s", "T", {"ID": "INTEGER", "A": "INTEGER"}, ["ID"]),
                   table("t", "LOG", {"ID": "INTEGER", "A": "INTEGER", "OP": "CHAR(1)", "AT": "TIMESTAMP"})],
                  [{"id": "j", "source": "s.T", "target": "t.LOG", "journal": True,
                    "columns": {"ID": "ID", "A": "A", "OP": {"method": "system", "name": "op"},
                                "AT": {"method": "system", "name": "commit_ts"}}}])
    lines = [rec("s", "t1", "I", after={"ID": 1, "A": 1}, at=ts(1)),
             rec("s", "t2", "U", {"ID": 1, "A": 1}, {"ID": 1, "A": 2}, at=ts(2)),
             rec("s", "t3", "D", {"ID": 1, "A": 2}, at=ts(3))]
    result = run(model, lines)
    log = sorted(rows(result, "t.LOG"), key=lambda r: r["AT"])
    assert [(r["ID"], r["A"], r["OP"], r["AT"].minute) for r in log] == [(1, 1, "I", 1), (1, 2, "U", 2), (1, 2, "D", 3)]
    assert (result.counts.applied, result.conflicts) == (3, [])
