"""Every column method has its kind (`engine.methods.KINDS`) and a case in every backend.

mypy proves each backend's `match` exhaustive over `Method` (`assert_never`); these tests prove the union,
the model's classes and the kinds agree, and run each backend on one method of every kind, so a method a
backend does not handle fails here too (its `assert_never` raises)."""

from __future__ import annotations

import typing
from datetime import UTC, datetime

import pytest

from engine import reversibility
from engine.core.types import parse_type
from engine.deploy import goldengate
from engine.methods import INSERTABLE, KINDS, kind_of
from engine.model.methods import METHOD_CLASSES, Column, Method
from engine.model.schema import Table
from engine.rules import typecompat
from engine.run.semantics.methods import SystemValues, evaluate_method
from engine.spark.methods import Binding, compile_method

SOURCE = Table.model_validate({"server": "hq", "name": "T", "columns": [
    {"name": "A", "type": "VARCHAR(20)"}, {"name": "B", "type": "INTEGER"}], "primary_key": ["A"]})


def one_of_each() -> list[Method]:
    """A method of every kind as a designer inserts it on a column that copies A, with B the other column."""
    current = Column(input="A")
    kinds = {kind.name: kind for kind in KINDS.values()}
    return [current, *(kinds[name].model.model_validate(kinds[name].new("A", ["B"], current))
                       for name in INSERTABLE)]


def test_every_method_class_has_exactly_one_kind_named_as_in_the_file() -> None:
    union = set(typing.get_args(Method))
    assert union == set(METHOD_CLASSES.values()) == set(KINDS)
    assert all(METHOD_CLASSES[kind.name] is cls for cls, kind in KINDS.items())  # named as in the file
    assert sorted(INSERTABLE) == sorted(n for n in METHOD_CLASSES if n != "column")
    for method in one_of_each():
        kind = kind_of(method)
        assert kind.model is type(method)
        has_input, has_inputs = "input" in type(method).model_fields, "inputs" in type(method).model_fields
        assert kind.inputs == ("many" if has_inputs else "one" if has_input else "none")


@pytest.mark.parametrize("method", one_of_each(), ids=lambda m: m.method)
def test_every_backend_handles_every_method(method: Method) -> None:
    row = {"A": "x-y", "B": 7}
    at = datetime(2026, 1, 5, 10, tzinfo=UTC)
    types = {"A": parse_type("VARCHAR(20)"), "B": parse_type("INTEGER")}
    evaluate_method(method, row, SystemValues("hq", at, "t1", "I"), types)
    binding = Binding({"A": ("`A`", types["A"]), "B": ("`B`", types["B"])},
                      {"site": "'hq'", "commit_ts": "ts", "txn": "'t1'", "op": "'I'"}, "ts")
    assert compile_method(method, binding).sql
    try:
        assert goldengate._expression(method, SOURCE)
    except goldengate._Missing:  # no GoldenGate equivalent: said so, by its name
        assert method.method in ("split", "lower", "expression")
    assert reversibility.describe(method)
    typecompat.value_type(method, SOURCE)
    assert typecompat.describe(method, SOURCE)
