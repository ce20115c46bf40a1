"""Conflict detection and resolution of a GoldenGate MAP statement: COMPARECOLS, RESOLVECONFLICT per
conflict type and REPERROR, from the target table's conflicts of the model, and what they cannot express
(`engine.deploy.goldengate` writes the rest of the parameter files)."""

from __future__ import annotations

from collections.abc import Callable

from engine.core.types import TypeFamily
from engine.deploy.ggsyntax import Unsafe, ident, resolution_name
from engine.model.schema import ColumnGroup, Model, Table, TableConflicts

Note = Callable[[str, str, str], None]
"""note(item, construct, reason): one construct not expressed."""

# Resolution methods of a column group: the RESOLVECONFLICT resolution, or None.
RESOLUTIONS: dict[str, str | None] = {
    "latest_timestamp": "USEMAX", "earliest_timestamp": "USEMIN", "maximum": "USEMAX", "minimum": "USEMIN",
    "additive": "USEDELTA", "overwrite": "OVERWRITE", "discard": "IGNORE",
    "average": None, "priority_group": None, "site_priority": None,
}
WHY_NOT_RESOLVED = {
    "average": "RESOLVECONFLICT has no averaging resolution",
    "priority_group": "RESOLVECONFLICT has no priority of values",
    "site_priority": "RESOLVECONFLICT has no site priority",
    "append_site_name": "RESOLVECONFLICT resolves by the key only; it cannot rewrite a value to satisfy a "
                        "unique index",
    "append_sequence": "RESOLVECONFLICT resolves by the key only; it cannot rewrite a value to satisfy a "
                       "unique index",
    "discard": "RESOLVECONFLICT resolves by the key only; a unique-index violation is a database error, "
               "handled by REPERROR (written to the discard file, as errors are)",
}


def conflict_options(model: Model, target: Table, expressed: set[str], note: Note) -> list[str]:
    """COMPARECOLS, RESOLVECONFLICT per conflict type and REPERROR for the target table's conflicts.

    `expressed`: the target columns this MAP writes; a column group resolves only those (a group the
    mapping does not write is never changed by it, as in the contract).
    """
    conflicts = model.conflicts_for(target.key) or TableConflicts(table=target.key)
    item = f"conflicts of {target.key}"
    options: list[str] = []
    skipped = [c for c, compared in conflicts.compare_old.items() if not compared]
    try:
        if skipped:
            cols = ", ".join(ident(c) for c in skipped)
            options.append(f"COMPARECOLS (ON UPDATE ALLEXCLUDING ({cols}), ON DELETE ALLEXCLUDING ({cols}))")
        else:
            options.append("COMPARECOLS (ON UPDATE ALL, ON DELETE ALL)")
    except Unsafe as exc:
        note(item, "compare_old", f"{exc}; every column is compared")
        options.append("COMPARECOLS (ON UPDATE ALL, ON DELETE ALL)")
    groups = [g for g in conflicts.column_groups if g.resolution]
    update = [_group_resolution(i, g, target, expressed, note, item, inserting=False) for i, g in enumerate(groups)]
    update_ok = [u for u in update if u]
    if update_ok:
        options.append(_resolve("UPDATEROWEXISTS", update_ok))
    policy = conflicts.on_insert_exists
    if policy in ("discard", "overwrite"):
        options.append(_resolve("INSERTROWEXISTS", [f"(DEFAULT, {policy.upper()})"]))
    elif policy == "as_update":
        inserts = [_group_resolution(i, g, target, expressed, note, item, inserting=True) for i, g in enumerate(groups)]
        inserts_ok = [x for x in inserts if x]
        if inserts_ok:
            options.append(_resolve("INSERTROWEXISTS", inserts_ok))
    if conflicts.on_update_missing == "discard":
        options.append(_resolve("UPDATEROWMISSING", ["(DEFAULT, DISCARD)"]))
    elif conflicts.on_update_missing == "insert":
        options.append(_resolve("UPDATEROWMISSING", ["(DEFAULT, OVERWRITE)"]))
    if conflicts.on_delete_missing == "discard":
        options.append(_resolve("DELETEROWMISSING", ["(DEFAULT, DISCARD)"]))
    for unique in conflicts.unique:
        if unique.resolution != "error":
            note(item, f"unique {unique.index}: {unique.resolution}", WHY_NOT_RESOLVED[unique.resolution])
    if conflicts.scope == "transaction":
        options.append("REPERROR (DEFAULT, TRANSDISCARD)")
    return options


def _group_resolution(index: int, group: ColumnGroup, target: Table, expressed: set[str], note: Note, item: str,
                      inserting: bool) -> str | None:
    """One `(name, RESOLUTION, COLS (...))` of RESOLVECONFLICT for a group's primary method, or None.

    What has no equivalent is listed once, on the update pass: the method, and every backup
    (GoldenGate takes one resolution per column group and conflict type).
    """
    cols = [c for c in group.columns if c in expressed]
    if not cols:
        return None
    method = group.resolution[0]
    where = f"column group {group.name}" + (" (on_insert_exists as_update)" if inserting else "")
    word = RESOLUTIONS[method.method]
    if not inserting:
        if word is None:
            note(item, f"{where}: {method.method}", WHY_NOT_RESOLVED[method.method])
        for backup in group.resolution[1:]:
            note(item, f"{where}: {backup.method} (backup)",
                 "RESOLVECONFLICT takes one resolution per column group and conflict type; the backup, tried in "
                 "the contract on a tie or an undecided value, is not (on a tie USEMAX and USEMIN keep the "
                 "target row)")
    if word is None:
        return None
    try:
        problem = _resolution_problem(word, method.column, cols, target, expressed, inserting)
        if word in ("USEMAX", "USEMIN") and problem is None:
            word = f"{word} ({ident(str(method.column))})"
        names = ", ".join(ident(c) for c in cols)
    except Unsafe as exc:
        problem = str(exc)
    if problem is not None:
        if not inserting or word == "USEDELTA":
            note(item, f"{where}: {method.method}", problem)
        return None
    name = resolution_name(group.name, f"cg{index + 1}")
    return f"({name}, {word}, COLS ({names}))"


def _resolution_problem(word: str, column: str | None, cols: list[str], target: Table, expressed: set[str],
                        inserting: bool) -> str | None:
    """Why GoldenGate cannot take this resolution here, or None: USEMAX and USEMIN compare a NUMBER or a
    TIMESTAMP column the MAP writes; USEDELTA adds to numeric columns, and needs old values."""
    if word == "USEDELTA":
        if inserting:
            return ("an insert carries no old values, so USEDELTA is not valid for INSERTROWEXISTS (the "
                    "contract's additive is undecided there too)")
        not_numeric = [c for c in cols if (d := target.column(c)) is None or not d.sql_type.is_numeric]
        if not_numeric:
            return f"USEDELTA adds only to numeric columns, not {', '.join(not_numeric)}"
    if word in ("USEMAX", "USEMIN"):
        if column is None or column not in expressed:
            return f"its column {column} is not written by this mapping, so GoldenGate has no value to compare"
        definition = target.column(column)
        if definition is None or not (definition.sql_type.is_numeric
                                      or definition.sql_type.family is TypeFamily.DATETIME):
            return f"{word} compares only a number or a timestamp, not the column {column}"
    return None


def _resolve(kind: str, resolutions: list[str]) -> str:
    if len(resolutions) == 1:
        return f"RESOLVECONFLICT ({kind}, {resolutions[0]})"
    return f"RESOLVECONFLICT ({kind},\n    " + ",\n    ".join(resolutions) + ")"
