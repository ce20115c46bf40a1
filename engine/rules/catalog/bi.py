"""BI: bidirectional mappings, a mapping and its `reverse` that carries the data back."""

from __future__ import annotations

from typing import Any

from engine.rules.catalog.shapes import ID, NAME, mapping, one_way
from engine.rules.rule import ModelDict, Rule, Severity

E = Severity.ERROR


def both_ways(forward_id: Any, back_id: Any, reverse: str = "back") -> ModelDict:
    """`m` from s.T to t.T and `back` from t.T to s.T, each naming the other as its reverse, with the ID
    columns mapped by `forward_id` and `back_id`."""
    back = mapping("back", "t.T", "s.T", {"ID": back_id, "NAME": "NAME"}, reverse="m")
    return one_way([ID, NAME], columns={"ID": forward_id, "NAME": "NAME"}, map_extra={"reverse": reverse},
                   more_mappings=[back])


RULES = (
    Rule("BI001", E, ("mapping",), "reverse mapping is missing or does not go back",
         "The mapping's `reverse` names no mapping of the model, or a mapping that does not go from this "
         "mapping's target back to its source.",
         "Name the id of the mapping that carries the data back (its source is this mapping's target and its "
         "target this mapping's source), or remove `reverse`.",
         one_way(map_extra={"reverse": "back"}), both_ways("ID", "ID")),
    Rule("BI002", E, ("mapping",), "distribution key is not reversible",
         "A key column of either direction does not survive the round trip: applying the mapping and then its "
         "reverse does not give back the source's key columns. Only inverse pairs are reversible: a copy and "
         "a copy, `concat` and `split` with the same separator, a `cast` between character and number or "
         "date and the opposite `cast`; an `expression` never is. Checked only when the mapping has a "
         "distribution key and BI001 does not apply.",
         "Map the key columns in both directions by inverse methods (copy them, or `concat` one way and "
         "`split` back).",
         both_ways({"method": "expression", "sql": "ID * 10"}, {"method": "expression", "sql": "ID / 10"}),
         both_ways("ID", "ID")),
)
