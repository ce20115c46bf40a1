"""PT: partitioned tables as replication sources."""

from __future__ import annotations

from engine.rules.catalog.shapes import one_way
from engine.rules.rule import ModelDict, Rule, Severity


def partitioned_source(via_root: bool) -> ModelDict:
    """s.T partitioned by range of ID on PostgreSQL, publishing via its partition root or not."""
    partitioning = {"method": "range", "columns": ["ID"],
                    "partitions": [{"name": "T_1", "bound": "FOR VALUES FROM (1) TO (1000)"}],
                    "publish_via_partition_root": via_root}
    return one_way(src_table={"partitioning": partitioning})


RULES = (
    Rule("PT001", Severity.WARNING, ("mapping",), "partitioned source does not publish via its partition root",
         "A partitioned PostgreSQL source table does not publish via its partition root: its changes are "
         "published under its partitions' names, tables the target does not have.",
         "Set `\"publish_via_partition_root\": true` in the source table's `partitioning`.",
         partitioned_source(via_root=False), partitioned_source(via_root=True)),
)
