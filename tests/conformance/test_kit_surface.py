"""The kit's shape: every case documents its troubleshooting; core never imports pytest."""

from __future__ import annotations

import contextlib
import inspect
import subprocess
import sys
from collections.abc import AsyncIterator

import anyio
import anyio.lowlevel
import pytest

from lionagi.service_testing.conformance import (
    AgenticEndpointConformance,
    SubprocessAgenticConformance,
    sync_case,
)

CASES = sorted(
    {
        (cls.__name__, name)
        for cls in (AgenticEndpointConformance, SubprocessAgenticConformance)
        for name, _ in inspect.getmembers(cls, inspect.isfunction)
        if name.startswith("test_")
    }
)


@pytest.mark.parametrize(("owner", "name"), CASES, ids=[f"{o}.{n}" for o, n in CASES])
def test_every_case_ends_with_troubleshooting(owner: str, name: str) -> None:
    cls = {c.__name__: c for c in (AgenticEndpointConformance, SubprocessAgenticConformance)}[owner]
    doc = inspect.getdoc(getattr(cls, name)) or ""
    last = doc.strip().split("\n\n")[-1]
    assert last.startswith("Troubleshooting:"), f"{name}: last paragraph is {last!r}"


def test_importing_core_and_its_test_support_does_not_import_pytest() -> None:
    code = (
        "import sys\n"
        "import lionagi.service, lionagi.service_testing, lionagi.service_testing.reference_cli\n"
        "import lionagi.service_testing.fake_clis\n"
        "assert 'pytest' not in sys.modules, 'pytest was imported'\n"
        "assert 'lionagi.service_testing.conformance' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize(("owner", "name"), CASES, ids=[f"{o}.{n}" for o, n in CASES])
def test_no_case_is_a_coroutine_function(owner: str, name: str) -> None:
    """No async plugin may claim a kit case: each one is a plain synchronous test."""
    cls = {c.__name__: c for c in (AgenticEndpointConformance, SubprocessAgenticConformance)}[owner]
    case = getattr(cls, name)
    assert not inspect.iscoroutinefunction(case)
    assert not inspect.isasyncgenfunction(case)


def test_sync_case_keeps_the_signature_and_runs_the_scope() -> None:
    events: list[str] = []

    class Owner:
        @contextlib.asynccontextmanager
        async def case_scope(self) -> AsyncIterator[None]:
            events.append("enter")
            yield
            events.append("exit")

        @sync_case
        async def test_case(self, scenario: str, *, flag: bool = False) -> None:
            """Doc kept."""
            await anyio.lowlevel.checkpoint()
            events.append(f"case {scenario} {flag}")

    wrapped = Owner.test_case
    assert not inspect.iscoroutinefunction(wrapped)
    assert list(inspect.signature(wrapped).parameters) == ["self", "scenario", "flag"]
    assert wrapped.__doc__ == "Doc kept."
    Owner().test_case("text", flag=True)
    assert events == ["enter", "case text True", "exit"]
    with pytest.raises(TypeError):
        sync_case(lambda: None)  # type: ignore[arg-type]
