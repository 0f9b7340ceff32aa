"""Deferred rows: a provider's endpoint modules load on its first use (issue 15 item 3).

The catalog build imports each provider's package (its entry point) but not the modules that
define its endpoint classes and pydantic models; those load when the provider is matched, and
``providers --strict`` / ``doctor`` load every one. A referenced module that fails is the typed
catalog error the eager build gave, raised at match, the same on every later match.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lionagi.service import (
    CatalogValidationError,
    EndpointRegistry,
    ProviderUnavailable,
    match_endpoint,
)

from .conftest import Dists

# Run in a fresh interpreter: print the vendor modules beyond each package's `_static`
# constants and the vendor pydantic models created, after `body` ran (or at exit for the CLI).
_PROBE = """
import atexit, json, sys
from pydantic import BaseModel

def _report():
    def subs(c):
        for x in c.__subclasses__():
            yield x
            yield from subs(x)
    loaded = sorted(
        m for m in sys.modules
        if m.startswith("lionagi.providers.") and m.count(".") > 2 and not m.endswith("._static")
    )
    models = sorted(
        {f"{c.__module__}.{c.__qualname__}" for c in subs(BaseModel)
         if c.__module__.startswith("lionagi.providers.")}
    )
    sys.__stderr__.write("\\nPROBE " + json.dumps({"modules": loaded, "models": models}) + "\\n")

