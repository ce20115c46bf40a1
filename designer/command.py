"""The `mapwright designer` subcommand, registered through the `mapwright.commands` entry point."""

from __future__ import annotations

import argparse

from engine.model import load_model
from engine.report import render_text
from engine.rules import count, validate
from resources import SAMPLE_MODEL


def run(args: argparse.Namespace) -> int:
    path = args.model or str(SAMPLE_MODEL)
    model = load_model(path)
    findings = validate(model)
    print("The desktop designer is not built yet; validating the model instead.")
    print(render_text(model, findings, source=path))
    return 1 if count(findings)[0] else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("designer", help="open the desktop designer (with no model, the bundled sample)")
    p.add_argument("model", metavar="MODEL", nargs="?", help="model file (default: the bundled sample)")
    p.set_defaults(func=run)
