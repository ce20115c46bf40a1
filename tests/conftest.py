import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED = ROOT.parent / "shared"
EXAMPLES = SHARED / "spec" / "examples"


@pytest.fixture(scope="session")
def examples() -> Path:  # read-only: safe to share across hypothesis inputs
    if not EXAMPLES.is_dir():
        pytest.fail(f"the contract examples are missing: {EXAMPLES} (shared/ must sit beside the project)")
    return EXAMPLES
