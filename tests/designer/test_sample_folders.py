"""The launcher knows the bundled sample data in both formats as deliberately faulty."""

from __future__ import annotations

from pathlib import Path

from designer.launcher.settings import SAMPLE_DATA, SAMPLE_DEBEZIUM_DATA, is_bundled_sample_data


def test_both_formats_of_the_bundled_sample_are_the_faulty_sample(tmp_path: Path) -> None:
    assert SAMPLE_DATA.is_dir() and SAMPLE_DEBEZIUM_DATA.is_dir()
    assert is_bundled_sample_data(SAMPLE_DATA) and is_bundled_sample_data(str(SAMPLE_DEBEZIUM_DATA))
    assert not is_bundled_sample_data(tmp_path) and not is_bundled_sample_data(SAMPLE_DATA.parent)
