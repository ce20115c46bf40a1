"""One home for the Spark SQL of `where` clauses and `expression` methods.

- `parse`: reading a snippet through sqlglot within the input limits (`parse_expression`);
- `lineage`: the columns a parsed snippet reads, from the tree;
- `allowlist`: the pure scalar functions and operators a model may use (anything else is a finding);
- `evaluate`: the pure-Python reference evaluator, with Spark's ANSI semantics on the allow-list; its
  handlers by concept (`logic`, `text`, `numbers`, `dates`, `conditionals`), what Spark's optimizer makes
  of a snippet before any row (`replaces`, `simplify`, `canonical`, `folding`) and Spark's types
  (`coercion`, `decimals`, `floats`, `casts`, `datetimes`, `patterns`);
- `spark`: the checked SQL Spark runs, its column names bound to the columns that hold them (the
  pipeline's method compiler, `engine.spark.methods`, builds on it).

Validation, lineage and evaluation all read the same tree, so validation accepts exactly what a run
can execute. Only `parse` is re-exported here: the model imports it while it loads, and the evaluator
needs the model's types.
"""

from engine.sql.parse import ParsedSql, limit_problem, parse_expression, regex_problem, token_nesting, tree_depth

__all__ = ["ParsedSql", "limit_problem", "parse_expression", "regex_problem", "token_nesting", "tree_depth"]
