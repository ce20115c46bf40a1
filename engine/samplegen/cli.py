"""`mapwright sample MODEL --out DIR`: sample data for any valid model (what `mapwright run --data` reads).

Exit codes: 0 written; 1 the model has validation errors (the findings are printed); 2 bad usage or an
input that cannot be used (the model file, the options, `--out`, the `--from` database).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.model import ModelLoadError, load_model
from engine.model.io import one_line
from engine.report import render_text
from engine.rules import count, validate
from engine.sampledata.staging import SampleError
from engine.samplegen.options import Outage, SampleCancelled, SampleOptions

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def _outage(text: str) -> Outage:
    try:
        return Outage.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(sub: Any) -> None:
    """Add `sample` to `mapwright`'s subcommands."""
    p = sub.add_parser("sample", help="write sample data for a model (snapshots, a day of changes, a schedule)",
                       description="Writes what `mapwright run --data DIR` reads: snapshots of every table at "
                       "every site, a day of changes with conflicts at the requested rate, and a schedule. "
                       "DIR must be new, empty, or a folder this command wrote.")
    p.add_argument("model", metavar="MODEL", help="model file (JSON)")
    p.add_argument("--out", required=True, metavar="DIR", help="the data folder to write")
    p.add_argument("--seed", type=int, default=1, help="the same seed gives the same files (default 1)")
    p.add_argument("--rows", type=_count, default=100, metavar="N", help="snapshot rows per table, about")
    p.add_argument("--changes", type=_count, default=1000, metavar="N", help="change records in all, about")
    p.add_argument("--conflict-rate", type=_rate, default=0.1, metavar="P",
                   help="share of the delivered keys that meet a conflict (default 0.1)")
    p.add_argument("--malformed-rate", type=_rate, default=0.0, metavar="P",
                   help="share of unusable records added (default 0: a run rejects none)")
    p.add_argument("--outage", type=_outage, action="append", default=[], metavar="SITE:HH:MM-HH:MM",
                   help="all links from and to SITE are down then (repeatable)")
    p.add_argument("--debezium", action="store_true", help="write the changes as Debezium events")
    p.add_argument("--from", dest="source", metavar="URL",
                   help="start --server's snapshot from a live database: up to --rows rows of each of its tables, "
                   "ordered by key, read-only; URL is SQLAlchemy's, as `mapwright import` takes it (e.g. "
                   "postgresql://me@host:5432/sales or sqlite:///shop.db). A password is never written down: add "
                   "?password_env=NAME to read it from the environment variable NAME, or you are asked for it on "
                   "a terminal")
    p.add_argument("--server", metavar="ID", help="with --from: the server whose tables the database holds")
    p.add_argument("--schema", metavar="S", help="with --from: the schema to read")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run `mapwright sample`; returns the exit code."""
    if not str(args.out).strip():
        return _fail("--out names no folder (an empty path)")
    if (args.source is None) != (args.server is None):
        return _fail("--from and --server go together (the database, and the server whose tables it holds)")
    if args.schema is not None and args.source is None:
        return _fail("--schema is for --from")
    try:
        model = load_model(args.model)
    except ModelLoadError as exc:
        return _fail(str(exc))
    findings = validate(model)
    errors, _ = count(findings)
    if errors:
        print(render_text(model, findings, source=args.model), file=sys.stderr)
        print(f"mapwright: no sample written: {args.model} has {errors} error(s)", file=sys.stderr)
        return EXIT_FINDINGS
    initial = None
    if args.source is not None:
        if model.server(args.server) is None:
            return _fail(f"--server {args.server!r} is no server of {args.model}")
        from engine.samplegen.fromdb import SampleSourceError, read_server_rows

        try:
            initial, notes = read_server_rows(args.source, model, args.server, args.rows, args.schema,
                                              prompt=_password_prompt())
        except SampleSourceError as exc:
            return _fail(str(exc))
        for note in notes:
            print(f"mapwright: note: {one_line(note)}", file=sys.stderr)
    options = SampleOptions(seed=args.seed, rows=args.rows, changes=args.changes, conflict_rate=args.conflict_rate,
                            malformed_rate=args.malformed_rate, outages=tuple(args.outage), debezium=args.debezium)
    from engine.samplegen.generate import generate_sample  # here: Faker's import is for `sample` alone

    try:
        summary = generate_sample(model, Path(args.out), options, initial=initial)
    except SampleError as exc:
        return _fail(str(exc))
    except SampleCancelled:
        return _fail("cancelled; nothing was written")
    print(f"wrote {summary.tables} tables, {summary.snapshot_rows} snapshot rows, {summary.changes} changes "
          f"({summary.malformed} malformed), {summary.conflict_keys} conflict keys to {args.out}")
    return EXIT_OK


def _password_prompt() -> Callable[[str], str] | None:
    """Ask on the terminal when there is one, as `mapwright import` does; without one, a clear error."""
    import getpass

    return getpass.getpass if sys.stdin.isatty() else None


def _fail(message: str) -> int:
    print(f"mapwright sample: {one_line(message)}", file=sys.stderr)
    return EXIT_USAGE
