"""Incremental validation equals full validation, after every one of hundreds of random edits.

The edits are the kinds the designer makes: column types and nullability,
keys and indexes, column maps and nested methods, distribution keys,
reverse links, retargeted and renamed mappings, servers, conflict settings,
hierarchies, replication definitions and model settings; and the authoring
edits (engine.authoring): servers and tables added, renamed with every
reference, replicated and removed, columns added, renamed, moved and removed,
mappings created auto-mapped, renamed, reversed and removed; and the designer's
gestures (engine.authoring): methods inserted, re-parameterised and fed a
column, links drawn, DKey columns toggled, tables deleted and moved. Each edit
is also undone, and the findings (and the saved model) must come back exactly.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from builders import schema_feature_change
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import authoring as au
from engine.edits import Edit, add, chain, evolve, replace, set_setting
from engine.model import Model, load_model
from engine.model.io import dump_model
from engine.rules import Validator, validate
from resources import SAMPLE_MODEL

TYPES = ["INTEGER", "BIGINT", "SERIAL", "VARCHAR(40)", "VARCHAR(300)", "CHAR(2)", "DECIMAL(10,2)", "FLOAT",
         "TIMESTAMP", "DATE", "BIT", "BINARY(8)", "BLOB", "UDT:point", "ROW(a UDT:pt)"]
DBMS = ["oracle", "db2", "mssql", "postgresql", "informix"]
RESOLUTIONS = ["latest_timestamp", "earliest_timestamp", "minimum", "maximum", "additive", "average",
               "overwrite", "discard", "priority_group", "site_priority"]


def _models(examples: Path) -> list[Model]:
    files = [SAMPLE_MODEL, examples / "bidirectional.json", examples / "dkey_rules.json",
             examples / "ordering_conflict" / "model.json"]
    return [load_model(f) for f in files]


def random_method(rng: random.Random, columns: list[str], depth: int = 0) -> Any:
    name = rng.choice(columns + ["NOPE"]) if columns else "NOPE"
    if depth > 1 or rng.random() < 0.5:
        return name
    kind = rng.choice(["concat", "split", "cast", "constant", "upper", "expression", "substring", "system"])
    inner = random_method(rng, columns, depth + 1)
    return {
        "concat": {"method": "concat", "inputs": [inner, random_method(rng, columns, depth + 1)], "sep": "-"},
        "split": {"method": "split", "input": inner, "sep": "-", "index": rng.randint(0, 1)},
        "cast": {"method": "cast", "input": inner, "type": rng.choice(["INTEGER", "VARCHAR(20)", "DATE"])},
        "constant": {"method": "constant", "value": rng.choice([0, "x", None])},
        "upper": {"method": "upper", "input": inner},
        "expression": {"method": "expression", "sql": rng.choice([f"{name} + 1", "nope(", f"upper({name})"])},
        "substring": {"method": "substring", "input": inner, "start": 1, "length": 2},
        "system": {"method": "system", "name": rng.choice(["site", "commit_ts", "txn", "op"])},
    }[kind]


def random_edit(rng: random.Random, model: Model) -> Edit | None:
    kind = rng.choice(["table", "table", "mapping", "mapping", "mapping", "server", "conflicts", "settings",
                       "add_mapping", "remove_mapping", "rename_mapping"])
    if kind == "settings":
        name = rng.choice(["protected", "float_transfer"])
        value = (not model.protected) if name == "protected" else rng.choice([None, "ieee", "canonical"])
        return set_setting(model, name, value)
    if kind == "server":
        s = rng.choice(model.servers)
        change = rng.choice([{"dbms": rng.choice(DBMS)}, {"priority": rng.choice([None, 5, 40])},
                             {"float_format": rng.choice([None, "ieee", "ibm-hex"])}])
        return replace(model, "server", s, evolve(s, **change))
    if kind == "table":
        return _table_edit(rng, model)
    if kind == "conflicts":
        return _conflicts_edit(rng, model)
    tables = [t.key for t in model.tables]
    if kind == "add_mapping":
        src, tgt = rng.choice(model.tables), rng.choice(model.tables)
        cols = {c.name: random_method(rng, src.column_names()) for c in tgt.columns if rng.random() < 0.7}
        new = Model.model_fields["mappings"].annotation.__args__[0].model_validate(  # type: ignore[union-attr]
            {"id": f"m{rng.randint(0, 10**6)}", "source": src.key, "target": tgt.key, "columns": cols,
             "reverse": rng.choice([None] + [m.id for m in model.mappings])})
        return None if model.mapping(new.id) else add(model, new)
    if not model.mappings:
        return None
    m = rng.choice(model.mappings)
    if kind == "remove_mapping":
        return replace(model, "mapping", m, None)
    if kind == "rename_mapping":
        new_id = f"{m.id}_r{rng.randint(0, 99)}"
        return None if model.mapping(new_id) else replace(model, "mapping", m, evolve(m, id=new_id))
    src = model.table(m.source)
    src_cols = src.column_names() if src else []
    tgt = model.table(m.target)
    tgt_cols = (tgt.column_names() if tgt else []) or ["X"]
    choice = rng.randrange(8)
    if choice == 0:
        columns = {k: v.model_dump(mode="json") for k, v in m.columns.items()}
        columns[rng.choice(tgt_cols)] = random_method(rng, src_cols)
        change: dict[str, Any] = {"columns": columns}
    elif choice == 1 and m.columns:
        columns = {k: v.model_dump(mode="json") for k, v in m.columns.items()}
        columns.pop(rng.choice(list(columns)))
        change = {"columns": columns}
    elif choice == 2:
        change = {"distribution_key": rng.choice([None, rng.sample(tgt_cols + ["NOPE"], k=1),
                                                  rng.sample(tgt_cols, k=min(2, len(tgt_cols)))])}
    elif choice == 3:
        change = {"journal": not m.journal}
    elif choice == 4:
        change = {"reverse": rng.choice([None, "nope"] + [x.id for x in model.mappings])}
    elif choice == 5:
        change = {rng.choice(["source", "target"]): rng.choice(tables + ["zz.NOPE"])}
    elif choice == 6:
        pick = rng.choice(src_cols) if src_cols else "X"
        change = {"where": rng.choice([None, f"{pick} IS NOT NULL", "NOPE = 1", "a = = b"])}
    else:
        change = {"changed_columns_only": not m.changed_columns_only}
    return replace(model, "mapping", m, evolve(m, **change))


def random_edits(rng: random.Random, model: Model) -> list[Edit]:
    """One random change: an authoring edit (several engine edits) a third of the time, else one edit."""
    if rng.random() < 0.35 or not model.tables or not model.servers:  # the others need a table and a server
        try:
            return authoring_edit(rng, model)
        except au.AuthoringError:
            return []
    if rng.random() < 0.2:
        return operations_edit(rng, model)
    edit = random_edit(rng, model)
    return [] if edit is None else [edit]


def authoring_edit(rng: random.Random, model: Model) -> list[Edit]:
    """A random engine.authoring change (an AuthoringError when the random choice cannot be made)."""
    n = rng.randint(0, 999)
    servers = [s.id for s in model.servers]
    tables = [t.key for t in model.tables]
    kind = rng.choice(["add_server", "rename_server", "remove_server", "edit_server", "add_table", "rename_table",
                       "replicate_table", "add_column", "rename_column", "move_column", "remove_column",
                       "set_column", "set_keys", "new_mapping", "auto_map", "rename_mapping", "remove_mapping",
                       "add_reverse", "set_where", "move_input"])
    if kind == "add_server":
        return au.add_server(model, f"s{n}", rng.choice(DBMS), rng.choice([None, 10]))
    if kind == "add_table" and servers:
        return au.add_table(model, rng.choice(servers), f"T{n}",
                            [{"name": "ID", "type": "INTEGER", "nullable": False}], ["ID"])
    if kind in ("rename_server", "remove_server", "edit_server") and servers:
        sid = rng.choice(servers)
        if kind == "rename_server":
            return au.rename_server(model, sid, f"{sid}_{n}")
        if kind == "edit_server":
            return au.edit_server(model, sid, dbms=rng.choice(DBMS), priority=rng.choice([None, 7]))
        return au.remove_server(model, sid) if rng.random() < 0.3 else []
    if not tables:
        return []
    t = model.table(rng.choice(tables))
    assert t is not None
    names = t.column_names()
    col = rng.choice(names) if names else "NOPE"
    if kind == "rename_table":
        return au.rename_table(model, t.key, f"{t.name}_{n}")
    if kind == "replicate_table":
        return au.replicate_table(model, t.key, rng.choice(servers), rng.choice([None, f"R{n}"]))
    if kind == "add_column":
        return au.add_column(model, t.key, f"A{n}", rng.choice(TYPES), rng.random() < 0.5,
                             position=rng.randint(0, len(names)))
    if kind == "rename_column":
        return au.rename_column(model, t.key, col, rng.choice([f"{col}_{n}", col.lower()]))
    if kind == "move_column":
        return au.move_column(model, t.key, col, rng.choice([-1, 1]))
    if kind == "remove_column":
        return au.remove_column(model, t.key, col)
    if kind == "set_column":
        return au.set_column(model, t.key, col, type=rng.choice(TYPES), nullable=rng.random() < 0.5)
    if kind == "set_keys":
        return au.set_keys(model, t.key, rng.sample(names, k=min(1, len(names))),
                           [{"name": "UX_A", "columns": rng.sample(names + ["NOPE"], k=1)}])
    if kind == "new_mapping":
        return au.new_mapping(model, rng.choice(tables), t.key, rng.choice([None, f"nm{n}"]))
    if not model.mappings:
        return []
    m = rng.choice(model.mappings)
    if kind == "auto_map":
        return au.auto_map(model, m.id)
    if kind == "rename_mapping":
        return au.rename_mapping(model, m.id, f"{m.id}_{n}")
    if kind == "remove_mapping":
        return au.remove_mapping(model, m.id)
    if kind == "add_reverse":
        backs = [x.id for x in model.mappings if (x.source, x.target) == (m.target, m.source)]
        return au.add_reverse(model, m.id, rng.choice([None, *backs]))
    if kind == "set_where":
        return au.set_where(model, m.id, rng.choice([None, f"{col} IS NOT NULL", "a = = b"]))
    if kind == "move_input":
        concat = next((c for c, v in m.columns.items() if v.method == "concat"), None)
        return au.move_method_input(model, m.id, concat, (), 0, 1) if concat else []
    return []


def operations_edit(rng: random.Random, model: Model) -> list[Edit]:
    """A random designer gesture (engine.authoring): a method inserted, re-parameterised or fed a column, a
    column map set or cleared, a link drawn, a DKey column toggled, a table deleted or moved."""
    t = rng.choice(model.tables)
    kind = rng.choice(["insert", "fields", "input", "set", "connect", "dkey", "delete", "move"])
    if kind == "delete":
        return au.delete_table(model, t.key) if rng.random() < 0.3 else []
    if kind == "move":
        return au.move_table(model, t.key, rng.uniform(-50, 500), rng.uniform(-50, 500))
    if kind == "connect":
        other = rng.choice(model.tables)
        if not t.columns or not other.columns:
            return []
        return au.connect_columns(model, t.key, rng.choice(t.column_names()), other.key,
                                   rng.choice(other.column_names()))
    if not model.mappings:
        return []
    m = rng.choice(model.mappings)
    target = model.table(m.target)
    column = rng.choice(([*m.columns] or ["X"]) + (target.column_names() if target else []))
    src = model.table(m.source)
    names = src.column_names() if src else []
    if kind == "insert":
        return au.insert_method(model, m.id, column, rng.choice(["concat", "split", "cast", "substring",
                                                                   "constant", "expression", "upper"]))
    if kind == "fields":
        fields = rng.choice([{"sep": rng.choice(["-", "|", "::"])}, {"index": rng.randint(0, 2)},
                             {"type": rng.choice(["INTEGER", "VARCHAR(10)", "DATE"])}, {"value": "k"}])
        try:
            return au.set_method_fields(model, m.id, column, (), **fields)
        except ValueError:  # a field the method does not take: refused, as the inspector shows it
            return []
    if kind == "input":
        return au.add_method_input(model, m.id, column, (), rng.choice(names or ["NOPE"]))
    if kind == "dkey":
        return au.toggle_dkey(model, m.id, column)
    return au.set_method(model, m.id, column, rng.choice([None, random_method(rng, names)]))


def _table_edit(rng: random.Random, model: Model) -> Edit:
    t = rng.choice(model.tables)
    names = t.column_names() or ["X"]
    choice = rng.randrange(9)
    if choice == 8:
        return replace(model, "table", t, evolve(t, **schema_feature_change(rng, model, t)))
    if choice == 0 and t.columns:
        i = rng.randrange(len(t.columns))
        columns = [c.model_dump() for c in t.columns]
        columns[i]["nullable"] = not columns[i]["nullable"]
        change: dict[str, Any] = {"columns": columns}
    elif choice == 1 and t.columns:
        i = rng.randrange(len(t.columns))
        columns = [c.model_dump() for c in t.columns]
        columns[i]["type"] = rng.choice(TYPES)
        columns[i]["storage"] = rng.choice([None, "blobspace"])
        change = {"columns": columns}
    elif choice == 2:
        extra = f"C{rng.randint(0, 999)}"
        columns = [c.model_dump() for c in t.columns]
        if extra not in names:
            columns.append({"name": extra, "type": rng.choice(TYPES), "nullable": rng.random() < 0.5})
        change = {"columns": columns}
    elif choice == 3 and t.columns:
        columns = [c.model_dump() for c in t.columns]
        columns.pop(rng.randrange(len(columns)))
        change = {"columns": columns}
    elif choice == 4:
        change = {"primary_key": rng.sample(names, k=min(len(names), rng.randint(0, 2)))}
    elif choice == 5:
        change = {"unique_indexes": [] if rng.random() < 0.3 else
                  [{"name": "UX_R", "columns": rng.sample(names + ["NOPE"], k=1)}]}
    elif choice == 6:
        siblings = [x.name for x in model.tables if x.server == t.server]
        change = {"parent": rng.choice([None, "NOPE"] + siblings)}
    else:
        defs = [{"version": 1, "columns": [{"name": n} for n in names[:-1]]},
                {"version": rng.choice([1, 2]), "columns": [{"name": n} for n in names]}]
        change = {"replication_definitions": rng.choice([None, defs[:1], defs])}
    return replace(model, "table", t, evolve(t, **change))


def _conflicts_edit(rng: random.Random, model: Model) -> Edit:
    t = rng.choice(model.tables)
    entry = model.conflicts_for(t.key)
    names = t.column_names() + ["NOPE"]
    if entry is not None and rng.random() < 0.2:
        return replace(model, "conflicts", entry, None)
    groups = []
    for g in range(rng.randint(0, 3)):
        cols = rng.sample(names, k=min(len(names), rng.randint(1, 3)))
        chain = [{"method": rng.choice(RESOLUTIONS), "column": rng.choice([None] + cols),
                  "priorities": rng.choice([None, {"a": 1, "b": 2}])} for _ in range(rng.randint(0, 3))]
        groups.append({"name": f"g{g}", "columns": cols, "resolution": chain})
    data = {"table": t.key if rng.random() < 0.9 else "zz.NOPE", "column_groups": groups,
            "unique": [{"index": ux.name, "resolution": rng.choice(["append_site_name", "discard"])}
                       for ux in t.unique_indexes[:1]],
            "compare_old": {rng.choice(names): False}}
    new = type(model.conflicts[0] if model.conflicts else None).model_validate(data) \
        if model.conflicts else _conflicts_cls().model_validate(data)
    if model.conflicts_for(new.table) is not None and model.conflicts_for(new.table) is not entry:
        return replace(model, "conflicts", model.conflicts_for(new.table), new)
    return replace(model, "conflicts", entry, new) if entry is not None else add(model, new)


def _conflicts_cls() -> Any:
    from engine.model import TableConflicts
    return TableConflicts


def _keyed(findings: list[Any]) -> list[Any]:
    return sorted(findings)


@pytest.mark.parametrize("start", range(4))
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=8, deadline=None)
def test_incremental_equals_full_after_each_random_edit(examples: Path, start: int, seed: int) -> None:
    model = _models(examples)[start]
    rng = random.Random(seed)
    validator = Validator(model)
    history: list[tuple[Edit, list[Any]]] = []
    for _ in range(40):
        for edit in random_edits(rng, model):
            before = _keyed(validator.findings())
            validator.apply(edit)
            assert _keyed(validator.findings()) == _keyed(validate(model)), f"after {edit.kind} {edit.key}"
            history.append((edit, before))
    for edit, before in reversed(history):
        validator.apply(edit.inverted())
        assert _keyed(validator.findings()) == before, f"undo of {edit.kind} {edit.key}"


@pytest.mark.parametrize("start", range(4))
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=8, deadline=None)
def test_a_batch_of_edits_validates_as_a_full_validation(examples: Path, start: int, seed: int) -> None:
    """`apply_all` (one undo step of the designer: a server renamed with its tables, a selection deleted)
    applies several random changes, each of one or more edits, and checks their scopes once: its findings
    equal a full validation's, and applying the inverses as one batch brings the findings back exactly."""
    model = _models(examples)[start]
    rng = random.Random(seed)
    validator = Validator(model)
    history: list[tuple[list[Edit], list[Any]]] = []
    for _ in range(10):
        batch = chain(model, *[lambda m: random_edits(rng, m) for _ in range(rng.randint(1, 6))])
        before = _keyed(validator.findings())
        validator.apply_all(batch)
        assert _keyed(validator.findings()) == _keyed(validate(model)), [f"{e.kind} {e.key}" for e in batch]
        history.append((batch, before))
    for batch, before in reversed(history):
        validator.apply_all([edit.inverted() for edit in reversed(batch)])
        assert _keyed(validator.findings()) == before, [f"undo of {e.kind} {e.key}" for e in batch]


