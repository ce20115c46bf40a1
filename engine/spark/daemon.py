"""Spark's Python daemon with the engine imported: the workers it forks start with it loaded.

Spark runs `python -m <spark.python.daemon.module>` once per executor and forks a Python worker from it
for each task slot; a worker imports what a stage's function needs the first time it runs one. The
pipeline's Arrow stages need the engine (the model, the reference's decoding and fold), a few hundred
milliseconds per worker: imported here, before any fork, each worker has it at once. The imports start
no thread (pyspark's daemon forks, and a thread would not survive the fork).
"""

from __future__ import annotations

from pyspark.daemon import manager

import engine.spark.converge  # noqa: F401
import engine.spark.decode  # noqa: F401
import engine.spark.neteffect  # noqa: F401
import engine.spark.resolve  # noqa: F401
import engine.spark.snapshots  # noqa: F401

if __name__ == "__main__":
    manager()
