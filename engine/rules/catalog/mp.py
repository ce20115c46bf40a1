"""MP: what a mapping reads and writes, and the SQL it carries (`where`, `expression`)."""

from __future__ import annotations

from engine.rules.catalog.shapes import ID, NAME, col, one_way
from engine.rules.rule import Rule, Severity

E, W = Severity.ERROR, Severity.WARNING
NAME_UP = col("NAME_UP", "VARCHAR(40)", generated={"expression": "upper(NAME)"})

RULES = (
    Rule("MP001", E, ("mapping",), "method reads an unknown source column",
         "A column map's method (or the SQL of an `expression`) reads a column the source table does not have.",
         "Correct the column name, or add the column to the source table.",
         one_way(columns={"ID": "ID", "NAME": "FULL_NAME"}), one_way(columns={"ID": "ID", "NAME": "NAME"})),
    Rule("MP002", E, ("mapping",), "mapping names an unknown server or table",
         "The mapping's `source` or `target` (`server.table`) names a server or table the model does not have. "
         "The mapping gets no other finding until both ends are known.",
         "Correct the reference (the message lists the server's tables), or add the table to the model.",
         one_way(map_extra={"source": "s.CUSTOMER"}), one_way()),
    Rule("MP003", E, ("mapping",), "where clause is not valid",
         "The mapping's `where` clause does not parse as Spark SQL, names a column the source does not have, "
         "is not a condition (a BOOLEAN), or reads the clock (which rows it sends would change with time).",
         "Write the clause over the source table's columns as a condition, e.g. `STATUS <> 'void'`.",
         one_way(map_extra={"where": "STATUS <> 'void'"}), one_way(map_extra={"where": "NAME <> 'void'"})),
    Rule("MP004", E, ("mapping",), "expression is not valid Spark SQL",
         "The SQL of an `expression` method does not parse, or uses what a run cannot execute.",
         "Correct the expression; it is one Spark SQL expression over the source columns.",
         one_way(columns={"ID": "ID", "NAME": {"method": "expression", "sql": "upper(NAME"}}),
         one_way(columns={"ID": "ID", "NAME": {"method": "expression", "sql": "upper(NAME)"}})),
    Rule("MP005", E, ("mapping",), "column map names an unknown target column",
         "The mapping's `columns` maps into a column the target table does not have.",
         "Correct the target column's name, or add the column to the target table.",
         one_way(columns={"ID": "ID", "FULL_NAME": "NAME"}), one_way(columns={"ID": "ID", "NAME": "NAME"})),
    Rule("MP006", W, ("mapping",), "regular expression may backtrack exponentially",
         "A literal regular expression in the `where` clause or an `expression` nests repetition (`(a+)+`) in "
         "a way that takes exponential time on a value that almost matches: one such row stalls the run.",
         "Rewrite the pattern without nested repetition (`(a+)+b` is `a+b`), or make the inner part possessive "
         "(`a++`) or atomic (`(?>...)`).",
         one_way(map_extra={"where": "NAME rlike '(a+)+b'"}), one_way(map_extra={"where": "NAME rlike 'a+b'"})),
    Rule("MP007", E, ("mapping",), "mapping writes a generated column",
         "The mapping maps a value into a generated column of the target: the database computes that column "
         "and refuses a value given to it.",
         "Remove the column map; the target computes the value itself.",
         one_way([ID, NAME], [ID, NAME, NAME_UP],
                 columns={"ID": "ID", "NAME": "NAME", "NAME_UP": {"method": "upper", "input": "NAME"}}),
         one_way([ID, NAME], [ID, NAME, NAME_UP])),
)
