"""Comparing runs: two run directories are equal when every output is; helpers to write both engines' runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from engine.core.values import to_json_value
from engine.model import Model
from engine.run.rundir.write import RunInfo, RunSummary, write_run, write_spark_run
from engine.run.semantics.reference import RunResult, run_reference
from engine.spark.pipeline import run_spark


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
    """Everything in a run directory but the manifest's times, engine and master: each Parquet file's
    schema (its metadata aside: Spark's writer adds its own) and rows in order, each JSON file's text."""
    doc: dict[str, Any] = {}
    for path in sorted(rundir.rglob("*")):
        rel = str(path.relative_to(rundir))
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            doc[rel] = {"schema": str(table.schema.remove_metadata()), "rows": table.to_pylist()}
        elif path.suffix in (".jsonl", ".json") and path.name != "manifest.json":
            doc[rel] = path.read_text()
        elif path.is_file():
            doc[rel] = "present"
    manifest = json.loads((rundir / "manifest.json").read_text())
    doc["manifest"] = {k: manifest[k] for k in ("status", "counts", "model_sha256")}
    return doc


def spark_run(spark: Any, model: Model, data: Path, out: Path, progress: Any = None) -> RunSummary:
    """Run the Spark pipeline and publish its run directory at `out`, as `mapwright run` does."""
    return write_spark_run(lambda staged: run_spark(spark, model, data, staged, progress), model, out,
                           lambda: RunInfo("x"))


def reference_run(model: Model, data: Path, out: Path) -> RunResult:
    """Run the reference and write its run directory at `out`."""
    result = run_reference(model, data)
    write_run(result, model, out, RunInfo("x"))
    return result


def both(spark: Any, model: Model, data: Path, root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the Spark run's directory, the reference's), as `rundir_doc`s."""
    spark_run(spark, model, data, root / "spark")
    reference_run(model, data, root / "reference")
    return rundir_doc(root / "spark"), rundir_doc(root / "reference")
