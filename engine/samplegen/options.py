"""What `generate_sample` is asked for and what it reports: options, outages, the summary and its errors."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from pathlib import Path

_OUTAGE = re.compile(r"(?P<site>.+):(?P<start>\d{1,2}:\d{2})-(?P<end>\d{1,2}:\d{2})")


class SampleCancelled(Exception):
    """The caller's cancel event was set: nothing was written."""


@dataclass(frozen=True)
class Outage:
    """All links from and to `site` are down in [start, end) of the sample day."""

    site: str
    start: datetime.time
    end: datetime.time

    @classmethod
    def parse(cls, text: str) -> Outage:
        """`SITE:HH:MM-HH:MM`; `ValueError` saying what is wrong."""
        match = _OUTAGE.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"outage {text!r}: expected SITE:HH:MM-HH:MM, e.g. hq:12:30-12:50")
        try:
            start, end = (datetime.time.fromisoformat(match[k].zfill(5)) for k in ("start", "end"))
        except ValueError:
            raise ValueError(f"outage {text!r}: {match['start']} or {match['end']} is not a time of day") from None
        if end <= start:
            raise ValueError(f"outage {text!r}: it must end after it starts")
        return cls(match["site"], start, end)


@dataclass(frozen=True)
class SampleOptions:
    seed: int = 1
    rows: int = 100
    """Snapshot rows per table, about."""
    changes: int = 1000
    """Change records in all, about."""
    conflict_rate: float = 0.1
    """Share of the delivered keys (a destination table and distribution key some delivery reaches) at which a
    conflict is detected: changes at two or more sites within the propagation delay."""
    malformed_rate: float = 0.0
    """Share of unusable records added."""
    outages: tuple[Outage, ...] = ()
    debezium: bool = False
    """Write changes as Debezium events (changes/debezium/<server>/*.jsonl)."""

    def problem(self) -> str | None:
        """Why these options cannot be met (one line), or None."""
        if self.rows < 0 or self.changes < 0:
            return "--rows and --changes must be 0 or more"
        for name, rate in (("conflict", self.conflict_rate), ("malformed", self.malformed_rate)):
            if not 0.0 <= rate <= 1.0:
                return f"--{name}-rate must be between 0 and 1, got {rate}"
        return None


@dataclass(frozen=True)
class SampleSummary:
    out: Path
    tables: int
    snapshot_rows: int
    changes: int
    malformed: int
    conflict_keys: int
    files: tuple[str, ...]
    """Relative paths written (the marker `sampledata.json` aside)."""
