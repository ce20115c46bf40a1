"""`python -m engine.sampledata`: write the sample data set from the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.model.io import ModelLoadError, load_model
from engine.sampledata.generator import generate
from engine.sampledata.shop import SampleDataError, SampleModelError
from resources import SAMPLE_MODEL

PROG = "python -m engine.sampledata"


def count(text: str) -> int:
    """A size argument: a whole number, 0 or more (a negative count is a typo, not a small data set)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description="Write a business day of sample data for the sample model.")
    parser.add_argument("model", nargs="?", default=str(SAMPLE_MODEL), help="model file (default: the bundled sample)")
    parser.add_argument("--out", required=True, help="the data folder to write (a run's --data): absent, empty, "
                        "or one this command wrote")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rows", type=count, default=10_000, help="snapshot rows, about")
    parser.add_argument("--changes", type=count, default=3_000, help="change records, about")
    parser.add_argument("--debezium", action="store_true",
                        help="write the day as Debezium change events (changes/debezium/<server>/*.jsonl)")
    args = parser.parse_args(argv)
    if not args.out.strip():  # Path("") is the current folder
        return fail("--out names no folder (an empty path)")
    try:
        model = load_model(args.model)
    except ModelLoadError as exc:
        return fail(str(exc))
    try:
        generate(model, Path(args.out), seed=args.seed, rows=args.rows, changes=args.changes,
                 debezium=args.debezium)
    except SampleModelError as exc:
        return fail(f"{args.model}: {exc}")
    except SampleDataError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"{args.out}: cannot write ({exc.strerror}: {exc.filename})")
    print(f"wrote {args.out}")
    return 0


def fail(message: str) -> int:
    """Say why in one line on stderr; exit status 2 (bad usage or an input that cannot be used)."""
    print(f"{PROG}: {' '.join(message.split())}", file=sys.stderr)
    return 2
