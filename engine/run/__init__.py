"""The replication run in pure Python: the reference semantics of docs/contract.md §4-6.

Three concepts, one subpackage each: `input` (everything that reads the data directory: change records,
snapshots, Debezium events, the schedule), `semantics` (the reference semantics: net effect, methods,
resolution, detection, fold, convergence, the whole run) and `rundir` (the run directory: its layout,
writing, reading back and publishing). `inprocess` runs the reference as `mapwright run --engine inprocess`.
Headless: no Qt, and no Spark; the Spark pipeline builds on these functions.

The package names the reference's entry points but loads them when first asked for: a module that only
reads a run directory's layout (the designer, at its start) does not load the semantics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.run.semantics.reference import RunCancelled, RunCounts, RunResult, run_model, run_reference

__all__ = ["RunCancelled", "RunCounts", "RunResult", "run_model", "run_reference"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from engine.run.semantics import reference

        return getattr(reference, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
