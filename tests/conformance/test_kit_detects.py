"""The kit fails adapters that break the contract, and runs in a project without our pytest config.

A generated test module subclasses the kit for a conforming scripted adapter and for adapters
each broken in one way; a separate pytest process (no ini file, so no ``anyio_mode = "auto"``:
the kit's cases are synchronous tests that need no async plugin) runs the relevant cases, and
the JUnit report must show the conforming class passing and every broken one caught by the case
that targets it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from lionagi.service.agentic import contains_setsid_descendants

MODULE = textwrap.dedent(
    """
    import asyncio
    from typing import Any, ClassVar

    from lionagi.service import ProviderConnectionError, ProviderError, StreamChunk
    from lionagi.service.scripted import Delay, Raise, ScriptedEndpoint, default_script
    from lionagi.service_testing.conformance import (
        VENDOR_GRAMMAR_SCENARIOS,
        AgenticEndpointConformance,
        Scenario,
    )

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
        inapplicable_scenarios = dict.fromkeys(VENDOR_GRAMMAR_SCENARIOS, "normalized chunks")

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


def run_generated(tmp_path: Path, module: str, selection: str) -> tuple[Path, str]:
    """Run ``module`` in a separate, config-less pytest; return the JUnit report and output."""
    (tmp_path / "test_generated_conformance.py").write_text(module)
    report = tmp_path / "report.xml"
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
        # A hang guard, not a speed check: the CLI selection runs ~100 cases with real
        # subprocesses and took over 120 s on the 2-core machine at load 5.
        timeout=900,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert report.exists(), result.stdout + result.stderr
    return report, result.stdout


@pytest.mark.timeout(600)  # many kit runs in subprocesses
def test_kit_fails_broken_adapters_and_passes_a_good_one(tmp_path: Path) -> None:
    selection = " or ".join(["TestGood", *(f"({cls} and {case})" for cls, case in CAUGHT)])
    report, stdout = run_generated(tmp_path, MODULE, selection)
    found = outcomes(report)
    good = {name: kinds for (cls, name), kinds in found.items() if cls == "TestGood"}
    assert len(good) >= 25, stdout
    bad_good = {name: kinds for name, kinds in good.items() if kinds - {"passed", "skipped"}}
    assert bad_good == {}, stdout
    for key in CAUGHT:
        assert key in found, f"{key} did not run:\n{stdout}"
        assert found[key] & {"failure", "error"}, f"{key} was not caught: {found[key]}"


# -- CLI adapters: the reference adapter with one planted defect each (issue 10 item 9) ----------

