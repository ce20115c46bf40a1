"""Each conflict resolution method on its own: win, lose, tie, NULL (seed 003)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from engine.model import Resolution, parse_type
from engine.run.semantics.resolve import (
    additive,
    append_sequence,
    append_site_name,
    average,
    discard,
    earliest_timestamp,
    latest_timestamp,
    maximum,
    minimum,
    overwrite,
    priority_group,
    resolve_group,
    site_priority,
)

EARLY = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
LATE = datetime(2026, 1, 5, 11, 0, tzinfo=UTC)
INT = {"N": parse_type("INTEGER")}
DEC = {"N": parse_type("DECIMAL(10,2)")}


@pytest.mark.parametrize(("remote", "local", "decision"), [
    (LATE, EARLY, "remote"), (EARLY, LATE, "local"), (LATE, LATE, "tie"),
    (None, EARLY, "local"), (EARLY, None, "remote"), (None, None, "tie"),
])
def test_latest_timestamp(remote: datetime | None, local: datetime | None, decision: str) -> None:
    assert latest_timestamp("TS", {"TS": local}, {"TS": remote}).decision == decision


@pytest.mark.parametrize(("remote", "local", "decision"), [
    (EARLY, LATE, "remote"), (LATE, EARLY, "local"), (EARLY, EARLY, "tie"),
    (None, EARLY, "remote"), (EARLY, None, "local"), (None, None, "tie"),
])
def test_earliest_timestamp_with_null_lowest(remote: datetime | None, local: datetime | None, decision: str) -> None:
    assert earliest_timestamp("TS", {"TS": local}, {"TS": remote}).decision == decision


@pytest.mark.parametrize(("remote", "local", "decision"), [
    (5, 3, "remote"), (3, 5, "local"), (4, 4, "tie"), (None, 1, "local"), (1, None, "remote"), (None, None, "tie"),
    (Decimal("2.5"), 2, "remote"), (2.0, 2, "tie"),
])
def test_maximum(remote: object, local: object, decision: str) -> None:
    assert maximum("N", {"N": local}, {"N": remote}).decision == decision


@pytest.mark.parametrize(("remote", "local", "decision"), [
    (3, 5, "remote"), (5, 3, "local"), (4, 4, "tie"), (None, 1, "remote"), (1, None, "local"), (None, None, "tie"),
])
def test_minimum(remote: object, local: object, decision: str) -> None:
    assert minimum("N", {"N": local}, {"N": remote}).decision == decision


def test_values_of_different_kinds_cannot_be_ordered() -> None:
    assert maximum("N", {"N": "abc"}, {"N": 5}).decision == "undecided"


def test_a_designated_column_the_change_does_not_carry_is_undecided() -> None:
    assert latest_timestamp("TS", {"TS": EARLY}, {"OTHER": 1}).decision == "undecided"


def test_overwrite_and_discard() -> None:
    assert overwrite().decision == "remote"
    assert discard().decision == "local"


def test_additive_adds_the_remote_difference_to_the_current_value() -> None:
    result = additive(["N"], {"N": 100}, {"N": 10}, {"N": 15}, INT)
    assert (result.decision, result.values) == ("merged", {"N": 105})
    result = additive(["N"], {"N": Decimal("1.10")}, {"N": Decimal("0.50")}, {"N": Decimal("0.25")}, DEC)
    assert result.values == {"N": Decimal("0.85")}


def test_additive_and_average_keep_every_digit_of_a_38_digit_decimal() -> None:
    """Python's default decimal context keeps 28 digits: `...678 + 1` had given `...679000...`."""
    wide = {"N": parse_type("DECIMAL(38,0)")}
    big = Decimal("12345678901234567890123456789012345678")
    assert additive(["N"], {"N": big}, {"N": Decimal(0)}, {"N": Decimal(1)}, wide).values == {"N": big + 1}
    assert str(big + 1) == "12345678901234567890123456789012345679"
    scaled = {"N": parse_type("DECIMAL(38,10)")}
    one = Decimal("1234567890123456789012345678.0123456789")
    result = average(["N"], {"N": one}, {"N": one + 2}, scaled)
    assert result.values == {"N": Decimal("1234567890123456789012345679.0123456789")}


@pytest.mark.parametrize(("local", "old", "new"), [(None, 1, 2), (1, None, 2), (1, 2, None)])
def test_additive_is_undecided_when_any_value_is_null(local: object, old: object, new: object) -> None:
    assert additive(["N"], {"N": local}, {"N": old}, {"N": new}, INT).decision == "undecided"


def test_additive_without_old_values_is_undecided() -> None:
    assert additive(["N"], {"N": 1}, None, {"N": 2}, INT).decision == "undecided"


def test_average_of_current_and_new() -> None:
    assert average(["N"], {"N": 10}, {"N": 20}, INT).values == {"N": 15}
    assert average(["N"], {"N": 3}, {"N": 4}, INT).values == {"N": 4}  # an integer column rounds half up
    assert average(["N"], {"N": Decimal("1.00")}, {"N": Decimal("2.01")}, DEC).values == {"N": Decimal("1.51")}
    assert average(["N"], {"N": None}, {"N": 4}, INT).decision == "undecided"
    assert average(["N"], {"N": 4}, {"N": None}, INT).decision == "undecided"


