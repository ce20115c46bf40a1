"""Try an installed Mapwright as a user would: `python packaging/smoke.py PROGRAM [SAMPLE]`.

PROGRAM is an installed `mapwright` (the packaged application's dist/mapwright/mapwright, or a virtual
environment's bin/mapwright); SAMPLE its bundled sample model (default: the one inside the application's folder).
From an empty folder, it validates the sample and checks the findings are those this checkout prints, runs
the sample's data in process (`mapwright run --engine inprocess`), and has the designer render its window to a
PNG offscreen, which must be a picture of the window (its size, many colours), not an empty or black image.
`make package` runs it on the application; tests/packaging checks the wheel with the same functions.
Exit 0 when every check passes, else 1 with one line per failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

#: The designer's window is 1280x800 offscreen; a smaller image is an error dialog or nothing.
MIN_SIZE = (800, 500)
#: A rendered window (tables, wires, a list of findings, text) has hundreds of colours; a blank one a few.
MIN_COLOURS = 64
TIMEOUT_S = 300


def clean_env() -> dict[str, str]:
    """The environment of a user's shell: offscreen Qt, and nothing that would import this checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=TIMEOUT_S)


def expected_validation(sample: Path) -> tuple[str, int]:
    """What this checkout's `mapwright validate SAMPLE` prints and its exit code (the engine, in process)."""
    from engine.cli import EXIT_FINDINGS, EXIT_OK
    from engine.model import load_model
    from engine.report import render_text
    from engine.rules import count, validate

    model = load_model(sample)
    findings = validate(model)
    errors, _ = count(findings)
    return render_text(model, findings, source=str(sample)) + "\n", EXIT_FINDINGS if errors else EXIT_OK


def screenshot_problem(png: Path) -> str | None:
    """Why `png` is not a picture of the designer's window, or None when it is one."""
    from PySide6.QtGui import QImage

    if not png.is_file():
        return f"{png}: no screenshot was written"
    image = QImage(str(png))
    if image.isNull():
        return f"{png}: not an image Qt can read"
    if image.width() < MIN_SIZE[0] or image.height() < MIN_SIZE[1]:
        return f"{png}: {image.width()}x{image.height()}, smaller than the window ({MIN_SIZE[0]}x{MIN_SIZE[1]})"
    colours = {image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)}
    if len(colours) < MIN_COLOURS:
        return f"{png}: {len(colours)} colours, a blank window (a rendered one has {MIN_COLOURS} or more)"
    return None


def validation_problem(program: list[str], sample: Path, cwd: Path) -> str | None:
    """Why `PROGRAM validate SAMPLE` does not print this checkout's findings with its exit code, or None."""
    done = run([*program, "validate", str(sample)], cwd)
    text, code = expected_validation(sample)
    if done.returncode != code or done.stdout != text:
        return (f"{' '.join(program)} validate: exit {done.returncode} (expected {code}), "
                f"{'same' if done.stdout == text else 'other'} findings; stderr: {done.stderr.strip()[-300:]}")
    return None


def designer_problem(program: list[str], cwd: Path) -> str | None:
    """Why `PROGRAM designer --screenshot` (the bundled sample) does not render the window, or None."""
    png = cwd / "designer.png"
    done = run([*program, "designer", "--screenshot", str(png)], cwd)
    if done.returncode != 0:
        return f"{' '.join(program)} designer --screenshot: exit {done.returncode}: {done.stderr.strip()[-300:]}"
    return screenshot_problem(png)


def run_problem(program: list[str], sample: Path, cwd: Path) -> str | None:
    """Why an in-process run of the sample's data does not succeed, or None."""
    out = cwd / "run"
    done = run([*program, "run", str(sample), "--data", str(sample.parent / "orders-data"), "--out", str(out),
                "--engine", "inprocess"], cwd)
    if done.returncode != 0 or not (out / "manifest.json").is_file():
        return f"{' '.join(program)} run --engine inprocess: exit {done.returncode}: {done.stderr.strip()[-300:]}"
    return None


def usage_error_problem(program: list[str], sample: Path, cwd: Path) -> str | None:
    """Why a usage error of a designer-registered command (`diagram --out ''`) is not one line with exit 2."""
    done = run([*program, "diagram", str(sample), "--out", ""], cwd)
    if done.returncode != 2 or len(done.stderr.strip().splitlines()) != 1:
        return f"{' '.join(program)} diagram --out '': exit {done.returncode}: {done.stderr.strip()[-300:]}"
    return None


def bundled_sample(program: Path) -> Path:
    """The sample model inside a packaged application's folder."""
    found = sorted(program.parent.glob("**/resources/samples/orders.json"))
    if not found:
        raise SystemExit(f"smoke: no resources/samples/orders.json under {program.parent}")
    return found[0]


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    program = Path(argv[0]).absolute()
    sample = Path(argv[1]).absolute() if len(argv) > 1 else bundled_sample(program)
    with tempfile.TemporaryDirectory(prefix="mapwright-smoke-") as tmp:
        cwd = Path(tmp)
        checks: dict[str, Callable[[], str | None]] = {
            "validate": lambda: validation_problem([str(program)], sample, cwd),
            # the designer starts its runs as `sys.executable -m engine.cli`: the application must accept that
            "-m engine.cli validate": lambda: validation_problem([str(program), "-m", "engine.cli"], sample, cwd),
            "-m engine.cli diagram --out ''": lambda: usage_error_problem([str(program), "-m", "engine.cli"],
                                                                           sample, cwd),
            "run --engine inprocess": lambda: run_problem([str(program)], sample, cwd),
            "designer --screenshot": lambda: designer_problem([str(program)], cwd),
        }
        failures = 0
        for name, check in checks.items():
            problem = check()
            print(f"smoke: {name}: {problem or 'ok'}")
            failures += problem is not None
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's engine gives the expected
    sys.exit(main(sys.argv[1:]))
