"""Validation speed: one incremental re-check after an edit, against a full validation, on a large model.

Run on demand: `.venv/bin/python benchmarks/bench_validation.py [--tables N]`. Prints seconds and the
ratio full / incremental measured in this same run (the baseline), so the numbers compare across machines.

`--b1` runs B1 of issue 10 instead: 1,000 tables of 30 columns (30,000 columns) and 1,000 mappings (500
bidirectional pairs, so the reversibility rules run too); full and incremental validation, median and p95,
written to benchmarks/results/bench_validation_b1.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

from engine.edits import evolve, replace
from engine.model import Model
from engine.rules import Validator, validate


def large_model(tables: int) -> Model:
    """`tables` tables per site on three sites, each copied hq -> br and hq -> web with a concat key."""
    servers = [{"id": "hq", "dbms": "oracle", "priority": 30}, {"id": "br", "dbms": "db2", "priority": 20},
               {"id": "web", "dbms": "postgresql", "priority": 10}]
    cols = [{"name": "REGION", "type": "CHAR(2)", "nullable": False},
            {"name": "NO", "type": "INTEGER", "nullable": False}]
    cols += [{"name": f"C{i}", "type": "VARCHAR(40)"} for i in range(12)]
    out_tables, mappings, conflicts = [], [], []
    for t in range(tables):
        out_tables.append({"server": "hq", "name": f"T{t}", "columns": cols, "primary_key": ["REGION", "NO"]})
        for site in ("br", "web"):
            out_tables.append({"server": site, "name": f"T{t}", "columns": [
                {"name": "K", "type": "VARCHAR(16)", "nullable": False}, *cols[2:]], "primary_key": ["K"]})
            mappings.append({"id": f"m{t}_{site}", "source": f"hq.T{t}", "target": f"{site}.T{t}", "columns": {
                "K": {"method": "concat", "inputs": ["REGION", "NO"], "sep": "-"},
                **{f"C{i}": f"C{i}" for i in range(12)}}})
            conflicts.append({"table": f"{site}.T{t}", "column_groups": [
                {"name": "g", "columns": ["C0", "C1"], "resolution": [{"method": "site_priority"}]}]})
    return Model.model_validate({"format": "mapwright/1", "name": "large", "servers": servers,
                                 "tables": out_tables, "mappings": mappings, "conflicts": conflicts})


def b1_model(pairs: int = 500, columns: int = 30) -> Model:
    """B1's model: `pairs` tables on hq each replicated both ways with one on br (a mapping and its reverse)."""
    cols = [{"name": "ID", "type": "INTEGER", "nullable": False}]
    cols += [{"name": f"C{i}", "type": "VARCHAR(40)"} for i in range(columns - 1)]
    names = [c["name"] for c in cols]
    tables, mappings = [], []
    for t in range(pairs):
        for site in ("hq", "br"):
            tables.append({"server": site, "name": f"T{t}", "columns": cols, "primary_key": ["ID"]})
        for source, target in (("hq", "br"), ("br", "hq")):
            mappings.append({"id": f"{source}_{target}_{t}", "source": f"{source}.T{t}", "target": f"{target}.T{t}",
                             "reverse": f"{target}_{source}_{t}", "columns": {n: n for n in names}})
    return Model.model_validate({"format": "mapwright/1", "name": "b1", "servers": [
        {"id": "hq", "dbms": "oracle", "priority": 20}, {"id": "br", "dbms": "postgresql", "priority": 10}],
        "tables": tables, "mappings": mappings})


def p95(samples: list[float]) -> float:
    return sorted(samples)[max(0, round(0.95 * len(samples)) - 1)]


def b1(edits: int, out: Path) -> None:
    """B1: full validation (median and p95 of a few) and one incremental re-check after an edit (median, p95)."""
    model = b1_model()
    full = []
    for _ in range(5):
        t = time.perf_counter()
        validate(model)
        full.append(time.perf_counter() - t)
    validator = Validator(model)
    rng = random.Random(1)
    incremental = []
    for i in range(edits):
        if i % 2:
            m = rng.choice(model.mappings)
            edit = replace(model, "mapping", m, evolve(m, journal=not m.journal))
        else:
            table = rng.choice(model.tables)
            edit = replace(model, "table", table, evolve(table, columns=[
                c.model_dump(mode="python") | ({"nullable": not c.nullable} if c.name == "C3" else {})
                for c in table.columns]))
        t = time.perf_counter()
        validator.apply(edit)
        incremental.append(time.perf_counter() - t)
    results = {
        "model": {"tables": len(model.tables), "columns": sum(len(t.columns) for t in model.tables),
                  "mappings": len(model.mappings)},
        "full_ms": {"median": round(statistics.median(full) * 1000, 1), "p95": round(p95(full) * 1000, 1)},
        "incremental_ms": {"median": round(statistics.median(incremental) * 1000, 2),
                           "p95": round(p95(incremental) * 1000, 2), "edits": edits},
        "cpus": os.cpu_count(), "load_average": os.getloadavg()[0],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"written to {out}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--b1", action="store_true", help="B1: 1,000 tables, 30,000 columns, 1,000 mappings")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results"
                        / "bench_validation_b1.json")
    args = parser.parse_args()
    if args.b1:
        b1(args.edits, args.out)
        return
    model = large_model(args.tables)
    start = time.perf_counter()
    full = [time.perf_counter() - start for _ in [validate(model)]]
    for _ in range(2):
        t = time.perf_counter()
        validate(model)
        full.append(time.perf_counter() - t)
    validator = Validator(model)
    rng = random.Random(1)
    incremental = []
    for _ in range(args.edits):
        m = rng.choice(model.mappings)
        edit = replace(model, "mapping", m, evolve(m, journal=not m.journal))
        t = time.perf_counter()
        validator.apply(edit)
        incremental.append(time.perf_counter() - t)
    f, i = statistics.median(full), statistics.median(incremental)
    print(f"model: {len(model.tables)} tables, {len(model.mappings)} mappings")
    print(f"full validation     median {f * 1000:8.1f} ms")
    print(f"incremental (1 edit) median {i * 1000:8.2f} ms")
    print(f"ratio full / incremental: {f / i:.0f}x")


if __name__ == "__main__":
    main()
