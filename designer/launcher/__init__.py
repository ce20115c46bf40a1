"""The run launcher: start `mapwright run` as its own process, follow its progress, cancel it."""

from designer.launcher.panel import RunLauncher
from designer.launcher.runner import Runner, RunProcess, RunRequest, run_command

__all__ = ["RunLauncher", "RunProcess", "RunRequest", "Runner", "run_command"]
