"""The sample generator's tests use the run and Spark test helpers, and the one Spark session (local[2])."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[1]
for helpers in (TESTS / "run", TESTS / "spark"):
    if str(helpers) not in sys.path:
        sys.path.insert(0, str(helpers))


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from engine.spark.session import spark_session

    session = spark_session("local[2]", app_name="mapwright-tests", partitions=4)
    yield session
    session.stop()