atexit.register(_report)
"""


def _probe(
    body: str, *, env: dict[str, str] | None = None
) -> tuple[int, str, dict[str, list[str]]]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE + body],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
        env={**os.environ, **(env or {})},
    )
    line = next(x for x in reversed(out.stderr.splitlines()) if x.startswith("PROBE "))
    return out.returncode, out.stdout + out.stderr, json.loads(line[len("PROBE ") :])


def test_catalog_build_imports_no_endpoint_module_and_creates_no_vendor_model() -> None:
    code, output, seen = _probe(
        "from lionagi.service import ProviderCatalog\n"
        "snap = ProviderCatalog().snapshot()\n"
        "assert {'groq', 'openai', 'anthropic', 'codex'} <= set(snap.providers), snap.providers\n"
    )
    assert code == 0, output[-3000:]
    assert seen == {"modules": [], "models": []}


@pytest.mark.parametrize(
    "argv",
    [["chat", "scripted/demo", "hi"], ["providers"]],
    ids=["chat-scripted", "providers"],
)
def test_cli_commands_import_no_vendor_endpoint_module(argv: list[str]) -> None:
    code, output, seen = _probe(
        f"from lionagi.service.cli import main\nraise SystemExit(main({argv!r}))\n"
    )
    assert code == 0, output[-3000:]
    # `providers` probes each agentic provider's program or modules from what the row declares
    # (AgenticProgram), so no adapter's endpoint module is imported either (issue 15 item 3).
    assert seen == {"modules": [], "models": []}


def test_matching_one_provider_imports_only_its_modules() -> None:
    code, output, seen = _probe(
        "from lionagi.service import match_endpoint\n"
        "ep = match_endpoint('groq', 'chat')\n"
        "assert type(ep).__module__ == 'lionagi.providers.groq._endpoint'\n"
    )
    assert code == 0, output[-3000:]
    assert seen["modules"] == ["lionagi.providers.groq._endpoint"]
    assert seen["models"] and all(m.startswith("lionagi.providers.groq.") for m in seen["models"])


def test_vendor_names_stay_importable_from_the_package() -> None:
    from lionagi.providers.groq import GroqChat, GroqChatRequest

    assert GroqChat.__module__ == "lionagi.providers.groq._endpoint"
    assert "GroqChatRequest" in dir(sys.modules["lionagi.providers.groq"])
    assert GroqChatRequest.__name__ == "GroqChatRequest"
    with pytest.raises(AttributeError, match="NoSuchName"):
        from lionagi.providers import groq

        _ = groq.NoSuchName  # type: ignore[attr-defined]


# -- a planted broken endpoint module -------------------------------------------------------------

_LAZY_PROVIDER = """
PROVIDER_SPECS = (
    api(
        "lazyb",
        "chat",
        cls=__name__.rpartition(".")[0] + ".lazyb_impl:LazyChat",
        request_options=__name__.rpartition(".")[0] + ".lazyb_impl:LazyRequest",
        request_defaults={"temperature": 0.5},
    ),
)
"""

_BROKEN_IMPL = """
import pathlib
_count = pathlib.Path(__file__).with_suffix(".count")
_count.write_text(str(int(_count.read_text() or 0) + 1) if _count.exists() else "1")
raise ImportError("planted: the endpoint module is broken")
"""


def _plant(dists: Dists, impl: str) -> str:
    dists.provider("lazyb", _LAZY_PROVIDER)
    return dists.module("lazyb_impl", impl)


def test_broken_endpoint_module_is_provider_unavailable_at_match_and_cached(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    impl = _plant(dists, _BROKEN_IMPL)
    catalog = dists.catalog()
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    snapshot = catalog.snapshot()  # the build succeeds: nothing of lazyb_impl is imported
    assert impl not in sys.modules
    assert snapshot.deferred.providers == ("lazyb",)
    errors = []
    for _ in range(2):
        with pytest.raises(ProviderUnavailable) as info:
            match_endpoint("lazyb", "chat")
        errors.append(info.value)
    diag = errors[0].diagnostic
    assert diag.code == "import_error"
    assert diag.distributions == (f"{dists.prefix}-lazyb",)
    assert impl in diag.message and "planted" in diag.message
    assert str(errors[1]) == str(errors[0])
    count = dists.root / dists.prefix / "lazyb_impl.count"
    assert count.read_text() == "1"  # imported once; the failure is cached, not retried


def test_invalid_deferred_record_is_catalog_validation_error_at_match(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The class resolves but is no Endpoint, and the default names a field the model lacks.
    _plant(
        dists,
        """
        class LazyChat:
            pass

        class LazyRequest(BaseModel):
            model: str = "m"
        """,
    )
    catalog = dists.catalog()
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    with pytest.raises(CatalogValidationError) as info:
        match_endpoint("lazyb", "chat")
    codes = sorted((d.code, d.key) for d in info.value.diagnostics)
    assert codes == [
        ("invalid_endpoint_class", "endpoint_class"),
        ("invalid_request_default", "temperature"),
    ]


def test_valid_deferred_row_matches_with_its_defaults(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    impl = _plant(
        dists,
        """
        class LazyChat(Endpoint):
            pass

        class LazyRequest(ChatRequest):
            pass
        """,
    )
    catalog = dists.catalog()
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    endpoint = match_endpoint("lazyb", "chat")
    assert type(endpoint).__module__ == impl
    assert endpoint.config.request_options is sys.modules[impl].LazyRequest
    assert endpoint.config.request_defaults == {"temperature": 0.5}
    assert type(endpoint)._ENDPOINT_META is not None  # bound on resolution, as at publish


def test_malformed_reference_fails_the_build(dists: Dists) -> None:
    dists.provider("lazyb", 'PROVIDER_SPECS = (api("lazyb", "chat", cls="no colon here"),)\n')
    with pytest.raises(CatalogValidationError) as info:
        dists.catalog().snapshot()
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.key) == ("invalid_endpoint_class", "endpoint_class")


def test_providers_strict_imports_every_row_and_reports_the_broken_one(
    dists: Dists, tmp_path: Path
) -> None:
    _plant(dists, _BROKEN_IMPL)
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    plain, output, _ = _probe(
        "from lionagi.service.cli import main\nraise SystemExit(main(['providers']))\n", env=env
    )
    assert plain == 0, output[-3000:]  # a plain listing reads only static data
    code, output, seen = _probe(
        "from lionagi.service.cli import main\nraise SystemExit(main(['providers', '--strict']))\n",
        env=env,
    )
    assert code == 1, output[-3000:]
    assert "lazyb" in output and "planted" in output and f"{dists.prefix}-lazyb" in output
    assert "lionagi.providers.groq._endpoint" in seen["modules"]  # every row was imported


# -- one endpoint's modules, not its provider's ---------------------------------------------------

_TWO_ROWS = """
PROVIDER_SPECS = (
    api("lazyb", "chat", cls=__name__.rpartition(".")[0] + ".lazyb_chat:LazyChat"),
    api("lazyb", "embed", cls=__name__.rpartition(".")[0] + ".lazyb_embed:LazyEmbed"),
)
"""


def test_matching_one_endpoint_imports_only_its_modules_and_a_broken_sibling_fails_alone(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A chat call must not pay for (nor be failed by) the same provider's other rows: only the
    # matched endpoint's references are imported, and each endpoint's outcome is its own.
    dists.provider("lazyb", _TWO_ROWS)
    chat = dists.module("lazyb_chat", "class LazyChat(Endpoint):\n    pass\n")
    embed = dists.module("lazyb_embed", _BROKEN_IMPL)
    catalog = dists.catalog()
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)

    endpoint = match_endpoint("lazyb", "chat")
    assert type(endpoint).__module__ == chat
    assert type(endpoint)._ENDPOINT_META is not None
    assert embed not in sys.modules

    for _ in range(2):
        with pytest.raises(ProviderUnavailable) as info:
            match_endpoint("lazyb", "embed")
        assert embed in info.value.diagnostic.message
    count = dists.root / dists.prefix / "lazyb_embed.count"
    assert count.read_text() == "1"  # the failure is cached per endpoint
    assert type(match_endpoint("lazyb", "chat")) is type(endpoint)  # chat is unaffected

    # The full check (`providers --strict`, `doctor`) still reports the provider as broken.
    with pytest.raises(ProviderUnavailable):
        catalog.snapshot().provider("lazyb")


def test_a_sibling_class_built_with_no_config_resolves_its_own_row(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `SomeEndpoint()` means "as the catalog registers it". A match resolves only its own
    # endpoint, so a sibling class imported later (its module loaded by the vendor's lazy
    # exports) must resolve its row on construction, not fail as unregistered.
    dists.provider("lazyb", _TWO_ROWS)
    dists.module("lazyb_chat", "class LazyChat(Endpoint):\n    pass\n")
    embed = dists.module("lazyb_embed", "class LazyEmbed(Endpoint):\n    pass\n")
    catalog = dists.catalog()
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    match_endpoint("lazyb", "chat")
    assert embed not in sys.modules

    import importlib

    cls = importlib.import_module(embed).LazyEmbed
    assert cls._ENDPOINT_META is None  # not resolved by the chat match
    endpoint = cls()
    assert (endpoint.config.provider, endpoint.config.endpoint) == ("lazyb", "embed")
    assert cls._ENDPOINT_META is not None


def test_a_vendor_class_built_with_no_config_in_a_fresh_process() -> None:
    # Before any catalog lookup: the vendor's lazy export imports the class, and building it
    # resolves its row through the process-wide catalog.
    code, output, seen = _probe(
        "from lionagi.providers.groq import GroqChat\n"
        "endpoint = GroqChat()\n"
        "assert (endpoint.config.provider, endpoint.config.endpoint) == "
        "('groq', 'chat/completions'), endpoint.config\n"
    )
    assert code == 0, output[-3000:]
    assert seen["modules"] == ["lionagi.providers.groq._endpoint"]
