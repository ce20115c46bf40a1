"""Runs on real clusters started from the pyspark package: a standalone master and worker, and a Spark
Connect server, all on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

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
def test_standalone_master_and_worker(examples: Path, tmp_path: Path) -> None:
    with StandaloneCluster(cores=2, memory="1g") as cluster:
        manifest = run_example(examples, "ordering_conflict", tmp_path / "run", cluster.url)
    expected = json.loads((examples / "ordering_conflict" / "expected.json").read_text())
    assert manifest["master"] == cluster.url and manifest["status"] == "succeeded"
    for table, rows in expected["final"].items():
        assert final_rows(tmp_path / "run", table) == rows
    assert manifest["counts"]["conflicts"] == len(expected["conflicts"])


@pytest.mark.slow
def test_spark_connect_server(examples: Path, tmp_path: Path) -> None:
    with ConnectServer("local[2]") as server:
        manifest = run_example(examples, "row_images", tmp_path / "run", server.url)
    expected = json.loads((examples / "row_images" / "expected.json").read_text())
    assert manifest["master"] == server.url and manifest["status"] == "succeeded"
    assert final_rows(tmp_path / "run", "dst.ITEM") == expected["final"]["dst.ITEM"]
