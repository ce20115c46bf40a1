"""The reference semantics of a replication run (docs/contract.md §4-6), in pure Python.

Stages, one module each: `net_effect` (seed 004), `methods` (column maps and `where`), `order` (delivery
times and event order), `resolve` (conflict methods), `detect` (one delivered change at its destination),
`fold` (the per-group core a Spark stage calls), `converge`, `replica` (what a captured old row holds),
`state` (the rows at a site), `context` (the plans of a model) and `reference` (the whole run).
"""
