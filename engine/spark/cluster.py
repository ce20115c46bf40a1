"""Small Spark clusters on 127.0.0.1, started from the pyspark package itself.

`StandaloneCluster` runs a standalone master and one or more workers (`spark-class`);
`ConnectServer` runs a Spark Connect server (`spark-submit` of
`SparkConnectServer`). Tests use them; so can a user who wants to try a
cluster run without installing Spark.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import pyspark


def spark_home() -> Path:
    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Spark process exited early ({proc.returncode}); see {log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"nothing answered on 127.0.0.1:{port} after {timeout:.0f} s; see {log}")


def wait_for_text(log: Path, text: str, timeout: float, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Spark process exited early ({proc.returncode}); see {log}")
        if log.exists() and text in log.read_text(errors="replace"):
            return
        time.sleep(0.3)
    raise TimeoutError(f"{text!r} did not appear in {log} after {timeout:.0f} s")


class _Processes:
    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logdir = Path(tempfile.mkdtemp(prefix="mapwright-spark-"))

    def _env(self) -> dict[str, str]:
        return {**os.environ, "SPARK_HOME": str(spark_home()), "PYSPARK_PYTHON": sys.executable,
                "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1"}

    def _spawn(self, name: str, args: list[str]) -> tuple[subprocess.Popen[bytes], Path]:
        log = self.logdir / f"{name}.log"
        with log.open("wb") as fh:
            proc = subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT, env=self._env(),
                                    start_new_session=True)
        self.procs.append(proc)
        return proc, log

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()

    def __enter__(self) -> _Processes:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


class StandaloneCluster(_Processes):
    """A standalone master and `workers` workers on 127.0.0.1; `url` is `spark://127.0.0.1:PORT`.

    Each worker offers `cores` cores and `memory`, and has its own web UI port and its own work folder
    (`work_dirs`, under `logdir`: where it keeps each executor's stdout and stderr, by application id). The
    master's web UI (`http://127.0.0.1:{webui_port}/json/`) describes the cluster. `start` returns once
    every worker has registered with the master.
    """

    def __init__(self, cores: int = 2, memory: str = "2g", workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"a cluster needs at least one worker, not {workers}")
        super().__init__()
        self.cores, self.memory, self.workers = cores, memory, workers
        self.port, self.webui_port = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.work_dirs = [self.logdir / f"worker-{n}" for n in range(1, workers + 1)]

    def start(self, timeout: float = 90) -> StandaloneCluster:
        """Start the master, then every worker side by side; stops whatever started if one never registers."""
        cls = str(spark_home() / "bin" / "spark-class")
        try:
            master, mlog = self._spawn("master", [cls, "org.apache.spark.deploy.master.Master", "--host",
                                                  "127.0.0.1", "--port", str(self.port),
                                                  "--webui-port", str(self.webui_port)])
            wait_for_port(self.port, timeout, master, mlog)
            started = [self._spawn_worker(cls, work_dir) for work_dir in self.work_dirs]
            for worker, wlog in started:  # each says so once the master knows it
                wait_for_text(wlog, "Successfully registered with master", timeout, worker)
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn_worker(self, cls: str, work_dir: Path) -> tuple[subprocess.Popen[bytes], Path]:
        work_dir.mkdir()
        return self._spawn(work_dir.name, [cls, "org.apache.spark.deploy.worker.Worker", self.url,
                                           "--host", "127.0.0.1", "--cores", str(self.cores),
                                           "--memory", self.memory, "--webui-port", str(free_port()),
                                           "--work-dir", str(work_dir)])

    def __enter__(self) -> StandaloneCluster:
        return self.start()


class ConnectServer(_Processes):
    """A Spark Connect server on 127.0.0.1 running `local[N]`; `url` is `sc://127.0.0.1:PORT`."""

    def __init__(self, master: str = "local[2]") -> None:
        super().__init__()
        self.master = master
        self.port = free_port()
        self.url = f"sc://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> ConnectServer:
        submit = str(spark_home() / "bin" / "spark-submit")
        proc, log = self._spawn("connect", [
            submit, "--class", "org.apache.spark.sql.connect.service.SparkConnectServer", "--master", self.master,
            "--conf", f"spark.connect.grpc.binding.port={self.port}", "--conf", "spark.ui.enabled=false",
            "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.sql.session.timeZone=UTC", "spark-internal"])
        wait_for_text(log, "Spark Connect server started", timeout, proc)
        wait_for_port(self.port, timeout, proc, log)
        return self

    def __enter__(self) -> ConnectServer:
        return self.start()
