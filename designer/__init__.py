"""Mapwright's desktop designer: a thin PySide6 layer over the engine."""
