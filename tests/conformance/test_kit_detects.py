"""The kit fails adapters that break the contract, and runs in a project without our pytest config.

A generated test module subclasses the kit for a conforming scripted adapter and for adapters
each broken in one way; a separate pytest process (no ini file, so no ``anyio_mode = "auto"``:
the kit's own ``anyio`` marker must carry it) runs the relevant cases, and the JUnit report must
show the conforming class passing and every broken one caught by the case that targets it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

MODULE = textwrap.dedent(
    """
    import asyncio
    from typing import Any, ClassVar

    from lionagi.service import ProviderConnectionError, ProviderError, StreamChunk
    from lionagi.service.scripted import Delay, Raise, ScriptedEndpoint, default_script
    from lionagi.service_testing.conformance import AgenticEndpointConformance, Scenario

    CONFIG = {"name": "scripted", "provider": "scripted", "endpoint": "chat"}
    BACKGROUND: list[Any] = []


    def script_for(scenario):
        if scenario is Scenario.PROVIDER_ERROR:
            return list(default_script("SCRIPTED_FAIL", model="m"))
        if scenario is Scenario.STALL:
            return [StreamChunk("text", "Stalling", is_delta=True), Delay(3600.0)]
        if scenario is Scenario.TRANSPORT_ERROR:
            return [Raise(ProviderConnectionError("transport down"))]
        if scenario is Scenario.EMPTY:
            return []
        return None


    class RaisesInsteadOfErrorChunk(ScriptedEndpoint):
        async def _stream_agentic(self, request, *, runtime_args, local_timeout):
            inner = super()._stream_agentic(
                request, runtime_args=runtime_args, local_timeout=local_timeout
            )
            async for chunk in inner:
                if chunk.type == "error":
                    raise ProviderConnectionError("the provider said no")
                yield chunk


    class SwallowsTransportErrors(ScriptedEndpoint):
        async def _stream_agentic(self, request, *, runtime_args, local_timeout):
            try:
                inner = super()._stream_agentic(
                    request, runtime_args=runtime_args, local_timeout=local_timeout
                )
                async for chunk in inner:
                    yield chunk
            except ProviderError:
                return


    class PublishesCanonicalSessionId(ScriptedEndpoint):
        async def _stream_agentic(self, request, *, runtime_args, local_timeout):
            yield StreamChunk("system", metadata={"session_id": "observed-only"})
            inner = super()._stream_agentic(
                request, runtime_args=runtime_args, local_timeout=local_timeout
            )
            async for chunk in inner:
                yield chunk


    class YieldsWhileCancelled(ScriptedEndpoint):
        async def _stream_agentic(self, request, *, runtime_args, local_timeout):
            try:
                inner = super()._stream_agentic(
                    request, runtime_args=runtime_args, local_timeout=local_timeout
                )
                async for chunk in inner:
                    yield chunk
            finally:
                yield StreamChunk("text", "goodbye from cleanup")


    class LeaksATask(ScriptedEndpoint):
        async def _stream_agentic(self, request, *, runtime_args, local_timeout):
            BACKGROUND.append(asyncio.get_running_loop().create_task(asyncio.sleep(3600)))
            inner = super()._stream_agentic(
                request, runtime_args=runtime_args, local_timeout=local_timeout
            )
            async for chunk in inner:
                yield chunk


    class ResumeFieldWithoutResumable(ScriptedEndpoint):
        resume_field: ClassVar[str | None] = "model"


    class Base(AgenticEndpointConformance):
        endpoint_type: ClassVar[type[ScriptedEndpoint]] = ScriptedEndpoint

        def make_endpoint(self, scenario):
            return self.endpoint_type(CONFIG, script=script_for(scenario))

        def valid_request(self):
            return {"prompt": "hello"}


    class TestGood(Base):
        pass


    class TestRaisesInsteadOfErrorChunk(Base):
        endpoint_type = RaisesInsteadOfErrorChunk


    class TestSwallowsTransportErrors(Base):
        endpoint_type = SwallowsTransportErrors


    class TestPublishesCanonicalSessionId(Base):
        endpoint_type = PublishesCanonicalSessionId


    class TestYieldsWhileCancelled(Base):
        endpoint_type = YieldsWhileCancelled


    class TestLeaksATask(Base):
        endpoint_type = LeaksATask


    class TestResumeFieldWithoutResumable(Base):
        endpoint_type = ResumeFieldWithoutResumable
    """
)

# (class, case) -> the case that must catch it
CAUGHT = {
    ("TestRaisesInsteadOfErrorChunk", "test_provider_error_fails_after_one_error_chunk"),
    ("TestSwallowsTransportErrors", "test_transport_error_is_typed"),
    ("TestPublishesCanonicalSessionId", "test_non_resumable_adapter_gets_no_session"),
    ("TestYieldsWhileCancelled", "test_cancellation_yields_nothing_and_cancels"),
    ("TestLeaksATask", "test_text_stream_completes"),
    ("TestResumeFieldWithoutResumable", "test_capabilities_are_declared_and_immutable"),
}


def outcomes(report: Path) -> dict[tuple[str, str], set[str]]:
    found: dict[tuple[str, str], set[str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        key = (case.get("classname", "").rsplit(".", 1)[-1], case.get("name", ""))
        kinds = {child.tag for child in case if child.tag in ("failure", "error", "skipped")}
        found.setdefault(key, set()).update(kinds or {"passed"})
    return found


def test_kit_fails_broken_adapters_and_passes_a_good_one(tmp_path: Path) -> None:
    (tmp_path / "test_generated_conformance.py").write_text(MODULE)
    report = tmp_path / "report.xml"
    selection = " or ".join(["TestGood", *(f"({cls} and {case})" for cls, case in CAUGHT)])
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            os.devnull,
            "--rootdir",
            str(tmp_path),
            "-p",
            "no:cacheprovider",
            # pytest-asyncio is a dev dependency (the HTTP kit's plugin check); it is not the
            # plugin under test here, and unconfigured it warns, which -W error turns fatal.
            "-p",
            "no:asyncio",
            "-W",
            "error",
            "-q",
            "-k",
            selection,
            f"--junitxml={report}",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert report.exists(), result.stdout + result.stderr
    found = outcomes(report)
    good = {name: kinds for (cls, name), kinds in found.items() if cls == "TestGood"}
    assert len(good) >= 25, result.stdout
    bad_good = {name: kinds for name, kinds in good.items() if kinds - {"passed", "skipped"}}
    assert bad_good == {}, result.stdout
    for key in CAUGHT:
        assert key in found, f"{key} did not run:\n{result.stdout}"
        assert found[key] & {"failure", "error"}, f"{key} was not caught: {found[key]}"
