"""Comparing runs: two RunResults (or run directories) are equal when every output is, order aside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from engine.run.reference import RunResult
from engine.run.values import to_json_value


def _canon(items: list[Any]) -> list[str]:
    return sorted(json.dumps(to_json_value(i), sort_keys=True) for i in items)


def result_doc(result: RunResult) -> dict[str, Any]:
    return {
        "tables": {k: _canon(v) for k, v in result.tables.items()},
        "conflicts": _canon(result.conflicts),
        "error_queue": _canon(result.error_queue),
        "rejects": _canon([r.as_dict() for r in result.rejects]),
        "convergence": _canon(result.convergence),
        "counts": result.counts.as_dict(),
    }


def rundir_doc(rundir: Path) -> dict[str, Any]:
    """Everything in a run directory but the manifest's times, engine and master."""
    doc: dict[str, Any] = {}
    for path in sorted(rundir.rglob("*")):
        rel = str(path.relative_to(rundir))
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            doc[rel] = {"schema": str(table.schema), "rows": table.to_pylist()}
        elif path.suffix in (".jsonl", ".json") and path.name != "manifest.json":
            doc[rel] = path.read_text()
    manifest = json.loads((rundir / "manifest.json").read_text())
    doc["manifest"] = {k: manifest[k] for k in ("status", "counts", "model_sha256")}
    return doc
