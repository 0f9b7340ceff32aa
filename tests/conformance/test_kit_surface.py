"""The kit's shape: every case documents its troubleshooting; core never imports pytest."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from lionagi.service_testing.conformance import (
    AgenticEndpointConformance,
    SubprocessAgenticConformance,
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