PRIORITIES = {"ordered": 1, "shipped": 2, "billed": 3}


@pytest.mark.parametrize(("remote", "local", "decision"), [
    ("billed", "shipped", "remote"), ("ordered", "shipped", "local"), ("shipped", "shipped", "tie"),
    ("lost", "shipped", "undecided"), ("shipped", "lost", "undecided"), (None, "shipped", "undecided"),
])
def test_priority_group(remote: str | None, local: str | None, decision: str) -> None:
    assert priority_group("S", PRIORITIES, {"S": local}, {"S": remote}).decision == decision


@pytest.mark.parametrize(("origin", "writer", "decision"), [
    (30, 25, "remote"), (10, 25, "local"), (25, 25, "tie"), (None, 25, "undecided"), (30, None, "undecided"),
])
def test_site_priority(origin: float | None, writer: float | None, decision: str) -> None:
    assert site_priority(origin, writer).decision == decision


def test_append_site_name_cuts_the_value_so_the_suffix_fits() -> None:
    assert append_site_name("ACME", "hq", 20) == "ACME.hq"
    assert append_site_name("ACME CORPORATION", "hq", 10) == "ACME CO.hq"
    assert append_site_name("ACME", "headquarters", 5) is None  # the suffix alone does not fit
    assert append_site_name("ACME", "hq", None) == "ACME.hq"


def test_append_sequence_cuts_the_value_so_the_suffix_fits() -> None:
    assert append_sequence("ACME", 1, 10) == "ACME.1"
    assert append_sequence("ABCDEFGHIJ", 12, 10) == "ABCDEFG.12"
    assert append_sequence("A", 12345, 4) is None


def chain(*steps: dict[str, object]) -> list[Resolution]:
    return [Resolution.model_validate(s) for s in steps]


def test_a_chain_passes_a_tie_to_its_backup() -> None:
    steps = chain({"method": "latest_timestamp", "column": "TS"}, {"method": "site_priority"})
    result = resolve_group(steps, ["X", "TS"], {"X": 1, "TS": EARLY}, {"X": 0, "TS": EARLY},
                           {"X": 2, "TS": EARLY}, {}, origin_priority=30, writer_priority=10)
    assert (result.outcome, result.method, result.methods_tried) == (
        "remote", "site_priority", ("latest_timestamp", "site_priority"))
    assert result.values == {"X": 2, "TS": EARLY}


def test_the_first_deciding_method_wins() -> None:
    steps = chain({"method": "latest_timestamp", "column": "TS"}, {"method": "site_priority"})
    result = resolve_group(steps, ["X", "TS"], {"X": 1, "TS": LATE}, {"X": 0, "TS": EARLY},
                           {"X": 2, "TS": EARLY}, {}, origin_priority=30, writer_priority=10)
    assert (result.outcome, result.method, result.methods_tried, result.values) == (
        "local", "latest_timestamp", ("latest_timestamp",), {})


def test_a_chain_that_ends_undecided_is_unresolved() -> None:
    steps = chain({"method": "maximum", "column": "X"})
    result = resolve_group(steps, ["X"], {"X": 2}, {"X": 1}, {"X": 2}, {}, origin_priority=None,
                           writer_priority=None)
    assert (result.outcome, result.method, result.methods_tried) == ("unresolved", None, ("maximum",))


def test_a_merge_returns_the_merged_values() -> None:
    result = resolve_group(chain({"method": "additive"}), ["N"], {"N": 7}, {"N": 1}, {"N": 4}, INT,
                           origin_priority=None, writer_priority=None)
    assert (result.outcome, result.values) == ("merged", {"N": 10})


@pytest.mark.parametrize(("text", "type_"), [
    ("99999999999999999999999999999999999999", "DECIMAL(38,0)"),
    ("9.9999999999999999999999999999999999999", "DECIMAL(38,37)"),
    ("-12345678901234567890123456789.012345678", "NUMERIC(38,9)")])
def test_a_38_digit_value_fits_its_38_digit_column(text: str, type_: str) -> None:
    """The fit check had rounded the value to 28 digits first, and refused it as not fitting."""
    from engine.core.values import decode_value

    assert decode_value(text, parse_type(type_)) == Decimal(text)


def test_priority_group_finds_a_number_whatever_its_scale() -> None:
    """A DECIMAL(4,2) column holds 1.00 and 2.00; the priorities list "1" and "2" (equal numbers are equal
    whatever their scale, docs/contract.md §7). Both had been "not listed": undecided, queued."""
    listed = {"1": 1, "2": 2}
    assert priority_group("P", listed, {"P": Decimal("1.00")}, {"P": Decimal("2.0")}).decision == "remote"
    assert priority_group("P", listed, {"P": Decimal("2")}, {"P": 1}).decision == "local"
    assert priority_group("P", listed, {"P": Decimal("3")}, {"P": 1}).decision == "undecided"
    assert priority_group("P", {"01": 1, "x": 2}, {"P": 1}, {"P": Decimal("1.0")}).decision == "tie"