def test_a_batch_checks_each_scope_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server renamed with its tables is many edits touching the same mappings: each scope is checked once
    for the whole batch, and the findings are a full validation's."""
    model = load_model(SAMPLE_MODEL)
    validator = Validator(model)
    server = max(model.servers, key=lambda s: sum(t.server == s.id for t in model.tables))
    edits = au.rename_server(model, server.id, f"{server.id}_renamed")
    assert len(edits) > 2
    checked: list[Any] = []
    original = Validator._check
    monkeypatch.setattr(Validator, "_check", lambda self, scope: (checked.append(scope), original(self, scope)))
    scopes = validator.apply_all(edits)
    assert sorted(checked) == sorted({s for s in scopes if validator._exists(s)})
    assert _keyed(validator.findings()) == _keyed(validate(model))
    assert validator.apply_all([]) == set()


def test_undo_restores_an_equal_model(examples: Path) -> None:
    model = load_model(SAMPLE_MODEL)
    original = model.model_copy(deep=True)
    rng = random.Random(7)
    validator = Validator(model)
    done = []
    for _ in range(60):
        for edit in random_edits(rng, model):
            validator.apply(edit)
            done.append(edit)
    assert model != original
    for edit in reversed(done):
        validator.apply(edit.inverted())
    assert model == original
    assert dump_model(model) == dump_model(original)  # byte for byte: the file saved after undo is the same


