"""Mapwright's headless engine: the model, the mapping graph, the rules, the run pipeline, the command line."""

import decimal

from engine.core.version import __version__

__all__ = ["EXACT_DIGITS", "__version__"]

EXACT_DIGITS = 100
"""The precision of every DECIMAL computation of the engine's: a column holds up to 38 digits (Spark's
DECIMAL), a sum or a product of two such values up to 77. Python's default context keeps 28, which rounded
a DECIMAL(38,0) sum (`...678 + 1` gave `...679000...`) and refused 38-digit values as not fitting. Set here,
before any other module of the engine runs, for this thread and every thread started later (a Spark
Python worker imports the engine too)."""

decimal.DefaultContext.prec = EXACT_DIGITS
decimal.getcontext().prec = EXACT_DIGITS
