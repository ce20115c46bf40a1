"""The replication run in pure Python: the reference semantics of CONTRACT sections 4-6.

Stages, one module each: `records` (decode input), `net_effect` (seed 004),
`methods` (column maps and `where`), `schedule` (delivery times and event
order), `resolve` (conflict methods), `detect` (one delivered change at its
destination), `fold` (the per-group core a Spark stage calls), `converge`,
`reference` (the whole run), `rundir` (the run directory) and `publish`
(which folders a run may replace, its lock, and the swap a kill cannot
break). Headless: no Qt, and no Spark; the Spark pipeline builds on these
functions.
"""

from engine.run.reference import RunCancelled, RunCounts, RunResult, run_model, run_reference

__all__ = ["RunCancelled", "RunCounts", "RunResult", "run_model", "run_reference"]
