"""Oracle GoldenGate Replicat parameter files from a model, and what they cannot express.

`goldengate_files(model)` is a pure function: one `.prm` per Replicat (a pair of
source and target servers: a Replicat reads the one trail of its source) and a
`REPORT.txt`, with every construct of the model that has no GoldenGate
equivalent listed per mapping (`NotExpressed`), never dropped silently.

What each model construct becomes ("Parameters and Functions Reference for
Oracle GoldenGate" and "Administering Oracle GoldenGate"; the pages are cited in
each file's header, `DOCS`):

- a mapping: `MAP source, TARGET target` with `COLMAP` listing every mapped
  target column (no USEDEFAULTS: a same-named column the mapping does not map
  stays unmapped, as in the contract), `KEYCOLS` from the distribution key (its
  own or the default rule's), `WHERE` from `where`, `INSERTALLRECORDS` for a
  journal mapping.
- column methods: `column` → the column; `concat` → @STRCAT (numbers through
  @STRNUM); `substring` → @STREXT; `constant` → a literal; `system` → the source
  server's id, @GETENV ('GGHEADER', 'COMMITTIMESTAMP'), @GETENV ('TRANSACTION',
  'XID') or the operation type through @CASE; `cast` between text and numbers →
  @NUMSTR / @STRNUM; `upper` → @STRUP; `trim` → @STRTRIM. `split`, `lower`,
  `expression` and other casts have no column-conversion function: listed.
- conflicts: `COMPARECOLS` from compare_old; `RESOLVECONFLICT` per conflict type,
  one resolution per column group (`COLS`): latest_timestamp/maximum → USEMAX,
  earliest_timestamp/minimum → USEMIN, additive → USEDELTA, overwrite →
  OVERWRITE, discard → IGNORE; the `on_*` policies → DISCARD / OVERWRITE; an
  unresolved conflict → REPERROR DISCARD into the discard file (the error queue),
  TRANSDISCARD for `scope: transaction`. GoldenGate takes one method per group:
  backups, average, priority_group, site_priority and the unique-index
  resolutions are listed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.deploy.ggsyntax import (
    Resolver,
    Unsafe,
    WhereUnsupported,
    comment,
    ident,
    literal,
    resolution_name,
    table_name,
)
from engine.deploy.ggsyntax import where_clause as gg_where
from engine.keys import distribution_key
from engine.model.io import write_atomic
from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Expression,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)
from engine.model.schema import ColumnGroup, Mapping, Model, Table, TableConflicts
from engine.model.types import TypeFamily, parse_type

REPORT_NAME = "REPORT.txt"
_REF = "https://docs.oracle.com/en/database/goldengate/core/26/reference"
_ADMIN = "https://docs.oracle.com/en/middleware/goldengate/core"
DOCS = {
    "MAP, TARGET, COLMAP, KEYCOLS, WHERE, COMPARECOLS, RESOLVECONFLICT, INSERTALLRECORDS": f"{_REF}/table-map.html",
    "WHERE operators": f"{_ADMIN}/19.1/ggcab/selecting-rows-where-clause.html",
    "RESOLVECONFLICT, COLS, USEMAX/USEMIN/USEDELTA/OVERWRITE/IGNORE/DISCARD":
        f"{_ADMIN}/21.3/ggcab/map-statement-conflict-resolution-specifications.html",
    "column-conversion functions (@STRCAT @STREXT @STRUP @STRTRIM @NUMSTR @STRNUM @GETENV @CASE @COLSTAT)":
        f"{_REF}/summary-column-conversion-functions.html",
    "REPERROR (DISCARD, TRANSDISCARD)": f"{_REF}/reperror.html",
    "source definitions from trail metadata (no SOURCEDEFS)": f"{_REF}/sourcedefs.html",
}

# How each column method of the contract is written; None: listed as not expressed.
COLUMN_METHODS: dict[str, str | None] = {
    "column": "the source column", "concat": "@STRCAT", "split": None, "substring": "@STREXT",
    "constant": "a literal", "system": "a literal or @GETENV", "cast": "@NUMSTR / @STRNUM (text and numbers)",
    "upper": "@STRUP", "lower": None, "trim": "@STRTRIM", "expression": None,
}
# Resolution methods of a column group: the RESOLVECONFLICT resolution, or None.
RESOLUTIONS: dict[str, str | None] = {
    "latest_timestamp": "USEMAX", "earliest_timestamp": "USEMIN", "maximum": "USEMAX", "minimum": "USEMIN",
    "additive": "USEDELTA", "overwrite": "OVERWRITE", "discard": "IGNORE",
    "average": None, "priority_group": None, "site_priority": None,
}
_WHY_NOT = {
    "split": "GoldenGate's column-conversion functions have no split at a separator",
    "lower": "GoldenGate's column-conversion functions have no lower-case function (only @STRUP)",
    "expression": "a Spark SQL expression has no GoldenGate equivalent; write it with column-conversion "
                  "functions (@COMPUTE, @IF...) by hand",
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
NO_GOLDENGATE = {"sqlite": "capture or delivery", "other": "known capture or delivery"}
Note = Callable[[str, str, str], None]
_ORDINARY_OPTYPE = "@CASE (@GETENV ('GGHEADER', 'OPTYPE'), 'INSERT', 'I', 'DELETE', 'D', 'U')"


@dataclass(frozen=True)
class NotExpressed:
    """A construct of one mapping that the parameter files do not express, and why."""

    mapping: str
    item: str      # where in the model: "column CUST_KEY", "where", "conflicts of hq.CUSTOMER"...
    construct: str  # the model's construct: "split", "site_priority (backup)"...
    reason: str

    def text(self) -> str:
        return f"{self.item}: {self.construct}: {self.reason}"


@dataclass
class GoldenGateExport:
    """The files to write ({name: text}) and the constructs they leave out."""

    files: dict[str, str] = field(default_factory=dict)
    not_expressed: list[NotExpressed] = field(default_factory=list)

    def by_mapping(self) -> dict[str, list[NotExpressed]]:
        grouped: dict[str, list[NotExpressed]] = {}
        for item in self.not_expressed:
            grouped.setdefault(item.mapping, []).append(item)
        return grouped


class _Missing(Exception):
    """A construct without an equivalent: (construct, reason)."""

    def __init__(self, construct: str, reason: str) -> None:
        super().__init__(reason)
        self.construct, self.reason = construct, reason


def goldengate_files(model: Model) -> GoldenGateExport:
    """Replicat parameter files for every mapping of the model, and the report of what they leave out."""
    out = GoldenGateExport()
    groups: dict[tuple[str, str], list[Mapping]] = {}
    for mapping in model.mappings:
        source, target = model.table(mapping.source), model.table(mapping.target)
        if source is None or target is None:
            out.not_expressed.append(NotExpressed(mapping.id, "mapping", "source and target",
                                                  "not exported: its source or target table is not in the model"))
            continue
        groups.setdefault((source.server, target.server), []).append(mapping)
    names: set[str] = set()
    replicats: list[tuple[str, str, str, int]] = []
    for (source_server, target_server), mappings in groups.items():
        name = _replicat_name(source_server, target_server, names)
        lines, missing = _replicat(model, name, source_server, target_server, mappings)
        out.files[f"{name.lower()}.prm"] = "\n".join(lines) + "\n"
        out.not_expressed.extend(missing)
        replicats.append((name, source_server, target_server, len(mappings)))
    out.files[REPORT_NAME] = _report(model, out, replicats)
    return out


def _replicat_name(source: str, target: str, taken: set[str]) -> str:
    """R + 3 characters of each server id (letters and digits), made unique within 8 characters."""
    def part(text: str) -> str:
        return (re.sub(r"[^A-Za-z0-9]", "", text)[:3] or "X").upper()
    base = f"R{part(source)}{part(target)}"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base[:8 - len(str(n))]}{n}"
    taken.add(name)
    return name


def _alias(server: str) -> str:
    return "mw_" + (re.sub(r"[^A-Za-z0-9_]", "_", server)[:26] or "server")


def _replicat(model: Model, name: str, source_server: str, target_server: str,
              mappings: list[Mapping]) -> tuple[list[str], list[NotExpressed]]:
    source_dbms = model.server(source_server)
    target_dbms = model.server(target_server)
    lines = [
        "-- Oracle GoldenGate Replicat parameter file, generated by Mapwright from the model "
        f"{comment(repr(model.name))}.",
        f"-- Replicat {name}: changes captured on server {comment(repr(source_server))}"
        f" ({source_dbms.dbms if source_dbms else '?'}), applied on server {comment(repr(target_server))}"
        f" ({target_dbms.dbms if target_dbms else '?'}).",
        f"-- Add it with: ADD REPLICAT {name.lower()}, EXTTRAIL <the trail the Extract or pump of "
        f"{comment(source_server)} writes>",
        f"-- What the model has and this file does not express is listed in {REPORT_NAME}.",
        "-- Follows the Oracle GoldenGate documentation:",
        *(f"--   {what}: {url}" for what, url in DOCS.items()),
        f"REPLICAT {name}",
        "-- The login comes from the credential store (no password here). Create the alias once with",
        f"--   ALTER CREDENTIALSTORE ADD USER <user>@<database> ALIAS {_alias(target_server)}",
        f"USERIDALIAS {_alias(target_server)}",
        "-- Source definitions come from the trail's metadata records (trail format 12.2 and later).",
        "-- A conflict no resolution settles goes to the discard file and Replicat goes on (the error queue).",
        f"DISCARDFILE ./dirrpt/{name.lower()}.dsc, APPEND, MEGABYTES 100",
        "REPERROR (DEFAULT, DISCARD)",
    ]
    missing: list[NotExpressed] = []
    for mapping in mappings:
        statement, notes = _map_statement(model, mapping)
        lines.append("")
        lines.extend(statement)
        missing.extend(notes)
    return lines, missing


def _map_statement(model: Model, mapping: Mapping) -> tuple[list[str], list[NotExpressed]]:
    source, target = model.table(mapping.source), model.table(mapping.target)
    assert source is not None and target is not None
    notes: list[NotExpressed] = []

    def note(item: str, construct: str, reason: str) -> None:
        notes.append(NotExpressed(mapping.id, item, construct, reason))

    header = f"-- mapping {comment(mapping.id)}: {comment(mapping.source)} -> {comment(mapping.target)}"
    inactive: list[str] = []
    try:
        names = f"MAP {table_name(source.name)}, TARGET {table_name(target.name)}"
    except Unsafe as exc:
        note("mapping", "table name", f"not exported: {exc}")
        return [header, "-- not exported: a table name cannot be written safely (see the report)"], notes
    options: list[str] = []
    colmap: list[str] = []
    expressed: set[str] = set()
    for column, method in mapping.columns.items():
        try:
            colmap.append(f"{ident(column)} = {_expression(method, source)}")
            expressed.add(column)
        except _Missing as exc:
            note(f"column {column}", exc.construct, exc.reason)
        except Unsafe as exc:
            note(f"column {column}", _top_name(method), str(exc))
    if colmap:
        options.append("COLMAP (\n    " + ",\n    ".join(colmap) + ")")
    key = None if mapping.journal else distribution_key(model, mapping)
    if mapping.journal:
        options.append("INSERTALLRECORDS")
    elif key is not None:
        lost = [c for c in key.columns if c not in expressed]
        try:
            options.append("KEYCOLS (" + ", ".join(ident(c) for c in key.columns) + ")")
        except Unsafe as exc:
            lost.append(str(exc))
        if lost:
            inactive.append("its distribution key (" + ", ".join(comment(c) for c in key.columns) +
                            ") is not fully expressed")
    if mapping.where is not None:
        try:
            options.append(f"WHERE ({gg_where(mapping.where, _resolver(source))})")
            note("where", "where (net effect)", "GoldenGate evaluates WHERE on each record: an update that "
                 "takes a row out of the where is not sent as a DELETE, nor one that brings it in as an INSERT")
        except (WhereUnsupported, Unsafe) as exc:
            note("where", "where", str(exc))
            inactive.append("its where clause is not expressed")
    for role, table in (("source", source), ("target", target)):
        server = model.server(table.server)
        if server is not None and server.dbms in NO_GOLDENGATE:
            note("mapping", f"{role} DBMS {server.dbms}", f"Oracle GoldenGate has no {NO_GOLDENGATE[server.dbms]} for "
                 f"{server.dbms}; the MAP is written for reference")
    if mapping.changed_columns_only:
        note("mapping", "changed_columns_only", "sending only changed columns is set on the Extract "
             "(COMPRESSUPDATES and supplemental logging), not in a Replicat file")
    if not mapping.journal:
        options.extend(_conflict_options(model, target, expressed, note))
    body = [names + ","] + [f"  {line}," for line in options]
    body[-1] = body[-1][:-1] + ";"
    statement = [header] + "\n".join(body).splitlines()
    if inactive:
        reason = "; ".join(inactive)
        note("mapping", "MAP statement", f"written commented out: {reason}")
        statement = [header, f"-- not active: {reason}"] + [f"-- {line}" for line in statement[1:]]
    return statement, notes


def _resolver(source: Table) -> Resolver:
    by_name = {c.name.lower(): c for c in source.columns}
    return lambda name: by_name.get(name.lower())


def _top_name(method: Method) -> str:
    return str(method.method)


def _expression(method: Method, source: Table) -> str:
    """A column method as a GoldenGate source expression; raises `_Missing` without an equivalent."""
    if isinstance(method, Column):
        return ident(method.input)
    if isinstance(method, Constant):
        if isinstance(method.value, bool):
            raise _Missing("constant", "a boolean constant has no GoldenGate literal")
        return literal(method.value)
    if isinstance(method, System):
        return _system(method.name, source.server)
    if isinstance(method, Concat):
        parts: list[str] = []
        for i, part in enumerate(method.inputs):
            if i and method.sep:
                parts.append(literal(method.sep))
            parts.append(_as_text(part, source))
        return f"@STRCAT ({', '.join(parts)})"
    if isinstance(method, Substring):
        inner = _as_text(method.input, source)
        end = f"@STRLEN ({inner})" if method.length is None else str(method.start + method.length - 1)
        return f"@STREXT ({inner}, {method.start}, {end})"
    if isinstance(method, Upper):
        return f"@STRUP ({_as_text(method.input, source)})"
    if isinstance(method, Trim):
        return f"@STRTRIM ({_as_text(method.input, source)})"
    if isinstance(method, Cast):
        return _cast(method, source)
    if isinstance(method, (Split, Lower, Expression)):
        raise _Missing(method.method, _WHY_NOT[method.method])
    raise _Missing(str(method.method), "no GoldenGate equivalent")


def _system(name: str, source_server: str) -> str:
    if name == "site":  # the origin of every record of this Replicat's trail
        return literal(source_server)
    if name == "commit_ts":
        return "@GETENV ('GGHEADER', 'COMMITTIMESTAMP')"
    if name == "txn":
        return "@GETENV ('TRANSACTION', 'XID')"
    return _ORDINARY_OPTYPE


def _family(method: Method, source: Table) -> TypeFamily | None:
    """The type family a method gives, where it is known."""
    if isinstance(method, Column):
        column = source.column(method.input)
        return column.sql_type.family if column else None
    if isinstance(method, Cast):
        return parse_type(method.type).family
    if isinstance(method, Constant):
        if isinstance(method.value, bool) or method.value is None:
            return None
        return TypeFamily.CHARACTER if isinstance(method.value, str) else TypeFamily.EXACT_NUMERIC
    if isinstance(method, System):
        return TypeFamily.DATETIME if method.name == "commit_ts" else TypeFamily.CHARACTER
    if isinstance(method, Expression):
        return None
    return TypeFamily.CHARACTER


def _as_text(method: Method, source: Table) -> str:
    """A method's value as text, as `concat` and the string functions read it (numbers through @STRNUM)."""
    family = _family(method, source)
    if isinstance(method, Constant) and not isinstance(method.value, (bool, type(None))):
        return literal(str(method.value))
    if family is TypeFamily.CHARACTER:
        return _expression(method, source)
    if family is TypeFamily.EXACT_NUMERIC:
        return f"@STRNUM ({_expression(method, source)})"
    raise _Missing(str(method.method) if not isinstance(method, Column) else "concat",
                   f"{_describe(method)} is not text or an exact number; GoldenGate renders it as text "
                   "differently from the contract")


