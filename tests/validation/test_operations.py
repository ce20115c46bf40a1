"""The edits designer gestures make (engine.authoring), applied and undone on a real model."""

from __future__ import annotations

from pathlib import Path

from engine import authoring as au
from engine.edits import Edit
from engine.model import load_model


def apply(model, edits: list[Edit]) -> None:  # type: ignore[no-untyped-def]
    for edit in edits:
        edit.apply(model)


def undo(model, edits: list[Edit]) -> None:  # type: ignore[no-untyped-def]
    for edit in reversed(edits):
        edit.inverted().apply(model)


def test_method_fields_and_inputs_on_a_nested_node(examples: Path) -> None:
    model = load_model(examples / "bidirectional.json")
    before = model.model_copy(deep=True)
    # m_back: CUST_NO = cast(split(CUST_KEY, '-', 1), INTEGER); the split is the node at path (0,)
    edits = au.set_method_fields(model, "m_back", "CUST_NO", (0,), sep="/", index=0)
    apply(model, edits)
    split = model.mapping("m_back").columns["CUST_NO"].input  # type: ignore[union-attr]
    assert (split.method, split.sep, split.index) == ("split", "/", 0)
    undo(model, edits)
    assert model == before
    # a concat gains an input; a one-input method takes the dropped column as its input
    concat = au.add_method_input(model, "m_fwd", "CUST_KEY", (), "NAME")
    apply(model, concat)
    assert [m.input for m in model.mapping("m_fwd").columns["CUST_KEY"].inputs] == ["REGION", "CUST_NO", "NAME"]
    rewired = au.add_method_input(model, "m_back", "CUST_NO", (0,), "NAME")
    apply(model, rewired)
    assert model.mapping("m_back").columns["CUST_NO"].input.input.input == "NAME"  # type: ignore[union-attr]
    # no node there (a bare column at the root, or an unknown mapping): nothing to do
    assert au.set_method_fields(model, "m_fwd", "NAME", (), sep="-") == []
    assert au.add_method_input(model, "nope", "X", (), "NAME") == []


def test_toggle_key_starts_from_the_default_and_delete_table_takes_what_names_it(examples: Path) -> None:
    model = load_model(examples / "bidirectional.json")
    before = model.model_copy(deep=True)
    edits = au.toggle_dkey(model, "m_fwd", "NAME")
    apply(model, edits)
    assert model.mapping("m_fwd").distribution_key == ["CUST_KEY", "NAME"]  # the default was the target's PK
    deleted = au.delete_table(model, "br.CUST")
    apply(model, deleted)
    assert model.table("br.CUST") is None
    assert not [m for m in model.mappings if "br.CUST" in (m.source, m.target)]
    undo(model, deleted)
    undo(model, edits)
    assert model == before
