"""One Spark session (local[2]) for the whole test run, as chispa and pyspark.testing do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.spark.session import spark_session


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    session = spark_session("local[2]", app_name="mapwright-tests", partitions=4)
    yield session
    session.stop()
