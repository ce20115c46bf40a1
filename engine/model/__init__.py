"""The model: servers, tables, mappings and conflict settings, with loading and saving."""

from engine.core.types import SqlType, TypeFamily, parse_type
from engine.model.io import ModelLoadError, dump_model, load_model, parse_model, save_model
from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Expression,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)
from engine.model.schema import (
    ColumnDef,
    ColumnGroup,
    Mapping,
    Model,
    ReplicationDefinition,
    Resolution,
    Server,
    Table,
    TableConflicts,
    UniqueIndex,
    UniqueResolution,
)

__all__ = [
    "Cast", "Column", "ColumnDef", "ColumnGroup", "Concat", "Constant", "Expression", "Lower", "Mapping",
    "Method", "Model", "ModelLoadError", "ReplicationDefinition", "Resolution", "Server", "Split", "SqlType",
    "Substring", "System", "Table", "TableConflicts", "Trim", "TypeFamily", "UniqueIndex", "UniqueResolution",
    "Upper", "dump_model", "load_model", "parse_model", "parse_type", "save_model",
]
