"""DK: the distribution key (seed 000), the set of target columns that identifies a row a mapping delivers.

A mapping's key, when it names none, is the target's primary key; else its first unique index; else the
target columns copied from every primary-key column of the source; else none (DK001).
"""

from __future__ import annotations

from engine.rules.catalog.shapes import ID, NAME, Dict, col, one_way
from engine.rules.rule import ModelDict, Rule, Severity

E, W = Severity.ERROR, Severity.WARNING
NO_KEYS = [col("ID"), NAME]


def keyed(column: Dict, tgt_dbms: str = "postgresql") -> ModelDict:
    """s.T and t.T whose primary key is `column`, copied."""
    return one_way([column, NAME], src_pk=[str(column["name"])], tgt_pk=[str(column["name"])], tgt_dbms=tgt_dbms)


def keyed_by(name: str, extra: Dict) -> ModelDict:
    """s.T and t.T (ID primary key, NAME, and `extra`), with `name` as the mapping's distribution key."""
    return one_way([ID, NAME, extra], map_extra={"distribution_key": [name]})


RULES = (
    Rule("DK001", E, ("mapping",), "mapping has no distribution key",
         "A mapping that is not a journal mapping needs a distribution key: the target columns that find the row "
         "an update or a delete applies to. None was named, and the default rule found none: the target has no "
         "primary key or unique index, and the source's primary key is not copied whole.",
         "Give the target table a primary key or a unique index, name the key with `distribution_key`, or mark "
         "the mapping `\"journal\": true` if it only appends (a journal mapping needs no key).",
         one_way(NO_KEYS), one_way(NO_KEYS, map_extra={"journal": True})),
    Rule("DK002", E, ("mapping",), "distribution-key column is not mapped",
         "A column of the distribution key has no column map in the mapping: the key of each delivered row "
         "would be empty.",
         "Map the key column (copy it from the source, or compute it with a method), or choose a key made of "
         "mapped columns.",
         one_way(columns={"NAME": "NAME"}), one_way()),
    Rule("DK003", E, ("mapping",), "distribution key longer than 256 bytes",
         "The byte lengths of the key's columns add up to more than 256 (character n bytes, INTEGER 4, BIGINT "
         "8, DECIMAL(p,s) p/2+1, TIMESTAMP 10, ...; a DECIMAL without a precision counts at the target DBMS's "
         "default one). Not checked when the source server is Oracle.",
         "Choose a shorter key: a surrogate number, or fewer or narrower columns.",
         keyed(col("CODE", "VARCHAR(260)", nullable=False)), keyed(col("CODE", "VARCHAR(256)", nullable=False))),
    Rule("DK004", E, ("mapping",), "distribution-key column is a large object",
         "A key column is a long or large-object type (TEXT, CLOB, BLOB, BYTE, LONG, LONG RAW): such values "
         "cannot identify a row.",
         "Take the large object out of the key; key the rows by a scalar column.",
         keyed_by("DOC", col("DOC", "CLOB")), keyed_by("ID", col("DOC", "CLOB"))),
    Rule("DK005", E, ("mapping",), "distribution-key column is a medium character column",
         "A key column is a character column longer than the target DBMS allows in a key: more than 254 "
         "characters on DB2, more than 255 on SQL Server.",
         "Shorten the column, or key the rows by another column.",
         keyed(col("CODE", "VARCHAR(255)", nullable=False), "db2"),
         keyed(col("CODE", "VARCHAR(254)", nullable=False), "db2")),
    Rule("DK006", E, ("mapping",), "distribution-key column is BIT",
         "A key column is BIT: a bit cannot identify a row.",
         "Take the BIT column out of the key.",
         keyed_by("FLAG", col("FLAG", "BIT")), keyed_by("ID", col("FLAG", "BIT"))),
    Rule("DK007", E, ("mapping",), "distribution-key column is binary",
         "A key column is binary (BINARY, VARBINARY, RAW): binary values cannot be a distribution key.",
         "Key the rows by another column, or keep the value as text (a hexadecimal CHAR).",
         keyed(col("HASH", "VARBINARY(16)", nullable=False)), keyed(col("HASH", "CHAR(32)", nullable=False))),
    Rule("DK008", W, ("mapping",), "distribution-key column is approximate numeric",
         "A key column is REAL, FLOAT or DOUBLE: approximate numbers do not compare exactly across servers, so "
         "a row may not be found again.",
         "Use an exact type for key columns (INTEGER, DECIMAL(p,s)).",
         keyed(col("MEASURE", "DOUBLE", nullable=False)), keyed(col("MEASURE", "DECIMAL(12,2)", nullable=False))),
    Rule("DK009", W, ("mapping",), "source columns feeding the key are not unique",
         "The source columns whose values flow into the key are not a primary key or unique index of the "
         "source table: two source rows may give one key, and their changes would collide at the target. "
         "Checked only when every key column exists and is mapped.",
         "Feed the key from a unique set of source columns, or declare the unique index the source has.",
         one_way([ID, col("CODE", "CHAR(4)", nullable=False)], [col("CODE", "CHAR(4)", nullable=False)],
                 src_pk=["ID"], tgt_pk=["CODE"]),
         one_way([ID, col("CODE", "CHAR(4)", nullable=False)], [col("CODE", "CHAR(4)", nullable=False)],
                 src_pk=["ID"], tgt_pk=["CODE"],
                 src_table={"unique_indexes": [{"name": "UX_CODE", "columns": ["CODE"]}]})),
    Rule("DK010", W, ("mapping",), "distribution key is not unique in the target",
         "The key's columns are not the primary key or a unique index of the target table: an update or a "
         "delete found by the key may hit several rows. Checked only when every key column exists and is "
         "mapped.",
         "Key the mapping by the target's primary key or a unique index, or declare the unique index the "
         "target has.",
         one_way(map_extra={"distribution_key": ["NAME"]},
                 src_table={"unique_indexes": [{"name": "UX_NAME", "columns": ["NAME"]}]}),
         one_way(map_extra={"distribution_key": ["NAME"]},
                 src_table={"unique_indexes": [{"name": "UX_NAME", "columns": ["NAME"]}]},
                 tgt_table={"unique_indexes": [{"name": "UX_NAME", "columns": ["NAME"]}]})),
    Rule("DK011", E, ("mapping",), "distribution key names an unknown column",
         "The mapping's `distribution_key` names a column the target table does not have (reported instead of "
         "DK002 for that column).",
         "Correct the name, or add the column to the target table.",
         one_way(map_extra={"distribution_key": ["CUST_ID"]}), one_way(map_extra={"distribution_key": ["ID"]})),
)
