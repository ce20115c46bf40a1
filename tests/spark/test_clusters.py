"""Runs on real clusters started from the pyspark package: standalone masters with one or two workers, and a Spark
Connect server, all on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from sparkkit import reference_run, rundir_doc, spark_run

from benchmarks import topology
from engine.model import load_model
from engine.run.rundir.write import model_sha256
from engine.spark.cluster import ConnectServer, StandaloneCluster

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"


def run_example(examples: Path, name: str, out: Path, master: str) -> dict[str, object]:
    res = subprocess.run([MAPWRIGHT, "run", str(examples / name / "model.json"), "--data",
                          str(examples / name / "data"), "--out", str(out), "--master", master],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads((out / "manifest.json").read_text())


def final_rows(out: Path, table: str) -> list[dict[str, object]]:
    server, name = table.split(".")
    return sorted(pq.read_table(out / "tables" / server / f"{name}.parquet").to_pylist(), key=lambda r: r["ID"])


@pytest.mark.slow
def test_spark_connect_server(examples: Path, tmp_path: Path) -> None:
    with ConnectServer("local[2]") as server:
        manifest = run_example(examples, "row_images", tmp_path / "run", server.url)
    expected = json.loads((examples / "row_images" / "expected.json").read_text())
    assert manifest["master"] == server.url and manifest["status"] == "succeeded"
    assert final_rows(tmp_path / "run", "dst.ITEM") == expected["final"]["dst.ITEM"]


BENCH_EVENTS = 20_000


@pytest.fixture(scope="module")
def topology_20k(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The B2 benchmark's 3-master topology with 20,000 change events: (model.json, data folder)."""
    root = tmp_path_factory.mktemp("topology")
    topology.generate(root, BENCH_EVENTS)
    return root / "model.json", root / "data"


def mapwright_run(model: Path, data: Path, out: Path, master: str) -> None:
    res = subprocess.run([MAPWRIGHT, "run", str(model), "--data", str(data), "--out", str(out), "--master", master],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]


def differences(a: dict[str, Any], b: dict[str, Any], limit: int = 20) -> list[str]:
    """Where two `rundir_doc`s differ, as lines naming the file, the row or line, the field and both values."""
    found = [f"{name}: only in the first run" for name in sorted(a.keys() - b.keys())]
    found += [f"{name}: only in the second run" for name in sorted(b.keys() - a.keys())]
    for name in sorted(a.keys() & b.keys()):
        found += _entry_differences(name, a[name], b[name])
    return found[:limit]


def _entry_differences(name: str, a: Any, b: Any) -> list[str]:
    if a == b:
        return []
    if isinstance(a, str) and isinstance(b, str):  # JSON (lines) text: line by line
        la, lb = a.splitlines(), b.splitlines()
        found = [f"{name} line {i}: {x!r} != {y!r}" for i, (x, y) in enumerate(zip(la, lb, strict=False), 1) if x != y]
        return found + ([f"{name}: {len(la)} lines != {len(lb)} lines"] if len(la) != len(lb) else [])
    if isinstance(a, dict) and "rows" in a and isinstance(b, dict) and "rows" in b:  # Parquet
        found = [f"{name} schema: {a['schema']!r} != {b['schema']!r}"] if a["schema"] != b["schema"] else []
        for i, (x, y) in enumerate(zip(a["rows"], b["rows"], strict=False)):
            found += [f"{name} row {i} {field}: {x.get(field)!r} != {y.get(field)!r}"
                      for field in sorted(x.keys() | y.keys()) if x.get(field) != y.get(field)]
        return found + ([f"{name}: {len(a['rows'])} rows != {len(b['rows'])} rows"]
                        if len(a["rows"]) != len(b["rows"]) else [])
    if isinstance(a, dict) and isinstance(b, dict):  # the manifest
        return [f"{name} {key}: {a.get(key)!r} != {b.get(key)!r}" for key in sorted(a.keys() | b.keys())
                if a.get(key) != b.get(key)]
    return [f"{name}: {a!r} != {b!r}"]


def executor_logs(cluster: StandaloneCluster) -> dict[str, list[Path]]:
    """Each worker's executor stderr files (`WORKDIR/<app id>/<executor id>/stderr`), by worker folder."""
    return {work_dir.name: sorted(work_dir.glob("app-*/*/stderr")) for work_dir in cluster.work_dirs}


def master_state(cluster: StandaloneCluster) -> dict[str, Any]:
    """The master's own account of the cluster: its web UI's JSON."""
    with urllib.request.urlopen(f"http://127.0.0.1:{cluster.webui_port}/json/", timeout=10) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


@pytest.mark.slow
def test_two_workers_write_the_run_directory_of_local_2(spark: Any, topology_20k: tuple[Path, Path],
                                                        examples: Path, tmp_path: Path) -> None:
    """20,000 benchmark events on a standalone master with two workers give the run directory of local[2],
    and so does the in-process engine; and a contract example run on the same cluster gives its expected
    results. The local[2] run is the
    tests' own session (the pipeline and publishing of `mapwright run`, in a JVM already warm: half a
    minute less on a loaded 2-core machine than a process of its own)."""
    model, data = topology_20k
    spark_run(spark, load_model(model), data, tmp_path / "local")
    with StandaloneCluster(cores=1, memory="1g", workers=2) as cluster:
        workers = master_state(cluster)["workers"]
        assert [(w["state"], w["cores"]) for w in workers] == [("ALIVE", 1), ("ALIVE", 1)]
        mapwright_run(model, data, tmp_path / "cluster", cluster.url)
        logs = executor_logs(cluster)
        manifest = run_example(examples, "ordering_conflict", tmp_path / "example", cluster.url)
    expected = json.loads((examples / "ordering_conflict" / "expected.json").read_text())
    assert manifest["master"] == cluster.url and manifest["status"] == "succeeded"
    for table, rows in expected["final"].items():
        assert final_rows(tmp_path / "example", table) == rows
    assert manifest["counts"]["conflicts"] == len(expected["conflicts"])
    # the run's one application had an executor on each worker, and each executor ran tasks
    assert all(len(stderr) == 1 for stderr in logs.values()), logs
    assert len({stderr[0].parent.parent.name for stderr in logs.values()}) == 1, logs
    for stderr in logs.values():
        assert "Finished task" in stderr[0].read_text(errors="replace"), stderr[0]
    assert json.loads((tmp_path / "cluster" / "manifest.json").read_text())["master"] == cluster.url
    local, clustered = rundir_doc(tmp_path / "local"), rundir_doc(tmp_path / "cluster")
    assert clustered["manifest"].pop("model_sha256") == model_sha256(model)  # the test's own run names none
    del local["manifest"]["model_sha256"]
    assert local["manifest"]["counts"]["records"] == BENCH_EVENTS
    convergence = json.loads((tmp_path / "local" / "convergence.json").read_text())["mappings"]
    assert [m["diverged"] for m in convergence] == [0] * 6  # every site settles on the same rows
    assert clustered == local, "\n".join(differences(local, clustered))
    reference_run(load_model(model), data, tmp_path / "inprocess")  # `--engine inprocess`'s run directory
    inprocess = rundir_doc(tmp_path / "inprocess")
    del inprocess["manifest"]["model_sha256"]
    assert inprocess == local, "\n".join(differences(local, inprocess))
