"""Conflict-resolution rules CR001-CR010 (docs/contract.md §3, seed 003)."""

from __future__ import annotations

from typing import Any

import pytest
from rulekit import (
    Case,
    assert_fires,
    assert_silent,
    col,
    fired,
    mapping,
    model,
    server,
    show,
    table,
    validate,
)

ACCT = "b.ACCT"
COLS = [
    col("ID", nullable=False),
    col("BALANCE", "DECIMAL(12,2)"),
    col("RATE", "FLOAT"),
    col("NUM", "INTEGER"),
    col("NAME", "VARCHAR(40)"),
    col("CITY", "VARCHAR(40)"),
    col("STATUS", "VARCHAR(10)"),
    col("UPDATED", "TIMESTAMP"),
    col("OPENED", "DATE"),
    col("CODE", "CHAR(8)"),
    col("NICK", "NVARCHAR(20)"),
]
NAMES = [c["name"] for c in COLS]
UNIQUE = {"UX_CODE": ["CODE"], "UX_NUM": ["NUM"], "UX_MIX": ["CODE", "NUM"], "UX_NAMES": ["NAME", "NICK"]}


def step(method: str, column: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"method": method, **({"column": column} if column else {}), **extra}


def group(name: str, columns: list[str], *chain: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "columns": columns, "resolution": list(chain)}


def cr(
    groups: list[dict[str, Any]] = (),  # type: ignore[assignment]
    *,
    unique: list[dict[str, Any]] = (),  # type: ignore[assignment]
    routes: tuple[tuple[str, str], ...] = (("a", "b"),),
    priorities: dict[str, float | None] | None = None,
    carried: dict[str, list[str]] | None = None,
    on: str = ACCT,
    missing: frozenset[str] = frozenset(),
    **entry: Any,
) -> Any:
    """Servers a, b, c (each with a priority unless `priorities` says None), table ACCT on each, one
    mapping per route (`("a", "b")` copies a.ACCT -> b.ACCT, all columns unless `carried` says otherwise),
    and conflict settings on b.ACCT. A table named in `missing` is not made: a route to or from it is MP002."""
    prio = {"a": 10, "b": 20, "c": 30, **(priorities or {})}
    servers = [server(s, priority=p) if p is not None else server(s) for s, p in prio.items()]
    tables = [table(s, "ACCT", COLS, pk=["ID"], unique=UNIQUE) for s in prio]
    maps = []
    for src, dst in routes:
        mid = f"{src}{dst}"
        cols = (carried or {}).get(mid, NAMES)
        src_key = src if "." in src else f"{src}.ACCT"
        dst_key = dst if "." in dst else f"{dst}.ACCT"
        maps.append(mapping(mid, src_key, dst_key, {c: c for c in cols}))
    extra_tables = {m["source"] for m in maps} | {m["target"] for m in maps}
    for key in sorted(extra_tables - {f"{s}.ACCT" for s in prio} - missing):
        s, _, name = key.partition(".")
        tables.append(table(s, name, COLS, pk=["ID"], unique=UNIQUE))
    conflicts = [{"table": on, "column_groups": list(groups), "unique": list(unique), **entry}]
    return model(servers, tables, maps, conflicts)


TWO_MASTERS = (("a", "b"), ("b", "a"))
LATEST = group("addr", ["CITY", "UPDATED"], step("latest_timestamp", "UPDATED"), step("site_priority"))
AT = {"table": ACCT}

