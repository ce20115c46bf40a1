"""CR: conflict resolution (seed 003), the `conflicts` settings of a table where mapped data lands."""

from __future__ import annotations

from typing import Any

from engine.rules.catalog.shapes import ID, NAME, Dict, col, model, one_way, server, table, two_way
from engine.rules.rule import ModelDict, Rule, Severity

E, W = Severity.ERROR, Severity.WARNING
CITY = col("CITY", "VARCHAR(40)")
UPDATED = col("UPDATED_AT", "TIMESTAMP")
PRIORITIES: dict[str, Any] = {"src_server": {"priority": 20}, "tgt_server": {"priority": 10}}


def group(name: str, columns: list[str], *methods: Dict) -> Dict:
    return {"name": name, "columns": columns, "resolution": list(methods)}


def settled(groups: list[Dict], cols: list[Dict] | None = None, **extra: Any) -> ModelDict:
    """s.T copied to t.T (one master), with conflict settings of `groups` on t.T."""
    return one_way(cols or [ID, NAME, CITY], conflicts=[{"table": "t.T", "column_groups": groups}], **extra)


def on_unique(code_type: str) -> ModelDict:
    """t.T with a unique index on CODE of `code_type`, resolved by appending the site's name."""
    cols = [ID, col("CODE", code_type)]
    unique = {"unique_indexes": [{"name": "UX_CODE", "columns": ["CODE"]}]}
    return one_way(cols, tgt_table=unique, src_table=unique, conflicts=[
        {"table": "t.T", "unique": [{"index": "UX_CODE", "resolution": "append_site_name"}]}])


def hierarchy(both: bool) -> ModelDict:
    """t.PERSON and its sub-table t.EMPLOYEE, with conflict settings on PERSON (and on EMPLOYEE if `both`)."""
    tables = [table("t", "PERSON", [ID, NAME], ["ID"]), table("t", "EMPLOYEE", [ID, NAME], ["ID"], parent="PERSON")]
    return model([server("t")], tables, conflicts=[{"table": "t.PERSON"}, *([{"table": "t.EMPLOYEE"}] if both else [])])


