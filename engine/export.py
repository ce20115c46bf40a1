"""Exports of a model: normalised JSON, the JSON Schema of the format, target DDL, an HTML report."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.ddl import DdlError, model_ddl
from engine.deploy.goldengate import write_goldengate
from engine.model.io import dump_model, write_atomic
from engine.model.schema import FORMAT, Model
from engine.report import group_title, summary
from engine.rules import validate


class ExportError(Exception):
    """An export that cannot be made (for example an unknown SQL dialect)."""


def export_json(model: Model, out: Path, **_: Any) -> None:
    write_atomic(out, dump_model(model))


def format_schema() -> dict[str, Any]:
    schema = Model.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"Mapwright model ({FORMAT})"
    return schema


def export_schema(model: Model, out: Path, **_: Any) -> None:
    write_atomic(out, json.dumps(format_schema(), indent=1) + "\n")


def export_ddl(model: Model, out: Path, dialect: str | None = None, server: str | None = None, **_: Any) -> None:
    """CREATE TABLE for every table a mapping writes to (or every table of `server`), a section per server
    in its DBMS's dialect (or all in `dialect`), built by `engine.ddl` with quoted names and checked defaults."""
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
    if not out.is_dir() or not any(out.iterdir()):
        return
    try:
        with (out / marker).open("rb") as f:
            if f.read(len(opening.encode())) == opening.encode():
                return
    except OSError:
        pass
    raise ExportError(f"{out} is a folder with other files in it: --to {kind} writes into a new or empty folder, "
                      f"or over an earlier {kind} export (its {marker})")


def export_goldengate(model: Model, out: Path, **_: Any) -> None:
    """Oracle GoldenGate Replicat parameter files and their REPORT.txt, in the folder `out`."""
    from engine.deploy.goldengate import REPORT_NAME, REPORT_OPENING

    folder_is_ours(out, REPORT_NAME, REPORT_OPENING, "goldengate")
    try:
        write_goldengate(model, out)
    except NotADirectoryError as exc:
        raise ExportError(str(exc)) from None


def export_postgresql(model: Model, out: Path, **_: Any) -> list[str]:
    """The PostgreSQL logical-replication deployment (a folder); returns its findings, one line each."""
    from engine.deploy.postgresql import README_OPENING, DeployError
    from engine.deploy.postgresql import export_postgresql as write_deployment

    folder_is_ours(out, "README.txt", README_OPENING, "postgresql")
    try:
        return [f.line() for f in write_deployment(model, out)]
    except DeployError as exc:
        raise ExportError(str(exc)) from None


EXPORTERS: dict[str, Callable[..., Any]] = {
    "json": export_json, "schema": export_schema, "ddl": export_ddl, "report": export_report,
    "goldengate": export_goldengate, "postgresql": export_postgresql,
}