CLI_MODULE = textwrap.dedent(
    """
    import asyncio
    import json
    import os
    import signal

    import anyio

    from lionagi.service.agentic import json_events_from_process
    from lionagi.service_testing.conformance import Scenario, SubprocessAgenticConformance
    from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, project_event

    SID = "kit-session-1"
    TEXT = [{"type": "text", "content": "fine", "delta": True}, {"type": "result"}]
    EVENTS = {
        Scenario.TEXT: TEXT,
        Scenario.TOOL: [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
            {"type": "tool_result", "id": "t1", "output": "README.md"},
        ],
        Scenario.USAGE: [{"type": "text", "content": "n"}, {"type": "result", "usage": {"n": 1}}],
        Scenario.SESSION: [
            {"type": "session", "session_id": SID},
            {"type": "text", "content": "resumable"},
            {"type": "result", "session_id": SID},
        ],
        Scenario.PROVIDER_ERROR: [{"type": "error", "message": "refused", "kind": "auth"}],
        Scenario.EMPTY: [],
        Scenario.RESULT_REPEATS_TEXT: [
            {"type": "text", "content": "once, ", "delta": True},
            {"type": "text", "content": "not twice", "delta": True},
            {"type": "result", "content": "once, not twice"},
        ],
        Scenario.ERROR_MESSAGE: [
            {"type": "text", "content": "Invalid API key", "error": True, "kind": "auth"},
            {"type": "result", "content": "Invalid API key"},
        ],
        Scenario.RETRY_NOTICE: [
            {"type": "error", "message": "Reconnecting... 1/5", "will_retry": True},
            {"type": "text", "content": "answered"},
            {"type": "result"},
        ],
    }


    class PromptAsOption(ReferenceCliEndpoint):
        def command(self, request, **kwargs):
            argv = [*super().command(request, **kwargs), "--prompt", request.prompt]
            return argv + (["--resume", request.resume] if request.resume else [])


    class InheritsStdin(ReferenceCliEndpoint):
        def launch(self, request, cwd):
            launch = self.launch_settings()
            return json_events_from_process(
                self.command(request, program=launch.program, extra=launch.args),
                cwd=cwd,
                env=launch.env,
                inherit_env=launch.inherit_env,
                stdin="inherit",
                prompt=request.prompt,
                install_hint="a test double",
                terminate_grace=self.terminate_grace,
            )


    class RepeatsResultText(ReferenceCliEndpoint):
        def finish_result(self, chunk, streamed):
            return chunk


    class ErrorMessageAsText(ReferenceCliEndpoint):
        def project(self, event):
            return project_event({k: v for k, v in event.items() if k != "error"})


    class RetryNoticeIsFailure(ReferenceCliEndpoint):
        def project(self, event):
            return project_event({k: v for k, v in event.items() if k != "will_retry"})


    class ForgetsToResume(ReferenceCliEndpoint):
        def command(self, request, **kwargs):
            return super().command(request.model_copy(update={"resume": None}), **kwargs)


    class OverridesTheCap(ReferenceCliEndpoint):
        def __init__(self, config=None, **kwargs):
            super().__init__(config, **{**kwargs, "timeout": 3600.0})  # "agents run long"


    class EndsQuietlyAtItsOwnTimer(ReferenceCliEndpoint):
        async def _stream_agentic(self, request, *, runtime_args, local_timeout):
            inner = super()._stream_agentic(
                request, runtime_args=runtime_args, local_timeout=local_timeout
            )
            end = anyio.current_time() + self.config.timeout / 2  # its own timer, not core's
            try:
                while True:
                    try:
                        with anyio.fail_after(max(0.0, end - anyio.current_time())):
                            chunk = await inner.__anext__()
                    except (StopAsyncIteration, TimeoutError):
                        return  # "out of time: end the turn"
                    yield chunk
            finally:
                await inner.aclose()


    class CopyDropsSettings(ReferenceCliEndpoint):
        def copy(self):
            other = type(self)(self.config, argv=self.argv, terminate_grace=self.terminate_grace)
            self.copy_runtime_state_to(other)
            return other


    class OwnProcessGroupOnly(ReferenceCliEndpoint):
        async def _stream_agentic(self, request, *, runtime_args, local_timeout):
            launch = self.launch_settings()
            env = {n: os.environ[n] for n in launch.inherit_env if n in os.environ}
            env.update(launch.env)
            argv = self.command(request, program=launch.program, extra=launch.args)
            proc = await asyncio.create_subprocess_exec(
                *argv, "--", request.prompt,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                cwd=launch.cwd,
                env=env,
                start_new_session=True,
            )
            streamed = []
            try:
                async for line in proc.stdout:
                    if not line.strip():
                        continue
                    chunk = self.project(json.loads(line))
                    if chunk is None:
                        continue
                    if chunk.type == "text" and chunk.content:
                        streamed.append(chunk.content)
                    elif chunk.type == "result":
                        chunk = self.finish_result(chunk, "".join(streamed))
                    yield chunk
                    if chunk.type == "error":
                        return
            finally:
                with anyio.CancelScope(shield=True):
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    await proc.wait()


    class Base(SubprocessAgenticConformance):
        endpoint_type = ReferenceCliEndpoint
        inapplicable_scenarios = {
            Scenario.CUT_SHORT: "the reference grammar has no terminal event",
        }

        def make_cli_endpoint(self, argv_prefix, *, terminate_grace, settings=None, timeout=None):
            config = {"timeout": timeout} if timeout is not None else {}
            return self.endpoint_type(
                argv=argv_prefix, terminate_grace=terminate_grace, settings=settings, **config
            )

        def cli_events(self, scenario):
            return EVENTS[scenario]

        def valid_request(self):
            return {"prompt": "hello"}

        def resume_argv(self, session_id):
            return ["--resume", session_id]


    class TestGoodCli(Base):
        pass


    class TestPromptAsOption(Base):
        endpoint_type = PromptAsOption


    class TestInheritsStdin(Base):
        endpoint_type = InheritsStdin


    class TestRepeatsResultText(Base):
        endpoint_type = RepeatsResultText


    class TestErrorMessageAsText(Base):
        endpoint_type = ErrorMessageAsText


    class TestRetryNoticeIsFailure(Base):
        endpoint_type = RetryNoticeIsFailure


    class TestForgetsToResume(Base):
        endpoint_type = ForgetsToResume


    class TestOverridesTheCap(Base):
        endpoint_type = OverridesTheCap


    class TestEndsQuietlyAtItsOwnTimer(Base):
        endpoint_type = EndsQuietlyAtItsOwnTimer


    class TestCopyDropsSettings(Base):
        endpoint_type = CopyDropsSettings


    class TestOwnProcessGroupOnly(Base):
        endpoint_type = OwnProcessGroupOnly
    """
)

# planted defect -> the one new case that must catch it (every other new case must pass)
CLI_CAUGHT = {
    "TestPromptAsOption": "test_prompt_arrives_verbatim",
    "TestInheritsStdin": "test_stdin_is_not_inherited",
    "TestRepeatsResultText": "test_result_does_not_repeat_streamed_text",
    "TestErrorMessageAsText": "test_error_flagged_message_is_an_error_not_text",
    "TestRetryNoticeIsFailure": "test_retry_notice_is_not_a_failure",
    "TestForgetsToResume": "test_resumed_turn_carries_the_session",
    "TestOverridesTheCap": "test_local_cap_is_honoured",
    "TestEndsQuietlyAtItsOwnTimer": "test_local_cap_is_honoured",
    "TestCopyDropsSettings": "test_copy_keeps_deployment_settings",
    "TestOwnProcessGroupOnly": "test_setsid_descendants_do_not_survive",
}
NEW_CASES = sorted(set(CLI_CAUGHT.values()))
SETSID_CASE = "test_setsid_descendants_do_not_survive"


