"""A mapping back made by `add_reverse` is named for its own direction, never after the forward mapping."""

from __future__ import annotations

from engine import authoring as au
from engine.model import Model

TABLE = {"columns": [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(9)"}],
         "primary_key": ["ID"]}


def _model(*mappings: tuple[str, str, str]) -> Model:
    return Model.model_validate({
        "format": "mapwright/1", "servers": [{"id": "hq", "dbms": "oracle"}, {"id": "branch", "dbms": "postgresql"}],
        "tables": [{"server": "hq", "name": "CUSTOMER", **TABLE}, {"server": "branch", "name": "CUSTOMER", **TABLE}],
        "mappings": [{"id": mid, "source": s, "target": t, "columns": {"ID": "ID", "NAME": "NAME"}}
                     for mid, s, t in mappings]})


def _apply(model: Model, mapping_id: str) -> None:
    for edit in au.add_reverse(model, mapping_id):
        edit.apply(model)


def test_the_mapping_back_is_named_for_its_direction_and_de_duplicated() -> None:
    model = _model(("hq_CUSTOMER_to_branch_CUSTOMER", "hq.CUSTOMER", "branch.CUSTOMER"))
    _apply(model, "hq_CUSTOMER_to_branch_CUSTOMER")
    assert [m.id for m in model.mappings] == ["hq_CUSTOMER_to_branch_CUSTOMER", "branch_CUSTOMER_to_hq_CUSTOMER"]
    back = model.mapping("branch_CUSTOMER_to_hq_CUSTOMER")
    assert back is not None and (back.source, back.target, back.reverse) == (
        "branch.CUSTOMER", "hq.CUSTOMER", "hq_CUSTOMER_to_branch_CUSTOMER")
    # the name taken (by another mapping back, not linked): the next one gets `_2`, as a new mapping does
    taken = _model(("fwd", "hq.CUSTOMER", "branch.CUSTOMER"),
                   ("branch_CUSTOMER_to_hq_CUSTOMER", "branch.CUSTOMER", "hq.CUSTOMER"))
    _apply(taken, "fwd")
    assert taken.mapping("fwd").reverse == "branch_CUSTOMER_to_hq_CUSTOMER_2"  # type: ignore[union-attr]
    assert taken.mapping("branch_CUSTOMER_to_hq_CUSTOMER").reverse is None  # type: ignore[union-attr]
