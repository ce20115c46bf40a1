"""Validation speed: one incremental re-check after an edit, against a full validation, on a large model.

Run on demand: `.venv/bin/python benchmarks/bench_validation.py [--tables N]`. Prints seconds and the
ratio full / incremental measured in this same run (the baseline), so the numbers compare across machines.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--edits", type=int, default=200)
    args = parser.parse_args()
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
