"""What the reference's code needs in a Python worker, built once per worker from what a stage ships.

A stage that runs the reference over Arrow ships the model (and the schedule) as JSON text with its
function; each Python worker parses it once and keeps it for every batch and group it is given.
"""

from __future__ import annotations

import json
from functools import lru_cache

from engine.model.io import parse_model
from engine.model.schema import Model
from engine.run.input.schedule import Schedule, parse_schedule
from engine.run.semantics.context import RunContext, build_context


@lru_cache(maxsize=4)
def model_of(model_text: str) -> Model:
    return parse_model(model_text)


@lru_cache(maxsize=4)
def context_of(model_text: str) -> RunContext:
    return build_context(model_of(model_text))


@lru_cache(maxsize=4)
def schedule_of(schedule_text: str) -> Schedule:
    return parse_schedule(json.loads(schedule_text))
