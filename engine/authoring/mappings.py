"""Mappings: create (auto-mapped by name), rename (with every `reverse` naming it), remove, `where`,
a mapping back built from the inverse pairs, a copy map dropped on the canvas, the distribution key."""

from __future__ import annotations

from engine.authoring.errors import AuthoringError, evolve_checked
from engine.authoring.methods import columns_json
from engine.authoring.references import MethodJson
from engine.authoring.schema import Step
from engine.core.types import TypeFamily
from engine.edits import Edit, chain, evolve, replace
from engine.keys import distribution_key
from engine.model.methods import Cast, Column, Concat, Method
from engine.model.schema import Mapping, Model, Table
from engine.rules.mp import where_problems as _where_problems


def _mapping(model: Model, mapping_id: str) -> Mapping:
    mapping = model.mapping(mapping_id)
    if mapping is None:
        raise AuthoringError(f"no mapping {mapping_id!r}")
    return mapping


def unique_mapping_id(model: Model, source: str, target: str) -> str:
    """`SRV_T_to_SRV2_T` for a new mapping from `source` to `target`, `_2`, `_3`... when taken."""
    base = f"{source.replace('.', '_')}_to_{target.replace('.', '_')}"
    candidate, n = base, 2
    while model.mapping(candidate) is not None:
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def matches_by_name(source: Table, target: Table, already: set[str] = frozenset()) -> dict[str, str]:  # type: ignore[assignment]
    """Target column -> source column of the same name: exact matches first, then case-insensitive ones
    (only where exactly one source column matches); target columns in `already` are left alone."""
    names = source.column_names()
    exact = set(names)
    folded: dict[str, list[str]] = {}
    for n in names:
        folded.setdefault(n.lower(), []).append(n)
    out: dict[str, str] = {}
    for col in target.column_names():
        if col in already:
            continue
        if col in exact:
            out[col] = col
        elif len(folded.get(col.lower(), [])) == 1:
            out[col] = folded[col.lower()][0]
    return out


def new_mapping(model: Model, source: str, target: str, mapping_id: str | None = None,
                auto: bool = True) -> list[Edit]:
    """A mapping from `source` to `target` (auto-mapped by column name unless `auto` is False)."""
    src, tgt = model.table(source), model.table(target)
    if src is None or tgt is None:
        raise AuthoringError(f"no table {source if src is None else target!r}")
    if source == target:
        raise AuthoringError("a mapping needs two different tables")
    mid = (mapping_id or "").strip() or unique_mapping_id(model, source, target)
    if model.mapping(mid) is not None:
        raise AuthoringError(f"a mapping {mid!r} already exists")
    columns = matches_by_name(src, tgt) if auto else {}
    new = Mapping.model_validate({"id": mid, "source": source, "target": target, "columns": columns})
    return [replace(model, "mapping", None, new)]


def connect_columns(model: Model, source: str, source_col: str, target: str, target_col: str) -> list[Edit]:
    """Dropping a source column on a target column: a copy map, in the mapping between the two tables
    (a new mapping if there is none). Nothing when either column is not (or no longer) in its table."""
    tables = model.table(source), model.table(target)
    if source == target or tables[0] is None or tables[1] is None or source_col not in tables[0].column_names() \
            or target_col not in tables[1].column_names():
        return []
    existing = next((m for m in model.mappings if m.source == source and m.target == target), None)
    if existing is None:
        new = Mapping.model_validate({"id": unique_mapping_id(model, source, target), "source": source,
                                      "target": target, "columns": {target_col: source_col}})
        return [replace(model, "mapping", None, new)]
    columns = columns_json(existing)
    columns[target_col] = source_col
    return [replace(model, "mapping", existing, evolve(existing, columns=columns))]


def toggle_dkey(model: Model, mapping_id: str, target_col: str) -> list[Edit]:
    """Add a target column to the mapping's distribution key, or take it out (starting from the default)."""
    mapping = model.mapping(mapping_id)
    if mapping is None:
        return []
    current = distribution_key(model, mapping)
    key = list(current.columns) if current else []
    key = [c for c in key if c != target_col] if target_col in key else [*key, target_col]
    return [replace(model, "mapping", mapping, evolve(mapping, distribution_key=key or None))]


def auto_map(model: Model, mapping_id: str) -> list[Edit]:
    """Copy maps for the target columns not yet mapped, from source columns of the same name."""
    mapping = _mapping(model, mapping_id)
    src, tgt = model.table(mapping.source), model.table(mapping.target)
    if src is None or tgt is None:
        return []
    found = matches_by_name(src, tgt, set(mapping.columns))
    if not found:
        return []
    return [replace(model, "mapping", mapping, evolve_checked(mapping, columns={**columns_json(mapping), **found}))]


