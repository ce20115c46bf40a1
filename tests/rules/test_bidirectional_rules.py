"""Bidirectional rules BI001 and BI002: the reverse mapping, and whether the key survives a round trip
by the inverse pairs of docs/contract.md §1."""

from __future__ import annotations

from typing import Any

import pytest
from rulekit import (
    SRC,
    TGT,
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

PAIR = frozenset({"m", "back"})


def split(input_: Any, sep: str, index: int) -> dict[str, Any]:
    return {"method": "split", "input": input_, "sep": sep, "index": index}


def concat(*inputs: Any, sep: str = "-") -> dict[str, Any]:
    return {"method": "concat", "inputs": list(inputs), "sep": sep}


def cast(input_: Any, type_: str) -> dict[str, Any]:
    return {"method": "cast", "input": input_, "type": type_}


def bidi(
    src_cols: list[dict[str, Any]],
    src_pk: list[str],
    tgt_cols: list[dict[str, Any]],
    tgt_pk: list[str],
    forward: dict[str, Any],
    back: dict[str, Any],
    *,
    declare: str = "both",
    fwd_extra: dict[str, Any] | None = None,
    back_extra: dict[str, Any] | None = None,
) -> Any:
    """s.T -> t.T by `m` and t.T -> s.T by `back`; `declare` says which of them names the other as reverse."""
    fx, bx = dict(fwd_extra or {}), dict(back_extra or {})
    if declare in ("both", "forward"):
        fx["reverse"] = "back"
    if declare in ("both", "back"):
        bx["reverse"] = "m"
    return model(
        [server("s"), server("t")],
        [table("s", "T", src_cols, pk=src_pk), table("t", "T", tgt_cols, pk=tgt_pk)],
        [mapping("m", SRC, TGT, forward, **fx), mapping("back", TGT, SRC, back, **bx)],
    )


def same(declare: str = "both") -> Any:
    """Plain copy both ways: reversible."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    return bidi(
        cols,
        ["ID"],
        cols,
        ["ID"],
        {"ID": "ID", "NAME": "NAME"},
        {"ID": "ID", "NAME": "NAME"},
        declare=declare,
    )


def wrong_way(kind: str) -> Any:
    """`m` names a reverse that exists but does not go t.T -> s.T."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    other = {
        "forward-again": ("s.T", "t.T"),
        "other-table": ("t.T", "s.OTHER"),
        "from-other": ("t.OTHER", "s.T"),
        "self": None,
    }[kind]
    maps = [mapping("m", SRC, TGT, {"ID": "ID", "NAME": "NAME"}, reverse="back" if other else "m")]
    if other:
        maps.append(mapping("back", other[0], other[1], {"ID": "ID", "NAME": "NAME"}))
    return model(
        [server("s"), server("t")],
        [
            table("s", "T", cols, pk=["ID"]),
            table("t", "T", cols, pk=["ID"]),
            table("s", "OTHER", cols, pk=["ID"]),
            table("t", "OTHER", cols, pk=["ID"]),
        ],
        maps,
    )


def orphan(reverse: str) -> Any:
    cols = [col("ID", nullable=False)]
    return model(
        [server("s"), server("t")],
        [table("s", "T", cols, pk=["ID"]), table("t", "T", cols, pk=["ID"])],
        [mapping("m", SRC, TGT, {"ID": "ID"}, reverse=reverse)],
    )


# --- round trips: (src cols, src pk, tgt cols, tgt pk, forward, back, reversible) ---

REGION, BRANCH = col("REGION", "CHAR(2)", nullable=False), col("BRANCH", "VARCHAR(8)", nullable=False)
CUST_NO, OPENED = col("CUST_NO", "INTEGER", nullable=False), col("OPENED", "DATE", nullable=False)
CODE = col("CODE", "VARCHAR(10)", nullable=False)
KEY = col("K", "VARCHAR(30)", nullable=False)