def test_an_edit_rechecks_only_what_it_touches() -> None:
    model = load_model(SAMPLE_MODEL)
    validator = Validator(model)
    total = len(model.mappings) + len(model.tables) + len(model.conflicts) + 1
    mapping = model.mappings[0]
    scopes = validator.apply(replace(model, "mapping", mapping, evolve(mapping, journal=not mapping.journal)))
    assert ("mapping", mapping.id) in scopes
    assert len(scopes) < total / 2


def test_masters_follow_a_mapping_leaving_and_entering_mp002() -> None:
    """A mapping whose target is unknown (MP002) makes no master (CR006, TY003 on y.T); adding the
    missing table, or retargeting the mapping, makes it one, and the incremental findings follow."""
    cols = [{"name": "ID", "type": "SERIAL", "nullable": False}, {"name": "A", "type": "INTEGER"}]
    model = Model.model_validate({
        "format": "mapwright/1", "name": "masters",
        "servers": [{"id": "x", "dbms": "postgresql"}, {"id": "y", "dbms": "postgresql"}],
        "tables": [{"server": s, "name": "T", "columns": cols, "primary_key": ["ID"]} for s in ("x", "y")],
        "mappings": [{"id": "ok", "source": "x.T", "target": "y.T", "columns": {"ID": "ID", "A": "A"}},
                     {"id": "bad", "source": "y.T", "target": "y.NOPE", "columns": {"ID": "ID"}}],
        "conflicts": [{"table": "y.T", "column_groups": [
            {"name": "g", "columns": ["A"], "resolution": [{"method": "overwrite"}]}]}]})
    validator = Validator(model)

    def codes() -> set[str]:
        found = validator.findings()
        assert _keyed(found) == _keyed(validate(model))
        return {f.code for f in found}

    assert codes() == {"MP002"}
    table = model.table("y.T")
    assert table is not None
    new_table = add(model, evolve(table, name="NOPE"))
    validator.apply(new_table)
    assert {"CR006", "TY003"} <= codes() and "MP002" not in codes()
    validator.apply(new_table.inverted())
    assert codes() == {"MP002"}
    bad = model.mapping("bad")
    retarget = replace(model, "mapping", bad, evolve(bad, target="x.T"))
    validator.apply(retarget)
    assert {"CR006", "TY003"} <= codes()
    validator.apply(retarget.inverted())
    assert codes() == {"MP002"}
