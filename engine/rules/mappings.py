"""Kept for `engine.authoring.mappings`, which imports `where_problems` from here: the mapping rules now live
in the modules of their code families (`mp`, `dk`, `nn`, `nl`, `bi`, `ty`, `fk`, `pt`)."""

from engine.rules.mp import where_problems

__all__ = ["where_problems"]
