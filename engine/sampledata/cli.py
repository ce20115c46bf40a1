"""`python -m engine.sampledata`: write the sample data set from the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.model.io import ModelLoadError, load_model
from engine.sampledata.generator import generate
from resources import SAMPLE_MODEL


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.sampledata",
                                     description="Write a business day of sample data for the sample model.")
    parser.add_argument("model", nargs="?", default=str(SAMPLE_MODEL), help="model file (default: the bundled sample)")
    parser.add_argument("--out", required=True, type=Path, help="the data folder to write (a run's --data)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rows", type=int, default=10_000, help="snapshot rows, about")
    parser.add_argument("--changes", type=int, default=3_000, help="change records, about")
    parser.add_argument("--debezium", action="store_true",
                        help="write the day as Debezium change events (changes/debezium/<server>/*.jsonl)")
    args = parser.parse_args(argv)
    try:
        model = load_model(args.model)
    except ModelLoadError as exc:
        print(f"python -m engine.sampledata: {exc}", file=sys.stderr)
        return 2
    generate(model, args.out, seed=args.seed, rows=args.rows, changes=args.changes,
             debezium=args.debezium)
    print(f"wrote {args.out}")
    return 0