ROUND_TRIPS: dict[str, tuple[Any, ...]] = {
    "column-renamed": ([CODE], ["CODE"], [KEY], ["K"], {"K": "CODE"}, {"CODE": "K"}, True),
    "concat-split-same-sep": (
        [REGION, BRANCH],
        ["REGION", "BRANCH"],
        [KEY],
        ["K"],
        {"K": concat("REGION", "BRANCH")},
        {"REGION": split("K", "-", 0), "BRANCH": split("K", "-", 1)},
        True,
    ),
    "concat-split-three-inputs": (
        [REGION, BRANCH, CODE],
        ["REGION", "BRANCH", "CODE"],
        [KEY],
        ["K"],
        {"K": concat("REGION", "BRANCH", "CODE", sep="|")},
        {"REGION": split("K", "|", 0), "BRANCH": split("K", "|", 1), "CODE": split("K", "|", 2)},
        True,
    ),
    "concat-number-split-cast": (
        [REGION, CUST_NO],
        ["REGION", "CUST_NO"],
        [KEY],
        ["K"],
        {"K": concat("REGION", "CUST_NO")},
        {"REGION": split("K", "-", 0), "CUST_NO": cast(split("K", "-", 1), "INTEGER")},
        True,
    ),
    "split-concat-same-sep": (
        [KEY],
        ["K"],
        [REGION, BRANCH],
        ["REGION", "BRANCH"],
        {"REGION": split("K", "-", 0), "BRANCH": split("K", "-", 1)},
        {"K": concat("REGION", "BRANCH")},
        True,
    ),
    "cast-int-to-char": (
        [CUST_NO],
        ["CUST_NO"],
        [KEY],
        ["K"],
        {"K": cast("CUST_NO", "VARCHAR(30)")},
        {"CUST_NO": cast("K", "INTEGER")},
        True,
    ),
    "cast-char-to-decimal": (
        [CODE],
        ["CODE"],
        [col("N", "DECIMAL(10,0)", nullable=False)],
        ["N"],
        {"N": cast("CODE", "DECIMAL(10,0)")},
        {"CODE": cast("N", "VARCHAR(10)")},
        True,
    ),
    "cast-date-to-char": (
        [OPENED],
        ["OPENED"],
        [KEY],
        ["K"],
        {"K": cast("OPENED", "VARCHAR(30)")},
        {"OPENED": cast("K", "DATE")},
        True,
    ),
    "cast-timestamp-to-char-to-date": (  # the time of day is lost: DATE is not TIMESTAMP's opposite
        [col("AT", "TIMESTAMP", nullable=False)],
        ["AT"],
        [KEY],
        ["K"],
        {"K": cast("AT", "VARCHAR(30)")},
        {"AT": cast("K", "DATE")},
        False,
    ),
    "cast-date-to-char-to-timestamp": (  # midnight of the day: a TIMESTAMP holds every DATE
        [OPENED],
        ["OPENED"],
        [KEY],
        ["K"],
        {"K": cast("OPENED", "VARCHAR(30)")},
        {"OPENED": cast("K", "TIMESTAMP")},
        True,
    ),
    "cast-decimal-to-char-to-integer": (  # the fraction is lost
        [col("AMT", "DECIMAL(10,2)", nullable=False)],
        ["AMT"],
        [KEY],
        ["K"],
        {"K": cast("AMT", "VARCHAR(20)")},
        {"AMT": cast("K", "INTEGER")},
        False,
    ),
    "cast-integer-to-char-to-bigint": (
        [CUST_NO],
        ["CUST_NO"],
        [KEY],
        ["K"],
        {"K": cast("CUST_NO", "VARCHAR(30)")},
        {"CUST_NO": cast("K", "BIGINT")},
        True,
    ),
    "cast-char-to-decimal-to-shorter-char": (  # VARCHAR(10) -> DECIMAL -> VARCHAR(5): text cut
        [CODE],
        ["CODE"],
        [col("N", "DECIMAL(10,0)", nullable=False)],
        ["N"],
        {"N": cast("CODE", "DECIMAL(10,0)")},
        {"CODE": cast("N", "VARCHAR(5)")},
        False,
    ),
    "cast-char-to-date": (
        [CODE],
        ["CODE"],
        [OPENED],
        ["OPENED"],
        {"OPENED": cast("CODE", "DATE")},
        {"CODE": cast("OPENED", "VARCHAR(10)")},
        True,
    ),
    # not reversible
    "concat-split-different-sep": (
        [REGION, BRANCH],
        ["REGION", "BRANCH"],
        [KEY],
        ["K"],
        {"K": concat("REGION", "BRANCH", sep="-")},
        {"REGION": split("K", "/", 0), "BRANCH": split("K", "/", 1)},
        False,
    ),
    "concat-without-sep": (
        [REGION, BRANCH],
        ["REGION", "BRANCH"],
        [KEY],
        ["K"],
        {"K": concat("REGION", "BRANCH", sep="")},
        {"REGION": split("K", "-", 0), "BRANCH": split("K", "-", 1)},
        False,
    ),
    "split-indexes-swapped": (
        [REGION, BRANCH],
        ["REGION", "BRANCH"],
        [KEY],
        ["K"],
        {"K": concat("REGION", "BRANCH")},
        {"REGION": split("K", "-", 1), "BRANCH": split("K", "-", 0)},
        False,
    ),
    "cast-float-to-char": (
        [col("R", "FLOAT", nullable=False)],
        ["R"],
        [KEY],
        ["K"],
        {"K": cast("R", "VARCHAR(30)")},
        {"R": cast("K", "FLOAT")},
        False,
    ),
    "cast-char-to-char": (
        [CODE],
        ["CODE"],
        [col("C", "CHAR(10)", nullable=False)],
        ["C"],
        {"C": cast("CODE", "CHAR(10)")},
        {"CODE": cast("C", "VARCHAR(10)")},
        False,
    ),
    "cast-int-to-bigint": (
        [CUST_NO],
        ["CUST_NO"],
        [col("B", "BIGINT", nullable=False)],
        ["B"],
        {"B": cast("CUST_NO", "BIGINT")},
        {"CUST_NO": cast("B", "INTEGER")},
        False,
    ),
    "substring": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": {"method": "substring", "input": "CODE", "start": 1, "length": 10}},
        {"CODE": "K"},
        False,
    ),
    "substring-back": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": "CODE"},
        {"CODE": {"method": "substring", "input": "K", "start": 1}},
        False,
    ),
    "constant-back": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": "CODE"},
        {"CODE": {"method": "constant", "value": "X"}},
        False,
    ),
    "constant-forward": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": {"method": "constant", "value": "X"}},
        {"CODE": "K"},
        False,
    ),
    "upper": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": {"method": "upper", "input": "CODE"}},
        {"CODE": "K"},
        False,
    ),
    "upper-lower": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": {"method": "upper", "input": "CODE"}},
        {"CODE": {"method": "lower", "input": "K"}},
        False,
    ),
    "trim": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": {"method": "trim", "input": "CODE"}},
        {"CODE": "K"},
        False,
    ),
    "expression-identity": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": {"method": "expression", "sql": "CODE"}},
        {"CODE": "K"},
        False,
    ),
    "expression-back": (
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": "CODE"},
        {"CODE": {"method": "expression", "sql": "K"}},
        False,
    ),
    "back-does-not-map-key": (
        [CODE, col("NAME", "VARCHAR(40)")],
        ["CODE"],
        [KEY, col("NAME", "VARCHAR(40)")],
        ["K"],
        {"K": "CODE", "NAME": "NAME"},
        {"NAME": "NAME"},
        False,
    ),
    "split-of-plain-column": (
        [REGION, BRANCH],
        ["REGION", "BRANCH"],
        [REGION, KEY],
        ["REGION", "K"],
        {"REGION": "REGION", "K": "BRANCH"},
        {"REGION": "REGION", "BRANCH": split("K", "-", 0)},
        False,
    ),
}