CASES = [
    Case(
        "CR001",
        "column-in-two-groups",
        lambda: cr([group("g1", ["NAME", "CITY"]), group("g2", ["CITY", "STATUS"])]),
        lambda: cr([group("g1", ["NAME", "CITY"]), group("g2", ["STATUS"])]),
        {**AT, "group": "g2", "column": "CITY"},
    ),
    Case(
        "CR002",
        "additive-on-two-columns",
        lambda: cr([group("bal", ["BALANCE", "NUM"], step("additive"))]),
        lambda: cr([group("bal", ["BALANCE"], step("additive"))]),
        {**AT, "group": "bal"},
    ),
    Case(
        "CR002",
        "average-on-character",
        lambda: cr([group("g", ["NAME"], step("average"))]),
        lambda: cr([group("g", ["RATE"], step("average"))]),
        {**AT, "group": "g"},
    ),
    Case(
        "CR003",
        "append-on-integer-index",
        lambda: cr(unique=[{"index": "UX_NUM", "resolution": "append_site_name"}]),
        lambda: cr(unique=[{"index": "UX_CODE", "resolution": "append_site_name"}]),
        {**AT, "index": "UX_NUM"},
    ),
    Case(
        "CR003",
        "append-sequence-vs-discard",
        lambda: cr(unique=[{"index": "UX_MIX", "resolution": "append_sequence"}]),
        lambda: cr(unique=[{"index": "UX_MIX", "resolution": "discard"}]),
        {**AT, "index": "UX_MIX"},
    ),
    Case(
        "CR004",
        "timestamp-column-not-datetime",
        lambda: cr([group("g", ["CITY", "NAME"], step("latest_timestamp", "NAME"), step("site_priority"))]),
        lambda: cr(
            [group("g", ["CITY", "UPDATED"], step("latest_timestamp", "UPDATED"), step("site_priority"))]
        ),
        {**AT, "group": "g", "column": "NAME"},
    ),
    Case(
        "CR004",
        "no-designated-column",
        lambda: cr([group("g", ["NUM"], step("maximum"), step("site_priority"))]),
        lambda: cr([group("g", ["NUM"], step("maximum", "NUM"), step("site_priority"))]),
        {**AT, "group": "g"},
    ),
    Case(
        "CR005",
        "latest-timestamp-last",
        lambda: cr([group("g", ["CITY", "UPDATED"], step("latest_timestamp", "UPDATED"))]),
        lambda: cr([LATEST]),
        {**AT, "group": "g"},
    ),
    Case(
        "CR006",
        "overwrite-two-masters",
        lambda: cr([group("g", ["NAME"], step("overwrite"))], routes=TWO_MASTERS),
        lambda: cr([group("g", ["NAME"], step("overwrite"))]),
        {**AT, "group": "g"},
    ),
    Case(
        "CR006",
        "mp002-mapping-is-no-master",
        lambda: cr([group("g", ["NAME"], step("overwrite"))], routes=(("a", "b"), ("b", "b.OTHER"))),
        lambda: cr([group("g", ["NAME"], step("overwrite"))], routes=(("a", "b"), ("b", "b.NOPE")),
                   missing=frozenset({"b.NOPE"})),
        {**AT, "group": "g"},
    ),
    Case(
        "CR006",
        "site-priority-after-latest",
        lambda: cr(
            [
                group(
                    "g",
                    ["CITY", "UPDATED"],
                    step("site_priority"),
                    step("latest_timestamp", "UPDATED"),
                    step("site_priority"),
                )
            ],
            routes=TWO_MASTERS,
        ),
        lambda: cr([LATEST], routes=TWO_MASTERS),
        {**AT, "group": "g"},
    ),
    Case(
        "CR007",
        "target-server-without-priority",
        lambda: cr([group("g", ["NAME"], step("site_priority"))], priorities={"b": None}),
        lambda: cr([group("g", ["NAME"], step("site_priority"))]),
        AT,
    ),
    Case(
        "CR008",
        "subset-with-latest-timestamp",
        lambda: cr(
            [
                group(
                    "g",
                    ["NAME", "CITY", "UPDATED"],
                    step("latest_timestamp", "UPDATED"),
                    step("site_priority"),
                )
            ],
            carried={"ab": ["ID", "NAME", "UPDATED"]},
        ),
        lambda: cr(
            [group("g", ["NAME", "CITY", "UPDATED"], step("discard"), step("site_priority"))],
            carried={"ab": ["ID", "NAME", "UPDATED"]},
        ),
        {**AT, "group": "g", "mapping": "ab"},
    ),
    Case(
        "CR009",
        "child-lacks-conflicts",
        lambda: hierarchy(["PERSON"]),
        lambda: hierarchy(["PERSON", "EMPLOYEE"]),
        {"table": "b.PERSON"},
    ),
    Case(
        "CR010",
        "unknown-group-column",
        lambda: cr([group("g", ["NAME", "NOPE"])]),
        lambda: cr([group("g", ["NAME", "CITY"])]),
        {**AT, "group": "g", "column": "NOPE"},
    ),
    Case(
        "CR010",
        "unknown-index",
        lambda: cr(unique=[{"index": "UX_NOPE", "resolution": "discard"}]),
        lambda: cr(unique=[{"index": "UX_CODE", "resolution": "discard"}]),
        {**AT, "index": "UX_NOPE"},
    ),
]



