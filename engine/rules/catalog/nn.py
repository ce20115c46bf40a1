"""NN: protected (collision-detecting) replication with Oracle or DB2 (seed 000)."""

from __future__ import annotations

from engine.rules.catalog.shapes import NAME, col, one_way
from engine.rules.rule import ModelDict, Rule, Severity


def protected(nullable: bool) -> ModelDict:
    """Protected replication from Oracle: the key is the unique index on ID, nullable or not."""
    key = col("ID", nullable=nullable)
    unique = {"unique_indexes": [{"name": "UX_ID", "columns": ["ID"]}]}
    return one_way([key, NAME], src_pk=[], tgt_pk=[], src_dbms="oracle", src_table=unique, tgt_table=unique,
                   protected=True)


RULES = (
    Rule("NN001", Severity.ERROR, ("mapping",), "no NOT NULL key column in protected replication",
         "In protected replication (`\"protected\": true`) involving an Oracle or DB2 server, each side of a "
         "mapping needs a NOT NULL distribution-key column: on the target, one of the key's columns; on the "
         "source, one of the columns feeding them. Reported once per mapping, naming the sides that lack one.",
         "Declare a key column NOT NULL (`\"nullable\": false`) on each server, or key the mapping by columns "
         "that are.",
         protected(nullable=True), protected(nullable=False)),
)
