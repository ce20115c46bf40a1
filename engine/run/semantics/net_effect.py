"""The net effect of a transaction on each row (seed 004, docs/contract.md §5.2).

The operations of one transaction are chained by key: an update that changes
the key continues its chain under the new key. A chain's initial image is its
first operation's before image, its final image its last operation's after
image. What is sent depends on the first and last operation, on the mapping's
`where` evaluated on both images, and on whether the mapping's replication key
(its DKey) differs between them:

| first | where(initial) | last | where(final) | key changed | send |
|---|---|---|---|---|---|
| INSERT | - | DELETE | - | - | nothing |
| INSERT | - | UPDATE | T | - | INSERT final |
| INSERT | - | UPDATE | F | - | nothing |
| UPDATE | T | DELETE | - | - | DELETE initial |
| UPDATE | F | DELETE | - | - | nothing |
| UPDATE | T | UPDATE | T | yes | DELETE initial + INSERT final |
| UPDATE | T | UPDATE | T | no | UPDATE initial -> final |
| UPDATE | T | UPDATE | F | - | DELETE initial |
| UPDATE | F | UPDATE | T | - | INSERT final |
| UPDATE | F | UPDATE | F | - | nothing |

A chain that starts with DELETE is read as starting with UPDATE; a chain
that ends with INSERT (a row deleted then inserted again) as ending with UPDATE.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Row = dict[str, Any]
Kind = Literal["INSERT", "UPDATE", "DELETE"]


@dataclass(frozen=True)
class RowOp:
    """One operation of a transaction on one table, in `seq` order."""

    op: str  # I, U or D
    before: Row | None
    after: Row | None
    seq: int = 0


@dataclass(frozen=True)
class Chain:
    """The operations of one transaction on one row, first to last."""

    ops: tuple[RowOp, ...]

    @property
    def first(self) -> Kind:
        """INSERT when the chain starts with an insert, else UPDATE (a leading DELETE reads as UPDATE)."""
        return "INSERT" if self.ops[0].op == "I" else "UPDATE"

    @property
    def last(self) -> Kind:
        """DELETE when the chain ends with a delete, else UPDATE (the row exists at the end)."""
        return "DELETE" if self.ops[-1].op == "D" else "UPDATE"

    @property
    def initial(self) -> Row | None:
        return self.ops[0].before

    @property
    def final(self) -> Row | None:
        return self.ops[-1].after


def chain_operations(ops: Sequence[RowOp], key_of: Callable[[Row], Hashable]) -> list[Chain]:
    """Chain a transaction's operations on one table by row key, in order of each chain's first operation.

    An update or delete continues the chain whose current key is its before image's key; an insert
    continues a chain whose row was deleted under its key; an update that changes the key moves its
    chain to the new key.
    """
    chains: list[list[RowOp]] = []
    by_key: dict[Hashable, int] = {}
    for op in sorted(ops, key=lambda o: o.seq):
        image = op.before if op.op in ("U", "D") else op.after
        if image is None:
            raise ValueError(f"operation {op.op} at seq {op.seq} lacks its image")
        key = key_of(image)
        index = by_key.get(key)
        if index is None:
            index = len(chains)
            chains.append([])
        chains[index].append(op)
        if op.op == "U" and op.after is not None:
            new_key = key_of(op.after)
            if new_key != key:
                by_key.pop(key, None)
            by_key[new_key] = index
        else:
            by_key[key] = index
    return [Chain(tuple(c)) for c in chains]


Send = Literal["nothing", "insert_final", "delete_initial", "update_final", "delete_initial+insert_final"]


def decide(first: Kind, initial_true: bool, last: Kind, final_true: bool, key_changed: bool) -> Send:
    """The row of seed 004's table that applies: what to send for one chain and one mapping."""
    if first == "INSERT":
        if last == "DELETE":
            return "nothing"
        return "insert_final" if final_true else "nothing"
    if last == "DELETE":
        return "delete_initial" if initial_true else "nothing"
    if initial_true and final_true:
        return "delete_initial+insert_final" if key_changed else "update_final"
    if initial_true:
        return "delete_initial"
    return "insert_final" if final_true else "nothing"


@dataclass(frozen=True)
class NetChange:
    """A change to send: INSERT carries `new`, DELETE `old`, UPDATE both (initial as old, final as new)."""

    op: str  # I, U or D
    old: Row | None
    new: Row | None


def net_effect(chain: Chain, where: Callable[[Row | None], bool],
               replication_key: Callable[[Row], Any]) -> list[NetChange]:
    """What one chain sends through one mapping: zero, one or two net changes.

    `where` is the mapping's `where` on a source image (False for no image); `replication_key` is the
    mapping's DKey computed from a source image.
    """
    initial, final = chain.initial, chain.final
    initial_true = chain.first == "UPDATE" and where(initial)
    final_true = chain.last == "UPDATE" and where(final)
    key_changed = False
    if chain.first == "UPDATE" and chain.last == "UPDATE" and initial_true and final_true:
        assert initial is not None and final is not None
        key_changed = replication_key(initial) != replication_key(final)
    send = decide(chain.first, initial_true, chain.last, final_true, key_changed)
    if send == "insert_final":
        return [NetChange("I", None, final)]
    if send == "delete_initial":
        return [NetChange("D", initial, None)]
    if send == "update_final":
        return [NetChange("U", initial, final)]
    if send == "delete_initial+insert_final":
        return [NetChange("D", initial, None), NetChange("I", None, final)]
    return []
