"""Exports of a model: normalised JSON, the JSON Schema of the format, target DDL, an HTML report."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from engine.limits import MAX_SQL_CHARS
from engine.model.io import dump_model, starts_with, write_atomic
from engine.model.methods import METHOD_CLASSES
from engine.model.schema import FORMAT, FORMAT_MAJOR, Model
from engine.report import group_title, summary
from engine.rules import validate


class ExportError(Exception):
    """An export that cannot be made (for example an unknown SQL dialect)."""


def same_file(a: Path, b: Path) -> bool:
    """True when both paths name one existing file (by another name, through a link): an export written onto
    the model's own file would replace the model."""
    try:
        return a.exists() and b.exists() and a.samefile(b)
    except OSError:
        return False


def export_json(model: Model, out: Path, **_: Any) -> None:
    write_atomic(out, dump_model(model))


def format_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the model file: pydantic's, with the method union made a choice by
    its `method` field and the format string constrained as the loader constrains it."""
    schema = Model.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"Mapwright model ({FORMAT})"
    schema["properties"]["format"]["pattern"] = FORMAT_PATTERN
    defs = schema["$defs"]
    defs["Expression"]["properties"]["sql"]["maxLength"] = MAX_SQL_CHARS  # the loader's limit on SQL text
    defs["Mapping"]["properties"]["where"]["anyOf"][0]["maxLength"] = MAX_SQL_CHARS
    names = {f"#/$defs/{cls.__name__}": name for name, cls in METHOD_CLASSES.items()}
    schema = cast(dict[str, Any], _method_refs(schema, names))
    schema["$defs"]["Method"] = {
        "description": "A column-map method, chosen by its `method` field.",
        "type": "object", "required": ["method"], "properties": {"method": {"enum": list(names.values())}},
        "allOf": [{"if": {"properties": {"method": {"const": name}}}, "then": {"$ref": ref}}
                  for ref, name in names.items()],
    }
    return schema


FORMAT_PATTERN = rf"^mapwright/0{{0,8}}{FORMAT_MAJOR}(?![^.])"
"""What `Model._known_format` takes: family `mapwright`, major version 1 (at most 9 digits), then the end or
`.` and any minor part. No `$`: in Python's `re` (and so in the `jsonschema` package) it matches before a final
newline, which the loader refuses."""


def _method_refs(node: Any, names: dict[str, str]) -> Any:
    """`node` with every `oneOf` over the method classes replaced by a reference to `Method`.

    A `oneOf` makes a validator try every alternative at every level of a nested method, so checking
    `upper(trim(cast(...)))` took time exponential in its depth (a minute at 7 levels): `Method` picks the
    one alternative by `if`/`then` on `method`, as the loader does, and also requires that field, as the
    loader does (pydantic's schema has it optional, with a default)."""
    if isinstance(node, list):
        return [_method_refs(x, names) for x in node]
    if not isinstance(node, dict):
        return node
    alternatives = node.get("oneOf")
    if isinstance(alternatives, list) and {a.get("$ref") for a in alternatives} == set(names):
        return {**{k: v for k, v in node.items() if k != "oneOf"}, "$ref": "#/$defs/Method"}
    return {k: _method_refs(v, names) for k, v in node.items()}


def export_schema(model: Model, out: Path, **_: Any) -> None:
    write_atomic(out, json.dumps(format_schema(), indent=1) + "\n")


def export_ddl(model: Model, out: Path, dialect: str | None = None, server: str | None = None, **_: Any) -> None:
    """CREATE TABLE for every table a mapping writes to (or every table of `server`), a section per server
    in its DBMS's dialect (or all in `dialect`), built by `engine.ddl` with quoted names and checked defaults."""
    from engine.ddl import DdlError, model_ddl  # SQLAlchemy's dialects: loaded by the export that needs them

    try:
        text = model_ddl(model, dialect, server)
    except DdlError as exc:
        raise ExportError(str(exc)) from None
    write_atomic(out, text)


def export_report(model: Model, out: Path, **_: Any) -> None:
    """A self-contained HTML page: servers, mappings and findings."""
    findings = validate(model)
    esc = html.escape
    rows = "".join(
        f"<tr class='{f.severity.value}'><td>{f.severity.value}</td><td>{f.code}</td>"
        f"<td>{esc(group_title(model, f))}</td><td>{esc(f.location.column or '')}</td><td>{esc(f.message)}</td></tr>"
        for f in findings)
    mappings = "".join(f"<tr><td>{esc(m.id)}</td><td>{esc(m.source)}</td><td>{esc(m.target)}</td>"
                       f"<td>{len(m.columns)}</td><td>{esc(m.reverse or '')}</td></tr>" for m in model.mappings)
    servers = "".join(f"<tr><td>{esc(s.id)}</td><td>{s.dbms}</td><td>{'' if s.priority is None else s.priority}</td>"
                      f"<td>{sum(1 for t in model.tables if t.server == s.id)}</td></tr>" for s in model.servers)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(model.name)} - Mapwright report</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;margin-bottom:2em}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left}}th{{background:#f3f3f3}}
tr.error td:first-child{{color:#b00020;font-weight:bold}}tr.warning td:first-child{{color:#9a6700}}</style></head>
<body><h1>{esc(model.name or 'Model')}</h1><p>{esc(summary(findings))}</p>
<h2>Servers</h2><table><tr><th>id</th><th>DBMS</th><th>priority</th><th>tables</th></tr>{servers}</table>
<h2>Mappings</h2><table><tr><th>id</th><th>source</th><th>target</th><th>columns</th><th>reverse</th></tr>{mappings}</table>
<h2>Findings</h2><table><tr><th>severity</th><th>code</th><th>where</th><th>column</th><th>message</th></tr>{rows}</table>
</body></html>
"""
    write_atomic(out, page)


def folder_is_ours(out: Path, marker: str, opening: str, kind: str) -> None:
    """A folder export writes into a new or empty folder, or over an earlier export of its own kind (its
    `marker` file begins with `opening`): never among someone else's files, which it would overwrite or mix
    with. Raises `ExportError` naming the folder otherwise."""
    if not out.is_dir() or not any(out.iterdir()) or starts_with(out / marker, opening):
        return
    name = {"goldengate": "GoldenGate", "postgresql": "PostgreSQL"}.get(kind, kind)
    raise ExportError(f"{out} is a folder with other files in it: a {name} export writes into a new or empty "
                      f"folder, or over an earlier one (its {marker})")


def export_goldengate(model: Model, out: Path, **_: Any) -> None:
    """Oracle GoldenGate Replicat parameter files and their REPORT.txt, in the folder `out`."""
    from engine.deploy.goldengate import REPORT_NAME, REPORT_OPENING, write_goldengate

    folder_is_ours(out, REPORT_NAME, REPORT_OPENING, "goldengate")
    try:
        write_goldengate(model, out)
    except NotADirectoryError as exc:
        raise ExportError(str(exc)) from None


def export_postgresql(model: Model, out: Path, **_: Any) -> list[str]:
    """The PostgreSQL logical-replication deployment (a folder); returns its findings, each kind once
    (`engine.deploy.pgfindings.grouped_lines`: report.txt of the folder has every one)."""
    from engine.deploy.pgexport import README_OPENING
    from engine.deploy.pgexport import export_postgresql as write_deployment
    from engine.deploy.pgfindings import grouped_lines
    from engine.deploy.postgresql import DeployError

    folder_is_ours(out, "README.txt", README_OPENING, "postgresql")
    try:
        return grouped_lines(write_deployment(model, out))
    except DeployError as exc:
        raise ExportError(str(exc)) from None


EXPORTERS: dict[str, Callable[..., Any]] = {
    "json": export_json, "schema": export_schema, "ddl": export_ddl, "report": export_report,
    "goldengate": export_goldengate, "postgresql": export_postgresql,
}