def test_baseline_settings_are_clean() -> None:
    """The builder's settings with sound groups draw no CR finding at all, even with two masters."""
    m = cr(
        [
            group("bal", ["BALANCE"], step("additive")),
            LATEST,
            group("st", ["STATUS"], step("priority_group", "STATUS", priorities={"new": 1, "done": 2})),
        ],
        unique=[
            {"index": "UX_CODE", "resolution": "append_site_name"},
            {"index": "UX_NUM", "resolution": "discard"},
        ],
        routes=TWO_MASTERS,
        compare_old={"NAME": False},
    )
    found = [f for f in validate(m) if f.code.startswith("CR")]
    assert not found, show(found)


# --- CR001 -------------------------------------------------------------------------------


def test_cr001_once_per_column_on_the_later_group() -> None:
    m = cr([group("g1", ["NAME", "CITY"]), group("g2", ["CITY", "NAME"]), group("g3", ["CITY"])])
    hits = fired(m, "CR001")
    assert {(f.location.group, f.location.column) for f in hits} >= {
        ("g2", "CITY"),
        ("g2", "NAME"),
        ("g3", "CITY"),
    }
    assert not fired(m, "CR001", group="g1")


# --- CR002 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "method", "fires"),
    [
        (["BALANCE"], "additive", False),
        (["NUM"], "additive", False),
        (["RATE"], "average", False),  # approximate numeric is numeric
        (["BALANCE"], "average", False),
        (["BALANCE", "NUM"], "additive", True),
        (["BALANCE", "RATE"], "average", True),
        (["NAME"], "additive", True),
        (["UPDATED"], "average", True),
        ([], "additive", True),
    ],
)
def test_cr002_one_numeric_column(columns: list[str], method: str, fires: bool) -> None:
    m = cr([group("g", columns, step(method))])
    if fires:
        assert_fires(m, "CR002", table=ACCT, group="g")
    else:
        assert_silent(m, "CR002")


@pytest.mark.parametrize("method", ["additive", "average"])
def test_cr002_a_column_listed_twice_is_still_one_column(method: str) -> None:
    """docs/contract.md §3, CR002: "`additive` or `average` on a group that is not exactly one numeric column".
    A group that names BALANCE twice holds one numeric column (seed 003: "column groups consisting of a single
    numeric column"); the repeat is not a second column."""
    assert_silent(cr([group("g", ["BALANCE", "BALANCE"], step(method))]), "CR002")


@pytest.mark.parametrize("method", ["overwrite", "discard", "site_priority"])
def test_cr002_other_methods_take_any_group(method: str) -> None:
    assert_silent(cr([group("g", ["NAME", "CITY"], step(method))]), "CR002")


# --- CR003 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("index", "resolution", "fires"),
    [
        ("UX_CODE", "append_site_name", False),
        ("UX_CODE", "append_sequence", False),
        ("UX_NAMES", "append_sequence", False),  # VARCHAR and NVARCHAR
        ("UX_NUM", "append_site_name", True),
        ("UX_NUM", "append_sequence", True),
        ("UX_MIX", "append_site_name", True),  # one non-character column is enough
        ("UX_NUM", "discard", False),
        ("UX_NUM", "error", False),
    ],
)
def test_cr003(index: str, resolution: str, fires: bool) -> None:
    m = cr(unique=[{"index": index, "resolution": resolution}])
    if fires:
        assert_fires(m, "CR003", table=ACCT, index=index)
    else:
        assert_silent(m, "CR003")


