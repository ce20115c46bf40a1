"""NL: NOT NULL target columns a mapping must fill: NL001, NL002 (declared in `catalog.nl`)."""

from __future__ import annotations

from collections.abc import Iterator

from engine.model.methods import Column
from engine.model.schema import Mapping, Table
from engine.rules.context import Context
from engine.rules.findings import Finding
from engine.rules.mp import at
from engine.rules.registry import emits
from engine.sqldefaults import is_null_default


@emits("NL001", "NL002")
def null_rules(ctx: Context, mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """NL001, NL002. A default of SQL NULL (`NULL`, `CAST(NULL AS ...)`) is no default: it gives the NOT NULL
    column the NULL it refuses. A generated column is the database's to fill (MP007 if mapped)."""
    for col in target.columns:
        if col.nullable or col.generated is not None:
            continue
        method = mapping.columns.get(col.name)
        if method is None:
            if col.default is None:
                yield Finding("NL001", f"{col.name} is NOT NULL with no default, and the mapping leaves it empty",
                              at(mapping, target, col.name))
            elif is_null_default(col.default, ctx.dbms_of(target) or "other"):
                yield Finding("NL001", f"{col.name} is NOT NULL and its default is NULL, and the mapping leaves "
                              "it empty", at(mapping, target, col.name))
        elif isinstance(method, Column):
            src = source.column(method.input)
            if src is not None and src.nullable:
                yield Finding("NL002", f"{col.name} is NOT NULL but copied from {source.key}.{src.name}, "
                              "which allows NULL", at(mapping, target, col.name))
