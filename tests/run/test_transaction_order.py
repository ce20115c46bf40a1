"""A transaction's changes are examined in `seq` order across its tables (docs/contract.md §7, `scope:
transaction`: the changes after the first unresolved one are never examined, no conflict recorded for them).

Sites a and b, each with ITEM and ACCT (ID INTEGER NOT NULL primary key, V INTEGER); mappings a.ITEM -> b.ITEM
and a.ACCT -> b.ACCT. b starts empty, so at b an update or delete of a row always misses it.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from runkit import build, copy_mapping, run, table

from engine.model import Model

TABLES = ("ITEM", "ACCT")


def two_tables(scoped: tuple[str, ...] = ("ITEM",), more: tuple[dict[str, Any], ...] = ()) -> Model:
    """The model of this module; `more` adds tables no mapping reads."""
    columns = {"ID": "INTEGER", "V": "INTEGER"}
    return build([{"id": "a", "dbms": "oracle"}, {"id": "b", "dbms": "oracle"}],
                 [*(table(s, t, columns, ["ID"]) for s in ("a", "b") for t in TABLES), *more],
                 [copy_mapping(f"{t.lower()}_ab", f"a.{t}", f"b.{t}", list(columns)) for t in TABLES],
                 [{"table": f"b.{t}", "scope": "transaction"} for t in scoped])


def line(seq: int, table_name: str, op: str, key: int) -> str:
    doc: dict[str, Any] = {"site": "a", "txn": "t1", "seq": seq, "commit_ts": "2026-01-05T10:00:00Z",
                           "table": table_name, "op": op}
    if op != "I":
        doc["before"] = {"ID": key, "V": seq}
    if op != "D":
        doc["after"] = {"ID": key, "V": seq + 100}
    return json.dumps(doc)


def test_a_later_change_of_one_table_is_not_examined_before_an_earlier_change_of_another() -> None:
    """The issue's repro: the ITEM update (seq 2) misses its row and rolls the transaction back at b; the
    ACCT update after it (seq 3) is never examined. Grouped by table, it had been, with a second conflict."""
    result = run(two_tables(), [line(1, "ACCT", "I", 1), line(2, "ITEM", "U", 2), line(3, "ACCT", "U", 3)])
    assert [(c["table"], c["type"], c["dkey"]) for c in result.conflicts] == [("b.ITEM", "delete", {"ID": 2})]
    assert sorted(e["table"] for e in result.error_queue) == ["ACCT", "ACCT", "ITEM"]
    assert result.tables["b.ACCT"] == [] and result.tables["b.ITEM"] == []
    counts = result.counts
    assert (counts.deliveries, counts.applied, counts.queued, counts.conflicts) == (3, 0, 3, 1)


def test_seq_not_file_order_decides() -> None:
    """The same transaction written to the file in reverse: `seq` orders it, not the lines."""
    lines = [line(3, "ACCT", "U", 3), line(2, "ITEM", "U", 2), line(1, "ACCT", "I", 1)]
    result = run(two_tables(), lines)
    assert [(c["table"], c["dkey"]) for c in result.conflicts] == [("b.ITEM", {"ID": 2})]


operations = st.lists(st.tuples(st.sampled_from(TABLES), st.sampled_from("IUD"), st.integers(1, 3)),
                      min_size=1, max_size=7)


@settings(max_examples=40, deadline=None)
@given(ops=operations, order=st.randoms(use_true_random=False))
def test_a_transactions_changes_are_examined_in_seq_order(ops: list[tuple[str, str, int]], order: Any) -> None:
    """With every target table scoped by transaction, the one conflict is that of the row whose first
    operation comes first in `seq` among the rows whose net change is an update or a delete (b holds no row:
    an insert applies, an update or delete misses its row, and stops the transaction there). No update
    changes a key, so each (table, ID) is one chain; the lines are shuffled, `seq` orders them."""
    lines = [line(seq, name, op, key) for seq, (name, op, key) in enumerate(ops, 1)]
    order.shuffle(lines)
    result = run(two_tables(scoped=TABLES), lines)
    first_op: dict[tuple[str, int], str] = {}
    for name, op, key in ops:
        first_op.setdefault((name, key), op)
    missing = [(f"b.{name}", {"ID": key}) for (name, key), op in first_op.items() if op != "I"]
    assert [(c["table"], c["dkey"]) for c in result.conflicts] == missing[:1]
    counts = result.counts
    assert counts.queued == (counts.deliveries if missing else 0)