LATEST = {"method": "latest_timestamp", "column": "UPDATED_AT"}
RULES = (
    Rule("CR001", E, ("conflicts",), "column is in more than one column group",
         "A column belongs to two column groups of the same table; each column is resolved by one group.",
         "Keep the column in one group.",
         settled([group("name_cg", ["NAME", "CITY"], {"method": "overwrite"}),
                  group("city_cg", ["CITY"], {"method": "discard"})]),
         settled([group("name_cg", ["NAME"], {"method": "overwrite"}),
                  group("city_cg", ["CITY"], {"method": "discard"})])),
    Rule("CR002", E, ("conflicts",), "additive or average on a group that is not one numeric column",
         "`additive` and `average` combine numbers: their group must be exactly one numeric column.",
         "Put the numeric column in a group of its own, resolved by `additive` or `average`.",
         settled([group("balance_cg", ["BALANCE", "NAME"], {"method": "additive"})],
                 [ID, NAME, col("BALANCE", "DECIMAL(12,2)")]),
         settled([group("balance_cg", ["BALANCE"], {"method": "additive"})],
                 [ID, NAME, col("BALANCE", "DECIMAL(12,2)")])),
    Rule("CR003", E, ("conflicts",), "append method on a unique index with a non-character column",
         "`append_site_name` and `append_sequence` resolve a uniqueness conflict by appending text to the "
         "index's value: every column of the index must be a character column.",
         "Resolve that index another way (`discard`, `error`), or append to a character index.",
         on_unique("INTEGER"), on_unique("VARCHAR(20)")),
    Rule("CR004", E, ("conflicts",), "designated column is missing or unsuitable",
         "A method that compares one column (`latest_timestamp`, `earliest_timestamp`, `minimum`, `maximum`, "
         "`priority_group`) names none, names one outside its group, a timestamp method names a column that "
         "is not a date or timestamp, or `priority_group` has no `priorities`.",
         "Name a `column` of the group (a DATE or TIMESTAMP for the timestamp methods).",
         settled([group("name_cg", ["NAME", "UPDATED_AT"], {"method": "latest_timestamp"}, {"method": "discard"})],
                 [ID, NAME, UPDATED]),
         settled([group("name_cg", ["NAME", "UPDATED_AT"], LATEST, {"method": "discard"})], [ID, NAME, UPDATED])),
    Rule("CR005", W, ("conflicts",), "no backup method for ties",
         "`latest_timestamp`, `earliest_timestamp`, `minimum` or `maximum` ends its group's chain: when the "
         "values tie, nothing decides and the change goes to the error queue.",
         "Add a backup method after it, such as `site_priority`.",
         settled([group("name_cg", ["NAME", "UPDATED_AT"], LATEST)], [ID, NAME, UPDATED], **PRIORITIES),
         settled([group("name_cg", ["NAME", "UPDATED_AT"], LATEST, {"method": "site_priority"})], [ID, NAME, UPDATED],
                 **PRIORITIES)),
    Rule("CR006", W, ("conflicts",), "method does not converge with several masters",
         "The table has more than one master (the servers whose mappings land in it, plus its own server when "
         "a mapping reads from it), and a group uses a method that cannot make the copies agree "
         "(`overwrite`, `discard`, `average`, `earliest_timestamp`, `site_priority`). A method that only breaks "
         "the ties of a `latest_timestamp` before it is not reported.",
         "Resolve by `latest_timestamp` first (with the other method as its backup), or use a convergent "
         "method (`additive`, `maximum`, `minimum`).",
         two_way([ID, NAME, UPDATED], [group("name_cg", ["NAME", "UPDATED_AT"], {"method": "overwrite"})]),
         two_way([ID, NAME, UPDATED], [group("name_cg", ["NAME", "UPDATED_AT"], LATEST, {"method": "overwrite"})])),
    Rule("CR007", E, ("conflicts",), "site priority without a priority for every writing server",
         "`site_priority` is used, and a server that writes to the table (its own server, or the source server "
         "of a mapping into it) has no `priority`.",
         "Give every server that writes to the table a `priority` (higher wins).",
         settled([group("name_cg", ["NAME"], {"method": "site_priority"})]),
         settled([group("name_cg", ["NAME"], {"method": "site_priority"})], **PRIORITIES)),
    Rule("CR008", E, ("conflicts",), "column subsetting with a method that needs the whole group",
         "A mapping into the table carries some but not all of a group's columns, and the group's chain uses a "
         "method other than `discard` or `site_priority`: it would compare or combine values the mapping does "
         "not bring.",
         "Map every column of the group, split the group, or resolve it by `discard` or `site_priority`.",
         settled([group("place_cg", ["NAME", "CITY"], {"method": "overwrite"})], [ID, NAME], tgt_cols=[ID, NAME, CITY]),
         settled([group("place_cg", ["NAME", "CITY"], {"method": "discard"})], [ID, NAME], tgt_cols=[ID, NAME, CITY])),
    Rule("CR009", E, ("model",), "table hierarchy resolves conflicts unevenly",
         "Tables of one hierarchy (linked by `parent`) must all have conflict settings, or all lack them.",
         "Add conflict settings to the tables of the hierarchy that lack them, or remove them from the others.",
         hierarchy(both=False), hierarchy(both=True)),
    Rule("CR010", E, ("conflicts",), "conflict settings name an unknown table, column or index",
         "A `conflicts` entry names a table the model does not have, or a column or unique index its table "
         "does not have. The other CR rules ignore what CR010 reports, so one typo gives one finding.",
         "Correct the name.",
         settled([group("name_cg", ["FULL_NAME"], {"method": "overwrite"})]),
         settled([group("name_cg", ["NAME"], {"method": "overwrite"})])),
)
