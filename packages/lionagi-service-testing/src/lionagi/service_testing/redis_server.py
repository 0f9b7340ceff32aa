"""A throwaway real ``redis-server`` for tests of shared admission.

:class:`RedisServer` starts the Debian ``redis-server`` binary on a free loopback port, in a
temporary directory, with persistence off (no RDB, no AOF), and can stop and restart it on the
same port (a restart loses every key, like a crashed server without persistence).
:func:`require_redis_server` returns the binary or skips the test saying why; with
``LIONAGI_REQUIRE_REDIS=1`` (set by ``.ci/run``) a missing binary fails the test instead, so a
broken CI image never passes the tier as "skipped" (the same rule as the real-CLI tier).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

import pytest

__all__ = ["REQUIRE_REDIS_ENV", "RedisServer", "free_port", "require_redis_server"]

REQUIRE_REDIS_ENV = "LIONAGI_REQUIRE_REDIS"


def require_redis_server() -> Path:
    """The ``redis-server`` binary, or skip (fail under ``LIONAGI_REQUIRE_REDIS=1``)."""
    found = shutil.which("redis-server")
    if found is not None:
        return Path(found)
    why = "redis-server is not installed (Debian: apt-get install redis-server)"
    if os.environ.get(REQUIRE_REDIS_ENV) == "1":
        pytest.fail(f"{why}; {REQUIRE_REDIS_ENV}=1 requires the Redis tier", pytrace=False)
    pytest.skip(why)


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """One ``redis-server`` process on ``127.0.0.1:port`` with its files under ``workdir``."""

    def __init__(self, binary: Path, workdir: Path, *, password: str | None = None) -> None:
        self.binary = binary
        self.workdir = workdir
        self.password = password
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The ``redis://`` URL clients connect to (with the password, when one is set)."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        """Start the server and wait until it answers PING."""
        if self._process is not None:
            return
        args = [
            str(self.binary),
            "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.workdir),
            "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning",
            "--logfile", str(self.workdir / "redis.log"),
        ]  # fmt: skip
        if self.password:
            args += ["--requirepass", self.password]
        self._process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self._process.poll() is not None:
                err = (self._process.stderr.read() if self._process.stderr else b"").decode()
                self._process = None
                raise RuntimeError(f"redis-server exited at start: {err[-500:]}")
            if self._answers():
                return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on port {self.port} in {timeout:g} s")

    def stop(self) -> None:
        """Kill the server (SIGKILL: nothing is saved) and reap it."""
        process, self._process = self._process, None
        if process is None:
            return
        process.kill()
        process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()

    def restart(self) -> None:
        """Stop, then start on the same port; every key is gone afterwards."""
        self.stop()
        self.start()

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                reply = sock.recv(64)
        except OSError:
            return False
        return reply.startswith((b"+PONG", b"-NOAUTH"))

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
