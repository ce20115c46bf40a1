"""Finding Java, which Spark needs (17 or newer), with a message a user can act on."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

MIN_JAVA = 17


class JavaMissing(RuntimeError):
    """No usable Java: the message says what was found and what to do."""


def java_executable() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


@functools.lru_cache(maxsize=8)
def version_text(executable: str) -> str:
    """What `java -version` says ("" when it cannot run): asked once per executable in a process (a warm
    worker checks Java before every run)."""
    try:
        out = subprocess.run([executable, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stderr + out.stdout


def java_major(executable: str) -> int | None:
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version_text(executable))
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def require_java() -> str:
    """The java executable, or `JavaMissing` explaining how to get Java 17+."""
    exe = java_executable()
    hint = ("Spark needs Java 17 or newer. Install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; "
            "macOS: brew install openjdk@17) or point JAVA_HOME at one.")
    if exe is None:
        raise JavaMissing(f"Java was not found (no JAVA_HOME, no java on PATH). {hint}")
    major = java_major(exe)
    if major is None:
        raise JavaMissing(f"{exe} did not report a Java version. {hint}")
    if major < MIN_JAVA:
        raise JavaMissing(f"{exe} is Java {major}. {hint}")
    return exe


def main() -> int:
    try:
        exe = require_java()
    except JavaMissing as exc:
        print(f"mapwright: {exc}", file=sys.stderr)
        return 1
    print(f"Java {java_major(exe)} at {exe}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