# --- CR004 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chain", "where"),
    [
        ([step("latest_timestamp"), step("site_priority")], {}),
        ([step("earliest_timestamp"), step("site_priority")], {}),
        ([step("minimum"), step("site_priority")], {}),
        ([step("maximum"), step("site_priority")], {}),
        ([step("priority_group", priorities={"a": 1})], {}),
        (
            [step("latest_timestamp", "OPENED"), step("site_priority")],
            {"column": "OPENED"},
        ),  # datetime, not in group
        ([step("maximum", "BALANCE"), step("site_priority")], {"column": "BALANCE"}),  # not in group
        ([step("priority_group", "STATUS", priorities={"a": 1})], {"column": "STATUS"}),  # not in group
        (
            [step("latest_timestamp", "NUM"), step("site_priority")],
            {"column": "NUM"},
        ),  # in group, not datetime
        ([step("earliest_timestamp", "CITY"), step("site_priority")], {"column": "CITY"}),
    ],
)
def test_cr004_fires(chain: list[dict[str, Any]], where: dict[str, str]) -> None:
    m = cr([group("g", ["CITY", "UPDATED", "NUM"], *chain)])
    assert_fires(m, "CR004", table=ACCT, group="g", **where)


@pytest.mark.parametrize(
    "chain",
    [
        [step("latest_timestamp", "UPDATED"), step("site_priority")],
        [step("earliest_timestamp", "UPDATED"), step("site_priority")],
        [step("maximum", "NUM"), step("site_priority")],  # minimum / maximum need no datetime
        [step("minimum", "CITY"), step("site_priority")],
        [step("priority_group", "CITY", priorities={"Bern": 2, "Basel": 1})],
        [step("overwrite")],  # needs no designated column
        [step("site_priority")],
    ],
)
def test_cr004_near_miss(chain: list[dict[str, Any]]) -> None:
    assert_silent(cr([group("g", ["CITY", "UPDATED", "NUM"], *chain)]), "CR004")


def test_cr004_date_column_counts_as_datetime() -> None:
    m = cr([group("g", ["CITY", "OPENED"], step("latest_timestamp", "OPENED"), step("site_priority"))])
    assert_silent(m, "CR004")


# --- CR005 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chain", "fires"),
    [
        ([step("latest_timestamp", "UPDATED")], True),
        ([step("earliest_timestamp", "UPDATED")], True),
        ([step("minimum", "NUM")], True),
        ([step("maximum", "NUM")], True),
        ([step("site_priority"), step("maximum", "NUM")], True),
        ([step("latest_timestamp", "UPDATED"), step("site_priority")], False),
        ([step("maximum", "NUM"), step("discard")], False),
        ([step("minimum", "NUM"), step("latest_timestamp", "UPDATED"), step("overwrite")], False),
        ([step("priority_group", "NUM", priorities={"1": 1})], False),
        ([step("overwrite")], False),
        ([], False),
    ],
)
def test_cr005_backup_for_ties(chain: list[dict[str, Any]], fires: bool) -> None:
    m = cr([group("g", ["UPDATED", "NUM"], *chain)])
    if fires:
        assert_fires(m, "CR005", table=ACCT, group="g")
    else:
        assert_silent(m, "CR005")


# --- CR006 -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["overwrite", "discard", "average", "earliest_timestamp", "site_priority"])
@pytest.mark.parametrize("masters", [1, 2])
def test_cr006_methods_that_do_not_converge(method: str, masters: int) -> None:
    chain = [step(method, "UPDATED" if method == "earliest_timestamp" else None)]
    if method == "earliest_timestamp":
        chain.append(step("maximum", "UPDATED"))  # a backup that converges, so only `method` can be reported
    columns = ["BALANCE"] if method == "average" else ["UPDATED"]
    m = cr([group("g", columns, *chain)], routes=TWO_MASTERS if masters == 2 else (("a", "b"),))
    if masters == 2:
        assert_fires(m, "CR006", table=ACCT, group="g")
    else:
        assert_silent(m, "CR006")


