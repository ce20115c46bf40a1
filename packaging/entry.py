"""The packaged application's entry point: `mapwright ARGS`, and `mapwright -m MODULE ARGS` as `python -m` does.

A frozen application has no Python interpreter beside it, and `sys.executable` is the application itself. Yet
Mapwright starts its children as `sys.executable -m engine.cli run ...` (the designer's runs, requeues and
diagrams), `-m engine.worker` (the warm worker) and `-m engine.spark.classrecord` (the class archive's
recording), and Spark starts its Python workers as `$PYSPARK_PYTHON -m pyspark.daemon`. So the application
accepts those command lines too: the interpreter's one-letter options before `-m` are skipped (`-u` makes the
output unbuffered), and MODULE runs as `__main__` with the arguments after it. Anything else is the `mapwright` command line.

This file, not engine/cli.py, is the frozen script: a script runs as `__main__`, and `engine.cli` imported by
the designer would then be a second module with classes of its own (its `UsageError` would not be caught).
For the same reason `-m engine.cli ARGS` calls `engine.cli.main(ARGS)` rather than running the module.
"""

from __future__ import annotations

import runpy
import sys

#: The interpreter's options that take a value (`-X dev`, `-W ignore`); the other one-letter options take none.
OPTIONS_WITH_VALUE = ("-X", "-W")


def module_command(argv: list[str]) -> tuple[str, list[str], bool] | None:
    """(module, its argv, unbuffered) when `argv[1:]` is a `python [-options] -m MODULE ARGS` command line."""
    i, unbuffered = 1, False
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-m":
        option = argv[i]
        if option in OPTIONS_WITH_VALUE:
            i += 2
            continue
        if len(option) < 2 or option.startswith("--") or not option[1:].isalpha():
            return None  # `mapwright --version` and the like: the CLI's own options
        unbuffered = unbuffered or "u" in option[1:]
        i += 1
    if i + 1 < len(argv) and argv[i] == "-m":
        return argv[i + 1], [argv[i + 1], *argv[i + 2:]], unbuffered
    return None


def main() -> int:
    command = module_command(sys.argv)
    if command is None:
        from engine.cli import main as cli_main

        return cli_main()
    module, argv, unbuffered = command
    if module == "engine.cli":  # run as `__main__`, engine.cli would be two modules (see above)
        from engine.cli import main as cli_main

        return cli_main(argv[1:])
    if unbuffered:
        for stream in (sys.stdout, sys.stderr):
            stream.reconfigure(write_through=True)  # type: ignore[union-attr]
    sys.argv = argv
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
