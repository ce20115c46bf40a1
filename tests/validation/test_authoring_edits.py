"""Authoring edits (engine.authoring): each applied to a real model, checked, undone to an equal model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import authoring as au
from engine.edits import Edit
from engine.model import Model, TableConflicts, load_model
from engine.model.schema import UniqueResolution
from engine.rules import validate


def apply(model: Model, edits: list[Edit]) -> None:
    for edit in edits:
        edit.apply(model)


def undo(model: Model, edits: list[Edit]) -> None:
    for edit in reversed(edits):
        edit.inverted().apply(model)


@pytest.fixture
def model(examples: Path) -> Model:
    """The bidirectional example, with conflict settings on br.CUST so renames have them to carry."""
    loaded = load_model(examples / "bidirectional.json")
    loaded.conflicts = [TableConflicts.model_validate(
        {"table": "br.CUST", "column_groups": [{"name": "g", "columns": ["NAME"],
                                                 "resolution": [{"method": "site_priority"}]}],
         "compare_old": {"NAME": False}})]
    return loaded


def test_rename_server_carries_tables_mappings_conflicts_and_layout(model: Model) -> None:
    model.layout = {"br.CUST": [10.0, 20.0]}
    before = model.model_copy(deep=True)
    findings = sorted(validate(model))
    edits = au.rename_server(model, "br", "branch")
    apply(model, edits)
    assert model.server("br") is None and model.server("branch") is not None
    assert model.table("branch.CUST") is not None and model.table("br.CUST") is None
    ends = {m.id: (m.source, m.target) for m in model.mappings}
    assert (ends["m_fwd"], ends["m_back"]) == (("hq.CUST", "branch.CUST"), ("branch.CUST", "hq.CUST"))
    assert not any(e.startswith("br.") for pair in ends.values() for e in pair)
    assert [c.table for c in model.conflicts] == ["branch.CUST"]
    assert model.layout == {"branch.CUST": [10.0, 20.0]}
    assert sorted(f.code for f in validate(model)) == sorted(f.code for f in findings)  # nothing dangles
    undo(model, edits)
    assert model == before
    with pytest.raises(au.AuthoringError, match="already exists"):
        au.rename_server(model, "br", "hq")


def test_add_edit_remove_server(model: Model) -> None:
    before = model.model_copy(deep=True)
    added = au.add_server(model, "web", "mssql", 5, "ieee")
    apply(model, added)
    assert model.server("web").dbms == "mssql" and model.server("web").float_format == "ieee"  # type: ignore[union-attr]
    edited = au.edit_server(model, "web", dbms="db2", priority=None)
    apply(model, edited)
    assert (model.server("web").dbms, model.server("web").priority) == ("db2", None)  # type: ignore[union-attr]
    removed = au.remove_server(model, "br")
    apply(model, removed)
    assert model.server("br") is None and model.table("br.CUST") is None
    assert all("br.CUST" not in (m.source, m.target) for m in model.mappings)
    for edits in (removed, edited, added):
        undo(model, edits)
    assert model == before
    with pytest.raises(au.AuthoringError, match="dbms"):
        au.add_server(model, "x", "sybase")
    with pytest.raises(au.AuthoringError, match="dot or a space"):
        au.add_server(model, "a.b", "oracle")


def test_rename_table_and_replicate_it(model: Model) -> None:
    before = model.model_copy(deep=True)
    renamed = au.rename_table(model, "br.CUST", "CUSTOMER")
    apply(model, renamed)
    assert model.table("br.CUSTOMER") is not None
    assert (model.mapping("m_fwd").target, model.mapping("m_back").source) == ("br.CUSTOMER", "br.CUSTOMER")  # type: ignore[union-attr]
    assert model.conflicts[0].table == "br.CUSTOMER"
    copy = au.replicate_table(model, "hq.CUST", "br", "CUST_COPY")
    apply(model, copy)
    original, replica = model.table("hq.CUST"), model.table("br.CUST_COPY")
    assert replica is not None and original is not None
    assert (replica.columns, replica.primary_key) == (original.columns, original.primary_key)
    undo(model, copy)
    undo(model, renamed)
    assert model == before
    with pytest.raises(au.AuthoringError, match="already exists"):
        au.replicate_table(model, "hq.CUST", "hq")


def test_columns_add_type_check_move_rename_remove(model: Model) -> None:
    before = model.model_copy(deep=True)
    assert au.type_problem("VARCHAR(40)") is None and au.type_problem("VARCHR(40)")
    with pytest.raises(au.AuthoringError, match="BOGUS"):
        au.add_column(model, "hq.CUST", "X", "BOGUS")
    added = au.add_column(model, "hq.CUST", "EMAIL", "VARCHAR(80)", nullable=False, default="''", position=0)
    apply(model, added)
    table = model.table("hq.CUST")
    assert table is not None and table.columns[0].name == "EMAIL" and not table.columns[0].nullable
    moved = au.move_column(model, "hq.CUST", "EMAIL", 1)
    apply(model, moved)
    assert model.table("hq.CUST").column_names()[1] == "EMAIL"  # type: ignore[union-attr]
    assert au.move_column(model, "hq.CUST", model.table("hq.CUST").column_names()[0], -1) == []  # type: ignore[union-attr]
    changed = au.set_column(model, "hq.CUST", "EMAIL", type="VARCHAR(120)", nullable=True)
    apply(model, changed)
    assert model.table("hq.CUST").column("EMAIL").type == "VARCHAR(120)"  # type: ignore[union-attr]
    for edits in (changed, moved, added):
        undo(model, edits)
    assert model == before


def test_rename_column_follows_every_reference(model: Model) -> None:
    before = model.model_copy(deep=True)
    codes = sorted(f.code for f in validate(model))
    forward = model.mapping("m_fwd")
    assert forward is not None
    forward.where = "REGION <> 'XX' AND CUST_NO > 0"
    edits = au.rename_column(model, "hq.CUST", "REGION", "AREA")
    apply(model, edits)
    hq = model.table("hq.CUST")
    assert hq is not None and "AREA" in hq.column_names() and "AREA" in hq.primary_key
    fwd, back = model.mapping("m_fwd"), model.mapping("m_back")
    assert fwd is not None and back is not None
    assert fwd.columns["CUST_KEY"].inputs[0].input == "AREA"  # type: ignore[union-attr]
    assert "AREA" in back.columns and "REGION" not in back.columns
    assert fwd.where is not None and "AREA" in fwd.where and "REGION" not in fwd.where
    assert sorted(f.code for f in validate(model)) == codes  # nothing broke
    undo(model, edits)
    forward = model.mapping("m_fwd")
    assert forward is not None
    forward.where = None
    assert model == before


def test_remove_column_takes_its_keys_maps_and_conflict_settings(model: Model) -> None:
    apply(model, au.set_keys(model, "br.CUST", unique_indexes=[{"name": "UX_NAME", "columns": ["NAME"]}]))
    model.conflicts[0].unique = [UniqueResolution(index="UX_NAME", resolution="append_site_name")]
    before = model.model_copy(deep=True)
    only_name = au.remove_column(model, "br.CUST", "NAME")
    apply(model, only_name)
    assert model.table("br.CUST").unique_indexes == [] and model.conflicts[0].unique == []  # type: ignore[union-attr]
    assert model.conflicts[0].column_groups[0].columns == [] and model.conflicts[0].compare_old == {}
    assert "CR010" not in {f.code for f in validate(model) if f.location.table == "br.CUST"}
    undo(model, only_name)
    assert model == before
    edits = au.remove_column(model, "br.CUST", "CUST_KEY")
    apply(model, edits)
    table = model.table("br.CUST")
    assert table is not None and "CUST_KEY" not in table.column_names() and table.primary_key == []
    assert "CUST_KEY" not in model.mapping("m_fwd").columns  # type: ignore[union-attr]
    assert "MP001" in {f.code for f in validate(model)}  # m_back still reads it: said, not silently dropped
    undo(model, edits)
    assert model == before


def test_new_mapping_auto_maps_exact_then_case_insensitive(model: Model) -> None:
    apply(model, au.add_server(model, "web", "postgresql"))
    apply(model, au.add_table(model, "web", "CUST", [{"name": "region", "type": "CHAR(2)"},
                                                     {"name": "NAME", "type": "VARCHAR(80)"},
                                                     {"name": "OTHER", "type": "INTEGER"}]))
    before = model.model_copy(deep=True)
    edits = au.new_mapping(model, "hq.CUST", "web.CUST")
    apply(model, edits)
    mapping = model.mappings[-1]
    assert {k: v.input for k, v in mapping.columns.items()} == {"region": "REGION", "NAME": "NAME"}  # type: ignore[union-attr]
    assert au.auto_map(model, mapping.id) == []  # nothing left that matches
    undo(model, edits)
    assert model == before
    empty = au.new_mapping(model, "hq.CUST", "web.CUST", "plain", auto=False)
    apply(model, empty)
    assert model.mapping("plain").columns == {}  # type: ignore[union-attr]
    filled = au.auto_map(model, "plain")
    apply(model, filled)
    assert set(model.mapping("plain").columns) == {"region", "NAME"}  # type: ignore[union-attr]
    with pytest.raises(au.AuthoringError, match="already exists"):
        au.new_mapping(model, "hq.CUST", "web.CUST", "plain")


def test_rename_and_remove_mapping_carry_reverse(model: Model) -> None:
    before = model.model_copy(deep=True)
    edits = au.rename_mapping(model, "m_fwd", "hq_to_br")
    apply(model, edits)
    assert model.mapping("m_back").reverse == "hq_to_br"  # type: ignore[union-attr]
    assert model.mapping("hq_to_br").reverse == "m_back"  # type: ignore[union-attr]
    assert not [f for f in validate(model) if f.code == "BI001" and f.location.mapping in ("hq_to_br", "m_back")]
    removed = au.remove_mapping(model, "hq_to_br")
    apply(model, removed)
    assert model.mapping("m_back").reverse is None  # type: ignore[union-attr]
    undo(model, removed)
    undo(model, edits)
    assert model == before


def test_add_reverse_builds_the_mapping_back_from_the_inverse_pairs(model: Model) -> None:
    apply(model, au.remove_mapping(model, "m_back"))
    assert model.mapping("m_fwd").reverse is None  # type: ignore[union-attr]
    before = model.model_copy(deep=True)
    edits = au.add_reverse(model, "m_fwd")
    apply(model, edits)
    back = model.mapping("br_CUST_to_hq_CUST")
    assert back is not None and (back.source, back.target, back.reverse) == ("br.CUST", "hq.CUST", "m_fwd")
    assert model.mapping("m_fwd").reverse == "br_CUST_to_hq_CUST"  # type: ignore[union-attr]
    dumped = {k: v.model_dump(mode="json") for k, v in back.columns.items()}
    assert dumped["REGION"] == {"method": "split", "input": "CUST_KEY", "sep": "-", "index": 0}
    assert dumped["CUST_NO"] == {"method": "cast", "input": {"method": "split", "input": "CUST_KEY", "sep": "-",
                                                             "index": 1}, "type": "INTEGER"}
    assert not [f for f in validate(model) if f.code.startswith("BI") and f.location.mapping in ("m_fwd", back.id)]
    undo(model, edits)
    assert model == before


def test_where_problems_and_set_where(model: Model) -> None:
    assert au.where_problems(model, "m_fwd", "REGION <> 'XX'") == []
    assert au.where_problems(model, "m_fwd", "") == []
    assert "does not parse" in au.where_problems(model, "m_fwd", "REGION = = 1")[0]
    assert "'NOPE'" in au.where_problems(model, "m_fwd", "NOPE = 1")[0]
    before = model.model_copy(deep=True)
    edits = au.set_where(model, "m_fwd", "  REGION <> 'XX'\n")
    apply(model, edits)
    assert model.mapping("m_fwd").where == "REGION <> 'XX'"  # type: ignore[union-attr]
    undo(model, edits)
    assert model == before


def test_move_method_input_reorders_a_concat(model: Model) -> None:
    before = model.model_copy(deep=True)
    edits = au.move_method_input(model, "m_fwd", "CUST_KEY", (), 0, 1)
    apply(model, edits)
    assert [i.input for i in model.mapping("m_fwd").columns["CUST_KEY"].inputs] == ["CUST_NO", "REGION"]  # type: ignore[union-attr]
    assert au.move_method_input(model, "m_fwd", "CUST_KEY", (), 1, 1) == []  # already last
    undo(model, edits)
    assert model == before


def test_set_keys(model: Model) -> None:
    before = model.model_copy(deep=True)
    edits = au.set_keys(model, "hq.CUST", ["CUST_NO"], [{"name": "UX_NAME", "columns": ["NAME"]}])
    apply(model, edits)
    table = model.table("hq.CUST")
    assert table is not None and table.primary_key == ["CUST_NO"] and table.unique_indexes[0].columns == ["NAME"]
    undo(model, edits)
    assert model == before
    with pytest.raises(au.AuthoringError, match="same name"):
        au.set_keys(model, "hq.CUST", unique_indexes=[{"name": "U", "columns": ["A"]}, {"name": "U", "columns": ["B"]}])


def test_sql_renames_follow_the_parsed_tree() -> None:
    from engine.authoring.references import rename_in_method, rename_in_sql

    assert rename_in_sql("`STATUS` <> 1 AND status IS NOT NULL", "STATUS", "S2") == "`S2` <> 1 AND S2 IS NOT NULL"
    assert rename_in_sql("STATUS_OLD <> 'STATUS'", "STATUS", "S2") == "STATUS_OLD <> 'STATUS'"  # no such column
    assert rename_in_sql("a = = b", "a", "c") == "a = = b"  # does not parse: left as written
    method = {"method": "concat", "inputs": ["A", {"method": "expression", "sql": "A + 1"}], "sep": "-"}
    assert rename_in_method(method, "A", "B") == {
        "method": "concat", "inputs": ["B", {"method": "expression", "sql": "B + 1"}], "sep": "-"}


def test_renaming_anything_in_the_sample_leaves_nothing_dangling() -> None:
    """Every server, table, column and mapping of the sample renamed in turn (and undone): the findings keep
    their codes, but for SC001 where a renamed column leaves a table's replication definitions behind."""
    from collections import Counter

    from resources import SAMPLE_MODEL

    model = load_model(SAMPLE_MODEL)
    original = model.model_copy(deep=True)
    base = Counter(f.code for f in validate(model))
    changes: list[Any] = [lambda m, s=s.id: au.rename_server(m, s, f"{s}_x") for s in model.servers]
    changes += [lambda m, t=t.key, n=t.name: au.rename_table(m, t, f"{n}_X") for t in model.tables]
    changes += [lambda m, i=x.id: au.rename_mapping(m, i, f"{i}_x") for x in model.mappings]
    for change in changes:
        edits = change(model)
        apply(model, edits)
        assert Counter(f.code for f in validate(model)) == base
        undo(model, edits)
    for table in original.tables:
        for column in table.column_names():
            edits = au.rename_column(model, table.key, column, f"{column}_X")
            apply(model, edits)
            got = Counter(f.code for f in validate(model))
            extra = {"SC001": 2} if table.replication_definitions else {}  # columns vs the definition, both ways
            assert (dict(got - base), dict(base - got)) == (extra, {}), (table.key, column)
            undo(model, edits)
    assert model == original


