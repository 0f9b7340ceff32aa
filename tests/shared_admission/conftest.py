"""A real redis-server per test (loopback, free port, temp dir, no persistence)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lionagi.service_testing.redis_server import RedisServer, require_redis_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # redis-py's asyncio client


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(require_redis_server(), tmp_path) as server:
        yield server


@pytest.fixture
def redis_server_pw(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(require_redis_server(), tmp_path, password="s3cret-pass-word") as server:
        yield server
