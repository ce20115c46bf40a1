import os
import sys
from collections.abc import Iterator
from pathlib import Path

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

from pgserver import PgServer, PgUnavailable, running_server  # noqa: E402

EXAMPLES = ROOT / "tests" / "fixtures" / "examples"  # copies of the contract's examples: the project stands alone


@pytest.fixture(scope="session")
def examples() -> Path:  # read-only: safe to share across hypothesis inputs
    if not EXAMPLES.is_dir():
        pytest.fail(f"the contract examples are missing: {EXAMPLES}")
    return EXAMPLES


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One real PostgreSQL server for the session (Debian's package); fails, never skips, without one."""
    try:
        with running_server() as server:
            yield server
    except PgUnavailable as exc:
        pytest.fail(f"cannot start a PostgreSQL server for this test: {exc}")
