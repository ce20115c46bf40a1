"""A reflected table's foreign keys, non-unique indexes and check constraints as the model's.

The inspector's dictionaries come in (`get_multi_foreign_keys`, `get_multi_indexes`, `get_multi_check_constraints`);
what the model cannot hold exactly is said through `note(message)`, once per thing, never silently: an index
on an expression, a foreign key to a table of another schema or to one the import does not read, a referential
action or option the model has no word for. Unique indexes are the reader's own (`unique_indexes`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from engine.model.schema import Check, ForeignKey, Index, ReferentialAction

Note = Callable[[str], None]
Stored = Callable[[str], str]

ACTIONS: dict[str, ReferentialAction] = {"NO ACTION": "no_action", "RESTRICT": "restrict", "CASCADE": "cascade",
                                         "SET NULL": "set_null", "SET DEFAULT": "set_default"}


def indexes(reflected: list[Any], stored: Stored, note: Note) -> list[Index]:
    """The non-unique indexes on columns; one on an expression is noted and left out."""
    out: list[Index] = []
    for ix in reflected:
        if ix.get("unique") or not ix.get("name"):
            continue
        name = stored(ix["name"])
        if ix.get("expressions") or any(c is None for c in ix["column_names"]) or not ix["column_names"]:
            note(f"index {name} is on an expression; not imported")
            continue
        options = ix.get("dialect_options") or {}
        if any(k.endswith("_where") and v is not None for k, v in options.items()):
            note(f"index {name} is partial (WHERE ...); imported on all rows")
        if options.get("postgresql_include"):
            note(f"index {name} INCLUDEs {', '.join(options['postgresql_include'])}; imported without them")
        method = options.get("postgresql_using")
        if method and method != "btree":
            note(f"index {name} uses {method}; imported as a plain index")
        out.append(Index(name=name, columns=[stored(c) for c in ix["column_names"]]))
    return out


def foreign_keys(reflected: list[Any], schema: str | None, readable: Collection[str], stored: Stored,
                 note: Note) -> list[ForeignKey]:
    """The foreign keys to tables of `schema` (SQLAlchemy's name) that this import reads (`readable`, stored
    names); the others are noted and left out: the model names a referenced table, not its schema."""
    out: list[ForeignKey] = []
    for fk in reflected:
        name = stored(fk["name"]) if fk.get("name") else None
        what = f"foreign key {name}" if name else f"the foreign key on {', '.join(fk['constrained_columns'])}"
        target = stored(fk["referred_table"])
        elsewhere = fk.get("referred_schema")
        if elsewhere is not None and elsewhere != schema:
            note(f"{what} references {stored(elsewhere)}.{target}, in another schema; not imported")
            continue
        if target not in readable:
            note(f"{what} references {target}, which this import does not read; not imported")
            continue
        if not fk.get("referred_columns") or not fk.get("constrained_columns"):
            note(f"{what} names no columns the inspector could read; not imported")
            continue
        options = dict(fk.get("options") or {})
        on_delete = _action(options.pop("ondelete", None), what, "ON DELETE", note)
        on_update = _action(options.pop("onupdate", None), what, "ON UPDATE", note)
        lost = [f"{option.upper()} {value if value is not True else ''}".rstrip() for option, value in options.items()
                if value and not (option == "match" and str(value).upper() in ("SIMPLE", "NONE"))]
        if lost:
            note(f"{what} is {', '.join(sorted(lost))}; imported without {'it' if len(lost) == 1 else 'them'}")
        out.append(ForeignKey(name=name, columns=[stored(c) for c in fk["constrained_columns"]], references=target,
                              referenced_columns=[stored(c) for c in fk["referred_columns"]],
                              on_delete=on_delete, on_update=on_update))
    return out


def _action(value: Any, what: str, clause: str, note: Note) -> ReferentialAction:
    if value is None:
        return "no_action"
    text = " ".join(str(value).upper().split())
    if text in ACTIONS:
        return ACTIONS[text]
    known = next((k for k in ACTIONS if text.startswith(k)), None)  # PostgreSQL 15's SET NULL (col, ...)
    if known is None:
        note(f"{what} has {clause} {value}, which the model has no word for; imported as NO ACTION")
        return "no_action"
    note(f"{what} has {clause} {value}; imported as {clause} {known} (on all its columns)")
    return ACTIONS[known]


def checks(reflected: list[Any], stored: Stored, note: Note) -> list[Check]:
    """The check constraints, each condition as the database writes it (the server's SQL)."""
    out: list[Check] = []
    for ck in reflected:
        sql = str(ck.get("sqltext") or "").strip()
        name = stored(ck["name"]) if ck.get("name") else None
        what = f"check constraint {name}" if name else "a check constraint"
        if not sql:
            note(f"{what} has no condition the inspector could read; not imported")
            continue
        if (ck.get("dialect_options") or {}).get("not_valid"):
            note(f"{what} is NOT VALID (rows already there were not checked); imported as valid")
        out.append(Check(name=name, sql=sql))
    return out


def outer_parens_off(text: str) -> str:
    """`(a * 2)` -> `a * 2`: the parentheses a catalog puts around a whole expression, only where they are one
    pair around all of it (`(a) + (b)` stays)."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and _closes_at_end(text):
        text = text[1:-1].strip()
    return text


def _closes_at_end(text: str) -> bool:
    """Whether the parenthesis `text` opens with closes at its last character (quotes respected)."""
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False
