"""TY: data types of what a mapping moves (seed 001): TY001-TY004 (declared in `catalog.ty`).

The family's two larger checks have modules of their own: TY005 `typecompat` (what a method produces and
whether it fits) and TY006 `nativetypes` (another DBMS's own type, a table rule).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.core.types import TypeFamily
from engine.model.schema import Mapping, Table
from engine.rules.context import Context
from engine.rules.dk import MappedKey
from engine.rules.findings import Finding
from engine.rules.mp import at
from engine.rules.registry import emits


@emits("TY001", "TY002", "TY004")
def type_rules(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """TY001, TY002, TY004: user types, floating point across formats, large objects.

    A column counts as read when a method copies it or an `expression`'s SQL names it (its lineage, matched
    without case as SQL names are: `ctx.feeding`)."""
    reads = {target_col: sorted(ctx.feeding(mapping, [target_col])) for target_col in mapping.columns}
    read = [c for name in dict.fromkeys(n for names in reads.values() for n in names)
            if (c := source.column(name)) is not None]
    written = [c for name in mapping.columns if (c := target.column(name)) is not None]
    sides = [(source, col) for col in read] + [(target, col) for col in written]
    for table, col in sides:
        if col.sql_type.holds_udt and not col.stream_support:
            yield Finding("TY001", f"{table.key}.{col.name} is {col.sql_type}; replicating it needs stream support "
                          "(streamwrite/streamread) declared with stream_support: true", at(mapping, table, col.name))
    src_server, tgt_server = ctx.server_of(source), ctx.server_of(target)
    formats = (src_server.float_format if src_server else None, tgt_server.float_format if tgt_server else None)
    if ctx.model.float_transfer is None and all(formats) and not _same_label(formats[0], formats[1]):
        for target_col in mapping.columns:
            tcol = target.column(target_col)
            approx = tcol is not None and tcol.sql_type.family is TypeFamily.APPROX_NUMERIC
            approx = approx or any((s := source.column(n)) is not None and s.sql_type.family
                                   is TypeFamily.APPROX_NUMERIC for n in reads[target_col])
            if approx:
                yield Finding("TY002", f"{target_col} carries a floating-point value from {formats[0]} to "
                              f"{formats[1]} format; set float_transfer (ieee or canonical)",
                              at(mapping, target, target_col))
    if mapping.changed_columns_only:
        for table, col in sides:
            if col.sql_type.family is TypeFamily.LARGE_OBJECT and col.storage in ("blobspace", "sbspace"):
                yield Finding("TY004", f"{table.key}.{col.name} is stored in a {col.storage}; with changed columns "
                              "only it may not be updated at the target", at(mapping, table, col.name))


def _same_label(a: str | None, b: str | None) -> bool:
    """Whether two float_format labels name one format: `ieee` and `IEEE` do (labels, not identifiers)."""
    return (a or "").strip().casefold() == (b or "").strip().casefold()


@emits("TY003")
def serial_key_collisions(ctx: Context, mapping: Mapping, target: Table, key: MappedKey | None) -> Iterator[Finding]:
    """TY003: a SERIAL or SERIAL8 column in the key of a table several masters write: each numbers its rows
    on its own, and the numbers collide."""
    if key is None:
        return
    serial = [(n, c) for n in key.columns if (c := target.column(n)) is not None and c.sql_type.is_serial]
    if serial and len(ctx.graph.masters(target.key)) > 1:
        for name, column in serial:
            yield Finding("TY003", f"{name} is {column.sql_type} in the key of {target.key}, which several masters "
                          "write: their serial values will collide", at(mapping, target, name))