@pytest.mark.parametrize(
    "chain",
    [
        [step("latest_timestamp", "UPDATED"), step("site_priority")],
        [step("latest_timestamp", "UPDATED"), step("overwrite")],
        [step("latest_timestamp", "UPDATED"), step("discard")],
        [step("latest_timestamp", "UPDATED"), step("earliest_timestamp", "UPDATED"), step("site_priority")],
        [step("maximum", "NUM"), step("latest_timestamp", "UPDATED"), step("site_priority")],
        [step("minimum", "NUM"), step("maximum", "NUM")],
        [step("priority_group", "NUM", priorities={"1": 1, "2": 2})],
    ],
)
def test_cr006_convergent_chains(chain: list[dict[str, Any]]) -> None:
    assert_silent(cr([group("g", ["UPDATED", "NUM"], *chain)], routes=TWO_MASTERS), "CR006")


@pytest.mark.parametrize(
    "chain",
    [
        [step("site_priority"), step("latest_timestamp", "UPDATED"), step("discard")],
        [step("overwrite"), step("latest_timestamp", "UPDATED")],
        [step("earliest_timestamp", "UPDATED"), step("latest_timestamp", "UPDATED"), step("site_priority")],
        [step("maximum", "NUM"), step("site_priority")],  # maximum is not latest_timestamp
    ],
)
def test_cr006_only_after_latest_timestamp_is_excused(chain: list[dict[str, Any]]) -> None:
    assert_fires(
        cr([group("g", ["UPDATED", "NUM"], *chain)], routes=TWO_MASTERS), "CR006", table=ACCT, group="g"
    )


def test_cr006_additive_converges() -> None:
    assert_silent(cr([group("g", ["BALANCE"], step("additive"))], routes=TWO_MASTERS), "CR006")


@pytest.mark.parametrize(
    ("routes", "masters"),
    [
        ((("a", "b"),), 1),  # one mapping in, none out
        ((("a", "b"), ("b", "a")), 2),  # b is read from: its own server counts
        ((("a", "b"), ("c", "b")), 2),  # two source servers
        ((("a", "b"), ("a.OTHER", "b")), 1),  # two mappings, one source server
        ((("a", "b"), ("b", "c")), 2),  # b read by a mapping to a third server
        ((("a", "b"), ("a", "c")), 1),  # a's other mapping does not read b
        ((("b", "c"),), 1),  # nothing lands in b: only its own server
        ((("b.OTHER", "b"), ("b", "c")), 1),  # the mapping into b comes from b itself
        ((("a", "b"), ("c", "b"), ("b", "a")), 3),
        ((("a", "b"), ("b", "b.NOPE")), 1),  # MP002: a mapping to an unknown table makes b no master
        ((("a", "b"), ("b", "z.NOPE")), 1),  # ... nor one to an unknown server
        ((("a", "b"), ("z.NOPE", "b")), 1),  # a mapping from an unknown server writes nothing
        ((("a", "b"), ("c.NOPE", "b")), 1),
        ((("a", "b"), ("b", "b.NOPE"), ("b", "c")), 2),  # b is still read by a known mapping
    ],
)
def test_cr006_master_count(routes: tuple[tuple[str, str], ...], masters: int) -> None:
    m = cr([group("g", ["NAME"], step("overwrite"))], routes=routes, missing=frozenset({"b.NOPE", "c.NOPE", "z.NOPE"}))
    if masters > 1:
        hits = assert_fires(m, "CR006", table=ACCT, group="g")
        assert f"{masters} masters" in hits[0].message, hits[0].message
    else:
        assert_silent(m, "CR006")


# --- CR007 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("priorities", "routes", "fires"),
    [
        ({}, (("a", "b"),), False),
        ({"b": None}, (("a", "b"),), True),  # the table's own server
        ({"a": None}, (("a", "b"),), True),  # a source server of a mapping into it
        ({"c": None}, (("a", "b"),), False),  # c does not write b.ACCT
        ({"c": None}, (("a", "b"), ("b", "c")), False),  # c only reads it
        ({"c": None}, (("a", "b"), ("c", "b")), True),
        ({"a": None}, (("b", "c"),), False),
    ],
)
def test_cr007_writers_need_a_priority(priorities: dict[str, Any], routes: Any, fires: bool) -> None:
    m = cr([group("g", ["NAME"], step("site_priority"))], priorities=priorities, routes=routes)
    if fires:
        assert_fires(m, "CR007", table=ACCT)
    else:
        assert_silent(m, "CR007")


