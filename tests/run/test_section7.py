"""docs/contract.md §7 (the clarifications), one test or more per bullet, through whole reference runs.

Site `s` (priority 20) replicates T to site `t` (priority 10) unless a test builds its own model.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from runkit import build, copy_mapping, pair, rec, rows, run, table, ts

from engine.model import Model, parse_type
from engine.run.input.records import Reject
from engine.run.semantics.reference import RunResult
from engine.run.semantics.resolve import average


def accounted(result: RunResult) -> RunResult:
    c = result.counts
    assert c.deliveries == c.applied + c.resolved + c.queued
    assert c.records == c.rejects + (c.records - c.rejects) and c.rejects == len(result.rejects)
    assert (c.conflicts, c.queued) == (len(result.conflicts), len(result.error_queue))
    return result


def fan_in(conflicts: dict[str, Any] | None = None, columns: dict[str, str] | None = None,
           **mapping_extra: Any) -> Model:
    """Sites a, b and u, each with T (ID primary key, A); mappings a_u and b_u into u.T."""
    cols = columns or {"ID": "INTEGER", "A": "INTEGER"}
    entries = [{"table": "u.T", **conflicts}] if conflicts is not None else []
    return build([{"id": "a", "dbms": "oracle", "priority": 20}, {"id": "b", "dbms": "oracle", "priority": 15},
                  {"id": "u", "dbms": "oracle", "priority": 10}],
                 [table(x, "T", cols, ["ID"]) for x in ("a", "b", "u")],
                 [copy_mapping("a_u", "a.T", "u.T", list(cols), **mapping_extra),
                  copy_mapping("b_u", "b.T", "u.T", list(cols))], entries)


# --- Order at one instant ---------------------------------------------------------------------


def test_at_one_instant_a_local_commit_applies_before_a_delivery() -> None:
    start = {"ID": 1, "A": 1, "B": 1}
    lines = [rec("s", "r1", "U", start, {"ID": 1, "A": 5, "B": 1}, at=ts(1)),
             rec("t", "l1", "U", start, {"ID": 1, "A": 7, "B": 1}, at=ts(1))]
    result = accounted(run(pair(), lines, {"s.T": [start], "t.T": [start]}))
    # the delivery met t's own commit: its old A (1) differs from the current A (7)
    assert [(c["txn"], c["outcome"], c["local"]["A"]) for c in result.conflicts] == [("r1", "unresolved", 7)]
    assert rows(result, "t.T") == [{"ID": 1, "A": 7, "B": 1}]


def test_deliveries_at_one_instant_apply_in_commit_ts_then_origin_then_txn_order() -> None:
    """Every delivery inserts ID 1 into u.T at 10:01; the first applied wins, the others meet it."""
    by_origin = run(fan_in(), [rec("b", "b1", "I", after={"ID": 1, "A": 2}, at=ts(1)),
                               rec("a", "a1", "I", after={"ID": 1, "A": 1}, at=ts(1))])
    assert rows(by_origin, "u.T") == [{"ID": 1, "A": 1}]  # a before b
    assert [e["origin"] for e in by_origin.error_queue] == ["b"]

    delayed = {"links": [{"from": "b", "to": "u", "delay_s": 60}]}
    by_commit = run(fan_in(), [rec("b", "b1", "I", after={"ID": 1, "A": 2}, at=ts(0)),
                               rec("a", "a1", "I", after={"ID": 1, "A": 1}, at=ts(1))], schedule=delayed)
    assert rows(by_commit, "u.T") == [{"ID": 1, "A": 2}]  # both arrive at 10:01; b committed first
    assert [e["origin"] for e in by_commit.error_queue] == ["a"]

    by_txn = run(fan_in(), [rec("a", "t2", "I", after={"ID": 1, "A": 2}, at=ts(1)),
                            rec("a", "t1", "I", after={"ID": 1, "A": 1}, at=ts(1))])
    assert [e["txn"] for e in by_txn.error_queue] == ["t2"]
    assert rows(by_txn, "u.T") == [{"ID": 1, "A": 1}]


# --- Local commits keep the key unique ----------------------------------------------------------


def test_a_local_insert_onto_a_held_key_replaces_the_row() -> None:
    result = run(pair(), [rec("s", "t1", "I", after={"ID": 1, "A": 5, "B": 5})], {"s.T": [{"ID": 1, "A": 1, "B": 1}]})
    assert rows(result, "s.T") == [{"ID": 1, "A": 5, "B": 5}]


def test_a_key_changing_local_update_onto_a_held_key_replaces_that_row() -> None:
    held = [{"ID": 1, "A": 1, "B": 1}, {"ID": 2, "A": 2, "B": 2}]
    result = run(pair(), [rec("s", "t1", "U", {"ID": 2, "A": 2, "B": 2}, {"ID": 1, "A": 3, "B": 3})], {"s.T": held})
    assert rows(result, "s.T") == [{"ID": 1, "A": 3, "B": 3}]


# --- filtered counts net changes ------------------------------------------------------------------


def test_filtered_counts_one_per_net_change_and_mapping_however_many_records_the_chain_had() -> None:
    model = build([{"id": x, "dbms": "oracle"} for x in ("s", "t", "u")],
                  [table(x, "T", {"ID": "INTEGER", "A": "INTEGER"}, ["ID"]) for x in ("s", "t", "u")],
                  [copy_mapping("s_t", "s.T", "t.T", ["ID", "A"]), copy_mapping("s_u", "s.T", "u.T", ["ID", "A"])])
    born_and_gone = [rec("s", "t1", "I", after={"ID": 1, "A": 1}, seq=1),
                     rec("s", "t1", "U", {"ID": 1, "A": 1}, {"ID": 1, "A": 2}, seq=2),
                     rec("s", "t1", "U", {"ID": 1, "A": 2}, {"ID": 1, "A": 3}, seq=3),
                     rec("s", "t1", "D", {"ID": 1, "A": 3}, seq=4)]
    result = accounted(run(model, born_and_gone))
    assert (result.counts.records, result.counts.filtered, result.counts.deliveries) == (4, 2, 0)

    hidden = pair(where="A > 10")
    chain = [rec("s", "t1", "I", after={"ID": 1, "A": 1, "B": 0}, seq=1),
             rec("s", "t1", "U", {"ID": 1, "A": 1, "B": 0}, {"ID": 1, "A": 2, "B": 0}, seq=2),
             rec("s", "t1", "U", {"ID": 1, "A": 2, "B": 0}, {"ID": 1, "A": 3, "B": 0}, seq=3)]
    assert run(hidden, chain).counts.filtered == 1


# --- Values are decoded to their column's type -----------------------------------------------------


def test_an_integer_column_accepts_an_integer_a_whole_number_or_an_integer_string_stored_as_a_number() -> None:
    model = pair({"A": "INTEGER", "B": "DECIMAL(8,2)"})
    lines = [rec("s", "t1", "I", after={"ID": 1, "A": 7, "B": 1.5}),
             rec("s", "t2", "I", after={"ID": 2, "A": 7.0, "B": "1.50"}),
             rec("s", "t3", "I", after={"ID": "3", "A": " 7 ", "B": 2})]
    result = accounted(run(model, lines))
    assert result.rejects == []
    assert rows(result, "t.T") == [{"ID": 1, "A": 7, "B": Decimal("1.50")}, {"ID": 2, "A": 7, "B": Decimal("1.50")},
                                   {"ID": 3, "A": 7, "B": Decimal("2.00")}]
    assert all(type(r["A"]) is int and type(r["ID"]) is int and type(r["B"]) is Decimal for r in rows(result, "t.T"))


TYPED = {"SI": "SMALLINT", "I": "INTEGER", "BI": "BIGINT", "D": "DECIMAL(5,2)", "N": "NUMBER(3)", "U": "NUMBER",
         "C": "CHAR(3)", "V": "VARCHAR(10)", "NC": "NCHAR(2)", "NV": "NVARCHAR(4)", "V2": "VARCHAR2(5)",
         "R": "REAL", "TS": "TIMESTAMP", "VB": "VARBINARY(2)", "RW": "RAW(3)"}


@pytest.mark.parametrize(("column", "value", "reason"), [
    ("SI", 32768, "32768 is out of range for SMALLINT (-32768 to 32767)"),
    ("SI", -32769, "out of range for SMALLINT"),
    ("I", 2**31, "2147483648 is out of range for INTEGER (-2147483648 to 2147483647)"),
    ("I", "-2147483649", "out of range for INTEGER"),
    ("I", 1e300, "out of range for INTEGER"),
    ("I", 7.5, "is not a whole number"),
    ("I", "1_000", "not a number: '1_000'"),
    ("I", "\u0661\u0662", "not a number"),  # Arabic-Indic digits, which Python's int() would take
    ("D", "NaN", "not a number: 'NaN'"),
    ("BI", 2**63, "out of range for BIGINT"),
    ("D", 1000, "1000 does not fit DECIMAL(5,2)"),
    ("D", "999.995", "does not fit DECIMAL(5,2)"),  # rounds to 1000.00
    ("D", "1e999999999", "does not fit DECIMAL(5,2)"),
    ("N", 1000, "1000 does not fit NUMBER(3,0)"),
    ("U", "1e-999999999", "does not fit an unbounded NUMBER"),  # carried as DECIMAL(38,10): never rounded to 0
    ("U", "-1e1001", "does not fit an unbounded NUMBER"),
    ("C", "abcd", "4 characters do not fit CHAR(3)"),
    ("V", "x" * 50, "50 characters do not fit VARCHAR(10)"),
    ("V", 12345678901, "11 characters do not fit VARCHAR(10)"),
    ("NC", "ééé", "3 characters do not fit NCHAR(2)"),
    ("NV", "abcde", "do not fit NVARCHAR(4)"),
    ("V2", "abcdef", "do not fit VARCHAR2(5)"),
    ("R", 1e39, "out of range for REAL"),
    ("VB", "0102030405", "5 bytes do not fit VARBINARY(2)"),
    ("RW", "0x01020304", "4 bytes do not fit RAW(3)"),
    ("TS", "0001-01-01T00:00:00+14:00", "outside the years 1-9999 in UTC"),
    ("TS", "9999-12-31T23:00:00-02:00", "outside the years 1-9999 in UTC"),
])
def test_a_value_that_does_not_fit_its_column_is_a_reject_with_its_reason(column: str, value: Any,
                                                                            reason: str) -> None:
    good = rec("s", "t1", "I", after={"ID": 1})
    bad = rec("s", "t2", "I", after={"ID": 2, column: value})
    result = accounted(run(pair(TYPED), [good, bad]))
    [reject] = result.rejects
    assert isinstance(reject, Reject) and (reject.file, reject.line, reject.raw) == ("changes.jsonl", 2, bad)
    assert reject.reason.startswith(f"after: column {column!r}: ") and reason in reject.reason, reject.reason
    assert (result.counts.records, result.counts.rejects, result.counts.applied) == (2, 1, 1)
    assert [r["ID"] for r in rows(result, "t.T")] == [1]


def test_values_at_the_edges_of_their_types_are_accepted() -> None:
    edges = {"ID": 1, "SI": -32768, "I": 2**31 - 1, "BI": -(2**63), "D": "999.99", "N": -999, "C": "abc",
             "U": "1e-10", "V": "x" * 10, "NC": "éé", "NV": "abcd", "V2": "abcde", "R": 3.4e38,
             "TS": "0001-01-01T00:00:00Z", "VB": "0102", "RW": "0xA1B2C3"}
    result = accounted(run(pair(TYPED), [rec("s", "t1", "I", after=edges)]))
    assert result.rejects == [] and result.counts.applied == 1
    [row] = rows(result, "t.T")
    assert (row["I"], row["BI"], row["D"], row["V"]) == (2**31 - 1, -(2**63), Decimal("999.99"), "x" * 10)
    assert row["U"] == Decimal("1e-10")
    tiny = run(pair(TYPED), [rec("s", "t1", "I", after={"ID": 1, "N": "1e-999999999", "D": "-1e-999999999"})])
    assert (rows(tiny, "t.T")[0]["N"], rows(tiny, "t.T")[0]["D"]) == (0, 0)  # rounded to the scale


def test_a_value_that_does_not_fit_the_table_s_current_type_is_a_reject() -> None:
    """Version 1 held NAME as VARCHAR(20); the table's NAME is VARCHAR(5) now."""
    model = build([{"id": "s", "dbms": "ase"}],
                  [table("s", "T", {"ID": "INTEGER", "NAME": "VARCHAR(5)"}, ["ID"], replication_definitions=[
                      {"version": 1, "columns": [{"name": "ID", "type": "INTEGER"},
                                                 {"name": "NAME", "type": "VARCHAR(20)"}]},
                      {"version": 2, "columns": ["ID", "NAME"]}])])
    result = run(model, [rec("s", "t1", "I", after={"ID": 1, "NAME": "a long name"}, schema_version=1),
                         rec("s", "t2", "I", after={"ID": 2, "NAME": "short"}, schema_version=1)])
    assert [r.reason for r in result.rejects] == [
        "after: column 'NAME': 'a long name' does not fit the table's current type VARCHAR(5)"]
    assert rows(result, "s.T") == [{"ID": 2, "NAME": "short"}]