def test_what_the_model_refuses_is_an_authoring_error_naming_the_field() -> None:
    """A `where` beyond the limits is refused as every other authoring refusal is: one line, no traceback."""
    from resources import SAMPLE_MODEL

    model = load_model(SAMPLE_MODEL)
    mapping = model.mappings[0]
    with pytest.raises(au.AuthoringError, match=r"^where: the where clause is nested too deeply"):
        au.set_where(model, mapping.id, "(" * 50 + "1 = 1" + ")" * 50)
    assert model.mapping(mapping.id).where == mapping.where


def test_add_reverse_with_a_padded_id_links_the_mapping_it_names_never_a_second_one(model: Model) -> None:
    """A mapping-back id typed with spaces around it names the existing mapping: it is linked (or refused when it
    goes the wrong way), never shadowed by a new mapping of the same id (two mappings of one id: undo breaks)."""
    before = model.model_copy(deep=True)
    with pytest.raises(au.AuthoringError, match="does not map"):
        au.add_reverse(model, "m_orphan", " m_fwd ")  # names a mapping that goes hq -> br too: refused
    edits = au.add_reverse(model, "m_orphan", " m_back ")
    apply(model, edits)
    ids = [m.id for m in model.mappings]
    assert len(ids) == len(set(ids)) == len(before.mappings)
    assert (model.mapping("m_orphan").reverse, model.mapping("m_back").reverse) == ("m_back", "m_orphan")  # type: ignore[union-attr]
    undo(model, edits)
    assert model == before


