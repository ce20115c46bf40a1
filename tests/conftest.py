import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The suite replays the same examples every run: a property failure in `make test` (and so in CI) is
# reproducible, never a coin toss. `make explore` (MAPWRIGHT_EXPLORE=1) draws new ones on every round.
settings.register_profile("replay", derandomize=True, print_blob=True, database=None)
settings.register_profile("explore", print_blob=True)
settings.load_profile("explore" if os.environ.get("MAPWRIGHT_EXPLORE") else "replay")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine.deploy.pgcluster import ClusterError, PgInstance, running_server  # noqa: E402

EXAMPLES = ROOT / "tests" / "fixtures" / "examples"  # copies of the contract's examples: the project stands alone

LONGEST_FIRST = (
    "tests/spark/test_clusters.py::test_two_workers_write_the_run_directory_of_local_2",
    "tests/spark/test_debezium_run.py::test_the_debezium_sample_gives_the_same_run_directory",
    "tests/spark/test_clusters.py::test_spark_connect_server",
    "tests/sql/test_reference_equals_spark.py::test_reference_equals_spark_on_the_allow_list",
    "tests/spark/test_pipeline.py::test_spark_equals_reference_on_random_workloads",
)
"""The suite's longest tests (minutes each on a loaded 2-core machine), started first: `make test`'s two
workers then share the rest while these run, instead of one worker finishing the suite alone with one of
them (longest first is the classic schedule; CI's last minutes were one test on one core)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)), len(LONGEST_FIRST))
    items.sort(key=rank)  # stable: every other test keeps its place


@pytest.fixture(scope="session")
def examples() -> Path:  # read-only: safe to share across hypothesis inputs
    if not EXAMPLES.is_dir():
        pytest.fail(f"the contract examples are missing: {EXAMPLES}")
    return EXAMPLES


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgInstance]:
    """One real PostgreSQL server for the session (Debian's package, started as `mapwright verify` starts its
    servers); fails, never skips, without one. PostgreSQL's default connection limit, not verify's small one."""
    try:
        with running_server(max_connections="100") as server:
            yield server
    except ClusterError as exc:
        pytest.fail(f"cannot start a PostgreSQL server for this test: {exc}")


@pytest.fixture(scope="module")
def ordering_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference engine's run directory of the ordering example: two conflicts at C, six mappings (four
    diverged), no queue, no rejects. Read-only: copy it to change it."""
    from engine.run.rundir.write import run_reference_to_dir

    example = EXAMPLES / "ordering_conflict"
    status, out = run_reference_to_dir(example / "model.json", example / "data", tmp_path_factory.mktemp("r") / "run")
    assert status == "succeeded"
    return out


@pytest.fixture
def browser(qtbot: Any) -> Any:
    """A conflict browser, shown, with no run open (the designer's tests and the damaged-run tests use it;
    Qt is imported only by the tests that ask for one)."""
    from designer.browser import ConflictBrowser

    widget = ConflictBrowser()
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
