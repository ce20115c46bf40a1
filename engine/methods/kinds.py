"""One class per column method: what inputs it reads, and the method a designer inserts of its kind."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Expression,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)

Inputs = Literal["none", "one", "many"]
MethodJson = dict[str, Any] | str


class MethodKind:
    """A column method's backend-independent meaning. Subclasses set the class variables; `new` builds the
    method a designer puts on a column, from its current map (`first`, its JSON) and the other source columns."""

    model: ClassVar[type[Method]]
    inputs: ClassVar[Inputs]
    """What it reads: no input (`constant`, `system`, `expression`'s SQL), one `input`, or `inputs`."""

    @property
    def name(self) -> str:
        """The method's name in a model file (`"method": ...`)."""
        return str(self.model.model_fields["method"].default)

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        """The method of this kind a designer inserts on a column (`engine.authoring.insert_method`)."""
        return {"method": self.name, "input": first}


class ColumnKind(MethodKind):
    model = Column
    inputs = "one"


class ConcatKind(MethodKind):
    model = Concat
    inputs = "many"

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        return {"method": "concat", "inputs": [first, *(others[:1])], "sep": "-"}


class SplitKind(MethodKind):
    model = Split
    inputs = "one"

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        return {"method": "split", "input": first, "sep": "-", "index": 0}


class SubstringKind(MethodKind):
    model = Substring
    inputs = "one"

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        return {"method": "substring", "input": first, "start": 1, "length": 10}


class CastKind(MethodKind):
    model = Cast
    inputs = "one"

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        return {"method": "cast", "input": first, "type": "VARCHAR(40)"}


class ConstantKind(MethodKind):
    model = Constant
    inputs = "none"

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        return {"method": "constant", "value": ""}


class SystemKind(MethodKind):
    model = System
    inputs = "none"

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        return {"method": "system", "name": "commit_ts"}


class UpperKind(MethodKind):
    model = Upper
    inputs = "one"


class LowerKind(MethodKind):
    model = Lower
    inputs = "one"


class TrimKind(MethodKind):
    model = Trim
    inputs = "one"


class ExpressionKind(MethodKind):
    model = Expression
    inputs = "none"

    def new(self, first: MethodJson, others: list[str], current: Method | None) -> dict[str, Any]:
        return {"method": "expression", "sql": current.input if isinstance(current, Column) else "NULL"}


KINDS: dict[type[Method], MethodKind] = {kind.model: kind() for kind in MethodKind.__subclasses__()}
"""Every method's kind, by the model's class, in the order declared here (the designer's menus' order)."""
INSERTABLE = tuple(kind.name for kind in KINDS.values() if kind.model is not Column)
"""The methods a designer can put on a column (a copy is what a column map is without one)."""


def kind_of(method: Method) -> MethodKind:
    """The kind of a method node."""
    return KINDS[type(method)]
