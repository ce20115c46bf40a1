"""FK: foreign keys across servers: a child row arrives with the mapping that brings its parent."""

from __future__ import annotations

from engine.rules.catalog.shapes import ID, NAME, col, mapping, model, server, table
from engine.rules.rule import ModelDict, Rule, Severity

CUST_ID = col("CUST_ID", nullable=False)
ORDER_FK = {"columns": ["CUST_ID"], "references": "CUSTOMER", "referenced_columns": ["ID"]}


def orders(with_customers: bool) -> ModelDict:
    """s.ORDERS and s.CUSTOMER copied to t, where t.ORDERS references t.CUSTOMER; the customers are mapped
    only `with_customers`."""
    tables = [table(site, "CUSTOMER", [ID, NAME], ["ID"]) for site in ("s", "t")]
    tables += [table("s", "ORDERS", [ID, CUST_ID], ["ID"]),
               table("t", "ORDERS", [ID, CUST_ID], ["ID"], foreign_keys=[ORDER_FK])]
    mappings = [mapping("m_orders", "s.ORDERS", "t.ORDERS", {"ID": "ID", "CUST_ID": "CUST_ID"})]
    if with_customers:
        mappings.append(mapping("m_customers", "s.CUSTOMER", "t.CUSTOMER", {"ID": "ID", "NAME": "NAME"}))
    return model([server("s"), server("t")], tables, mappings)


RULES = (
    Rule("FK001", Severity.WARNING, ("mapping",), "child rows may arrive without their parent table",
         "The target has a foreign key to a table on its server that no mapping from the source's server "
         "feeds: the rows this mapping brings may arrive without their parent rows (the apply fails, or leaves "
         "orphans). A mapping within one server needs none.",
         "Replicate the parent table from the same source server too.",
         orders(with_customers=False), orders(with_customers=True)),
)