def test_cr007_only_when_site_priority_is_used() -> None:
    m = cr([group("g", ["NAME"], step("overwrite"))], priorities={"a": None, "b": None})
    assert_silent(m, "CR007")


def test_cr007_zero_is_a_priority() -> None:
    m = cr([group("g", ["NAME"], step("site_priority"))], priorities={"a": 0, "b": 0})
    assert_silent(m, "CR007")


def test_cr007_names_each_server_without_priority() -> None:
    m = cr([group("g", ["NAME"], step("site_priority"))], priorities={"a": None, "b": None})
    messages = " ".join(f.message for f in fired(m, "CR007"))
    assert " a" in messages and " b" in messages, messages


# --- CR008 -------------------------------------------------------------------------------

G3 = ["NAME", "CITY", "UPDATED"]


@pytest.mark.parametrize(
    ("chain", "carried", "fires"),
    [
        ([step("latest_timestamp", "UPDATED"), step("site_priority")], ["ID", "NAME", "UPDATED"], True),
        ([step("overwrite")], ["ID", "NAME"], True),
        ([step("site_priority"), step("overwrite")], ["ID", "CITY"], True),
        ([step("discard")], ["ID", "NAME"], False),
        ([step("site_priority")], ["ID", "NAME"], False),
        ([step("discard"), step("site_priority")], ["ID", "NAME", "CITY"], False),
        ([step("overwrite")], ["ID", *G3], False),  # carries the whole group
        ([step("overwrite")], ["ID", "STATUS"], False),  # carries none of it
        ([], ["ID", "NAME"], False),  # no chain
    ],
)
def test_cr008_column_subsetting(chain: list[dict[str, Any]], carried: list[str], fires: bool) -> None:
    m = cr([group("g", G3, *chain)], carried={"ab": carried})
    if fires:
        assert_fires(m, "CR008", table=ACCT, group="g", mapping="ab")
    else:
        assert_silent(m, "CR008")


def test_cr008_names_the_mapping_that_subsets() -> None:
    m = cr(
        [group("g", G3, step("overwrite"))],
        routes=(("a", "b"), ("c", "b")),
        carried={"ab": ["ID", *G3], "cb": ["ID", "NAME"]},
    )
    assert [f.location.mapping for f in fired(m, "CR008")] == ["cb"]


def test_cr008_only_mappings_into_the_table() -> None:
    """A mapping out of b.ACCT that subsets the group is not about conflicts at b."""
    m = cr(
        [group("g", G3, step("overwrite"))], routes=(("a", "b"), ("b", "c")), carried={"bc": ["ID", "NAME"]}
    )
    assert_silent(m, "CR008")


# --- CR009 -------------------------------------------------------------------------------


def hierarchy(with_conflicts: list[str], *, grandchild: bool = False) -> Any:
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    tables = [
        table("b", "PERSON", cols, pk=["ID"]),
        table("b", "EMPLOYEE", cols, pk=["ID"], parent="PERSON"),
        table("b", "OTHER", cols, pk=["ID"]),
    ]
    if grandchild:
        tables.append(table("b", "MANAGER", cols, pk=["ID"], parent="EMPLOYEE"))
    conflicts = [
        {"table": f"b.{name}", "column_groups": [group("g", ["NAME"], step("site_priority"))]}
        for name in with_conflicts
    ]
    return model([server("b", priority=1)], tables, [], conflicts)


