import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

EXAMPLES = ROOT / "tests" / "fixtures" / "examples"  # copies of the contract's examples: the project stands alone


@pytest.fixture(scope="session")
def examples() -> Path:  # read-only: safe to share across hypothesis inputs
    if not EXAMPLES.is_dir():
        pytest.fail(f"the contract examples are missing: {EXAMPLES}")
    return EXAMPLES
