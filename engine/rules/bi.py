"""BI: a mapping and its `reverse`: BI001, BI002 (declared in `catalog.bi`)."""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.schema import Mapping, Table
from engine.reversibility import explain, survives
from engine.rules.context import Context
from engine.rules.findings import Finding, Location
from engine.rules.mp import at
from engine.rules.registry import emits


@emits("BI001")
def reverse_rules(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """BI001, then BI002: the reverse mapping exists, goes back, and gives back the key. BI002 only when this
    mapping has a distribution key: without one (DK001) neither direction is reported on it."""
    if mapping.reverse is None:  # none given; an empty name is given, and names no mapping (BI001)
        return
    back = ctx.model.mapping(mapping.reverse)
    if back is None:
        yield Finding("BI001", f"reverse mapping {mapping.reverse!r} does not exist", at(mapping))
        return
    if back.source != mapping.target or back.target != mapping.source:
        yield Finding("BI001", f"reverse mapping {back.id} goes {back.source} -> {back.target}, "
                      f"not {mapping.target} -> {mapping.source}", at(mapping))
        return
    if ctx.dkey(mapping) is None:
        return
    yield from key_round_trip(ctx, mapping, back, source, "")
    if back.reverse != mapping.id:
        yield from key_round_trip(ctx, back, mapping, target, f" (the {back.id} direction)", report_on=mapping)


@emits("BI002")
def key_round_trip(ctx: Context, forward: Mapping, back: Mapping, source: Table, note: str,
                   report_on: Mapping | None = None) -> Iterator[Finding]:
    """BI002 for each key column of `forward` whose source columns `forward` then `back` do not give back."""
    dkey = ctx.dkey(forward)
    if dkey is None:
        return
    owner = report_on or forward
    for key_col in dkey.columns:
        if key_col not in forward.columns:
            continue
        lost = sorted(c for c in ctx.graph.feeding_columns(forward.id, key_col)
                      if not survives(forward, back, source, c))
        if lost:
            reasons = "; ".join(explain(forward, back, c) for c in lost)
            yield Finding("BI002", f"key column {key_col}{note} is not reversible: {forward.id} then {back.id} "
                          f"does not give back {', '.join(lost)} ({reasons})",
                          Location(mapping=owner.id, table=forward.target, column=key_col))
