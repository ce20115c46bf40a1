"""B4, the designer at scale (offscreen): open-to-first-paint of a 1,200-table model, one edit with the window
open (median and p95), frame time while panning, and undo steps of many edits (a server renamed with its
tables, every table selected and deleted) with their undo.

Run on demand: `.venv/bin/python benchmarks/bench_designer.py [--tables-per-site 400] [--edits 60]`.
Each figure is given as wall time and as this process's CPU time (the machine may be shared: CPU time is what
the designer itself spent). Results are printed and written to benchmarks/results/bench_designer.json.
Goals (issue 10): open <= 3 s (issue 37: as a whole process, `process_to_screenshot`, with the model's
check on its own thread after the first paint: `first_paint_to_findings_s`); an edit <= 16 ms median and
<= 50 ms p95; panning frames <= 16 ms.
Ratios that hold the large-model fixes whatever the machine's speed (`measure_ratios`): the mapping grid's
sort, the model tree's update after a batch of edits, and building a delete's edits.
B4's preview latency (cold and warm, on the sample) is measured by `bench_preview.py`, which `make bench` runs
after this one (results in `benchmarks/results/preview.json`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_validation import large_model  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from designer.authoring.grid import MappingGrid  # noqa: E402
from designer.document import Document  # noqa: E402
from designer.tree import ModelTree  # noqa: E402
from designer.window import MainWindow  # noqa: E402
from engine import authoring as au  # noqa: E402
from engine.edits import Edit, evolve, replace  # noqa: E402
from engine.model import save_model  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(wall, cpu) seconds of `action`."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    def p95(xs: list[float]) -> float:
        return sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)]
    walls, cpus = [s[0] * 1000 for s in samples], [s[1] * 1000 for s in samples]
    return {"median_ms": round(statistics.median(walls), 2), "p95_ms": round(p95(walls), 2),
            "cpu_median_ms": round(statistics.median(cpus), 2), "cpu_p95_ms": round(p95(cpus), 2)}


def open_window(app: QApplication, path: Path, settings: Path) -> MainWindow:
    """Open the model file in a new window and paint it once."""
    window = MainWindow(settings=QSettings(str(settings), QSettings.Format.IniFormat), ask=False)
    window.resize(1500, 920)
    window.open_path(path)
    window.show()
    app.processEvents()
    window.view.viewport().repaint()
    return window


def until_checked(app: QApplication, window: MainWindow) -> None:
    """Let the event loop run until the model's check on its own thread has said its findings."""
    while window.document.checking:
        app.processEvents()
        time.sleep(0.005)


