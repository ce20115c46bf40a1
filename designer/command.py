"""The `mapwright designer` subcommand, registered through the `mapwright.commands` entry point."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from designer.app import NO_DISPLAY, has_display, main, missing_system_library
    from engine.model import load_model

    model = load_model(args.model) if args.model else None  # unreadable: exit 2 with one line, before any window
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
    return main(Path(args.model) if args.model else None, Path(args.screenshot) if args.screenshot else None, model)


def run_diagram(args: argparse.Namespace) -> int:
    """`mapwright diagram`: the designer's canvas drawn offscreen to a PNG, SVG or PDF file. Bad input raises
    the engine's `UsageError` or `ModelLoadError`, which `engine.cli.main` says in one line (exit 2)."""
    from designer.diagram import DiagramError, write_model_diagram
    from engine.cli import UsageError
    from engine.export import same_file
    from engine.model import load_model
    from engine.model.io import one_line

    if not args.out.strip():
        raise UsageError("--out names no file (an empty path)")
    if same_file(Path(args.out), Path(args.model)):
        raise UsageError(f"{one_line(args.out)} is the model file itself: write the diagram to another path")
    model = load_model(args.model)  # an unreadable model: exit 2, as for every command
    try:
        write_model_diagram(model, Path(args.out), server=args.server)
    except DiagramError as exc:  # an unknown suffix or server
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{one_line(args.out)}: cannot write ({exc.strerror or exc})") from None
    print(f"wrote {args.out}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("diagram", help="draw the model's tables and mappings as the designer's canvas does, to a "
                       "PNG, SVG or PDF file (no display needed)")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--out", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.pdf (by its suffix)")
    p.add_argument("--server", metavar="ID", help="only this server's tables and the mappings between them")
    p.set_defaults(func=run_diagram)

    p = sub.add_parser("designer", help="open the desktop designer (with no model, the bundled sample)")
    p.add_argument("model", metavar="MODEL", nargs="?", help="model file (default: the bundled sample)")
    p.add_argument("--screenshot", metavar="PNG", help="render the window to a PNG and exit (works without a screen)")
    p.set_defaults(func=run)
