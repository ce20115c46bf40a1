"""A run directory's JSON documents as declared (docs/contract.md §6): `manifest.json` and `convergence.json`.

Each is a pydantic model; `manifest_fault` and `convergence_fault` give the first fault of a document that does
not validate, where it is and the contract's words for it, which `read` raises naming the file and the line.
Fields are declared in the order their faults are told.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

Doc = dict[str, Any]
STATUSES = ("succeeded", "failed", "cancelled")
COUNT_KEYS = ("records", "rejects", "filtered", "deliveries", "applied", "resolved", "queued", "conflicts")

Count = Annotated[StrictInt, Field(ge=0)]
"""A whole number of at least 0."""
Seconds = Annotated[float, Field(strict=True, allow_inf_nan=False)]
"""A number of seconds: NaN and Infinity, which Python's JSON reads, are refused (`conflicts --format json`
would print them)."""


def _table_name(name: str) -> str:
    if "." not in name:
        raise ValueError("expected 'server.TABLE'")
    return name


class Fault(ValueError):
    """A fault a document's validator finds beyond its fields' types: where it is and what it is."""

    def __init__(self, where: Sequence[str | int], message: str) -> None:
        super().__init__(message)
        self.where = list(where)


class Manifest(BaseModel):
    """`manifest.json`: the engine `mapwright <version>`, a known status, counts an object of whole numbers
    (every count of the contract, consistent, for a succeeded run), the model's tables, stages in seconds and
    the reason text. Other fields are kept as they are."""

    model_config = ConfigDict(extra="allow", frozen=True)

    engine: Any = Field(default=None, validate_default=True)
    status: Literal["succeeded", "failed", "cancelled"] | None = Field(default=None, validate_default=True)
    counts: dict[str, Count] | None = Field(default=None, validate_default=True)
    tables: list[Annotated[StrictStr, AfterValidator(_table_name)]] | None = None
    stages: dict[str, Seconds] | None = None
    reason: StrictStr | None = None

    @field_validator("engine")
    @classmethod
    def _mapwright(cls, engine: Any) -> Any:
        if not (isinstance(engine, str) and engine.split(" ", 1)[0] == "mapwright"):
            raise PydanticCustomError("engine", "not a Mapwright run")
        return engine

    @field_validator("status")
    @classmethod
    def _known(cls, status: Any) -> Any:
        if status is None:
            raise PydanticCustomError("status", "unknown status")
        return status

    @field_validator("counts")
    @classmethod
    def _consistent(cls, counts: dict[str, int] | None, info: Any) -> dict[str, int] | None:
        if info.data.get("status") != "succeeded":
            return counts
        if counts is None:
            raise PydanticCustomError("counts_type", "expected an object of integers")
        for key in COUNT_KEYS:
            if key not in counts:
                raise Fault(["counts"], f"the count '{key}' is missing")
        if counts["deliveries"] != counts["applied"] + counts["resolved"] + counts["queued"]:
            raise Fault(["counts", "deliveries"], f"{counts['deliveries']} is not applied {counts['applied']} + "
                                                  f"resolved {counts['resolved']} + queued {counts['queued']}")
        if counts["records"] < counts["rejects"]:
            raise Fault(["counts", "records"], f"{counts['records']} is fewer than the {counts['rejects']} rejects")
        return counts


def manifest_fault(doc: Doc) -> tuple[list[str | int], str] | None:
    """Where the first fault of a manifest (a JSON object) is and what it is, as the contract words it; None
    when it is a `Manifest`."""
    try:
        Manifest.model_validate(doc)
    except ValidationError as exc:
        return _manifest_fault(doc, exc.errors(include_url=False)[0])
    return None


def _manifest_fault(doc: Doc, error: Any) -> tuple[list[str | int], str]:
    """Where a manifest's first fault is, and its message."""
    loc = list(error["loc"])
    name = loc[0]
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, Fault):
        return cause.where, str(cause)
    if name == "engine":
        return ["engine"], (f"not a Mapwright run: the engine is {shown(doc.get('engine'))}, "
                            "expected 'mapwright <version>'")
    if name == "status":
        return ["status"], f"expected one of {', '.join(STATUSES)}, got {shown(doc.get('status'))}"
    if name == "counts":
        if len(loc) > 1:
            return ["counts", loc[1]], f"expected a whole number of at least 0, got {shown(doc['counts'][loc[1]])}"
        return ["counts"], f"expected an object of integers, got {kind(doc.get('counts'))}"
    if name == "tables":
        return ["tables"], f"expected a list of 'server.TABLE' names, got {shown(doc['tables'])}"
    if name == "stages":
        if len(loc) > 1:
            return ["stages", loc[1]], f"expected seconds (a number), got {shown(doc['stages'][loc[1]])}"
        return ["stages"], f"expected an object of seconds, got {kind(doc['stages'])}"
    return ["reason"], f"expected text, got {kind(doc['reason'])}"



