"""The Spark pipeline on generated samples writes the run directory the reference writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sparkkit import both

from engine.model import load_model
from engine.samplegen import SampleOptions, generate_sample
from resources import SAMPLE_MODEL

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_spark_runs_generated_samples_as_the_reference_does(spark: Any, tmp_path: Path) -> None:
    ordering = ROOT / "tests/fixtures/examples/ordering_conflict/model.json"
    cases = [(ordering, SampleOptions(seed=1, rows=20, changes=150)),
             (Path(SAMPLE_MODEL), SampleOptions(seed=2, rows=15, changes=200, malformed_rate=0.03))]
    for n, (path, options) in enumerate(cases):
        model = load_model(path)
        data = tmp_path / f"data{n}"
        generate_sample(model, data, options)
        spark_doc, reference_doc = both(spark, model, data, tmp_path / f"runs{n}")
        assert spark_doc == reference_doc
        assert reference_doc["manifest"]["counts"]["conflicts"] > 0
