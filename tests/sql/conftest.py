"""One Spark session (local[2]) for the SQL tests, as chispa and pyspark.testing do; the helpers' path."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from engine.spark.session import spark_session

    session = spark_session("local[2]", app_name="mapwright-sql-tests", partitions=2)
    session.sparkContext.setLogLevel("OFF")  # the failures the tests provoke on purpose log a page each
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _generated_code(request: pytest.FixtureRequest) -> None:
    """Set the session as the SQL tests compare with it, again for each test that uses it: a pipeline run in
    the same worker, before or between them, configures it for its size (a small run interprets its
    expressions, and Spark's interpreted path differs from its generated code: a concat's parts after a
    NULL). The SQL tests always compare with the generated code, which a large run executes. (Autouse, so
    that a hypothesis test may use it.)"""
    if "spark" not in request.fixturenames:
        return
    session = request.getfixturevalue("spark")
    session.conf.set("spark.sql.codegen.wholeStage", "true")
    session.conf.set("spark.sql.codegen.factoryMode", "FALLBACK")
    session.conf.set("spark.sql.ansi.enabled", "true")
