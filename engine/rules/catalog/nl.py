"""NL: NOT NULL target columns a mapping must fill."""

from __future__ import annotations

from engine.rules.catalog.shapes import ID, NAME, col, one_way
from engine.rules.rule import Rule, Severity

RULES = (
    Rule("NL001", Severity.ERROR, ("mapping",), "NOT NULL target column is not mapped",
         "A target column is NOT NULL, has no default (or a default of NULL) and is not generated, and the "
         "mapping gives it no value: every row delivered would be refused.",
         "Map the column, give it a default, or let it allow NULL.",
         one_way([ID, NAME], [ID, NAME, col("CREATED", "TIMESTAMP", nullable=False)]),
         one_way([ID, NAME], [ID, NAME, col("CREATED", "TIMESTAMP", nullable=False, default="CURRENT_TIMESTAMP")])),
    Rule("NL002", Severity.WARNING, ("mapping",), "NOT NULL column copied from a nullable column",
         "A NOT NULL target column is copied from a source column that allows NULL: a source row with NULL "
         "there would be refused at the target.",
         "Make the source column NOT NULL, let the target column allow NULL, or feed it with a method that "
         "never gives NULL.",
         one_way([ID, NAME], [ID, col("NAME", "VARCHAR(40)", nullable=False)]),
         one_way([ID, col("NAME", "VARCHAR(40)", nullable=False)])),
)
