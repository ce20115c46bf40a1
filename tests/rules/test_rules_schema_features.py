"""Rules on the database features of issue 36: foreign keys (TB006, FK001), indexes (TB001, TB005),
partitioning, generated, identity and enumerated columns, checks (TB007, PT001), generated targets (MP007).

`CASES` (a firing model and its near miss per code) are run here and by `test_code_catalog.py`; the last
test holds incremental validation equal to a full one over edits of these features.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from builders import fk, partitioned, schema_feature_change
from rulekit import Case, assert_fires, assert_silent, case_params, col, fired, mapping, model, server, table

from engine.edits import Edit, add, evolve, replace
from engine.model import Model
from engine.model.schema import Mapping, Table
from engine.rules import Validator, validate

ID = col("ID", nullable=False)
NAME = col("NAME", "VARCHAR(40)")
PID = col("PID")
GEN = {"expression": "ID * 2"}


def one_server(tables: list[dict[str, Any]], dbms: str = "postgresql") -> Model:
    return model([server("s", dbms)], tables)


def parent(server_id: str = "s", name: str = "P", **extra: Any) -> dict[str, Any]:
    return table(server_id, name, [ID, NAME], pk=["ID"], **extra)


def child(keys: list[dict[str, Any]], server_id: str = "s", name: str = "C", **extra: Any) -> dict[str, Any]:
    return table(server_id, name, [ID, PID, NAME], pk=["ID"], foreign_keys=keys, **extra)


def fks(keys: list[dict[str, Any]], with_parent: bool = True, dbms: str = "postgresql", **parent_extra: Any) -> Model:
    """s.C with foreign keys `keys`, beside s.P(ID pk, NAME) unless `with_parent` is false."""
    return one_server([child(keys), *([parent(**parent_extra)] if with_parent else [])], dbms)


def columns(cols: list[dict[str, Any]], dbms: str = "postgresql", **extra: Any) -> Model:
    """s.T with ID (pk) and `cols`."""
    return one_server([table("s", "T", [ID, *cols], pk=["ID"], **extra)], dbms)


def parts(part: dict[str, Any], pk: list[str] | None = None, dbms: str = "postgresql", **extra: Any) -> Model:
    """s.T(ID, AT INTEGER, NAME) partitioned by `part`, primary key `pk` (ID, AT by default)."""
    return one_server([table("s", "T", [ID, col("AT", nullable=False), NAME], pk=pk or ["ID", "AT"],
                             partitioning=part, **extra)], dbms)


def landing(into_parent: list[tuple[str, str]] = (), child_keys: list[dict[str, Any]] | None = None,  # type: ignore[assignment]
            generated: bool = False, columns_map: dict[str, Any] | None = None) -> Model:
    """Servers s, t, u each with P and C (t.C's foreign key PID -> t.P, unless `child_keys`); mapping `m` s.C -> t.C,
    and one mapping per (id, source) in `into_parent` landing in t.P."""
    keys = [fk(["PID"], "P", name="fk_p")] if child_keys is None else child_keys
    target_cols = [ID, PID, NAME] + ([col("G", nullable=False, generated=GEN)] if generated else [])
    tables = [parent("s"), child([], "s"), parent("u"), parent("t"),
              table("t", "C", target_cols, pk=["ID"], foreign_keys=keys)]
    maps = [mapping("m", "s.C", "t.C", columns_map or {"ID": "ID", "PID": "PID", "NAME": "NAME"})]
    maps += [mapping(id_, src, "t.P", {"ID": "ID", "NAME": "NAME"}) for id_, src in into_parent]
    return model([server("s"), server("t"), server("u")], tables, maps)


def partitioned_source(via_root: bool, dbms: str = "postgresql") -> Model:
    cols = [ID, col("AT", nullable=False)]
    return model([server("s", dbms), server("t")],
                 [table("s", "T", cols, pk=["ID", "AT"], partitioning=partitioned(["AT"], via_root=via_root)),
                  table("t", "T", cols, pk=["ID", "AT"])],
                 [mapping("m", "s.T", "t.T", {"ID": "ID", "AT": "AT"})])


AT_T = {"table": "s.T"}
UX_ID_NAME = [{"name": "ux", "columns": ["ID", "NAME"]}]

CASES = [
    Case("TB001", "index-unknown-column", lambda: columns([NAME], indexes=[{"name": "ix", "columns": ["NOPE"]}]),
         lambda: columns([NAME], indexes=[{"name": "ix", "columns": ["NAME"]}]), {**AT_T, "index": "ix"}),
    Case("TB005", "index-repeats-column",
         lambda: columns([NAME], indexes=[{"name": "ix", "columns": ["NAME", "NAME"]}]),
         lambda: columns([NAME], indexes=[{"name": "ix", "columns": ["NAME", "ID"]}]), {**AT_T, "index": "ix"}),
    Case("TB006", "unknown-parent-table", lambda: fks([fk(["PID"], "P")], with_parent=False),
         lambda: fks([fk(["PID"], "P")]), {"table": "s.C"}),
    Case("TB006", "unknown-own-column", lambda: fks([fk(["NOPE"], "P", name="f")]),
         lambda: fks([fk(["PID"], "P", name="f")]), {"table": "s.C", "column": "NOPE", "index": "f"}),
    Case("TB006", "unknown-referenced-column", lambda: fks([fk(["PID"], "P", ["NOPE"])]),
         lambda: fks([fk(["PID"], "P", ["ID"])]), {"table": "s.C"}),
    Case("TB006", "column-counts-differ", lambda: fks([fk(["PID"], "P", ["ID", "NAME"])], unique_indexes=UX_ID_NAME),
         lambda: fks([fk(["PID", "NAME"], "P", ["ID", "NAME"])], unique_indexes=UX_ID_NAME), {"table": "s.C"}),
    Case("TB006", "references-no-unique-key", lambda: fks([fk(["NAME"], "P", ["NAME"])]),
         lambda: fks([fk(["NAME"], "P", ["NAME"])], unique_indexes=[{"name": "ux", "columns": ["NAME"]}]),
         {"table": "s.C"}),
    Case("TB007", "partition-key-unknown", lambda: parts(partitioned(["NOPE"])), lambda: parts(partitioned(["AT"])),
         {**AT_T, "column": "NOPE"}),
    Case("TB007", "partition-key-not-in-primary-key", lambda: parts(partitioned(["AT"]), pk=["ID"]),
         lambda: parts(partitioned(["AT"]), pk=["AT", "ID"]), {**AT_T, "column": "AT"}),
    Case("TB007", "partition-key-not-in-unique-index",
         lambda: parts(partitioned(["AT"]), unique_indexes=[{"name": "ux", "columns": ["NAME"]}]),
         lambda: parts(partitioned(["AT"]), unique_indexes=[{"name": "ux", "columns": ["NAME", "AT"]}]),
         {**AT_T, "index": "ux"}),
    Case("TB007", "partition-names-repeat", lambda: parts(partitioned(["AT"]) | {"partitions": [
         {"name": "p", "bound": "FOR VALUES FROM (1) TO (2)"}, {"name": "p", "bound": "FOR VALUES FROM (2) TO (3)"}]}),
         lambda: parts(partitioned(["AT"], {"p": "FOR VALUES FROM (1) TO (2)", "q": "FOR VALUES FROM (2) TO (3)"})),
         AT_T),
    Case("TB007", "identity-on-text", lambda: columns([col("N", "VARCHAR(10)", identity={})]),
         lambda: columns([col("N", "BIGINT", identity={})]), {**AT_T, "column": "N"}),
    Case("TB007", "generated-with-default", lambda: columns([col("G", generated=GEN, default=0)]),
         lambda: columns([col("G", generated=GEN)]), {**AT_T, "column": "G"}),
    Case("TB007", "generated-with-identity", lambda: columns([col("G", generated=GEN, identity={})]),
         lambda: columns([col("G", identity={})]), {**AT_T, "column": "G"}),
    Case("TB007", "identity-with-default", lambda: columns([col("N", "BIGINT", identity={}, default=1)]),
         lambda: columns([col("N", "BIGINT", default=1)]), {**AT_T, "column": "N"}),
    Case("TB007", "enum-values-repeat", lambda: columns([col("E", "VARCHAR(8)", enum={"values": ["a", "b", "a"]})]),
         lambda: columns([col("E", "VARCHAR(8)", enum={"values": ["a", "b", "A"]})]), {**AT_T, "column": "E"}),
    Case("TB007", "enum-on-integer", lambda: columns([col("E", "INTEGER", enum={"name": "mood", "values": ["a"]})]),
         lambda: columns([col("E", "TEXT", enum={"name": "mood", "values": ["a"]})]), {**AT_T, "column": "E"}),
    Case("TB007", "index-names-repeat",
         lambda: columns([NAME], unique_indexes=[{"name": "ix", "columns": ["NAME"]}],
                         indexes=[{"name": "ix", "columns": ["NAME"]}]),
         lambda: columns([NAME], unique_indexes=[{"name": "ux", "columns": ["NAME"]}],
                         indexes=[{"name": "ix", "columns": ["NAME"]}]), {**AT_T, "index": "ix"}),
    Case("TB007", "blank-check", lambda: columns([NAME], checks=[{"name": "ck", "sql": "  "}]),
         lambda: columns([NAME], checks=[{"name": "ck", "sql": "ID > 0"}]), AT_T),
    Case("MP007", "writes-generated-column", lambda: landing([("mp", "s.P")], generated=True,
                                                             columns_map={"ID": "ID", "PID": "PID", "G": "ID"}),
         lambda: landing([("mp", "s.P")], generated=True), {"mapping": "m", "column": "G"}),
    Case("FK001", "parent-not-replicated", lambda: landing(), lambda: landing([("mp", "s.P")]),
         {"mapping": "m", "table": "t.C", "index": "fk_p"}),
    Case("FK001", "parent-from-another-server", lambda: landing([("mp", "u.P")]), lambda: landing([("mp", "s.P")]),
         {"mapping": "m"}),
    Case("PT001", "partition-names-published", lambda: partitioned_source(False), lambda: partitioned_source(True),
         {"mapping": "m", "table": "s.T"}),
]


@pytest.mark.parametrize("case", case_params(CASES))
def test_case_fires_and_its_near_miss_is_silent(case: Case) -> None:
    case.check_fires()
    case.check_misses()


def test_tb006_names_the_table_constraint_and_column_on_one_line() -> None:
    found = fired(fks([fk(["NOPE"], "Q", name="fk_q")], with_parent=False), "TB006")
    assert sorted(f.message for f in found) == [
        "foreign key fk_q of s.C names 'NOPE', which the table does not have",
        "foreign key fk_q of s.C references 'Q', which is not a table on server s"]
    counts = fired(fks([fk(["PID", "NAME"], "P", ["ID"])]), "TB006")[0].message
    assert counts == "foreign key (PID, NAME) of s.C has 2 column(s) (PID, NAME) but references 1 (ID)"


def test_tb006_parent_is_on_the_same_server_and_mysql_may_reference_any_columns() -> None:
    elsewhere = model([server("s"), server("t")], [child([fk(["PID"], "P")]), parent("t")])
    assert_fires(elsewhere, "TB006", table="s.C")
    assert_silent(fks([fk(["NAME"], "P", ["NAME"])], dbms="mysql"), "TB006")
    assert_silent(one_server([child([fk(["PID"], "C")])]), "TB006")  # a table may reference itself


def test_tb007_partition_and_identity_rules_follow_the_dbms() -> None:
    assert_silent(parts(partitioned(["AT"]), pk=["ID"], dbms="oracle"), "TB007")  # global indexes
    assert_fires(parts(partitioned(["AT"]), pk=["ID"], dbms="mysql"), "TB007", table="s.T", column="AT")
    assert_fires(columns([col("N", "DECIMAL(10,0)", identity={})]), "TB007", column="N")  # PostgreSQL: integers
    assert_silent(columns([col("N", "NUMBER(10)", identity={})], dbms="oracle"), "TB007")
    assert_fires(columns([col("N", "NUMBER(10,2)", identity={})], dbms="oracle"), "TB007", column="N")


def test_a_generated_not_null_column_left_unmapped_is_not_nl001() -> None:
    m = landing([("mp", "s.P")], generated=True)
    assert_silent(m, "NL001")
    assert_silent(m, "MP007")


def test_fk001_once_per_mapping_and_foreign_key_and_not_within_one_server() -> None:
    two = landing(child_keys=[fk(["PID"], "P", name="a"), fk(["ID"], "P", name="b")])
    assert sorted(f.location.index or "" for f in fired(two, "FK001")) == ["a", "b"]
    within = model([server("s")], [parent("s"), child([]), child([fk(["PID"], "P")], name="D")],
                   [mapping("m", "s.C", "s.D", {"ID": "ID", "PID": "PID"})])
    assert_silent(within, "FK001")
    unknown = landing(child_keys=[fk(["PID"], "NOPE")])
    assert_silent(unknown, "FK001")
    assert_fires(unknown, "TB006", table="t.C")
    self_ref = landing(child_keys=[fk(["PID"], "C")])  # m itself brings the parents from s
    assert_silent(self_ref, "FK001")


def test_pt001_only_for_a_postgresql_source() -> None:
    assert_silent(partitioned_source(False, dbms="mysql"), "PT001")
    found = fired(partitioned_source(False), "PT001")
    assert len(found) == 1 and "(p1)" in found[0].message and found[0].severity.value == "warning"


# --- incremental validation over edits of these features ---------------------------------------------------


def test_incremental_follows_parents_and_the_mappings_into_them() -> None:
    """Each thing TB006 and FK001 read besides the checked table and mapping, changed in turn: the parent's
    key, the mapping into the parent, its source table, the parent itself."""
    m = landing([("mp", "s.P")])
    validator = Validator(m)

    def step(edit: Edit, code: str, fires: bool) -> None:
        validator.apply(edit)
        assert validator.findings() == validate(m), f"after {edit.kind} {edit.key}"
        assert any(f.code == code for f in validator.findings()) is fires, (edit.kind, edit.key, code)

    t_p = m.table("t.P")
    assert t_p is not None and m.table("s.P") is not None
    step(replace(m, "table", t_p, evolve(t_p, primary_key=["NAME"])), "TB006", True)  # PID no longer a key
    step(replace(m, "table", m.table("t.P"), t_p), "TB006", False)
    step(replace(m, "table", m.table("s.P"), None), "FK001", True)  # mp's source goes: nothing from s into t.P
    step(add(m, Table.model_validate(parent("s"))), "FK001", False)
    mp = m.mapping("mp")
    assert mp is not None
    step(replace(m, "mapping", mp, evolve(mp, source="u.P")), "FK001", True)
    step(replace(m, "mapping", m.mapping("mp"), mp), "FK001", False)
    step(replace(m, "mapping", mp, evolve(mp, target="t.C")), "FK001", True)
    step(replace(m, "mapping", m.mapping("mp"), mp), "FK001", False)
    step(replace(m, "table", m.table("t.P"), None), "TB006", True)
    assert not [f for f in validator.findings() if f.code == "FK001"]  # an unknown parent is TB006's alone
    step(add(m, Table.model_validate(parent("t"))), "TB006", False)
    step(replace(m, "mapping", m.mapping("mp"), None), "FK001", True)
    step(replace(m, "table", m.table("t.P"), None), "FK001", False)  # no mapping touches t.P now


def _table_edit(rng: random.Random, m: Model) -> Edit | None:
    t = rng.choice(m.tables)
    pick = rng.randrange(5)
    if pick < 2:
        return replace(m, "table", t, evolve(t, **schema_feature_change(rng, m, t)))
    if pick == 2:
        name = rng.choice(["P", "C", "Q", t.name])
        return None if m.table(f"{t.server}.{name}") not in (None, t) else replace(m, "table", t, evolve(t, name=name))
    if pick == 3:
        return replace(m, "table", t, None) if len(m.tables) > 3 else None
    fresh = Table.model_validate(parent(rng.choice(["s", "t", "u"]), rng.choice(["P", "C", "Q"])))
    return None if m.table(fresh.key) else add(m, fresh)


def _mapping_edit(rng: random.Random, m: Model) -> Edit | None:
    keys = [t.key for t in m.tables] + ["t.GONE"]
    if not m.mappings or rng.random() < 0.3:
        new = Mapping.model_validate(mapping(f"m{rng.randrange(10**6)}", rng.choice(keys), rng.choice(keys),
                                             {"ID": "ID"}))
        return add(m, new)
    mp = rng.choice(m.mappings)
    if rng.random() < 0.2:
        return replace(m, "mapping", mp, None)
    return replace(m, "mapping", mp, evolve(mp, **{rng.choice(["source", "target"]): rng.choice(keys)}))


def _server_edit(rng: random.Random, m: Model) -> Edit:
    s = rng.choice(m.servers)
    return replace(m, "server", s, evolve(s, dbms=rng.choice(["postgresql", "mysql", "oracle"])))


def test_incremental_equals_full_over_schema_feature_edits() -> None:
    """Foreign keys re-pointed, parents added, renamed and removed, mappings into parents retargeted,
    partitioning and generated columns toggled, DBMSs changed: after each, the findings are a full validation's."""
    for seed in range(8):
        rng = random.Random(seed)
        m = landing([("mp", "s.P")] if seed % 2 else [], generated=True)
        validator = Validator(m)
        for step in range(60):
            kind = rng.random()
            edit = _table_edit(rng, m) if kind < 0.55 else _mapping_edit(rng, m) if kind < 0.9 else _server_edit(rng, m)
            if edit is None:
                continue
            validator.apply(edit)
            assert validator.findings() == validate(m), f"seed {seed} step {step}: {edit.kind} {edit.key}"
