"""When a change reaches a site, and in which order a site applies what reaches it (docs/contract.md §4).

`schedule.json` gives, per directed link, a propagation delay and outage
windows `[start, end)`. A change committed at `t` at X reaches Y at
`t + delay_s`; if that instant falls in a down window of the X->Y link
(its start included, its end not) it is delivered at the window's end. A
link absent from the schedule has delay 0 and no outage.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictStr,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from engine.core.values import parse_timestamp
from engine.limits import MAX_DELAY_S
from engine.model.io import format_path, one_line
from engine.model.jsonpos import line_of
from engine.model.jsonsafe import JsonLimitError, TooDeep, load_json
from engine.run.input.files import InputFileError, read_input_file

MAX_SCHEDULE_BYTES = 32 * 1024 * 1024
"""The largest schedule.json a run reads (as a model file): a million outage windows fit in far less."""


class ScheduleError(ValueError):
    """A schedule file that cannot be read; the message names the file and the link, in one line."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


@dataclass(frozen=True)
class Link:
    """One directed link: its delay and its outage windows, sorted by start."""

    delay_s: float = 0.0
    down: tuple[tuple[datetime, datetime], ...] = ()


@dataclass(frozen=True)
class Schedule:
    """Links by (origin, destination) site id."""

    links: Mapping[tuple[str, str], Link] = field(default_factory=dict)

    def link(self, origin: str, destination: str) -> Link:
        return self.links.get((origin, destination), Link())


def _window(value: list[str]) -> tuple[datetime, datetime]:
    """An outage window `[start, end]` read as instants; `ValueError` unless it starts before it ends."""
    start, end = parse_timestamp(value[0]), parse_timestamp(value[1])  # ValueDecodeError is a ValueError
    if end <= start:
        raise ValueError("the window " + ("ends before it starts" if end < start else
                                          "is empty (it ends where it starts)"))
    return start, end


Window = Annotated[list[StrictStr], Field(min_length=2, max_length=2), AfterValidator(_window)]
"""An outage window as `schedule.json` writes it: `[start, end]`, two timestamps, read as (start, end)."""


class LinkDoc(BaseModel):
    """One link of `schedule.json` as declared: `from`, `to` (site ids), `delay_s` (seconds, 0 to one year) and
    `down` (outage windows, start before end). Other fields are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    origin: StrictStr = Field(alias="from")
    destination: StrictStr = Field(alias="to")
    delay_s: Annotated[float, Field(ge=0, le=MAX_DELAY_S, strict=True)] = 0.0
    down: list[Window] = []

    @field_validator("down", mode="before")
    @classmethod
    def _no_windows(cls, value: Any) -> Any:
        return value or []  # null, an empty list, and any other empty value: no outage

    def link(self) -> Link:
        return Link(float(self.delay_s), tuple(sorted(self.down)))  # type: ignore[arg-type]


class ScheduleDoc(BaseModel):
    """`schedule.json` as declared: an object with a `links` list (absent: no link); other fields are ignored.
    Each link is validated on its own (`LinkDoc`), in order, so that the first fault in the file is the one told."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    links: list[Any] = []


_LINK = TypeAdapter(LinkDoc)


def parse_schedule(doc: Any, name: str = "schedule.json", text: str | None = None) -> Schedule:
    """A schedule from its JSON document; raises `ScheduleError` naming the file, the line (when `text`,
    the document's JSON text, is given), the link and the field."""

    def fail(path: tuple[str | int, ...], message: str) -> ScheduleError:
        where = f"{name}:{line_of(text, path)}" if text is not None else name
        return ScheduleError(f"{where} {format_path(path)}: {message}" if path else f"{where}: {message}")

    try:
        declared = ScheduleDoc.model_validate(doc)
    except ValidationError:
        raise fail((), "expected an object with a 'links' list") from None
    links: dict[tuple[str, str], Link] = {}
    for i, raw in enumerate(declared.links):
        try:
            link_doc = _LINK.validate_python(raw)
        except ValidationError as exc:
            raise fail(*_link_problem(("links", i), raw, exc)) from None
        link = f"link {link_doc.origin}->{link_doc.destination}"
        key = (link_doc.origin, link_doc.destination)
        if key in links:
            raise fail(("links", i), f"{link} is given twice")
        links[key] = link_doc.link()
    return Schedule(links)


def _link_problem(at: tuple[str | int, ...], raw: Any, exc: ValidationError) -> tuple[tuple[str | int, ...], str]:
    """The path and message of a link's first fault, as a schedule error tells it: `from`/`to` first, then
    `delay_s`, then `down` (pydantic reports fields in their declared order)."""
    error = exc.errors(include_url=False)[0]
    loc = error["loc"]
    if not loc or loc[0] in ("from", "to"):
        return at, "a link needs 'from' and 'to' site ids"
    link = f"link {raw['from']}->{raw['to']}"
    if loc[0] == "delay_s":
        return (*at, "delay_s"), (f"{link}: the delay must be a number of seconds from 0 to {MAX_DELAY_S} (one year), "
                                  f"got {_shown(raw.get('delay_s'))}")
    if len(loc) == 1:
        return (*at, "down"), f"{link}: expected a list of [start, end] timestamps"
    if error["type"] == "value_error":  # the window's instants (`_window`)
        return (*at, "down", loc[1]), f"{link}: {(error.get('ctx') or {}).get('error', error['msg'])}"
    return (*at, "down", loc[1]), f"{link}: expected [start, end] timestamps"


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, (int, float, str, bool)) or value is None else type(value).__name__
    return text if len(text) <= 40 else f"{text[:37]}..."


def load_schedule(path: Path) -> Schedule:
    """`DIR/schedule.json`, or the empty schedule when the file is absent. Read as strictly as a model:
    a regular file of at most `MAX_SCHEDULE_BYTES` (a FIFO had blocked the run, a link to /dev/zero filled
    its memory; a broken link is an error, not an absent schedule), nesting bounded, no NaN or Infinity,
    no unencodable text."""
    return parse_schedule(*schedule_document(path))


def schedule_document(path: Path) -> tuple[Any, str, str | None]:
    """The JSON document of `DIR/schedule.json` (`{"links": []}` when absent), its name and its text, read
    and checked as `load_schedule` reads it; `ScheduleError` naming the file (and the line) if it cannot be."""
    if not os.path.lexists(path):
        return {"links": []}, str(path), None
    try:
        text = read_input_file(path, MAX_SCHEDULE_BYTES).decode("utf-8")
        doc = load_json(text)
    except InputFileError as exc:
        raise ScheduleError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScheduleError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ScheduleError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    except TooDeep as exc:
        line = text.count("\n", 0, exc.offset) + 1
        raise ScheduleError(f"{path}:{line}: {exc.message} (a schedule nests at most {exc.limit})") from None
    except JsonLimitError as exc:
        raise ScheduleError(f"{path}:{line_of(text, exc.path)} {format_path(exc.path)}: {exc.message}") from None
    return doc, str(path), text
