"""Bundled resources: the sample model and its data, icons, desktop files."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
SAMPLE_MODEL = ROOT / "samples" / "orders.json"
