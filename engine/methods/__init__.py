"""Each column method's meaning, once: one class per method (`engine.methods.kinds`).

The model's pydantic classes (`engine.model.methods`) say what a method's JSON holds; the classes here say
what is backend-independent about each: how many inputs it reads, and the method a designer puts on a
column when it inserts one. The backends (the reference
evaluation in `engine.run.semantics.methods`, the Spark SQL in `engine.spark.methods`, the GoldenGate text
in `engine.deploy.goldengate`, the renderings and types of `engine.reversibility` and
`engine.rules.typecompat`) dispatch by the model's class with a `match` ending in `assert_never`, so
`mypy --strict` refuses a method added to `Method` without its case in each; `KINDS` is proved complete by
tests/validation/test_method_kinds.py. This package sits above `engine.model`, which never imports it.
"""

from engine.methods.kinds import INSERTABLE, KINDS, MethodKind, kind_of

__all__ = ["INSERTABLE", "KINDS", "MethodKind", "kind_of"]
