"""Moved to `engine.sql.evaluate` (one SQL home); kept so older imports still work."""

from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.evaluate import Evaluator, evaluate_sql, parse_sql, predicate_holds

__all__ = ["Evaluator", "SqlRuntimeError", "UnsupportedSql", "evaluate_sql", "parse_sql", "predicate_holds"]
