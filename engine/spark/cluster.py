"""Small Spark clusters on 127.0.0.1, started from the pyspark package itself.

`StandaloneCluster` runs a standalone master and one worker (`spark-class`);
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
    """A standalone master and one worker on 127.0.0.1; `url` is `spark://127.0.0.1:PORT`."""

    def __init__(self, cores: int = 2, memory: str = "2g") -> None:
        super().__init__()
        self.cores, self.memory = cores, memory
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90) -> StandaloneCluster:
        cls = str(spark_home() / "bin" / "spark-class")
        master, mlog = self._spawn("master", [cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                              "--port", str(self.port), "--webui-port", str(free_port())])
        wait_for_port(self.port, timeout, master, mlog)
        worker, wlog = self._spawn("worker", [cls, "org.apache.spark.deploy.worker.Worker", self.url,
                                              "--host", "127.0.0.1", "--cores", str(self.cores),
                                              "--memory", self.memory, "--webui-port", str(free_port())])
        wait_for_text(wlog, "Successfully registered with master", timeout, worker)
        return self

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
