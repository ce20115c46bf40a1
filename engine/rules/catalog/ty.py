"""TY: data types (seed 001): user types, floating point, serials, large objects, narrowing, native types."""

from __future__ import annotations

from typing import Any

from engine.rules.catalog.shapes import ID, NAME, col, mapping, one_table, one_way
from engine.rules.rule import Rule, Severity

E, W = Severity.ERROR, Severity.WARNING
SERIAL_ID = col("ID", "SERIAL", nullable=False)
FORMATS: dict[str, Any] = {"src_server": {"float_format": "ieee"}, "tgt_server": {"float_format": "ibm-hex"}}
DOC = col("DOC", "BLOB", storage="blobspace")

RULES = (
    Rule("TY001", E, ("mapping",), "user type replicated without stream support",
         "A column of a user-defined type (`UDT:name`, or a complex type holding one) is read or written by a "
         "mapping, and the column does not declare stream support: the server cannot send or receive its "
         "values.",
         "Declare `\"stream_support\": true` on the column once its type has stream support (streamwrite and "
         "streamread), or leave the column out of the mapping.",
         one_way([ID, col("GEO", "UDT:point")]), one_way([ID, col("GEO", "UDT:point", stream_support=True)])),
    Rule("TY002", W, ("mapping",), "floating point crosses native formats",
         "An approximate-numeric value (REAL, FLOAT, DOUBLE) moves between servers whose `float_format` labels "
         "differ, and the model sets no `float_transfer`: the value may change on the way.",
         "Set the model's `float_transfer` to `ieee` or `canonical`.",
         one_way([ID, col("RATE", "DOUBLE")], **FORMATS),
         one_way([ID, col("RATE", "DOUBLE")], float_transfer="ieee", **FORMATS)),
    Rule("TY003", W, ("mapping",), "SERIAL key column with several masters",
         "A SERIAL or SERIAL8 column is in the distribution key of a table that more than one master writes: "
         "each server numbers its rows on its own, and the numbers will collide.",
         "Key the table by something unique across servers (a site column with the number), or let one master "
         "write it.",
         one_way([SERIAL_ID, NAME], more_mappings=[mapping("back", "t.T", "s.T", {"ID": "ID", "NAME": "NAME"})]),
         one_way([SERIAL_ID, NAME])),
    Rule("TY004", W, ("mapping",), "large object may not be updated with changed columns only",
         "A large object stored in a blobspace or sbspace is replicated by a mapping with "
         "`changed_columns_only`: an update that leaves it unchanged does not send it, and the target may not "
         "update it.",
         "Turn `changed_columns_only` off for the mapping, or store the object in row.",
         one_way([ID, DOC], src_dbms="informix", tgt_dbms="informix", map_extra={"changed_columns_only": True}),
         one_way([ID, DOC], src_dbms="informix", tgt_dbms="informix")),
    Rule("TY005", W, ("mapping",), "column is fed a value of an incompatible or narrower type",
         "A target column is fed a value whose type may not convert to the column's, or may not fit in it (a "
         "longer text, a wider number, a fraction into an integer). The message suggests the cast that makes "
         "the conversion explicit.",
         "Widen the target column, or map through an explicit `cast` (or a `substring`) that states what "
         "happens to a value that does not fit.",
         one_way([ID, NAME], [ID, col("NAME", "VARCHAR(10)")]), one_way([ID, NAME], [ID, col("NAME", "VARCHAR(40)")])),
    Rule("TY006", W, ("table",), "a column's type is not a type of its server's DBMS",
         "A column's type belongs to other DBMSs only (VARCHAR2 and NUMBER are Oracle's, SERIAL PostgreSQL's "
         "and Informix's, DATETIME SQL Server's, ...): the DDL for its own server would write something else. "
         "The message names the type to use instead. SQLite and `other` servers are not checked.",
         "Use the type the message names (the designer's quick fix converts it).",
         one_table([ID, col("NAME", "VARCHAR2(40)")]), one_table([ID, col("NAME", "VARCHAR(40)")])),
)
