"""Sample data for the bundled sample model: one business day at three sites (docs/contract.md §4).

`generate(model, out)` writes what `mapwright run --data out` reads:

    out/snapshots/<server>/<table>.csv|.jsonl    the rows at 06:00, the same data at every site
    out/changes/<site>-am.jsonl, <site>-pm.jsonl  the day's change records, split at 13:00
    out/schedule.json                             propagation delays and two outage windows
    out/sampledata.json                           marks the folder as the generator's and lists every
                                                  file it wrote: only an empty folder, or one holding
                                                  nothing but those files, is written over (staged beside
                                                  it and swapped in whole, as runs are)

or, with `debezium=True`, the same day as Debezium change events (`debezium.DebeziumWriter`):

    out/changes/debezium/<server>/00-snapshot.jsonl, <site>-am.jsonl, <site>-pm.jsonl

The day holds three kinds of traffic:

- Ordinary work (`day`): orders placed, paid, shipped and billed; price lists, stock counts; customers
  registering, moving and collecting points. An entity is changed by one site at a time, and only
  once its previous change has reached every site, so ordinary work never conflicts; and each change is
  made where the mappings carry it to every site holding its columns, so ordinary work converges. `Sites`
  (`replica`), a replica of every site kept through the model's own mappings, gives each change its
  true before image (and checks, as a run would, that no delivery meets a conflict).
- Scenarios (`scenarios`): short scripted stories on entities set aside for them, each written to meet
  a conflict: two sites moving one customer within the propagation delay, an order number keyed
  twice, a product delisted at the branch and repriced at HQ... Between them every resolution
  method of the model decides at least once, and some changes end in the error queue.
- Malformed lines (`malformed`, 1.5%): torn JSON, an unknown table or op, a bad timestamp, a column
  the record's schema version lacks, a missing key column. A run rejects them and goes on.

`web.ORDERS` gains `PAYMENT_REF` with the web shop's release at noon (replication definition
version 2): its records carry `schema_version` 1 before noon and 2 after (seed 002).

Deterministic: one `random.Random(seed)` (held by the `shop`), whole-second timestamps, files written
in a fixed order (`writer`); the same model and seed give byte-identical files.

Modules: `timetable` (the day's hours, the links' schedule), `transactions` (`Op`, `Txn`),
`catalogue` (made-up people and goods), `replica`, `shop` (the shared state), `snapshot`, `day`,
`scenarios`, `malformed`, `writer`, `debezium`, `generator` (`generate`) and `cli` (`main`).
"""

from engine.sampledata.cli import main
from engine.sampledata.generator import generate

__all__ = ["generate", "main"]
