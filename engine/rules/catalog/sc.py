"""SC: replication definitions (seed 002), the versions of a table's replicated columns."""

from __future__ import annotations

from engine.rules.catalog.shapes import ID, NAME, col, one_table
from engine.rules.rule import Rule, Severity

EMAIL = col("EMAIL", "VARCHAR(80)")
V1 = {"version": 1, "columns": ["ID", "NAME"]}
V2 = {"version": 2, "columns": ["ID", "NAME", "EMAIL"]}

RULES = (
    Rule("SC001", Severity.ERROR, ("table",), "table differs from its latest replication definition",
         "A table's columns differ from its latest replication definition (the one of the highest version): a "
         "column the definition lacks would not replicate (data loss); a column only the definition has would "
         "make replication fail; a type that differs would be converted.",
         "Add a replication definition version that lists the table's columns as they are now.",
         one_table([ID, NAME, EMAIL], replication_definitions=[V1]),
         one_table([ID, NAME, EMAIL], replication_definitions=[V1, V2])),
    Rule("SC002", Severity.ERROR, ("table",), "replication definitions are inconsistent",
         "A table's replication definition versions do not strictly increase in the order listed, or a version "
         "lists a column twice.",
         "Number the versions in increasing order, and list each column once per version.",
         one_table([ID, NAME, EMAIL], replication_definitions=[V2, V1]),
         one_table([ID, NAME, EMAIL], replication_definitions=[V1, V2])),
)