def round_trip(name: str, declare: str = "both") -> Any:
    src_cols, src_pk, tgt_cols, tgt_pk, fwd, back, _ = ROUND_TRIPS[name]
    return bidi(src_cols, src_pk, tgt_cols, tgt_pk, fwd, back, declare=declare)


def keyless_forward(target_pk: list[str]) -> Any:
    """`m` computes t.T's ID as upper(NAME) and names `back` (a plain copy) as its reverse, which does not:
    back's key s.T.ID does not survive back then m. With `target_pk` [] m has no DKey (DK001)."""
    cols = [col("ID", "VARCHAR(10)", nullable=False), col("NAME", "VARCHAR(10)", nullable=False)]
    return bidi(cols, ["ID"], cols, target_pk, {"NAME": "NAME", "ID": {"method": "upper", "input": "NAME"}},
                {"ID": "ID", "NAME": "NAME"}, declare="forward")


CASES = [
    Case("BI002", "only-when-the-mapping-has-a-key", lambda: keyless_forward(["ID"]), lambda: keyless_forward([]),
         {"mapping": "m", "column": "ID"}),
    Case("BI001", "reverse-names-no-mapping", lambda: orphan("nope"), lambda: same(), {"mapping": "m"}),
    Case(
        "BI001",
        "reverse-goes-forward",
        lambda: wrong_way("forward-again"),
        lambda: same("forward"),
        {"mapping": "m"},
    ),
    Case(
        "BI002",
        "concat-split-different-sep",
        lambda: round_trip("concat-split-different-sep"),
        lambda: round_trip("concat-split-same-sep"),
        {"mapping": PAIR},
    ),
    Case(
        "BI002",
        "cast-float",
        lambda: round_trip("cast-float-to-char"),
        lambda: round_trip("cast-int-to-char"),
        {"mapping": PAIR},
    ),
]



