"""The engine's version, which a run directory's manifest records and `mapwright --version` prints."""

__version__ = "0.1.0"
