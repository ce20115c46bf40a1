"""A 30-table model for preview benchmarks: 15 tables at two sites, each replicated both ways, with column
groups resolved by the methods designers use (latest timestamp, additive, site priority, priority group).

`python -m benchmarks.wide_model OUT.json` writes it; `wide_model()` returns the document.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SITES = (("hq", "oracle", 30), ("branch", "postgresql", 20))
ENTITIES = ("CUSTOMER", "SUPPLIER", "PRODUCT", "WAREHOUSE", "STOCK", "ORDERS", "ORDER_LINE", "INVOICE", "PAYMENT",
            "SHIPMENT", "CARRIER", "EMPLOYEE", "STORE", "PROMOTION", "RETURNS")


def _columns() -> list[dict[str, Any]]:
    return [{"name": "ID", "type": "INTEGER", "nullable": False},
            {"name": "NAME", "type": "VARCHAR(60)", "nullable": False},
            {"name": "EMAIL", "type": "VARCHAR(80)"},
            {"name": "CITY", "type": "VARCHAR(40)"},
            {"name": "STATUS", "type": "VARCHAR(12)", "default": "'new'"},
            {"name": "QTY", "type": "INTEGER"},
            {"name": "AMOUNT", "type": "DECIMAL(12,2)"},
            {"name": "UPDATED_AT", "type": "TIMESTAMP", "nullable": False}]


def wide_model() -> dict[str, Any]:
    tables, mappings, conflicts = [], [], []
    names = [c["name"] for c in _columns()]
    for entity in ENTITIES:
        for site, _, _ in SITES:
            tables.append({"server": site, "name": entity, "columns": _columns(), "primary_key": ["ID"]})
            conflicts.append({"table": f"{site}.{entity}", "column_groups": [
                {"name": "contact", "columns": ["NAME", "EMAIL", "CITY", "UPDATED_AT"],
                 "resolution": [{"method": "latest_timestamp", "column": "UPDATED_AT"}, {"method": "site_priority"}]},
                {"name": "stock", "columns": ["QTY"], "resolution": [{"method": "additive"}]},
                {"name": "state", "columns": ["STATUS"],
                 "resolution": [{"method": "priority_group", "column": "STATUS",
                                 "priorities": {"new": 1, "active": 2, "closed": 3}}, {"method": "site_priority"}]},
                {"name": "money", "columns": ["AMOUNT"], "resolution": [{"method": "site_priority"}]}]})
        forward, back = f"hq_{entity.lower()}_to_branch", f"branch_{entity.lower()}_to_hq"
        mappings.append({"id": forward, "source": f"hq.{entity}", "target": f"branch.{entity}",
                         "columns": {n: n for n in names}, "reverse": back})
        mappings.append({"id": back, "source": f"branch.{entity}", "target": f"hq.{entity}",
                         "columns": {n: n for n in names}, "reverse": forward})
    return {"format": "mapwright/1", "name": "wide", "protected": False,
            "servers": [{"id": site, "dbms": dbms, "priority": priority} for site, dbms, priority in SITES],
            "tables": tables, "mappings": mappings, "conflicts": conflicts}


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(wide_model(), indent=1) + "\n")
