"""The replication run in pure Python: the reference semantics of docs/contract.md §4-6.

Stages, one module each: `records` (decode input), `net_effect` (seed 004),
`methods` (column maps and `where`), `schedule` (delivery times and event
order), `resolve` (conflict methods), `detect` (one delivered change at its
destination), `fold` (the per-group core a Spark stage calls), `converge`,
`reference` (the whole run), `rundir` (the run directory) and `publish`
(which folders a run may replace, its lock, and the swap a kill cannot
break). Headless: no Qt, and no Spark; the Spark pipeline builds on these
functions.

The package names the reference's entry points but loads them when first asked for: a module that only
reads a run directory's layout (the designer, at its start) does not load the semantics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.run.reference import RunCancelled, RunCounts, RunResult, run_model, run_reference

__all__ = ["RunCancelled", "RunCounts", "RunResult", "run_model", "run_reference"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from engine.run import reference

        return getattr(reference, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
