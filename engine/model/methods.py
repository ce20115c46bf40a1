"""Column-map methods: how one target column is computed from source columns.

A method is a small tree: its inputs are source column names or, nested,
other methods. In the file a bare string is the `column` method; inside the
engine every input is a `Method`, so rules and the run walk one shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
)

from engine.core.types import type_name
from engine.limits import MAX_METHOD_DEPTH
from engine.sql import parse_expression


class _Method(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    @model_serializer(mode="wrap")
    def _method_first(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return {"method": self.method, **data} if isinstance(data, dict) else data  # type: ignore[attr-defined]

    def inputs_of(self) -> list[Method]:
        """The direct inputs, in order."""
        return []

    def walk(self) -> Iterator[tuple[tuple[int, ...], Method]]:
        """Every method of the tree with its path (child indexes from the root), root first."""
        yield (), self  # type: ignore[misc]
        for i, child in enumerate(self.inputs_of()):
            for path, node in child.walk():
                yield (i, *path), node

    def source_columns(self) -> list[str]:
        """Source column names the tree reads, in order of first use."""
        seen: dict[str, None] = {}
        for _, node in self.walk():
            if isinstance(node, Column):
                seen.setdefault(node.input, None)
        return list(seen)


class Column(_Method):
    """Copy a source column (also written as a bare string)."""

    method: Literal["column"] = "column"
    input: str

    @model_serializer(mode="plain")
    def _as_bare_string(self) -> str:
        return self.input


class Concat(_Method):
    method: Literal["concat"] = "concat"
    inputs: list[MethodSpec] = Field(min_length=1)
    sep: str = ""

    def inputs_of(self) -> list[Method]:
        return list(self.inputs)


class Split(_Method):
    method: Literal["split"] = "split"
    input: MethodSpec
    sep: str = Field(min_length=1)
    index: int = Field(ge=0)

    def inputs_of(self) -> list[Method]:
        return [self.input]


class Substring(_Method):
    method: Literal["substring"] = "substring"
    input: MethodSpec
    start: int = Field(ge=1)
    length: int | None = Field(default=None, ge=1)

    def inputs_of(self) -> list[Method]:
        return [self.input]


class Constant(_Method):
    method: Literal["constant"] = "constant"
    value: str | int | float | bool | None


class System(_Method):
    method: Literal["system"] = "system"
    name: Literal["site", "commit_ts", "txn", "op"]


class Cast(_Method):
    method: Literal["cast"] = "cast"
    input: MethodSpec
    type: str

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        return type_name(value)

    def inputs_of(self) -> list[Method]:
        return [self.input]


class Upper(_Method):
    method: Literal["upper"] = "upper"
    input: MethodSpec

    def inputs_of(self) -> list[Method]:
        return [self.input]


class Lower(_Method):
    method: Literal["lower"] = "lower"
    input: MethodSpec

    def inputs_of(self) -> list[Method]:
        return [self.input]


class Trim(_Method):
    method: Literal["trim"] = "trim"
    input: MethodSpec

    def inputs_of(self) -> list[Method]:
        return [self.input]


class Expression(_Method):
    """A Spark SQL expression over source columns; never reversible."""

    method: Literal["expression"] = "expression"
    sql: str = Field(min_length=1)

    @field_validator("sql")
    @classmethod
    def _bounded_sql(cls, value: str) -> str:
        """SQL beyond the limits is refused here; SQL that merely does not parse is MP004."""
        parsed = parse_expression(value)
        if parsed.beyond_limits:
            raise ValueError(f"the expression {parsed.problem}")
        return value


Method = Column | Concat | Split | Substring | Constant | System | Cast | Upper | Lower | Trim | Expression
METHOD_CLASSES: dict[str, type[_Method]] = {
    cls.model_fields["method"].default: cls
    for cls in (Column, Concat, Split, Substring, Constant, System, Cast, Upper, Lower, Trim, Expression)
}
METHOD_NAMES = tuple(METHOD_CLASSES)


METHODS_TOO_DEEP = (f"methods are nested more than {MAX_METHOD_DEPTH} deep (at most {MAX_METHOD_DEPTH} in one "
                    "column map, counting the columns read)")


def method_depth(method: Method) -> int:
    """Levels of methods inside one another (a bare column is 1), counted without recursion."""
    deepest, stack = 0, [(method, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.inputs_of())
    return deepest


def too_deep_in_data(value: Any, limit: int = MAX_METHOD_DEPTH) -> tuple[str | int, ...] | None:
    """In a column map as read from JSON, the path of the first method nested more than `limit` deep
    (a bare column name counts as a level, like its object form), or None. Without recursion."""
    stack: list[tuple[tuple[str | int, ...], Any, int]] = [((), value, 1)]
    while stack:
        path, node, depth = stack.pop()
        if depth > limit:
            return path
        if not isinstance(node, dict) or node.get("method") == "column":
            continue  # a column's `input` is a source column name, not a method
        inputs = node.get("inputs")
        children: list[tuple[tuple[str | int, ...], Any]] = \
            [(("inputs", i), x) for i, x in enumerate(inputs)] if isinstance(inputs, list) else []
        if "input" in node:
            children.append((("input",), node["input"]))
        stack.extend(((*path, *step), child, depth + 1) for step, child in reversed(children)
                     if isinstance(child, (dict, str)))
    return None


def _bare_string_is_column(value: Any) -> Any:
    if isinstance(value, str):
        return {"method": "column", "input": value}
    return value


def _method_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        tag = value.get("method")
        return tag if isinstance(tag, str) else None
    return getattr(value, "method", None)


if TYPE_CHECKING:
    MethodSpec = Method
else:
    _TAGGED = tuple(Annotated[cls, Tag(name)] for name, cls in METHOD_CLASSES.items())
    _UNION = Annotated[Union[_TAGGED], Discriminator(_method_tag)]  # noqa: UP007 - built from METHOD_CLASSES
    MethodSpec = Annotated[
        _UNION,
        BeforeValidator(_bare_string_is_column, json_schema_input_type=Union[str, _UNION]),  # noqa: UP007
    ]

for _cls in METHOD_CLASSES.values():
    _cls.model_rebuild()