def rename_mapping(model: Model, old: str, new: str) -> list[Edit]:
    """Rename a mapping and every `reverse` that names it."""
    mapping = _mapping(model, old)
    new = new.strip()
    if not new:
        raise AuthoringError("a mapping needs an id")
    if new == old:
        return []
    if model.mapping(new) is not None:
        raise AuthoringError(f"a mapping {new!r} already exists")
    reverse = new if mapping.reverse == old else mapping.reverse
    steps: list[Step] = [lambda m: [replace(m, "mapping", mapping, evolve_checked(mapping, id=new, reverse=reverse))]]
    steps += [lambda m, i=o.id: [replace(m, "mapping", m.mapping(i), evolve_checked(_mapping(m, i), reverse=new))]  # type: ignore[misc]
              for o in model.mappings if o.reverse == old and o.id != old]
    return chain(model, *steps)


def remove_mapping(model: Model, mapping_id: str) -> list[Edit]:
    """Remove a mapping; the mappings whose `reverse` named it no longer do."""
    _mapping(model, mapping_id)
    steps: list[Step] = [lambda m, i=o.id: [replace(m, "mapping", m.mapping(i), evolve(_mapping(m, i), reverse=None))]  # type: ignore[misc]
                         for o in model.mappings if o.reverse == mapping_id and o.id != mapping_id]
    steps.append(lambda m: [replace(m, "mapping", m.mapping(mapping_id), None)])
    return chain(model, *steps)


def where_problems(model: Model, mapping_id: str, where: str) -> list[str]:
    """What MP003 would say of `where` on this mapping ([] when it is clean or empty): for typing feedback."""
    mapping = _mapping(model, mapping_id)
    source = model.table(mapping.source)
    if not where.strip() or source is None:
        return []
    return [message for message, _ in _where_problems(where.strip(), source)]


def set_where(model: Model, mapping_id: str, where: str | None) -> list[Edit]:
    mapping = _mapping(model, mapping_id)
    text = (where or "").strip() or None
    return [] if text == mapping.where else [replace(model, "mapping", mapping, evolve_checked(mapping, where=text))]


# --- the mapping back ----------------------------------------------------------------------------------------

def reverse_columns(forward: Mapping, source: Table) -> dict[str, MethodJson]:
    """Column maps of a mapping back (forward's target -> forward's source) by the inverse pairs: a copy gives a
    copy, a concat with a separator gives one split per input (cast back to the input's type when that is not
    character), a cast gives the opposite cast. Source columns no inverse reaches are left unmapped."""
    out: dict[str, MethodJson] = {}
    for target_col, method in forward.columns.items():
        _invert(method, target_col, source, out)
    return out


def _invert(method: Method, term: MethodJson, source: Table, out: dict[str, MethodJson]) -> None:
    if isinstance(method, Column):
        if source.column(method.input) is not None:
            out.setdefault(method.input, term)
    elif isinstance(method, Concat) and method.sep:  # without a separator no split takes the parts apart
        for i, child in enumerate(method.inputs):
            part: MethodJson = {"method": "split", "input": term, "sep": method.sep, "index": i}
            col = source.column(child.input) if isinstance(child, Column) else None
            if col is not None and col.sql_type.family != TypeFamily.CHARACTER:
                part = {"method": "cast", "input": part, "type": col.type}
            _invert(child, part, source, out)
    elif isinstance(method, Cast) and isinstance(method.input, Column):
        col = source.column(method.input.input)
        if col is not None:
            out.setdefault(col.name, {"method": "cast", "input": term, "type": col.type})


def add_reverse(model: Model, mapping_id: str, back_id: str | None = None) -> list[Edit]:
    """Link a mapping with its mapping back, `reverse` set both ways. With `back_id` naming an existing mapping,
    the two are linked; otherwise a new mapping back is made from the inverse pairs (`reverse_columns`), named
    for its own direction as a new mapping is (`br_CUST_to_hq_CUST`, `_2` when taken): never after the forward
    mapping, whose name would then start both rows of the tree and grid."""
    forward = _mapping(model, mapping_id)
    back_id = (back_id or "").strip() or None  # as typed, padded: still the mapping it names, never a second one
    existing = model.mapping(back_id) if back_id else None
    if existing is not None and (existing.source, existing.target) != (forward.target, forward.source):
        raise AuthoringError(f"{existing.id} does not map {forward.target} to {forward.source}")
    steps: list[Step] = []
    if existing is None:
        source = model.table(forward.source)
        if source is None or model.table(forward.target) is None:
            raise AuthoringError(f"{forward.id} names an unknown table")
        bid = back_id or unique_mapping_id(model, forward.target, forward.source)  # named for its direction
        back = Mapping.model_validate({"id": bid, "source": forward.target, "target": forward.source,
                                       "columns": reverse_columns(forward, source), "reverse": forward.id})
        steps.append(lambda m: [replace(m, "mapping", None, back)])
    else:
        bid = existing.id
        steps.append(lambda m: [replace(m, "mapping", m.mapping(bid), evolve(_mapping(m, bid), reverse=forward.id))])
    steps.append(lambda m: [replace(m, "mapping", m.mapping(mapping_id), evolve(_mapping(m, mapping_id), reverse=bid))])
    return chain(model, *steps)
