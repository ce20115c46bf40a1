"""The engine's bottom layer: what the model, the SQL evaluator and the run all share, importing none of them.

`types` parses column type strings, `values` gives each type family its Python value (decoded, cast,
compared), `narrowing` says whether one type's values fit another's, and `version` is the engine's version.
"""