def _cast(method: Cast, source: Table) -> str:
    want = parse_type(method.type).family
    have = _family(method.input, source)
    inner = _expression(method.input, source)
    if have == want and want in (TypeFamily.CHARACTER, TypeFamily.EXACT_NUMERIC, TypeFamily.DATETIME):
        return inner  # Replicat converts to the target column's type
    if have is TypeFamily.CHARACTER and want is TypeFamily.EXACT_NUMERIC:
        return f"@NUMSTR ({inner})"
    if have is TypeFamily.EXACT_NUMERIC and want is TypeFamily.CHARACTER:
        return f"@STRNUM ({inner})"
    raise _Missing("cast", f"a cast from {have.value if have else 'an untyped value'} to {method.type} has no "
                           "GoldenGate column-conversion function")


def _describe(method: Method) -> str:
    return f"the column {method.input}" if isinstance(method, Column) else f"a {method.method} value"


# --- conflict detection and resolution -------------------------------------------------------------


def _conflict_options(model: Model, target: Table, expressed: set[str], note: Note) -> list[str]:
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
    update = [_group_resolution(i, g, expressed, note, item, inserting=False) for i, g in enumerate(groups)]
    update_ok = [u for u in update if u]
    if update_ok:
        options.append(_resolve("UPDATEROWEXISTS", update_ok))
    policy = conflicts.on_insert_exists
    if policy in ("discard", "overwrite"):
        options.append(_resolve("INSERTROWEXISTS", [f"(DEFAULT, {policy.upper()})"]))
    elif policy == "as_update":
        inserts = [_group_resolution(i, g, expressed, note, item, inserting=True) for i, g in enumerate(groups)]
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
            note(item, f"unique {unique.index}: {unique.resolution}", _WHY_NOT[unique.resolution])
    if conflicts.scope == "transaction":
        options.append("REPERROR (DEFAULT, TRANSDISCARD)")
    return options