# --- BI001 -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["forward-again", "other-table", "from-other", "self"])
def test_bi001_reverse_that_does_not_go_back(kind: str) -> None:
    m = wrong_way(kind)
    assert_fires(m, "BI001", mapping="m")
    assert_silent(m, "BI002")


def test_bi001_unknown_reverse_and_no_bi002() -> None:
    m = orphan("nope")
    assert len(fired(m, "BI001", mapping="m")) == 1
    assert_silent(m, "BI002")


def test_bi001_an_empty_reverse_names_no_mapping() -> None:
    """`"reverse": ""` is a reverse given, naming no mapping (it had been taken for none given)."""
    assert len(fired(orphan(""), "BI001", mapping="m")) == 1


@pytest.mark.parametrize("declare", ["both", "forward", "back"])
def test_bi001_silent_for_a_proper_reverse(declare: str) -> None:
    found = {f.code for f in validate(same(declare))}
    assert not found & {"BI001", "BI002"}, found


def test_bi001_only_on_the_mapping_that_declares_it() -> None:
    m = wrong_way("forward-again")
    assert {f.location.mapping for f in fired(m, "BI001")} == {"m"}


def test_no_reverse_no_bidirectional_findings() -> None:
    m = bidi(
        [CODE],
        ["CODE"],
        [KEY],
        ["K"],
        {"K": {"method": "upper", "input": "CODE"}},
        {"CODE": "K"},
        declare="none",
    )
    found = {f.code for f in validate(m)}
    assert not found & {"BI001", "BI002"}, found


# --- BI002 -------------------------------------------------------------------------


@pytest.mark.parametrize("declare", ["both", "forward", "back"])
@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_bi002_inverse_pairs(name: str, declare: str) -> None:
    """A one-sided `reverse` still checks both directions, so the verdict does not depend on `declare`."""
    m = round_trip(name, declare)
    reversible = ROUND_TRIPS[name][-1]
    found = validate(m)
    assert not [f for f in found if f.code == "BI001"], show(found)
    hits = [f for f in found if f.code == "BI002"]
    if reversible:
        assert not hits, f"{name} is reversible by the inverse pairs:\n{show(found)}"
    else:
        assert hits, f"{name} is not reversible:\n{show(found)}"
        assert all(f.location.mapping in PAIR for f in hits), show(hits)
        assert all(f.location.table in {SRC, TGT} for f in hits), show(hits)


def test_bi002_forward_direction_names_the_key_column() -> None:
    m = round_trip("concat-split-different-sep", "forward")
    hits = fired(m, "BI002", mapping="m")
    assert hits
    assert any(f.location.column == "K" and f.location.table == TGT for f in hits), show(hits)


def test_bi002_message_names_the_forward_method_when_the_mapping_back_is_a_plain_copy() -> None:
    """Forward computes K by an `expression`, back copies K: the message must name the expression (the half
    at fault), not only the copy back, which alone reads as if the copy were wrong."""
    hits = fired(round_trip("expression-identity", "forward"), "BI002", mapping="m", column="K")
    assert [f.message for f in hits] == [
        "key column K is not reversible: m then back does not give back CODE "
        "(back computes CODE as K, which does not undo m: m computes K as expression(CODE))"]


