"""A run's input: everything that reads the data directory (docs/contract.md §4).

`files` (input files opened as an attacker might hand them, `InputError`), `records` (change records),
`snapshots` (initial rows), `debezium` (Debezium change events: envelope, values, files), `schedule`
(`schedule.json`), `jsonvalues` (JSON values one after another) and `keys` (the row identity both the
input and the semantics key rows by). Headless, and below the semantics: it imports none of them.
"""