def _group_resolution(index: int, group: ColumnGroup, expressed: set[str], note: Note, item: str,
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
            note(item, f"{where}: {method.method}", _WHY_NOT[method.method])
        for backup in group.resolution[1:]:
            note(item, f"{where}: {backup.method} (backup)",
                 "RESOLVECONFLICT takes one resolution per column group and conflict type; the backup, tried in "
                 "the contract on a tie or an undecided value, is not (on a tie USEMAX and USEMIN keep the "
                 "target row)")
    if word is None:
        return None
    if inserting and word == "USEDELTA":
        note(item, f"{where}: {method.method}", "an insert carries no old values, so USEDELTA is not valid for "
             "INSERTROWEXISTS (the contract's additive is undecided there too)")
        return None
    try:
        if word in ("USEMAX", "USEMIN"):
            if method.column is None or method.column not in expressed:
                if not inserting:
                    note(item, f"{where}: {method.method}", f"its column {method.column} is not written by this "
                         "mapping, so GoldenGate has no value to compare")
                return None
            word = f"{word} ({ident(method.column)})"
        names = ", ".join(ident(c) for c in cols)
    except Unsafe as exc:
        if not inserting:
            note(item, f"{where}: {method.method}", str(exc))
        return None
    name = resolution_name(group.name, f"cg{index + 1}")
    return f"({name}, {word}, COLS ({names}))"


def _resolve(kind: str, resolutions: list[str]) -> str:
    if len(resolutions) == 1:
        return f"RESOLVECONFLICT ({kind}, {resolutions[0]})"
    return f"RESOLVECONFLICT ({kind},\n    " + ",\n    ".join(resolutions) + ")"


# --- the report ----------------------------------------------------------------------------------


def _report(model: Model, out: GoldenGateExport, replicats: list[tuple[str, str, str, int]]) -> str:
    lines = [f"Oracle GoldenGate Replicat parameter files for the model {comment(repr(model.name))}, "
             "generated by Mapwright.", ""]
    lines.append("Replicats (one per source and target server: each reads the trail of its source):")
    for name, source, target, count in replicats:
        lines.append(f"  {name.lower()}.prm  {comment(source)} -> {comment(target)}  ({count} mapping(s))")
    if not replicats:
        lines.append("  (none: the model has no mapping)")
    aliases = sorted({_alias(target) for _, _, target, _ in replicats})
    lines += [
        "",
        "Logins: each file names a credential-store alias (USERIDALIAS), never a user or password.",
        "Create each alias once in GGSCI or the Admin Client:",
        *(f"  ALTER CREDENTIALSTORE ADD USER <user>@<database> ALIAS {a}" for a in aliases),
        "",
        "Table names are written as the model has them (a dotted name as schema.table).",
        "A conflict no resolution settles is written to the Replicat's discard file (REPERROR DISCARD).",
        "",
    ]
    grouped = out.by_mapping()
    total = len(out.not_expressed)
    lines.append(f"Not expressed: {total} item(s) in {len(grouped)} mapping(s)." if total
                 else "Not expressed: nothing; every construct of the model is in the parameter files.")
    for mapping_id, items in grouped.items():
        lines.append("")
        lines.append(f"mapping {comment(mapping_id)}:")
        lines.extend(f"  - {comment(item.text())}" for item in items)
    return "\n".join(lines) + "\n"


def write_goldengate(model: Model, out: Path) -> GoldenGateExport:
    """Write the parameter files and the report into the folder `out` (created when missing), each file
    atomically. Raises `NotADirectoryError` when `out` is a file."""
    export = goldengate_files(model)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} is a file; --to goldengate writes a folder of parameter files")
    out.mkdir(parents=True, exist_ok=True)
    for name, text in export.files.items():
        write_atomic(out / name, text)
    return export