def test_a_mapped_value_longer_than_its_target_column_is_queued_never_stored() -> None:
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
                  [table("s", "T", {"ID": "INTEGER", "V": "VARCHAR(20)"}, ["ID"]),
                   table("t", "T", {"ID": "INTEGER", "V": "VARCHAR(5)"}, ["ID"])],
                  [copy_mapping("m", "s.T", "t.T", ["ID", "V"])])
    result = accounted(run(model, [rec("s", "t1", "I", after={"ID": 1, "V": "abcdefgh"}),
                                   rec("s", "t2", "I", after={"ID": 2, "V": "abcde"})]))
    assert rows(result, "t.T") == [{"ID": 2, "V": "abcde"}]
    [entry] = result.error_queue
    assert entry["after"] == {"ID": 1, "V": "abcdefgh"}
    assert entry["reason"] == ("a value does not fit its target column: 8 characters do not fit VARCHAR(5) "
                               "('abcdefgh')")


def test_equal_numbers_are_equal_whatever_their_scale_in_detection_and_convergence() -> None:
    model = pair({"N": "NUMBER", "B": "INTEGER"})
    before, after = {"ID": 1, "N": 0, "B": 1}, {"ID": 1, "N": 0, "B": 2}
    result = accounted(run(model, [rec("s", "t1", "U", before, after)],
                           {"s.T": [{"ID": 1, "N": "0", "B": 1}], "t.T": [{"ID": 1, "N": "0.00", "B": 1}]}))
    assert (result.conflicts, result.counts.applied) == ([], 1)  # old N 0 against current N 0.00: no difference
    assert result.diverged() == {"m": 0}  # s holds N 0, t N 0.00
    assert rows(result, "t.T")[0]["N"] == 0


