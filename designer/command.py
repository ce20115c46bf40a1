"""The `mapwright designer` subcommand, registered through the `mapwright.commands` entry point."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from designer.app import NO_DISPLAY, has_display, main, missing_system_library
    from engine.model import load_model

    if args.model:
        load_model(args.model)  # an unreadable model is exit 2 with one line, before any window
    if not has_display() and args.screenshot is None:
        print(f"mapwright: {NO_DISPLAY}", file=sys.stderr)
        return 2
    missing = missing_system_library()
    if missing:
        print(f"mapwright: {missing}", file=sys.stderr)
        return 2
    if args.screenshot is not None and not has_display():
        import os
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    return main(Path(args.model) if args.model else None, Path(args.screenshot) if args.screenshot else None)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("designer", help="open the desktop designer (with no model, the bundled sample)")
    p.add_argument("model", metavar="MODEL", nargs="?", help="model file (default: the bundled sample)")
    p.add_argument("--screenshot", metavar="PNG", help="render the window to a PNG and exit (works without a screen)")
    p.set_defaults(func=run)
