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
    # the session may be the one an earlier directory's pipeline runs configured (a small run interprets its
    # expressions, and Spark's interpreted path differs from its generated code: a concat's parts after a
    # NULL): the SQL tests always compare with the generated code, which a large run executes
    session.conf.set("spark.sql.codegen.wholeStage", "true")
    session.conf.set("spark.sql.codegen.factoryMode", "FALLBACK")
    session.conf.set("spark.sql.ansi.enabled", "true")
    yield session
    session.stop()
