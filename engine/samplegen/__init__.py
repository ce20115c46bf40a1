"""Sample data for any valid model (`mapwright sample`): snapshots, a day of changes, a schedule.

`generate_sample(model, out, options)` writes what `mapwright run --data out` reads (docs/contract.md §4):

- Snapshots of every table at every site (`snapshot`): realistic values by column name and type (Faker,
  `values`), that fit each column (length, precision, NOT NULL, defaults, unique keys); rows of tables that
  mappings feed are the images of their source rows through the run's own mapping code, so the sites start
  consistent. `initial` rows (read from a database, `fromdb`) stand in for one server's made-up rows.
- A `schedule.json` with delays on every linked pair of sites and the requested outages.
- Changes at every site that writes (`ordinary`): inserts, updates, deletes, key changes, multi-row
  transactions and schema versions, each with its true before image, kept by a replica that applies
  commits and deliveries as a run does (`replica`).
- Conflict scenarios (`scenarios`) on a share `conflict_rate` of the delivered keys; the rate is counted
  as a run's destinations see it: distinct (table, distribution key) with a conflict over distinct (table,
  distribution key) some delivery reaches. Every method and backup the model's `conflicts` configure is
  aimed at until it decides. Ordinary changes never conflict.
- Malformed lines (`script.broken_line`) on a share `malformed_rate` of the records (0: a run rejects none).

The same model, seed and options give byte-identical files. `out` is written as runs are (`staging`):
staged beside it and swapped in, marked by `sampledata.json` listing its files; a folder holding any
other file is refused and left untouched.
"""

from engine.sampledata.staging import SampleError
from engine.samplegen.generate import generate_sample
from engine.samplegen.options import Outage, SampleCancelled, SampleOptions, SampleSummary

__all__ = ["Outage", "SampleCancelled", "SampleError", "SampleOptions", "SampleSummary", "generate_sample"]
