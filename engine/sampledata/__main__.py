"""`python -m engine.sampledata --out resources/samples/orders-data` regenerates the committed sample."""

from __future__ import annotations

import sys

from engine.sampledata.cli import main

sys.exit(main())