@pytest.mark.parametrize(
    ("with_conflicts", "grandchild", "fires"),
    [
        (["PERSON"], False, True),
        (["EMPLOYEE"], False, True),
        (["PERSON", "EMPLOYEE"], False, False),
        ([], False, False),
        (["OTHER"], False, False),  # not in the hierarchy
        (["PERSON", "EMPLOYEE"], True, True),  # the grandchild lacks it
        (["MANAGER"], True, True),
        (["PERSON", "EMPLOYEE", "MANAGER"], True, False),
    ],
)
def test_cr009_uniform_across_hierarchy(with_conflicts: list[str], grandchild: bool, fires: bool) -> None:
    m = hierarchy(with_conflicts, grandchild=grandchild)
    if fires:
        hits = assert_fires(m, "CR009", table="b.PERSON")
        assert len(hits) == 1
    else:
        assert_silent(m, "CR009")


# --- CR010 and what the other rules ignore ---------------------------------------------------


def test_cr010_unknown_table() -> None:
    m = cr([group("g", ["NAME"], step("site_priority"))], on="b.NOPE")
    assert_fires(m, "CR010", table="b.NOPE")


def test_cr010_unknown_table_on_unknown_server() -> None:
    m = cr([group("g", ["NAME"], step("overwrite"))], on="zz.ACCT")
    assert_fires(m, "CR010", table="zz.ACCT")


@pytest.mark.parametrize(
    ("settings", "where"),
    [
        ({"groups": [group("g", ["NAME", "NOPE"])]}, {"group": "g", "column": "NOPE"}),
        (
            {"groups": [group("g", ["UPDATED"], step("latest_timestamp", "NOPE"), step("site_priority"))]},
            {"group": "g", "column": "NOPE"},
        ),
        ({"compare_old": {"NOPE": False}}, {"column": "NOPE"}),
        ({"unique": [{"index": "UX_NOPE", "resolution": "append_site_name"}]}, {"index": "UX_NOPE"}),
    ],
)
def test_cr010_unknown_names(settings: dict[str, Any], where: dict[str, str]) -> None:
    m = cr(
        settings.get("groups", []),
        unique=settings.get("unique", []),
        **({"compare_old": settings["compare_old"]} if "compare_old" in settings else {}),
    )
    assert_fires(m, "CR010", table=ACCT, **where)


def test_cr010_near_miss_compare_old() -> None:
    assert_silent(cr(compare_old={"NAME": False, "CITY": True}), "CR010")


@pytest.mark.parametrize(
    ("groups", "unique", "silent", "routes", "carried"),
    [
        ([group("g1", ["NAME", "NOPE"]), group("g2", ["NOPE"])], [], "CR001", TWO_MASTERS[:1], None),
        ([group("g", ["BALANCE", "NOPE"], step("additive"))], [], "CR002", TWO_MASTERS[:1], None),
        ([], [{"index": "UX_NOPE", "resolution": "append_site_name"}], "CR003", TWO_MASTERS[:1], None),
        (
            [group("g", ["UPDATED"], step("latest_timestamp", "NOPE"), step("site_priority"))],
            [],
            "CR004",
            TWO_MASTERS[:1],
            None,
        ),
        (
            [group("g", ["NAME", "NOPE"], step("overwrite"))],
            [],
            "CR008",
            TWO_MASTERS[:1],
            {"ab": ["ID", "NAME"]},
        ),
    ],
)
def test_cr010_names_are_ignored_by_other_rules(
    groups: list[dict[str, Any]], unique: list[dict[str, Any]], silent: str, routes: Any, carried: Any
) -> None:
    m = cr(groups, unique=unique, routes=routes, carried=carried)
    assert_fires(m, "CR010", table=ACCT)
    assert_silent(m, silent)


def test_cr010_one_finding_per_unknown_name() -> None:
    m = cr([group("g", ["NAME", "NOPE"], step("maximum", "NOPE"), step("site_priority"))])
    hits = fired(m, "CR010")
    assert len(hits) == 2, show(hits)  # once as a group column, once as the designated column
    assert_silent(m, "CR004")


def test_cr_rules_still_apply_to_the_known_part() -> None:
    """An unknown column does not hide a real problem with the known ones."""
    m = cr([group("g1", ["NAME", "NOPE"]), group("g2", ["NAME"], step("additive"))])
    assert_fires(m, "CR001", group="g2", column="NAME")
    assert_fires(m, "CR002", group="g2")
