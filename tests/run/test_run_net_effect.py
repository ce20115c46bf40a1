"""The net effect of a transaction (seed 004): every row of the table, chaining, key changes."""

from __future__ import annotations

from typing import Any

import pytest

from engine.run.semantics.net_effect import Chain, RowOp, chain_operations, decide, net_effect

# Every row of seed 004's table: (first, where(initial), last, where(final), key changed) -> send.
SEED_004 = [
    ("INSERT", None, "DELETE", None, None, "nothing"),
    ("INSERT", None, "UPDATE", True, None, "insert_final"),
    ("INSERT", None, "UPDATE", False, None, "nothing"),
    ("UPDATE", True, "DELETE", None, None, "delete_initial"),
    ("UPDATE", False, "DELETE", None, None, "nothing"),
    ("UPDATE", True, "UPDATE", True, True, "delete_initial+insert_final"),
    ("UPDATE", True, "UPDATE", True, False, "update_final"),
    ("UPDATE", True, "UPDATE", False, None, "delete_initial"),
    ("UPDATE", False, "UPDATE", True, None, "insert_final"),
    ("UPDATE", False, "UPDATE", False, None, "nothing"),
]


@pytest.mark.parametrize(("first", "initial", "last", "final", "changed", "send"), SEED_004)
def test_every_row_of_the_seed_table(first: Any, initial: bool | None, last: Any, final: bool | None,
                                     changed: bool | None, send: str) -> None:
    """A "T or F" / "yes or no" cell must give the same answer both ways."""
    for i in ([initial] if initial is not None else [True, False]):
        for f in ([final] if final is not None else [True, False]):
            for c in ([changed] if changed is not None else [True, False]):
                assert decide(first, i, last, f, c) == send


def key(image: dict[str, Any]) -> Any:
    return image["ID"]


def ops(*items: tuple[str, dict[str, Any] | None, dict[str, Any] | None]) -> list[RowOp]:
    return [RowOp(op, before, after, seq) for seq, (op, before, after) in enumerate(items, 1)]


def where_ok(image: dict[str, Any] | None) -> bool:
    return image is not None and image.get("S") == "ok"


def send(chain: Chain, replication_key: Any = key) -> list[tuple[str, Any, Any]]:
    return [(c.op, c.old, c.new) for c in net_effect(chain, where_ok, replication_key)]


R1 = {"ID": 1, "S": "ok", "Q": 1}
R1b = {"ID": 1, "S": "ok", "Q": 2}
R1_hidden = {"ID": 1, "S": "hidden", "Q": 1}
R2 = {"ID": 2, "S": "ok", "Q": 1}


def only_chain(*items: tuple[str, dict[str, Any] | None, dict[str, Any] | None]) -> Chain:
    chains = chain_operations(ops(*items), key)
    assert len(chains) == 1
    return chains[0]


def test_insert_then_delete_sends_nothing() -> None:
    assert send(only_chain(("I", None, R1), ("D", R1, None))) == []


def test_insert_then_update_sends_the_final_image_as_insert() -> None:
    assert send(only_chain(("I", None, R1), ("U", R1, R1b))) == [("I", None, R1b)]


def test_insert_then_update_out_of_the_where_sends_nothing() -> None:
    assert send(only_chain(("I", None, R1), ("U", R1, R1_hidden))) == []


def test_update_then_delete_sends_the_initial_image_as_delete() -> None:
    assert send(only_chain(("U", R1, R1b), ("D", R1b, None))) == [("D", R1, None)]


def test_update_then_delete_outside_the_where_sends_nothing() -> None:
    assert send(only_chain(("U", R1_hidden, R1_hidden), ("D", R1_hidden, None))) == []


def test_update_update_with_the_key_changed_sends_delete_and_insert() -> None:
    """A key change within the transaction continues the chain under the new key."""
    chain = only_chain(("U", R1, {**R2, "Q": 1}), ("U", {**R2, "Q": 1}, {**R2, "Q": 5}))
    assert len(chain.ops) == 2
    assert send(chain) == [("D", R1, None), ("I", None, {**R2, "Q": 5})]


def test_a_key_change_that_leaves_the_replication_key_alone_is_an_update() -> None:
    """"Changed" is judged on the mapping's DKey, not on the source key."""
    chain = only_chain(("U", R1, R2))
    assert send(chain, replication_key=lambda image: image["S"]) == [("U", R1, R2)]


def test_update_update_unchanged_key_sends_an_update_with_initial_as_old() -> None:
    chain = only_chain(("U", R1, R1b), ("U", R1b, {**R1b, "Q": 3}))
    assert send(chain) == [("U", R1, {**R1b, "Q": 3})]


def test_update_leaving_the_where_sends_delete_initial() -> None:
    assert send(only_chain(("U", R1, R1_hidden))) == [("D", R1, None)]


def test_update_entering_the_where_sends_insert_final() -> None:
    assert send(only_chain(("U", R1_hidden, R1))) == [("I", None, R1)]


def test_update_outside_the_where_both_times_sends_nothing() -> None:
    assert send(only_chain(("U", R1_hidden, {**R1_hidden, "Q": 9}))) == []


def test_a_chain_starting_with_delete_reads_as_update() -> None:
    chain = only_chain(("D", R1, None), ("I", None, R1b))
    assert (chain.first, chain.last) == ("UPDATE", "UPDATE")
    assert send(chain) == [("U", R1, R1b)]


def test_a_lone_delete_is_an_update_then_delete() -> None:
    assert send(only_chain(("D", R1, None))) == [("D", R1, None)]


def test_operations_are_chained_by_key_in_seq_order() -> None:
    shuffled = [RowOp("U", R1b, {**R1b, "Q": 3}, 2), RowOp("I", None, R2, 3), RowOp("U", R1, R1b, 1)]
    chains = chain_operations(shuffled, key)
    assert [[o.seq for o in c.ops] for c in chains] == [[1, 2], [3]]
    assert (chains[0].initial, chains[0].final) == (R1, {**R1b, "Q": 3})


def test_a_key_change_frees_the_old_key_for_a_new_chain() -> None:
    chains = chain_operations(ops(("U", R1, R2), ("I", None, R1b)), key)
    assert [[o.op for o in c.ops] for c in chains] == [["U"], ["I"]]
