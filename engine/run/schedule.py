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
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from engine.limits import MAX_DELAY_S
from engine.model.io import format_path, one_line
from engine.model.jsonpos import line_of
from engine.model.jsonsafe import JsonLimitError, TooDeep, load_json
from engine.run.inputfiles import InputFileError, read_input_file
from engine.run.values import ValueDecodeError, parse_timestamp

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


def parse_schedule(doc: Any, name: str = "schedule.json", text: str | None = None) -> Schedule:
    """A schedule from its JSON document; raises `ScheduleError` naming the file, the line (when `text`,
    the document's JSON text, is given), the link and the field."""

    def fail(path: tuple[str | int, ...], message: str) -> ScheduleError:
        where = f"{name}:{line_of(text, path)}" if text is not None else name
        return ScheduleError(f"{where} {format_path(path)}: {message}" if path else f"{where}: {message}")

    if not isinstance(doc, dict) or not isinstance(doc.get("links", []), list):
        raise fail((), "expected an object with a 'links' list")
    links: dict[tuple[str, str], Link] = {}
    for i, raw in enumerate(doc.get("links", [])):
        if not isinstance(raw, dict) or not isinstance(raw.get("from"), str) or not isinstance(raw.get("to"), str):
            raise fail(("links", i), "a link needs 'from' and 'to' site ids")
        link = f"link {raw['from']}->{raw['to']}"
        delay = raw.get("delay_s", 0)
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= MAX_DELAY_S:
            raise fail(("links", i, "delay_s"), f"{link}: the delay must be a number of seconds from 0 to "
                       f"{MAX_DELAY_S} (one year), got {_shown(delay)}")
        windows = []
        down = raw.get("down") or []
        if not isinstance(down, list):
            raise fail(("links", i, "down"), f"{link}: expected a list of [start, end] timestamps")
        for j, window in enumerate(down):
            at = ("links", i, "down", j)
            if not isinstance(window, list) or len(window) != 2 or not all(isinstance(w, str) for w in window):
                raise fail(at, f"{link}: expected [start, end] timestamps")
            try:
                start, end = parse_timestamp(window[0]), parse_timestamp(window[1])
            except ValueDecodeError as exc:
                raise fail(at, f"{link}: {exc}") from None
            if end <= start:
                raise fail(at, f"{link}: the window " + ("ends before it starts" if end < start else
                                                          "is empty (it ends where it starts)"))
            windows.append((start, end))
        key = (raw["from"], raw["to"])
        if key in links:
            raise fail(("links", i), f"{link} is given twice")
        links[key] = Link(float(delay), tuple(sorted(windows)))
    return Schedule(links)


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


def delivery_time(schedule: Schedule, origin: str, destination: str, commit_ts: datetime) -> datetime:
    """When a change committed at `commit_ts` at `origin` is delivered at `destination`.

    Windows are applied until the instant is outside all of them, so back-to-back
    outages hold the change until the last one ends.
    """
    link = schedule.link(origin, destination)
    at = commit_ts + timedelta(seconds=link.delay_s)
    moved = True
    while moved:
        moved = False
        for start, end in link.down:
            if start <= at < end:
                at, moved = end, True
    return at


EVENT_KIND_RANK = {"snapshot": 0, "local": 1, "delivery": 2}


def event_order(event: Mapping[str, Any]) -> tuple[Any, ...]:
    """The order events apply at one site.

    By time; at one instant a snapshot row first, then local commits, then
    deliveries; among equals by (commit_ts, origin site id, txn), then by the
    position of the change within its transaction.
    """
    return (event["at"], EVENT_KIND_RANK[event["kind"]], event["commit_ts"], event["origin"],
            str(event["txn"]), event["seq"])
