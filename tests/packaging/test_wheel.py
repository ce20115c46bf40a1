"""The wheel, tried as a user would: built from the sources, installed into a fresh virtual environment, and run
from a folder outside the checkout (`mapwright validate` on the bundled sample, `mapwright designer
--screenshot`). The new environment takes its dependencies (PySide6, pyspark...) from the project's through a
.pth file, so nothing is downloaded; Mapwright itself must come from the wheel, never from the checkout.
The packaged application gets the same checks from packaging/smoke.py in `make package` (too slow for here)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "engine", "designer", "resources")


def load_smoke() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mapwright_smoke", ROOT / "packaging" / "smoke.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of the checkout's sources (as they are, bytecode included: a build must leave it
    out), built offline without build isolation: pip writes build/ and *.egg-info beside the sources, and
    those of the checkout belong to its editable install."""
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name)
        else:
            shutil.copy2(path, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--wheel-dir", str(tmp / "dist"), str(src)], check=True, capture_output=True)
    (wheel,) = (tmp / "dist").glob("mapwright-*.whl")
    return wheel


def fresh_environment(tmp: Path, wheel: Path) -> tuple[Path, Path]:
    """A new virtual environment with the wheel installed: (its python, its site-packages)."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the project's dependencies, after the new environment's own packages (a path line: the project
    # environment's .pth files, among them the checkout's editable install, are not run)
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_project_dependencies.pth").write_text("".join(f"{path}\n" for path in sorted(ours)))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True)
    return python, site


def test_the_installed_wheel_validates_the_sample_and_renders_the_designer(tmp_path: Path) -> None:
    smoke = load_smoke()
    wheel = build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    for packaged in ("engine/cli.py", "designer/app.py", "resources/samples/orders.json",
                     "resources/samples/orders-data/schedule.json", "resources/icons/org.mapwright.Designer.svg"):
        assert packaged in names
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]

    python, site = fresh_environment(tmp_path, wheel)
    cwd = tmp_path / "elsewhere"  # outside the checkout: its packages are not on sys.path
    cwd.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import json, importlib.metadata as m, engine, designer, resources; print(json.dumps("
         "[engine.__file__, designer.__file__, str(resources.SAMPLE_MODEL), "
         "str(m.distribution('mapwright').locate_file('')), [e.value for e in m.entry_points("
         "group='mapwright.commands')]]))"],
        cwd=cwd, env=smoke.clean_env(), check=True, capture_output=True, text=True)
    *modules, sample, distribution, commands = json.loads(where.stdout)
    for path in (*modules, sample, distribution):
        assert Path(path).is_relative_to(site), f"{path} is not the wheel's (under {site})"
    assert commands == ["designer.command:register"]

    program = [str(python.parent / "mapwright")]
    assert smoke.validation_problem(program, Path(sample), cwd) is None
    assert smoke.designer_problem(program, cwd) is None