def _asymmetric(declare: str, back_key: list[str] | None) -> Any:
    """Forward key ID survives (copied both ways). The back mapping's key CODE does not: forward
    computes CODE as upper(CODE), so back then forward does not give back t.T's CODE."""
    cols = [col("ID", nullable=False), col("CODE", "VARCHAR(10)", nullable=False)]
    return bidi(
        cols,
        ["ID"],
        cols,
        ["ID"],
        {"ID": "ID", "CODE": {"method": "upper", "input": "CODE"}},
        {"ID": "ID", "CODE": "CODE"},
        declare=declare,
        back_extra={"distribution_key": back_key} if back_key else None,
    )


@pytest.mark.parametrize("declare", ["forward", "back", "both"])
def test_bi002_checks_the_direction_that_is_not_declared(declare: str) -> None:
    """Only the back mapping's key fails; it is found whichever side declares `reverse`."""
    hits = fired(_asymmetric(declare, ["CODE"]), "BI002")
    assert hits, f"declare={declare}"
    assert all(f.location.mapping in PAIR for f in hits)


@pytest.mark.parametrize("declare", ["forward", "back", "both"])
def test_bi002_asymmetric_near_miss(declare: str) -> None:
    """With the back mapping keyed on ID (its default), both keys survive."""
    assert_silent(_asymmetric(declare, None), "BI002")


def test_bi002_reported_once_per_key_column_and_direction() -> None:
    m = round_trip("upper", "both")
    hits = fired(m, "BI002")
    assert len({(f.location.mapping, f.location.column) for f in hits}) == len(hits), show(hits)


def test_bi002_only_with_a_key() -> None:
    """Neither direction has a distribution key (journal mappings, no keys anywhere): nothing to give back."""
    cols = [col("CODE", "VARCHAR(10)"), col("K", "VARCHAR(30)")]
    m = bidi(
        cols,
        [],
        cols,
        [],
        {"K": {"method": "upper", "input": "CODE"}},
        {"CODE": {"method": "lower", "input": "K"}},
        fwd_extra={"journal": True},
        back_extra={"journal": True},
    )
    assert_silent(m, "BI002")
    assert_silent(m, "DK001")


def test_bi002_not_on_a_mapping_without_a_key() -> None:
    """docs/contract.md: BI002 only when the mapping has a DKey. `m` has none (DK001), so the other direction's
    failure, which is reported on `m` because only `m` names the pair, is not reported either."""
    m = keyless_forward([])
    assert_fires(m, "DK001", mapping="m")
    assert_silent(m, "BI002")


def test_bi002_not_when_bi001_applies() -> None:
    """A non-reversible key, but the named reverse goes the wrong way: BI001 only."""
    cols = [col("CODE", "VARCHAR(10)", nullable=False)]
    m = model(
        [server("s"), server("t")],
        [
            table("s", "T", cols, pk=["CODE"]),
            table("t", "T", cols, pk=["CODE"]),
            table("t", "U", cols, pk=["CODE"]),
        ],
        [
            mapping("m", SRC, TGT, {"CODE": {"method": "upper", "input": "CODE"}}, reverse="back"),
            mapping("back", "t.U", SRC, {"CODE": {"method": "constant", "value": "x"}}),
        ],
    )
    assert_fires(m, "BI001", mapping="m")
    assert_silent(m, "BI002", mapping="m")


def test_bi002_example_pair_from_contract() -> None:
    """The contract's own concat / split + cast pair is reversible; substring + constant is not."""
    hq = [
        col("REGION", "CHAR(2)", nullable=False),
        col("CUST_NO", "INTEGER", nullable=False),
        col("NAME", "VARCHAR(80)"),
    ]
    br = [col("CUST_KEY", "VARCHAR(20)", nullable=False), col("NAME", "VARCHAR(80)")]
    good_back = {
        "REGION": split("CUST_KEY", "-", 0),
        "CUST_NO": cast(split("CUST_KEY", "-", 1), "INTEGER"),
        "NAME": "NAME",
    }
    bad_back = {
        "REGION": {"method": "substring", "input": "CUST_KEY", "start": 1, "length": 2},
        "CUST_NO": {"method": "constant", "value": 0},
        "NAME": "NAME",
    }
    fwd = {"CUST_KEY": concat("REGION", "CUST_NO"), "NAME": "NAME"}
    assert_silent(bidi(hq, ["REGION", "CUST_NO"], br, ["CUST_KEY"], fwd, good_back), "BI002")
    assert_fires(bidi(hq, ["REGION", "CUST_NO"], br, ["CUST_KEY"], fwd, bad_back), "BI002", mapping=PAIR)