def _rows(value: Any) -> Any:
    """A convergence example's side: a row, a list of rows (each an object or null), or null."""
    rows = value if isinstance(value, list) else [value]
    if not all(r is None or isinstance(r, dict) for r in rows):
        raise PydanticCustomError("rows", "expected a row, rows or null")
    return value


class Example(BaseModel):
    """One example of a divergence: its distribution key and the source and target rows."""

    model_config = ConfigDict(extra="allow", frozen=True)

    dkey: dict[str, Any] | None = None
    source: Annotated[Any, AfterValidator(_rows)] = None
    target: Annotated[Any, AfterValidator(_rows)] = None


class MappingConvergence(BaseModel):
    """One mapping's convergence: rows compared, how many diverged (at most those compared), examples."""

    model_config = ConfigDict(extra="allow", frozen=True)

    mapping: StrictStr
    compared: Count
    diverged: Count
    examples: list[Example] = []

    @field_validator("diverged")
    @classmethod
    def _at_most_compared(cls, diverged: int, info: Any) -> int:
        compared = info.data.get("compared")
        if compared is not None and diverged > compared:
            raise Fault([], f"{diverged} is more than the {compared} compared")
        return diverged


class Convergence(BaseModel):
    """`convergence.json`: `{"mappings": [{"mapping": id, "compared": N, "diverged": N, "examples": [...]}]}`."""

    model_config = ConfigDict(extra="allow", frozen=True)

    mappings: list[MappingConvergence]


def convergence_fault(doc: Doc) -> tuple[list[str | int], str] | None:
    """Where the first fault of `convergence.json` (a JSON object) is and what it is; None when it is a
    `Convergence`."""
    try:
        Convergence.model_validate(doc)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        loc: list[str | int] = list(error["loc"])
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, Fault):
            return loc, str(cause)
        return _convergence_fault(doc, loc)
    return None


def _convergence_fault(doc: Doc, loc: list[str | int]) -> tuple[list[str | int], str]:
    """The contract's words for a fault at `loc` (pydantic's location) of `convergence.json`."""
    node: Any = doc
    for depth, step in enumerate(loc):
        parent = node
        node = node.get(step) if isinstance(node, dict) else node[step]
        at, field = loc[:depth + 1], (loc[depth] if depth else None)
        if depth == 0 and not isinstance(node, list):
            return at, f"expected a list of mappings, got {kind(node)}"
        if depth == 1 and not isinstance(node, dict):
            return at, f"expected an object, got {kind(node)}"
        if depth == 2 and field == "mapping":
            return at, f"expected the mapping's id, got {kind(node)}"
        if depth == 2 and field in ("compared", "diverged"):
            return at, f"expected a whole number of at least 0, got {shown(node)}"
        if depth == 2 and field == "examples" and not isinstance(node, list):
            return at, f"expected a list, got {kind(node)}"
        if depth == 3 and not isinstance(node, dict):
            return at, f"expected an object, got {kind(node)}"
        if depth == 4 and field == "dkey":
            return at, f"expected an object, got {kind(node)}"
        if depth == 4:
            return at, f"expected a row, rows or null, got {kind(node)}"
        if not isinstance(node, dict | list) or (isinstance(parent, dict) and step not in parent):
            break
    return loc, "not a convergence document"


def kind(value: Any) -> str:
    """What a JSON value is, for a message: `an array`, `a string`..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def shown(value: Any) -> str:
    """A JSON value as a message shows it: its JSON text, cut (an object or an array by its kind)."""
    text = json.dumps(value) if not isinstance(value, dict | list) else kind(value)
    return text if len(text) <= 40 else text[:37] + "..."
