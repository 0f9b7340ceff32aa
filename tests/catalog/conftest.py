"""Throwaway installed distributions for catalog tests.

``dists`` writes real ``<name>-0.1.dist-info/{METADATA,entry_points.txt}`` directories and the
provider modules they name into a temporary directory on ``sys.path``, so discovery goes through
``importlib.metadata`` exactly as it does for a pip-installed vendor package. Every module lives
under one unique top-level package, removed from ``sys.modules`` after the test.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from lionagi.service import (
    EndpointRegistry,
    ProviderCatalog,
    ProviderModuleSpec,
    entry_point_inventory,
)

SUPPORT = '''
"""Shared helpers for generated provider modules."""
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    Endpoint,
    EndpointType,
    ProviderEndpointSpec,
    ProviderModelPolicy,
)

API = EndpointType.API
AGENTIC = EndpointType.AGENTIC
CAPS = AgenticCapabilities(
    transport="subprocess", resumable=False, emits_tool_events=True, reports_usage=True
)
RESUMABLE = AgenticCapabilities(
    transport="subprocess", resumable=True, emits_tool_events=True, reports_usage=True
)


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = "m"
    messages: list[dict[str, Any]] = []
    temperature: float | None = None
    stream_options: dict[str, Any] | None = None


class CliRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str = ""
    model: str | None = None
    resume: str | None = None
    effort: str | None = None
    reasoning_effort: str | None = None
    permission_mode: str | None = None
    full_auto: bool = False
    bypass_approvals: bool = False
    fast_mode: bool = False


def api_class(name: str) -> type[Endpoint]:
    return type(name, (Endpoint,), {"__module__": __name__})


def agentic_class(
    name: str,
    *,
    caps: Any = CAPS,
    resume_field: str | None = None,
    request_type: Any = CliRequest,
) -> type[AgenticEndpoint]:
    attrs = {
        "capabilities": caps,
        "resume_field": resume_field,
        "request_type": request_type,
        "__module__": __name__,
    }
    return type(name, (AgenticEndpoint,), attrs)


def api(provider: str, endpoint: str, cls: Any = None, **kw: Any) -> ProviderEndpointSpec:
    kw.setdefault("base_url", "https://api.example.test/v1")
    return ProviderEndpointSpec(
        provider=provider,
        endpoint=endpoint,
        endpoint_type=API,
        endpoint_class=cls or api_class(f"{provider}_{endpoint}".replace("/", "_")),
        **kw,
    )


def agentic(provider: str, endpoint: str, cls: Any = None, **kw: Any) -> ProviderEndpointSpec:
    return ProviderEndpointSpec(
        provider=provider,
        endpoint=endpoint,
        endpoint_type=AGENTIC,
        endpoint_class=cls or agentic_class(f"{provider}_{endpoint}".replace("/", "_")),
        **kw,
    )
'''


class Dists:
    """Writes provider modules and the dist-info that declares them."""

    def __init__(self, root: Path, prefix: str) -> None:
        self.root = root
        self.prefix = prefix
        package = root / prefix
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "_support.py").write_text(SUPPORT)

    def module(self, name: str, body: str) -> str:
        """Write ``<prefix>/<name>.py`` (support helpers star-imported); return its dotted path."""
        source = "from ._support import *  # noqa: F403\n" + textwrap.dedent(body)
        (self.root / self.prefix / f"{name}.py").write_text(source)
        importlib.invalidate_caches()
        return f"{self.prefix}.{name}"

    def dist(self, name: str, entry_points: dict[str, str]) -> None:
        """Write an installed distribution declaring ``lionagi.providers`` entry points."""
        dist_name = f"{self.prefix}-{name}"
        info = self.root / f"{dist_name.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: 0.1\n")
        lines = ["[lionagi.providers]"] + [f"{k} = {v}" for k, v in entry_points.items()]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        importlib.invalidate_caches()

    def provider(self, key: str, body: str, *, name: str | None = None) -> str:
        """One module plus one distribution whose entry point ``key`` names it."""
        module_name = name or key.strip().lower().replace("-", "_").replace(" ", "_") or "blank"
        module = self.module(module_name, body)
        self.dist(module_name, {key: module})
        return module

    def inventory(self) -> tuple[ProviderModuleSpec, ...]:
        """Installed rows that belong to this test (other installed providers are ignored)."""
        return tuple(r for r in entry_point_inventory() if r.module.startswith(self.prefix))

    def catalog(self) -> ProviderCatalog:
        """A catalog whose source is the real entry-point reader, scoped to this test."""
        return ProviderCatalog(self.inventory)

    def forget(self, module: str) -> None:
        """Drop an imported module so the next build re-imports the edited file."""
        sys.modules.pop(module, None)
        importlib.invalidate_caches()


@pytest.fixture
def dists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Dists]:
    prefix = f"lcat_{uuid.uuid4().hex[:10]}"
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield Dists(tmp_path, prefix)
    for name in list(sys.modules):
        if name == prefix or name.startswith(prefix + "."):
            del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture
def default_catalog(monkeypatch: pytest.MonkeyPatch, dists: Dists) -> ProviderCatalog:
    """Point ``EndpointRegistry`` (and so ``match_endpoint``) at this test's distributions."""
    catalog = dists.catalog()
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    return catalog
