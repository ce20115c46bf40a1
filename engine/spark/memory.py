"""The Spark driver's heap, which both the session (`spark.driver.memory`) and the class archive (its name
carries the heap's pointer mode) read."""

from __future__ import annotations

import os

DRIVER_MEMORY = "2g"
"""The JVM's heap on local[N] (`MAPWRIGHT_DRIVER_MEMORY` overrides): fixed, not grown with the data."""


def driver_memory() -> str:
    return os.environ.get("MAPWRIGHT_DRIVER_MEMORY", DRIVER_MEMORY)