def test_a_column_name_differing_only_in_case_from_another_is_refused(model: Model) -> None:
    """`name` beside `NAME` is TB004 (a run refuses the model): adding or renaming to it is refused with a reason
    naming the other column; a column renamed to another case of its own name is fine."""
    with pytest.raises(au.AuthoringError, match=r"^hq\.CUST already has a column NAME, which differs from name "
                                                r"only in case"):
        au.add_column(model, "hq.CUST", "name", "INTEGER")
    with pytest.raises(au.AuthoringError, match="already has a column NAME, which differs from Name only in case"):
        au.rename_column(model, "hq.CUST", "REGION", "Name")
    edits = au.rename_column(model, "hq.CUST", "NAME", "Name")
    apply(model, edits)
    assert "Name" in model.table("hq.CUST").column_names()  # type: ignore[union-attr]
    assert not [f for f in validate(model) if f.code == "TB004"]


def test_renaming_a_column_onto_a_stray_column_map_is_refused_not_a_lost_map(model: Model) -> None:
    """m_fwd maps NAME and also FULLNAME, which br.CUST does not have (MP005). Renaming NAME to FULLNAME would put
    both maps on one key and silently keep only one: refused, naming the mapping, and nothing changes."""
    from engine.edits import evolve, replace

    mapping = model.mapping("m_fwd")
    assert mapping is not None
    columns = {k: v.model_dump(mode="json") for k, v in mapping.columns.items()}
    replace(model, "mapping", mapping, evolve(mapping, columns={
        **columns, "FULLNAME": {"method": "constant", "value": "stray"}})).apply(model)
    before = model.model_copy(deep=True)
    with pytest.raises(au.AuthoringError, match="^mapping m_fwd also maps FULLNAME, which br.CUST does not have"):
        au.rename_column(model, "br.CUST", "NAME", "FULLNAME")
    assert model == before


def test_add_reverse_leaves_the_parts_of_a_concat_without_separator_unmapped(model: Model) -> None:
    """A concat with no separator has no split inverse (docs/contract.md §1): the mapping back leaves its inputs
    unmapped, as it does every column no inverse reaches; it raised a raw validation error (a split needs a
    separator), which the designer's menu did not catch."""

    apply(model, au.remove_mapping(model, "m_back"))
    apply(model, au.set_method_fields(model, "m_fwd", "CUST_KEY", (), sep=""))
    edits = au.add_reverse(model, "m_fwd")
    apply(model, edits)
    back = model.mapping("br_CUST_to_hq_CUST")
    assert back is not None and back.reverse == "m_fwd"
    assert set(back.columns) == {"NAME"}