@pytest.mark.parametrize("special", ["Infinity", "-Infinity", "NaN"])
def test_a_double_that_is_no_finite_number_equals_itself_in_detection_and_convergence(special: str) -> None:
    """Spark and the databases take NaN = NaN and Infinity = Infinity: an update whose old value is the one the
    row holds applies, and two sites holding it have converged. Output files spell it as text (JSON has no
    such number)."""
    from engine.core.values import to_json_value
    from engine.run.rundir.write import jsonl_line

    model = pair({"F": "DOUBLE", "B": "INTEGER"})
    before, after = {"ID": 1, "F": special, "B": 1}, {"ID": 1, "F": special, "B": 2}
    result = accounted(run(model, [rec("s", "t1", "U", before, after)],
                           {"s.T": [{"ID": 1, "F": special, "B": 1}], "t.T": [{"ID": 1, "F": special, "B": 1}]}))
    assert (result.conflicts, result.error_queue, result.counts.applied) == ([], [], 1)
    assert result.diverged() == {"m": 0}
    assert to_json_value(rows(result, "t.T")[0]["F"]) == special
    assert jsonl_line({"F": to_json_value(float(special))}) == f'{{"F": "{special}"}}'


# --- seq is optional -------------------------------------------------------------------------------


def test_without_seq_file_order_decides_within_a_transaction() -> None:
    def line(op: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
        return rec("s", "t1", op, before, after).replace('"seq": 1, ', "")

    gone_then_back = [line("D", {"ID": 1, "A": 1, "B": 1}, None), line("I", None, {"ID": 1, "A": 2, "B": 2})]
    result = accounted(run(pair(), gone_then_back, {"s.T": [{"ID": 1, "A": 1, "B": 1}],
                                                    "t.T": [{"ID": 1, "A": 1, "B": 1}]}))
    assert rows(result, "s.T") == rows(result, "t.T") == [{"ID": 1, "A": 2, "B": 2}]

    back_then_gone = list(reversed(gone_then_back))
    result = accounted(run(pair(), back_then_gone, {"s.T": [{"ID": 1, "A": 1, "B": 1}],
                                                    "t.T": [{"ID": 1, "A": 1, "B": 1}]}))
    assert rows(result, "s.T") == []


# --- The implicit replication definition is version 1 ---------------------------------------------


def test_a_table_without_replication_definitions_answers_to_version_1_only() -> None:
    lines = [rec("s", "t1", "I", after={"ID": 1, "A": 1, "B": 1}, schema_version=1),
             rec("s", "t2", "I", after={"ID": 2, "A": 1, "B": 1}),
             rec("s", "t3", "I", after={"ID": 3, "A": 1, "B": 1}, schema_version=2)]
    result = accounted(run(pair(), lines))
    assert [r["ID"] for r in rows(result, "t.T")] == [1, 2]
    assert [r.reason for r in result.rejects] == ["unknown schema_version 2 for s.T (versions: none defined)"]


# --- on_insert_exists: as_update ---------------------------------------------------------------------


def test_as_update_records_a_uniqueness_conflict_even_when_the_rows_are_equal() -> None:
    same = {"ID": 1, "A": 1, "B": 1}
    result = accounted(run(pair(conflicts={"on_insert_exists": "as_update"}), [rec("s", "t1", "I", after=same)],
                           {"t.T": [same]}))
    [conflict] = result.conflicts
    assert (conflict["type"], conflict["outcome"], conflict["remote_old"]) == ("uniqueness", "local", None)
    assert result.counts.resolved == 1


def test_as_update_resolves_each_group_by_its_chain_and_ignores_compare_old() -> None:
    conflicts = {"on_insert_exists": "as_update", "compare_old": {"A": False},
                 "column_groups": [{"name": "a_cg", "columns": ["A"], "resolution": [{"method": "overwrite"}]},
                                   {"name": "b_cg", "columns": ["B"], "resolution": [{"method": "discard"}]}]}
    result = accounted(run(pair(conflicts=conflicts), [rec("s", "t1", "I", after={"ID": 1, "A": 5, "B": 5})],
                           {"t.T": [{"ID": 1, "A": 1, "B": 1}]}))
    assert rows(result, "t.T") == [{"ID": 1, "A": 5, "B": 1}]  # A differs although compare_old is off for it
    assert sorted((c["type"], c["column_group"], c["outcome"]) for c in result.conflicts) == [
        ("uniqueness", "a_cg", "remote"), ("uniqueness", "b_cg", "local")]


# --- A unique index is checked only when a change sets its columns --------------------------------------


def named(resolution: str | None = None) -> Model:
    entry = {"unique": [{"index": "UX_NAME", "resolution": resolution}]} if resolution else {}
    return pair({"NAME": "VARCHAR(10)", "A": "INTEGER"}, conflicts=entry,
                target_extra={"unique_indexes": [{"name": "UX_NAME", "columns": ["NAME"]}]})


HELD = [{"ID": 1, "NAME": "one", "A": 1}, {"ID": 2, "NAME": "acme", "A": 2}]


@pytest.mark.parametrize(("name", "conflicts"), [("one", 0), ("fresh", 0), ("acme", 1)])
def test_a_unique_index_is_checked_only_when_a_change_sets_it_to_a_value_another_row_holds(name: str,
                                                                                          conflicts: int) -> None:
    line = rec("s", "t1", "U", HELD[0], {"ID": 1, "NAME": name, "A": 5})
    result = accounted(run(named(), [line], {"s.T": HELD, "t.T": HELD}))
    assert [(c["type"], c.get("index")) for c in result.conflicts] == [("uniqueness", "UX_NAME")] * conflicts
    assert result.counts.queued == conflicts


# --- Every detected conflict is recorded -------------------------------------------------------------


def test_a_resolved_conflict_is_recorded_when_a_later_unique_check_queues_the_change() -> None:
    model = pair({"NAME": "VARCHAR(10)", "A": "INTEGER"},
                 conflicts={"column_groups": [{"name": "g", "columns": ["NAME", "A"],
                                               "resolution": [{"method": "overwrite"}]}]},
                 target_extra={"unique_indexes": [{"name": "UX_NAME", "columns": ["NAME"]}]})
    stale = {"ID": 1, "NAME": "one", "A": 0}  # t holds A 1: an update conflict, which overwrite resolves
    line = rec("s", "t1", "U", stale, {"ID": 1, "NAME": "acme", "A": 5})  # ...onto a name row 2 holds
    result = accounted(run(model, [line], {"s.T": [stale], "t.T": HELD}))
    assert sorted((c["type"], c["outcome"]) for c in result.conflicts) == [("uniqueness", "unresolved"),
                                                                           ("update", "remote")]
    assert (result.counts.queued, rows(result, "t.T")) == (1, HELD)


# --- Outcome of the append methods ----------------------------------------------------------------------


@pytest.mark.parametrize(("method", "stored"), [("append_site_name", "acme.s"), ("append_sequence", "acme.1")])
def test_the_append_methods_outcome_is_remote(method: str, stored: str) -> None:
    result = accounted(run(named(method), [rec("s", "t1", "I", after={"ID": 3, "NAME": "acme", "A": 3})],
                           {"t.T": HELD}))
    [conflict] = result.conflicts
    assert (conflict["method"], conflict["outcome"], conflict["result"]["NAME"]) == (method, "remote", stored)
    assert {"ID": 3, "NAME": stored, "A": 3} in rows(result, "t.T")


# --- average is rounded to the column's scale, half away from zero ------------------------------------------


@pytest.mark.parametrize(("type_", "local", "new", "mean"), [
    ("DECIMAL(8,1)", Decimal("1.0"), Decimal("1.1"), Decimal("1.1")),
    ("DECIMAL(8,1)", Decimal("-1.0"), Decimal("-1.1"), Decimal("-1.1")),
    ("DECIMAL(8,2)", Decimal("0.01"), Decimal("0.00"), Decimal("0.01")),
    ("INTEGER", 3, 4, 4),
    ("INTEGER", -3, -4, -4),
])
def test_average_is_rounded_to_the_column_scale_half_away_from_zero(type_: str, local: Any, new: Any,
                                                                    mean: Any) -> None:
    assert average(["N"], {"N": local}, {"N": new}, {"N": parse_type(type_)}).values == {"N": mean}


def test_average_through_a_run_stores_the_rounded_mean() -> None:
    model = pair({"N": "DECIMAL(6,1)"}, conflicts={"column_groups": [
        {"name": "n_cg", "columns": ["N"], "resolution": [{"method": "average"}]}]})
    line = rec("s", "t1", "U", {"ID": 1, "N": "0.0"}, {"ID": 1, "N": "-2.5"})
    result = accounted(run(model, [line], {"s.T": [{"ID": 1, "N": "0.0"}], "t.T": [{"ID": 1, "N": "-0.2"}]}))
    assert rows(result, "t.T") == [{"ID": 1, "N": Decimal("-1.4")}]  # (-0.2 + -2.5) / 2 = -1.35


# --- The last writer changes only when a remote change is applied ----------------------------------------


def test_the_last_writer_changes_only_when_a_remote_change_is_applied() -> None:
    """u.T decides by site priority alone: a (20) > b (15) > u (10)."""
    model = fan_in({"column_groups": [{"name": "a_cg", "columns": ["A"], "resolution": [{"method": "site_priority"}]}]})
    start = {"ID": 1, "A": 0}
    lines = [rec("b", "b1", "U", start, {"ID": 1, "A": 1}, at=ts(1)),           # applied: b writes the row
             rec("a", "a1", "U", start, {"ID": 1, "A": 2}, at=ts(2)),           # a (20) beats b (15): a writes
             rec("b", "b2", "U", start, {"ID": 1, "A": 3}, at=ts(3)),           # b (15) loses to a: not applied
             rec("b", "b3", "U", start, {"ID": 1, "A": 4}, at=ts(4))]           # still a's row: b loses again
    result = accounted(run(model, lines, {f"{x}.T": [start] for x in ("a", "b", "u")}))
    assert [(c["txn"], c["outcome"]) for c in result.conflicts] == [("a1", "remote"), ("b2", "local"),
                                                                    ("b3", "local")]
    assert rows(result, "u.T") == [{"ID": 1, "A": 2}]


def test_a_rolled_back_remote_change_does_not_change_the_last_writer() -> None:
    model = fan_in({"scope": "transaction", "column_groups": [
        {"name": "a_cg", "columns": ["A"], "resolution": [{"method": "site_priority"}]}]})
    start, other = {"ID": 1, "A": 0}, {"ID": 2, "A": 0}
    lines = [rec("a", "a1", "U", start, {"ID": 1, "A": 1}, at=ts(1), seq=1),   # applied, then rolled back:
             rec("a", "a1", "U", {"ID": 3, "A": 0}, {"ID": 3, "A": 1}, at=ts(1), seq=2),  # row 3 is missing at u
             rec("b", "b1", "U", {"ID": 1, "A": 9}, {"ID": 1, "A": 5}, at=ts(2))]  # stale against u's own row
    snapshots = {"a.T": [start, {"ID": 3, "A": 0}], "b.T": [{"ID": 1, "A": 9}], "u.T": [start, other]}
    result = accounted(run(model, lines, snapshots))
    # b (15) meets the row u (10) last wrote, not a (20): it wins
    assert [(c["txn"], c["outcome"]) for c in result.conflicts if c["txn"] == "b1"] == [("b1", "remote")]
    assert rows(result, "u.T") == [{"ID": 1, "A": 5}, other]


# --- scope: transaction -------------------------------------------------------------------------------------


def three_row_transaction(scope: str) -> RunResult:
    lines = [rec("s", "t1", "U", {"ID": i, "A": 1, "B": 1}, {"ID": i, "A": 2, "B": 1}, seq=i) for i in (1, 2, 3)]
    rows_s = [{"ID": i, "A": 1, "B": 1} for i in (1, 2, 3)]
    rows_t = [{"ID": 1, "A": 1, "B": 1}, {"ID": 2, "A": 8, "B": 1}, {"ID": 3, "A": 9, "B": 1}]  # 2 and 3 differ
    return accounted(run(pair(conflicts={"scope": scope}), lines, {"s.T": rows_s, "t.T": rows_t}))


def test_scope_transaction_stops_at_the_first_unresolved_change() -> None:
    result = three_row_transaction("transaction")
    assert rows(result, "t.T") == [{"ID": 1, "A": 1, "B": 1}, {"ID": 2, "A": 8, "B": 1}, {"ID": 3, "A": 9, "B": 1}]
    assert [c["dkey"] for c in result.conflicts] == [{"ID": 2}]  # row 3 was not examined
    assert [e["after"]["ID"] for e in sorted(result.error_queue, key=lambda e: e["seq"])] == [1, 2, 3]
    reasons = {e["after"]["ID"]: e["reason"] for e in result.error_queue}
    assert reasons[2].startswith("shadow column group differs")
    assert all(reasons[i].startswith("transaction t1 rolled back at t: ") for i in (1, 3))
    assert (result.counts.queued, result.counts.applied) == (3, 0)


def test_scope_row_examines_every_change() -> None:
    result = three_row_transaction("row")
    assert [c["dkey"] for c in result.conflicts] == [{"ID": 2}, {"ID": 3}]
    assert (result.counts.queued, result.counts.applied) == (2, 1)


# --- A DKey that matches several rows ------------------------------------------------------------------------


def test_a_dkey_matching_several_rows_is_queued_with_that_reason_and_is_not_a_conflict() -> None:
    model = pair(distribution_key=["A"])
    row = {"ID": 3, "A": 7, "B": 0}
    twins = [{"ID": 1, "A": 7, "B": 0}, {"ID": 2, "A": 7, "B": 0}]
    result = accounted(run(model, [rec("s", "t1", "U", row, {**row, "B": 1})], {"s.T": [row], "t.T": twins}))
    assert result.conflicts == []
    [entry] = result.error_queue
    assert entry["reason"] == "the distribution key matches 2 rows"
    assert rows(result, "t.T") == twins


# --- Convergence compares what the mapping could have written -----------------------------------------------


def test_a_target_key_another_mapping_supplies_is_not_counted_against_a_mapping() -> None:
    result = run(fan_in(), [rec("a", "a1", "I", after={"ID": 1, "A": 1}), rec("b", "b1", "I", after={"ID": 2, "A": 2})])
    assert rows(result, "u.T") == [{"ID": 1, "A": 1}, {"ID": 2, "A": 2}]
    assert result.diverged() == {"a_u": 0, "b_u": 0}
    alone = run(fan_in(), [rec("a", "a1", "I", after={"ID": 1, "A": 1})], {"u.T": [{"ID": 2, "A": 2}]})
    assert alone.diverged() == {"a_u": 1, "b_u": 1}  # nobody supplies u's own row 2


def test_a_target_row_holding_another_value_than_a_mapping_s_constant_is_not_counted_against_it() -> None:
    cols = {"ID": "INTEGER", "ORIGIN": "VARCHAR(8)"}
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
                  [table("s", "T", {"ID": "INTEGER"}, ["ID"]), table("t", "T", cols, ["ID"])],
                  [{"id": "m", "source": "s.T", "target": "t.T",
                    "columns": {"ID": "ID", "ORIGIN": {"method": "constant", "value": "BRANCH"}}}])
    lines = [rec("s", "t1", "I", after={"ID": 1})]
    own = run(model, lines, {"t.T": [{"ID": 9, "ORIGIN": "HQ"}]})
    assert own.diverged() == {"m": 0}
    stray = run(model, lines, {"t.T": [{"ID": 9, "ORIGIN": "BRANCH"}]})
    assert stray.diverged() == {"m": 1}
