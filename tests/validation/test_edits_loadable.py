"""No edit makes a model that saves but no longer opens: `engine.edits` refuses a new value the loader would
refuse (the same JSON checks, the same reasons), whatever front end builds the edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import authoring as au
from engine.dbimport import ImportedSchema, ImportFailure, check_into, checked_server_id
from engine.edits import UnloadableValue, add, evolve, replace, set_setting, unloadable
from engine.model import Model, load_model, save_model
from engine.model.io import ModelLoadError
from engine.model.schema import Server, Table
from resources import SAMPLE_MODEL

BIG = 10**399  # 400 digits


@pytest.fixture
def model() -> Model:
    return load_model(SAMPLE_MODEL)


def loader_says(model: Model, tmp_path: Path) -> str:
    """What the loader says of `model` once saved (the edit applied as if it had been allowed)."""
    save_model(model, tmp_path / "m.json")
    with pytest.raises(ModelLoadError) as caught:
        load_model(tmp_path / "m.json")
    return caught.value.message


def test_a_priority_of_400_digits_is_refused_with_the_loaders_reason(model: Model, tmp_path: Path) -> None:
    with pytest.raises(UnloadableValue) as caught:
        au.edit_server(model, "hq", priority=BIG)
    server = model.server("hq")
    assert server is not None and server.priority != BIG  # nothing applied
    model.servers[0] = evolve(server, priority=BIG)  # what the edit would have saved
    model.drop_index()
    assert str(caught.value) == f"priority: {loader_says(model, tmp_path)}"
    assert "an integer of 400 digits is out of range (at most 38)" in str(caught.value)


@pytest.mark.parametrize("default", [BIG, -BIG, 10**38, 10**5000, "x\ud800"],
                         ids=["400 digits", "minus 400 digits", "39 digits", "5001 digits", "lone surrogate"])
def test_a_column_default_no_file_may_hold_is_refused(model: Model, default: object) -> None:
    table = model.table("hq.CUSTOMER")
    assert table is not None
    columns = [c.model_dump() | ({"default": default} if c.name == "CONTACT_VERSION" else {}) for c in table.columns]
    with pytest.raises(UnloadableValue, match=r"^columns\[CONTACT_VERSION\]\.default: "):
        replace(model, "table", table, evolve(table, columns=columns))


def test_the_widest_integer_a_file_may_hold_is_kept(model: Model, tmp_path: Path) -> None:
    widest = 10**38 - 1  # 38 digits
    for edit in au.edit_server(model, "hq", priority=-widest):
        edit.apply(model)
    save_model(model, tmp_path / "m.json")
    assert load_model(tmp_path / "m.json").server("hq").priority == -widest  # type: ignore[union-attr]


def test_a_constant_and_a_priority_map_are_checked_too(model: Model) -> None:
    with pytest.raises(UnloadableValue, match=r"^columns\.STATUS\.value: an integer of 400 digits"):
        au.set_method(model, "cust_hq_to_branch", "STATUS", {"method": "constant", "value": BIG})
    entry = model.conflicts_for("hq.ORDERS")
    assert entry is not None
    groups = [g.model_dump() for g in entry.column_groups]
    groups[0]["resolution"][0]["priorities"] = {"ordered": BIG}
    with pytest.raises(UnloadableValue, match=r"^column_groups\[status_cg\]\.resolution\[0\]\.priorities\.ordered: "):
        replace(model, "conflicts", entry, evolve(entry, column_groups=groups))


def test_adding_and_settings_are_checked(model: Model) -> None:
    with pytest.raises(UnloadableValue, match="^priority: an integer of 400 digits"):
        add(model, Server(id="new", dbms="oracle", priority=BIG))
    with pytest.raises(UnloadableValue, match=r"^columns\[X\]\.default: cannot be encoded"):
        add(model, Table.model_validate({"server": "hq", "name": "T", "columns": [
            {"name": "X", "type": "VARCHAR(4)", "default": "\udc00"}]}))
    with pytest.raises(UnloadableValue, match=r"^layout\.hq\.CUSTOMER\[0\]: an integer of 41 digits"):
        set_setting(model, "layout", {**model.layout, "hq.CUSTOMER": [10**40, 0]})
    with pytest.raises(UnloadableValue, match="^name: "):
        set_setting(model, "name", "a\ud800b")
    assert set_setting(model, "layout", {**model.layout, "hq.CUSTOMER": [1.5e300, 0]}).after is not None


def test_what_the_loader_reads_is_loadable(model: Model) -> None:
    for entity in (*model.servers, *model.tables, *model.mappings, *model.conflicts):
        assert unloadable(entity) is None
    assert unloadable(model.layout) is None


def test_an_import_server_id_follows_add_servers_rule() -> None:
    for bad in ("a.b", "x\ty", "a b", " "):
        with pytest.raises(au.AuthoringError) as refused:
            au.add_server(Model.model_validate({"format": "mapwright/1"}), bad, "sqlite")
        with pytest.raises(ImportFailure) as failed:
            checked_server_id(bad)
        assert str(failed.value) == str(refused.value)
    assert checked_server_id(" shop ") == "shop"
    with pytest.raises(ImportFailure, match="cannot hold a dot or a space"):
        check_into(Model.model_validate({"format": "mapwright/1"}), ImportedSchema("a.b", "sqlite"))
    assert Server(id="a.b", dbms="sqlite")  # an older file may hold one: it still loads (see the designer's rename)
