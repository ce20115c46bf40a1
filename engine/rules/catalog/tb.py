"""TB: one table's own definition: keys and indexes, parents, defaults, names, foreign keys and features."""

from __future__ import annotations

from engine.rules.catalog.shapes import ID, NAME, col, model, one_table, server, table
from engine.rules.rule import ModelDict, Rule, Severity

E = Severity.ERROR
CUST_ID = col("CUST_ID", nullable=False)
ORDER_FK = {"columns": ["CUST_ID"], "references": "CUSTOMER", "referenced_columns": ["ID"]}


def orders(with_customer: bool) -> ModelDict:
    """s.ORDERS with a foreign key to s.CUSTOMER, which the model has only `with_customer`."""
    tables = [table("s", "ORDERS", [ID, CUST_ID], ["ID"], foreign_keys=[ORDER_FK])]
    if with_customer:
        tables.append(table("s", "CUSTOMER", [ID, NAME], ["ID"]))
    return model([server("s")], tables)


def family(parent: str) -> ModelDict:
    """s.PERSON and s.EMPLOYEE, whose `parent` is `parent`."""
    return model([server("s")], [table("s", "PERSON", [ID, NAME], ["ID"]),
                                 table("s", "EMPLOYEE", [ID, NAME], ["ID"], parent=parent)])


RULES = (
    Rule("TB001", E, ("table",), "key or index names an unknown column",
         "The table's primary key, a unique index or an index names a column the table does not have.",
         "Correct the column name, or add the column.",
         one_table([ID, NAME], pk=["CUST_ID"]), one_table([ID, NAME], pk=["ID"])),
    Rule("TB002", E, ("table", "model"), "table parent is unknown or circular",
         "A table's `parent` names no table on its server, or the parents of a hierarchy go round in a circle.",
         "Name an existing table of the same server as the parent (or none), and keep the hierarchy a tree.",
         family("PERSONS"), family("PERSON")),
    Rule("TB003", E, ("table",), "column default is not one constant SQL expression",
         "A column's `default` is not one constant expression in its server's SQL (it names a column, is a "
         "query or a statement, does not parse), or its value does not fit the column's type: the DDL cannot "
         "hold it, or the database would refuse it.",
         "Write the default as a literal or a function of no columns in the server's SQL (`'new'`, `0`, "
         "`CURRENT_TIMESTAMP`), of a value that fits the column.",
         one_table([ID, col("STATUS", "VARCHAR(10)", default="'brand new status'")]),
         one_table([ID, col("STATUS", "VARCHAR(10)", default="'new'")])),
    Rule("TB004", E, ("table",), "column names differ only in case",
         "Two columns of the table have names that differ only in case: Spark, and most databases for names "
         "that are not quoted, cannot tell them apart.",
         "Rename one of them.",
         one_table([ID, NAME, col("Name", "VARCHAR(40)")]), one_table([ID, NAME, col("NICKNAME", "VARCHAR(40)")])),
    Rule("TB005", E, ("table",), "key or index names a column twice",
         "The primary key or an index lists a column more than once; the database refuses such a key.",
         "List each column once.",
         one_table([ID, NAME], pk=["ID", "ID"]), one_table([ID, NAME], pk=["ID"])),
    Rule("TB006", E, ("table",), "foreign key names an unknown table or column, or does not match",
         "A foreign key names a column its table does not have, a table not on the same server, a column the "
         "referenced table does not have, a different number of columns on each side, or (where the DBMS "
         "requires it, as PostgreSQL does) columns that are not the referenced table's primary key or a unique "
         "index of it.",
         "Correct the foreign key so it references the primary key (or a unique index) of a table of the same "
         "server, column for column.",
         orders(with_customer=False), orders(with_customer=True)),
    Rule("TB007", E, ("table",), "partitioning, generated, identity, enum, index or check is malformed",
         "One of the table's database features cannot be created: two indexes with one name, a check without a "
         "condition, a partition key naming an unknown or repeated column, two partitions with one name, a "
         "unique key without the partition key (PostgreSQL, MySQL), a generated column with a default or an "
         "identity, an identity with a default or on a column that is not a whole number, an enum on a "
         "non-character column or listing a value twice.",
         "Correct the feature as the message says.",
         one_table([col("ID", "VARCHAR(10)", nullable=False, identity={}), NAME]),
         one_table([col("ID", "INTEGER", nullable=False, identity={}), NAME])),
)
