"""Mapwright's headless engine: the model, the mapping graph, the rules, the run pipeline, the command line."""

__version__ = "0.1.0"
