"""Limits on input, checked up front so hostile or broken files give one clear error, never a crash.

Loading, validating, evaluating and exporting walk nested structures (JSON,
column-map methods, type strings, SQL); the parsers that do so recursively
(Python's `json`, sqlglot, the run's evaluator) are only ever given input
within these bounds. Each limit is far above what a real model holds; the
README's model-format paragraph lists them.
"""

from __future__ import annotations

MAX_JSON_DEPTH = 100
"""Arrays and objects nested inside each other in a model or schedule file (a model needs about 70 at most)."""

MAX_METHOD_DEPTH = 32
"""Column-map methods nested inside one another in one column map, counting the columns read:
`upper(trim(NAME))` is 3."""

MAX_TYPE_DEPTH = 16
"""ROW / SET / LIST / MULTISET nested inside one another in one type string."""

MAX_SQL_CHARS = 20_000
"""Characters in one `where` clause or `expression` method."""

MAX_SQL_NESTING = 16
"""Parentheses, brackets and CASE ... END nested in one SQL snippet, plus the longest run of prefix
operators (NOT, unary minus, INTERVAL...) where it sits."""

MAX_SQL_DEPTH = 100
"""Depth of a SQL snippet once parsed (a chain of 100 ANDs, or 100 operators applied in turn)."""

MAX_INT_DIGITS = 38
"""Digits in a JSON integer: DECIMAL(38) is the widest exact number of the DBMSs Mapwright maps between."""

MAX_DELAY_S = 365 * 24 * 3600
"""A schedule's propagation delay, in seconds (one year)."""