def case_outcomes(found: dict[tuple[str, str], set[str]], cls: str, case: str) -> set[str]:
    """Outcomes of ``cls.case`` over all its parametrizations."""
    kinds: set[str] = set()
    for (owner, name), outcome in found.items():
        if owner == cls and (name == case or name.startswith(f"{case}[")):
            kinds |= outcome
    return kinds


@pytest.mark.timeout(900)  # dozens of kit runs in subprocesses; slow on a loaded 2-core machine
def test_kit_catches_each_planted_cli_defect_with_its_own_case(tmp_path: Path) -> None:
    """Each new case fails the adapter with its defect; the other new cases pass it.

    The defects are the ones real CLIs punish and the kit before issue 10 item 9 passed: the
    reference adapter with each one planted passes every pre-existing case.
    """
    new = " or ".join(NEW_CASES)
    selection = " or ".join(["TestGoodCli", *(f"({cls} and ({new}))" for cls in CLI_CAUGHT)])
    report, stdout = run_generated(tmp_path, CLI_MODULE, selection)
    found = outcomes(report)
    good = {name: kinds for (cls, name), kinds in found.items() if cls == "TestGoodCli"}
    assert len(good) >= 45, stdout
    assert {name: k for name, k in good.items() if k - {"passed", "skipped"}} == {}, stdout
    for cls, target in CLI_CAUGHT.items():
        for case in NEW_CASES:
            kinds = case_outcomes(found, cls, case)
            assert kinds, f"{cls}.{case} did not run:\n{stdout}"
            if case == SETSID_CASE and not contains_setsid_descendants():
                assert kinds == {"skipped"}, kinds  # documented limit: nothing to contain with
                continue
            if case == target:
                assert kinds & {"failure", "error"}, f"{cls} was not caught by {case}"
            else:
                assert kinds == {"passed"}, f"{cls}.{case} should pass, got {kinds}:\n{stdout}"


# -- a deployment secret in the CLI's error: only the launch's secrets= can redact it ------------

SECRETS_MODULE = textwrap.dedent(
    """
    from lionagi.service.agentic import json_events_from_process
    from lionagi.service_testing.conformance import SubprocessAgenticConformance
    from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

    TEXT = [{"type": "text", "content": "fine", "delta": True}, {"type": "result"}]


    class LaunchWithoutSecrets(ReferenceCliEndpoint):
        def launch(self, request, cwd):
            launch = self.launch_settings()
            return json_events_from_process(
                self.command(request, program=launch.program, extra=launch.args),
                cwd=cwd,
                env=launch.env,
                inherit_env=launch.inherit_env,
                prompt=request.prompt,
                install_hint="a test double",
                terminate_grace=self.terminate_grace,
            )


    class Base(SubprocessAgenticConformance):
        endpoint_type = ReferenceCliEndpoint

        def make_cli_endpoint(self, argv_prefix, *, terminate_grace, settings=None, timeout=None):
            config = {"timeout": timeout} if timeout is not None else {}
            return self.endpoint_type(
                argv=argv_prefix, terminate_grace=terminate_grace, settings=settings, **config
            )

        def cli_events(self, scenario):
            return TEXT

        def valid_request(self):
            return {"prompt": "hello"}


    class TestGoodCli(Base):
        pass


    class TestLaunchWithoutSecrets(Base):
        endpoint_type = LaunchWithoutSecrets
    """
)
SECRET_CASE = "test_deployment_secret_never_reaches_the_error"


@pytest.mark.timeout(300)
def test_kit_catches_a_launch_that_drops_the_deployment_secrets(tmp_path: Path) -> None:
    """A launch without ``secrets=`` leaks a ``settings.env`` value; the secret case fails it.

    The pre-existing non-zero-exit case cannot: its secret is sk-shaped, which core redacts by
    pattern whatever the launch declares, so the same defect passes it (asserted here too).
    """
    exit_case = "test_nonzero_exit_is_typed_with_bounded_redacted_stderr"
    report, stdout = run_generated(tmp_path, SECRETS_MODULE, f"{SECRET_CASE} or {exit_case}")
    found = outcomes(report)
    assert found.get(("TestGoodCli", SECRET_CASE)) == {"passed"}, stdout
    assert found.get(("TestGoodCli", exit_case)) == {"passed"}, stdout
    assert found.get(("TestLaunchWithoutSecrets", exit_case)) == {"passed"}, stdout
    caught = found.get(("TestLaunchWithoutSecrets", SECRET_CASE), set())
    assert caught & {"failure", "error"}, f"the dropped secrets= was not caught:\n{stdout}"
