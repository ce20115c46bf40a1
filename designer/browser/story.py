"""The run's story under the browser's headline: `engine.runstory` lines for the model the run read."""

from __future__ import annotations

import hashlib
import html
from pathlib import Path

from engine.model.io import ModelLoadError, load_model
from engine.runstory import run_story
from engine.summary import RunSummary

SHOWN = 30
"""Story lines shown in the banner; the rest are counted."""


def story_lines(summary: RunSummary) -> list[str]:
    """Why the run's changes were queued and its mappings diverged, from the model its manifest names (only
    while that file is still the model the run read: its sha256 matches); none when it cannot be read."""
    eventful = summary.error_queue or any(m.get("diverged") for m in summary.convergence)
    if summary.status != "succeeded" or not eventful:
        return []
    model = summary.manifest.get("model")
    model = model if isinstance(model, dict) else {}
    path = model.get("path")
    if not path:
        return []
    try:
        data = Path(str(path)).read_bytes()
        if hashlib.sha256(data).hexdigest() != summary.manifest.get("model_sha256", model.get("sha256")):
            return []
        return run_story(load_model(str(path)), summary.conflicts, summary.error_queue, summary.convergence)
    except (OSError, ValueError, ModelLoadError):  # moved, changed or unreadable since: no story, never a wrong one
        return []


def story_html(lines: list[str]) -> str:
    """The lines as an escaped bulleted list for the banner (rich text), empty for none."""
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines[:SHOWN])
    more = f"<li>…and {len(lines) - SHOWN} more</li>" if len(lines) > SHOWN else ""
    return f"<ul style='margin-top:2px'>{items}{more}</ul>"