def measure_process(path: Path, runs: int = 3) -> dict[str, Any]:
    """`mapwright designer MODEL --screenshot` as a whole process (median of `runs`), for `path` and for the
    bundled sample, measured alternately in this run: the large model's figure and its ratio to the sample's."""
    import subprocess

    command = [sys.executable, "-m", "engine.cli", "designer"]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MAPWRIGHT_WARM_SPARK": "0"}
    times: dict[str, list[float]] = {"large": [], "sample": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            for name, model in (("large", [str(path)]), ("sample", [])):
                start = time.perf_counter()
                subprocess.run([*command, *model, "--screenshot", str(Path(tmp) / f"{name}.png")], env=env,
                               check=True, capture_output=True)
                times[name].append(time.perf_counter() - start)
    large, sample = statistics.median(times["large"]), statistics.median(times["sample"])
    return {"large_s": round(large, 2), "sample_s": round(sample, 2), "ratio_to_sample": round(large / sample, 2),
            "runs": {k: [round(v, 2) for v in vs] for k, vs in times.items()}}


def edits_for(window: MainWindow, count: int) -> list[Callable[[], list[Edit]]]:
    """A mix of what a user does: toggle a flag, remove and restore a column map, retype a column, move a table."""
    model = window.document.model
    out: list[Callable[[], list[Edit]]] = []
    for i in range(count):
        mapping = model.mappings[(i * 37) % len(model.mappings)]
        table = model.table(mapping.target)
        assert table is not None
        kind = i % 4
        if kind == 0:
            out.append(lambda m=mapping: [replace(model, "mapping", model.mapping(m.id), evolve(
                model.mapping(m.id), journal=not model.mapping(m.id).journal))])  # type: ignore[union-attr]
        elif kind == 1:
            out.append(lambda m=mapping: au.toggle_dkey(model, m.id, "C3"))
        elif kind == 2:
            out.append(lambda t=table: [replace(model, "table", model.table(t.key), evolve(
                model.table(t.key), columns=[c.model_dump(mode="python") | (  # type: ignore[union-attr]
                    {"type": "VARCHAR(80)" if c.type != "VARCHAR(80)" else "VARCHAR(40)"} if c.name == "C5" else {})
                    for c in model.table(t.key).columns]))])  # type: ignore[union-attr]
        else:
            out.append(lambda t=table, i=i: au.move_table(model, t.key, 3000.0 + i, 100.0 * i))
    return out


def measure_edits(app: QApplication, window: MainWindow, count: int) -> dict[str, float]:
    """One edit's cost with the window open: apply it (every view updates) and process the events it posts
    (the repaint). The edit itself is built before the clock starts (that is the engine's, not the window's)."""
    samples = []
    for make in edits_for(window, count):
        edits = make()
        samples.append(timed(lambda e=edits: (window.document.apply(e, "bench"), app.processEvents())))
    return summary(samples)


def measure_batches(app: QApplication, window: MainWindow) -> dict[str, dict[str, float]]:
    """Undo steps of many edits, and their undo: a server renamed with its tables (every reference along), and
    every table selected (Edit > Select all, one item at a time) then deleted. The edits are built by the
    engine inside the clock here: that is what the user waits for. The model is as it was afterwards."""
    doc, scene = window.document, window.scene
    server = max(doc.model.servers, key=lambda s: sum(t.server == s.id for t in doc.model.tables)).id

    def rename() -> None:
        window.authoring.rename(("server", server), f"{server}_renamed")
        app.processEvents()

    def select_all() -> None:
        for item in scene.tables.values():
            item.setSelected(True)
        app.processEvents()

    def delete() -> None:
        window.controller.delete_selection()
        app.processEvents()

    def undo() -> None:
        doc.undo_stack.undo()
        app.processEvents()

    out: dict[str, dict[str, float]] = {}
    for name, action in (("rename_server", rename), ("rename_server_undo", undo), ("select_all", select_all),
                         ("delete_all_selected", delete), ("delete_all_selected_undo", undo)):
        wall, cpu = timed(action)
        out[name] = {"wall_ms": round(wall * 1000, 1), "cpu_ms": round(cpu * 1000, 1)}
    return out


def measure_panning(app: QApplication, window: MainWindow, frames: int) -> dict[str, float]:
    """Scroll the canvas by 40 px a frame (down, then right) and paint each frame."""
    view = window.view
    view.resetTransform()
    bar_v, bar_h = view.verticalScrollBar(), view.horizontalScrollBar()
    samples = []
    for i in range(frames):
        bar = bar_v if i < frames // 2 else bar_h
        samples.append(timed(lambda b=bar: (b.setValue(b.value() + 40), view.viewport().repaint())))
    return summary(samples)


def measure_overview_frame(app: QApplication, window: MainWindow, frames: int) -> dict[str, float]:
    """Zoomed out to the whole model (Ctrl+0): one full repaint."""
    window.view.fit()
    return summary([timed(lambda: window.view.viewport().repaint()) for _ in range(frames)])


def measure_ratios(app: QApplication, window: MainWindow) -> dict[str, float]:
    """Figures that hold the designer's large-model fixes as ratios, so that they read the same on any machine:

    - `grid_sort_vs_python_sort`: a header click's sort of the mapping grid (every column, both orders) against
      Python sorting the same cells' texts: a few when each row costs one key; hundreds when the sort reads the
      cells pair by pair through `data()` (a `QSortFilterProxyModel` sorting a Python model).
    - `tree_rename_server_vs_rebuild`: the model tree's update for a server renamed with its tables (two rows
      in five) against building the whole tree again: well below 1 when only the rows the edits name are set.
    - `delete_edits_all_vs_one_each`: building the edits that delete every table at once against building one
      table's edits once per table: well below 1 when one pass over the model serves them all, about 1 when
      each table scans every mapping (and the index is rebuilt after each).

    The tree and grid are a second tree and grid over a copy of the window's model (the window is left alone)."""
    document = Document(window.document.model.model_copy(deep=True))
    model = document.model
    grid, tree = MappingGrid(document), ModelTree(document)
    grid.resize(900, 700)
    tree.resize(400, 700)
    grid.show()
    tree.show()
    app.processEvents()

    def sort_all() -> None:
        for column in range(grid.model.columnCount()):
            for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
                grid.view.sortByColumn(column, order)
                app.processEvents()
        grid.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)

    cells = [[grid.model.index(r, c).data() for c in range(grid.model.columnCount())]
             for r in range(grid.model.rowCount())]

    def python_sort_all() -> None:
        for column in range(grid.model.columnCount()):
            for reverse in (False, True):
                sorted(range(len(cells)), key=lambda r, c=column: cells[r][c], reverse=reverse)

    sort_all()  # every row's cells worked out once, as after the first click
    grid_sort = min(timed(sort_all)[1] for _ in range(3))
    python_sort = min(timed(python_sort_all)[1] for _ in range(3))

    server = max(model.servers, key=lambda s: sum(t.server == s.id for t in model.tables)).id
    edits = au.rename_server(model, server, f"{server}_renamed")
    inverses = [e.inverted() for e in reversed(edits)]
    updates = []
    for _ in range(3):
        for step in (edits, inverses):
            for edit in step:
                edit.apply(model)
            updates.append(timed(lambda s=step: tree.apply_edits(s))[1])
    rebuild = min(timed(tree.rebuild)[1] for _ in range(3))

    keys = [t.key for t in model.tables]
    at_once = min(timed(lambda: au.delete_tables(model, keys))[1] for _ in range(3))

    def one_table() -> None:
        model.drop_index()  # as in a chain of one step per table: each step's edits drop the model's index
        au.delete_table(model, keys[len(keys) // 2])
    one = min(timed(one_table)[1] for _ in range(5))
    grid.close()
    tree.close()
    return {"grid_sort_vs_python_sort": round(grid_sort / python_sort, 2),
            "tree_rename_server_vs_rebuild": round(min(updates) / rebuild, 3),
            "delete_edits_all_vs_one_each": round(at_once / (len(keys) * one), 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables-per-site", type=int, default=400, help="tables per site (three sites)")
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--out", type=Path, default=RESULTS / "bench_designer.json")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    model = large_model(args.tables_per_site)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "large.json"
        save_model(model, path)
        holder: list[MainWindow] = []
        opened = timed(lambda: holder.append(open_window(app, path, Path(tmp) / "settings.ini")))
        window = holder[0]
        checked = timed(lambda: until_checked(app, window))
        results: dict[str, Any] = {
            "model": {"tables": len(model.tables), "mappings": len(model.mappings),
                      "columns": sum(len(t.columns) for t in model.tables)},
            "open_to_first_paint_s": {"wall": round(opened[0], 2), "cpu": round(opened[1], 2)},
            "first_paint_to_findings_s": {"wall": round(checked[0], 2), "cpu": round(checked[1], 2)},
            "process_to_screenshot": measure_process(path),
            "edit": measure_edits(app, window, args.edits),
            "panning_frame": measure_panning(app, window, args.frames),
            "overview_frame": measure_overview_frame(app, window, 5),
            "ratios": measure_ratios(app, window),
            "batch": measure_batches(app, window),
            "preview_latency": "benchmarks/results/preview.json (bench_preview.py)",
            "cpus": os.cpu_count(), "load_average": os.getloadavg()[0],
        }
        window.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
