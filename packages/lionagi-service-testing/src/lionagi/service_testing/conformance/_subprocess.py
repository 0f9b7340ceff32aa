"""SubprocessAgenticConformance: the D4 cases for CLI adapters, driven by a real fake CLI.

The adapter under test runs the ``replay`` fake CLI (``lionagi.service_testing.fake_clis``)
instead of its vendor binary. The kit writes a plan per run: the adapter's own events (from
:meth:`SubprocessAgenticConformance.cli_events`) plus how to frame them, how much stderr to
write, whether to exit non-zero, stall, ignore SIGTERM or start grandchildren. The fake appends
what it saw and did to a log, which is how the kit proves "no process was started", "no shell in
between", "SIGTERM was ignored" and "grandchildren existed" without trusting the adapter.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import sys
import time
import uuid
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest

from lionagi.service import (
    AgenticEndpoint,
    AgenticRequestValidationError,
    AgenticSettings,
    EventStatus,
    ProviderError,
    ProviderExecutableNotFound,
    ProviderProtocolError,
    ProviderStreamError,
    RequestDeadlineExceeded,
)
from lionagi.service.agentic import contains_setsid_descendants

from .. import fake_clis
from ._agentic import _EXPLICIT_SESSION, AgenticEndpointConformance
from ._leaks import alive, tagged_pids
from ._scenario import Scenario
from ._sync import sync_case

__all__ = [
    "CONFORMANCE_SECRET",
    "HOSTILE_PROMPT",
    "SubprocessAgenticConformance",
    "record_argv",
    "replay_argv",
]

REPLAY_SCRIPT = Path(fake_clis.__file__).resolve().parent / "replay.py"
RECORD_SCRIPT = Path(fake_clis.__file__).resolve().parent / "record.py"
# Starts with "-", holds both quotes, command substitution, backticks, a "--", a tab and
# newlines: every way a shell, an option parser or a "helpful" strip() changes a prompt.
HOSTILE_PROMPT = "-v --help \"double\" 'single' $(touch pwned) `id` --\n\tsecond line\n"
_STDIN_MARKER = "lionagi-conformance-parent-stdin-marker"
CONFORMANCE_SECRET = "sk-conformance-0123456789abcdefSECRET"
_FATAL_LINE = f"fatal: conformance failure (token {CONFORMANCE_SECRET})"
_SETTING_VAR = "LIONAGI_CONFORMANCE_DEPLOYMENT"
_SETTING_VALUE = "kept-by-copy"
# A value for the child's environment from ``settings.env``, which declares every value a
# secret. Neither the value has a known key shape nor the name a credential word (core redacts
# sk-..., AIza... by pattern and *_KEY/*_TOKEN values by name, whatever the adapter does): only
# the secrets the launch declares (``secrets=``) can keep it out of an error.
_DEPLOY_SECRET_VAR = "LIONAGI_CONFORMANCE_DEPLOY_VALUE"
_DEPLOY_SECRET_PREFIX = "lionagiconformancedeploy"
_NO_CONTAINMENT = (
    "per-call cgroups are unavailable here (not Linux, cgroup v1 only, or no delegated cgroup "
    "v2 subtree): core's teardown reaches only the process group, its documented limit, so a "
    "setsid() descendant cannot be contained"
)


def replay_argv(plan: str | os.PathLike[str], *, python: str | None = None) -> list[str]:
    """Argv prefix running the ``replay`` fake CLI on ``plan`` under an isolated interpreter."""
    return [python or sys.executable, "-I", "-S", str(REPLAY_SCRIPT), os.fspath(plan)]


def record_argv(
    plan: str | os.PathLike[str], record: str | os.PathLike[str], *, python: str | None = None
) -> list[str]:
    """Argv prefix running the ``record`` fake CLI on ``plan``, recording into ``record``.

    The fake appends what it received (argv, stdin, environment, cwd, ids) to ``record``, then
    replays ``plan`` exactly as :func:`replay_argv` would.
    """
    return [
        python or sys.executable,
        "-I",
        "-S",
        str(RECORD_SCRIPT),
        "--record",
        os.fspath(record),
        os.fspath(plan),
    ]


class SubprocessAgenticConformance(AgenticEndpointConformance):
    """Everything in :class:`AgenticEndpointConformance`, plus the subprocess guarantees.

    Required hooks (instead of ``make_endpoint``):
        make_cli_endpoint(argv_prefix, terminate_grace=...): your adapter, configured to run
            ``argv_prefix`` (followed by whatever your command grammar appends) instead of its
            vendor binary, with the given SIGTERM-to-SIGKILL grace.
        cli_events(scenario): the stdout events, in your CLI's own grammar, for TEXT, TOOL,
            USAGE, SESSION, PROVIDER_ERROR and EMPTY.
        valid_request(): as in the base class.

    Optional hooks and knobs:
        cli_exit_code(scenario): exit status after the events (default 0; some CLIs exit 1
            after reporting a provider error).
        workspace_request(repo, workspace): request fields that run your CLI in ``repo`` with
            that workspace; None (the default) skips the containment cases.
        prompt_request(prompt): request fields sending ``prompt`` (default: ``valid_request()``
            with its ``"prompt"`` replaced; None skips the verbatim-prompt case).
        resume_argv(session_id): the argv elements your command carries to resume
            ``session_id`` (e.g. ``["--resume", session_id]``); the default None only requires
            the id to appear in the resumed run's argv or stdin.
        workspace_sets_cwd: the workspace becomes the child's working directory (default True).
        terminate_grace: grace passed to ``make_cli_endpoint`` (default 0.3 s).
        make_cli_endpoint keywords: declare ``settings`` (an :class:`AgenticSettings`) and
            ``timeout`` (the ``EndpointConfig.timeout`` local cap) as optional keyword
            parameters to run the settings-copy and local-cap cases; a hook without them
            (the original signature) still works and those cases are skipped, saying why.
        local_cap, cap_slack: the cap the local-cap case configures and the time allowed on
            top of it for teardown; setsid_deadline: the caller deadline of the setsid case.
        stderr_flood_bytes, stderr_tail_limit: stderr written in the flood cases and the
            largest diagnostic text accepted on the raised error.
    """

    terminate_grace: ClassVar[float] = 0.3
    local_cap: ClassVar[float] = 0.5
    cap_slack: ClassVar[float] = 3.0
    setsid_deadline: ClassVar[float] = 3.0
    stderr_flood_bytes: ClassVar[int] = 1024 * 1024
    stderr_tail_limit: ClassVar[int] = 16 * 1024
    workspace_sets_cwd: ClassVar[bool] = True

    _workdir: Path
    _log: Path
    _plans: int

    # -- adapter hooks ----------------------------------------------------------------------------

    @abstractmethod
    def make_cli_endpoint(
        self, argv_prefix: Sequence[str], *, terminate_grace: float
    ) -> AgenticEndpoint:
        """Return your adapter running ``argv_prefix`` + its own arguments, with this grace."""

    @abstractmethod
    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        """Your CLI's stdout events for ``scenario`` (TEXT, TOOL, USAGE, SESSION, ...).

        Called for TEXT, TOOL, USAGE, SESSION, PROVIDER_ERROR and EMPTY (only for scenarios
        your capabilities allow). STALL replays TEXT and then hangs; TRANSPORT_ERROR is a
        non-zero exit with no events, produced by the kit.
        """

    def cli_exit_code(self, scenario: Scenario) -> int:
        """Exit status after ``scenario``'s events (default 0)."""
        return 0

    def cut_short_events(self) -> Sequence[Mapping[str, Any]]:
        """``CUT_SHORT``'s events: TEXT's without its terminal event (by default the last one).

        Override when your TEXT run ends with more than one closing event; declare the
        scenario in ``inapplicable_scenarios`` when your grammar has no terminal event at all
        (a run then ends at end of stream).
        """
        return list(self.cli_events(Scenario.TEXT))[:-1]

    def workspace_request(self, repo: Path, workspace: str) -> dict[str, Any] | None:
        """Request fields running the CLI in ``repo`` with ``workspace``; None skips the cases."""
        return None

    # -- plans ------------------------------------------------------------------------------------

    @pytest.fixture(autouse=True)
    def _cli_workdir(self, tmp_path: Path) -> None:
        self._workdir = tmp_path
        self._log = tmp_path / "replay.log"
        self._plans = 0

    def plan_for(self, scenario: Scenario) -> dict[str, Any]:
        """The replay plan producing ``scenario``."""
        if scenario is Scenario.STALL:
            return {"events": list(self.cli_events(Scenario.TEXT)), "stall": True}
        if scenario is Scenario.CUT_SHORT:
            return {"events": list(self.cut_short_events()), "exit_code": 0}
        if scenario is Scenario.TRANSPORT_ERROR:
            return {
                "events": [],
                "stderr": "conformance: simulated transport failure",
                "exit_code": 1,
            }
        return {
            "events": list(self.cli_events(scenario)),
            "exit_code": self.cli_exit_code(scenario),
        }

    def write_plan(self, plan: Mapping[str, Any], *, name: str | None = None) -> Path:
        """Write ``plan`` (plus the shared log path) to a new file; return its path."""
        self._plans += 1
        path = self._workdir / (name or f"plan-{self._plans}.json")
        path.write_text(json.dumps({**plan, "log": str(self._log)}), encoding="utf-8")
        return path

    def cli_endpoint(self, plan: Mapping[str, Any], *, name: str | None = None) -> AgenticEndpoint:
        """An instrumented endpoint whose CLI replays ``plan``."""
        argv = replay_argv(self.write_plan(plan, name=name))
        return self.instrument(self.make_cli_endpoint(argv, terminate_grace=self.terminate_grace))

    def configured_cli_endpoint(
        self, argv: Sequence[str], **options: AgenticSettings | float
    ) -> AgenticEndpoint:
        """An instrumented :meth:`make_cli_endpoint` given ``options`` (``settings``, ``timeout``).

        Skips the case when the hook declares no such keyword: adapters written against the
        original ``make_cli_endpoint(argv_prefix, *, terminate_grace)`` keep working.
        """
        params = inspect.signature(self.make_cli_endpoint).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        for name in options:
            if name not in params and not takes_any:
                pytest.skip(
                    f"make_cli_endpoint() takes no {name}= keyword: add "
                    f"'{name}=None' to the hook and pass it to your adapter to run this case"
                )
        hook: Callable[..., AgenticEndpoint] = self.make_cli_endpoint
        return self.instrument(hook(argv, terminate_grace=self.terminate_grace, **options))

    def make_endpoint(self, scenario: Scenario) -> AgenticEndpoint:
        """Your adapter pointed at a replay of :meth:`plan_for` ``(scenario)``."""
        argv = replay_argv(self.write_plan(self.plan_for(scenario)))
        return self.make_cli_endpoint(argv, terminate_grace=self.terminate_grace)

    def log_records(self) -> list[dict[str, Any]]:
        """Everything the fake CLIs of this case logged, in order."""
        if not self._log.exists():
            return []
        return [json.loads(line) for line in self._log.read_text().splitlines() if line]

    def launches(self) -> list[dict[str, Any]]:
        """One record per fake CLI process started in this case."""
        return [r for r in self.log_records() if "launched" in r]

    def grandchildren(self) -> list[int]:
        """Pids of the grandchildren the fake CLIs started."""
        return [pid for r in self.log_records() for pid in r.get("children", [])]

    def work_started(self, endpoint: AgenticEndpoint) -> bool:
        """The adapter hook was entered or a fake CLI process started."""
        return super().work_started(endpoint) or bool(self.launches())

    async def run_direct(self, endpoint: AgenticEndpoint) -> list[dict[str, Any]]:
        """Chunks of one successful direct run, as dicts (for framing comparisons)."""
        with self.guard():
            chunks, exc = await self.collect(endpoint.stream(self.valid_request()))
        assert exc is None, repr(exc)
        return [c.to_dict() for c in chunks]

    @sync_case
    async def test_output_cut_short_before_its_terminal_event_fails(self) -> None:
        """A run that answered partway and exited 0 without its terminal event fails.

        The fixture (``CUT_SHORT``) is TEXT's events without the terminal event, then exit 0:
        what a CLI killed by something outside the run, or crashing after flushing, leaves. The
        exit status is not the outcome: the stream must raise ``ProviderProtocolError``, the
        event end FAILED, and no result chunk may present the partial text as the answer. (A run
        with no semantic output at all is the EMPTY scenario, which completes.)

        Troubleshooting: remember in your parser that semantic output arrived, and in
        ``finish()`` raise ``ProviderProtocolError`` naming the missing terminal event when
        none came and no failure was reported; a failure the CLI did report stays the one
        error chunk.
        """
        self.skip_inapplicable(Scenario.CUT_SHORT)
        endpoint, model, call, chunks, exc = await self.stream_scenario(Scenario.CUT_SHORT)
        assert isinstance(exc, ProviderProtocolError), repr(exc)
        assert call.status is EventStatus.FAILED
        assert not [c for c in chunks if c.type == "result"], "a cut-off run yielded a result"
        await self.assert_invoke_fails(endpoint, model, like=exc)

    # -- D4: framing and pipes --------------------------------------------------------------------

    @sync_case
    async def test_child_is_exec_directly_with_argv_intact(self) -> None:
        """The fake CLI's parent is the test process and its argv prefix is intact.

        A shell would sit between the two processes and would split or expand the plan path,
        which contains spaces and shell syntax on purpose.

        Troubleshooting: launch through ``json_events_from_process`` with an argv list; do not
        join arguments, call ``sh -c``, or use ``shell=True``. Append your flags after the
        prefix you were given instead of rebuilding the command from a string.
        """
        endpoint = self.cli_endpoint(
            {"events": list(self.cli_events(Scenario.TEXT))}, name="plan with spaces; $(x).json"
        )
        await self.run_direct(endpoint)
        (record,) = self.launches()
        assert record["ppid"] == os.getpid(), "the fake CLI's parent is not this process"
        assert record["argv"][:2] == [
            str(REPLAY_SCRIPT),
            str(self._workdir / "plan with spaces; $(x).json"),
        ]

    @pytest.mark.parametrize("framing", ["split", "concat"])
    @sync_case
    async def test_split_and_concatenated_json(self, framing: str) -> None:
        """Events cut across writes, or concatenated without newlines, give identical chunks.

        Troubleshooting: parse stdout with core's incremental framer (``json_events_from_process``
        does), never line by line with ``readline`` plus ``json.loads``; a value split inside a
        UTF-8 character must decode once it is complete.
        """
        events = list(self.cli_events(Scenario.TEXT))
        baseline = await self.run_direct(self.cli_endpoint({"events": events}))
        framed = await self.run_direct(
            self.cli_endpoint({"events": events, "framing": framing, "pause": 0.005})
        )
        assert framed == baseline

    @sync_case
    async def test_stderr_flood_does_not_block_stdout(self) -> None:
        """More than 256 KiB of stderr while streaming stdout neither deadlocks nor changes output.

        Troubleshooting: stderr must be drained concurrently and only a bounded head/tail kept
        (core's subprocess support does both). A hang here, ended by the case timeout, means
        stderr is a pipe nobody reads or is read only after stdout ends.
        """
        events = list(self.cli_events(Scenario.TEXT))
        baseline = await self.run_direct(self.cli_endpoint({"events": events}))
        flooded = await self.run_direct(
            self.cli_endpoint({"events": events, "stderr_bytes": self.stderr_flood_bytes})
        )
        assert flooded == baseline

    @pytest.mark.parametrize("raw", ["42\n", "[1, 2]\n"], ids=["scalar", "array"])
    @sync_case
    async def test_non_mapping_stdout_is_a_protocol_error(self, raw: str) -> None:
        """A JSON value that is not an object fails the run with ProviderProtocolError.

        Troubleshooting: do not skip values you cannot parse; an unknown shape may carry the
        answer. Let the framer's ProviderProtocolError propagate.
        """
        endpoint = self.cli_endpoint({"events": list(self.cli_events(Scenario.TEXT)), "raw": raw})
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        with self.guard():
            _, exc = await self.collect(model.stream(api_call=call))
        assert isinstance(exc, ProviderProtocolError), repr(exc)
        assert call.status is EventStatus.FAILED

    # -- D4: exits and errors ---------------------------------------------------------------------

    @sync_case
    async def test_nonzero_exit_is_typed_with_bounded_redacted_stderr(self) -> None:
        """A non-zero exit after output raises a typed error whose stderr is bounded and redacted.

        The fake writes its answer, ``stderr_flood_bytes`` of noise, a final line holding a
        key-shaped secret, and exits 3. The error must be a ProviderError (not an error chunk),
        carry ``returncode == 3``, keep the final line, stay under ``stderr_tail_limit``, and
        never contain the secret; the event is FAILED.

        Troubleshooting: do not treat earlier stdout as success; let core classify the exit
        (or pass your classifier through ``classify=``); pass credentials you put in the child
        environment through ``secrets=`` so they are redacted too.
        """
        endpoint = self.cli_endpoint(
            {
                "events": list(self.cli_events(Scenario.TEXT)),
                "stderr_bytes": self.stderr_flood_bytes,
                "stderr": _FATAL_LINE,
                "exit_code": 3,
            }
        )
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        with self.guard():
            _, exc = await self.collect(model.stream(api_call=call))
        assert isinstance(exc, ProviderError), repr(exc)
        assert not isinstance(exc, ProviderStreamError)
        assert exc.returncode == 3
        assert "conformance failure" in exc.stderr_tail
        for label, text in (
            ("message", str(exc)),
            ("repr", repr(exc)),
            ("stderr_tail", exc.stderr_tail),
            ("raw", exc.raw),
            ("event error", call.execution.error or ""),
        ):
            assert CONFORMANCE_SECRET not in text, f"the secret leaked into the error {label}"
            assert len(text) <= self.stderr_tail_limit, f"error {label} is {len(text)} chars"
        assert call.status is EventStatus.FAILED

    @sync_case
    async def test_deployment_secret_never_reaches_the_error(self) -> None:
        """A credential from the deployment's ``settings.env``, echoed on stderr, is redacted.

        The endpoint gets :class:`AgenticSettings` whose ``env`` holds a value of no known key
        shape under a name with no credential word (``settings.env`` values are secrets by
        contract); the fake CLI prints it in its final stderr line and exits 3. The raised error
        (message, repr, ``stderr_tail``, ``raw``) and the event's error must not contain it.
        The sk-shaped secret of the non-zero-exit case cannot prove this: core redacts that
        shape by pattern (and ``*_KEY``/``*_TOKEN`` values by name) even when the launch
        declares no secrets. Skipped, saying why, when
        ``make_cli_endpoint`` takes no ``settings=``.

        Troubleshooting: launch with the settings' secrets: ``secrets=launch.secrets`` from
        ``self.launch_settings()`` (``SubprocessCliEndpoint.launch`` does). A ``launch``
        override that builds ``json_events_from_process`` without ``secrets=`` redacts only
        known key shapes, and a CLI quoting its token (or a gateway echoing it) leaks it.
        """
        token = _DEPLOY_SECRET_PREFIX + uuid.uuid4().hex
        settings = AgenticSettings.model_validate({"env": {_DEPLOY_SECRET_VAR: token}})
        plan = self.write_plan(
            {
                "events": list(self.cli_events(Scenario.TEXT)),
                "stderr": f"fatal: the token {token} was refused",
                "exit_code": 3,
            }
        )
        endpoint = self.configured_cli_endpoint(replay_argv(plan), settings=settings)
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        with self.guard():
            _, exc = await self.collect(model.stream(api_call=call))
        assert isinstance(exc, ProviderError), repr(exc)
        assert call.status is EventStatus.FAILED
        for label, text in (
            ("message", str(exc)),
            ("repr", repr(exc)),
            ("stderr_tail", str(getattr(exc, "stderr_tail", "") or "")),
            ("raw", str(getattr(exc, "raw", "") or "")),
            ("event error", call.execution.error or ""),
        ):
            assert token not in text, (
                f"the settings.env secret leaked into the error {label}: the launch does not "
                "pass the settings' secrets (secrets=) to core"
            )

    @sync_case
    async def test_missing_executable_is_refused_before_launch(self) -> None:
        """A missing binary raises ProviderExecutableNotFound with an install hint; no launch.

        Troubleshooting: resolve the executable with core's discovery before spawning (the
        shared helper does) and give ``install_hint=`` the command that installs your CLI.
        """
        for prefix in (
            ["lionagi-conformance-no-such-cli"],
            [str(self._workdir / "missing" / "cli")],
        ):
            endpoint = self.instrument(
                self.make_cli_endpoint(prefix, terminate_grace=self.terminate_grace)
            )
            model = self.model(endpoint)
            call = model.create_api_calling(**self.valid_request())
            with self.guard():
                chunks, exc = await self.collect(model.stream(api_call=call))
            assert isinstance(exc, ProviderExecutableNotFound), repr(exc)
            assert exc.install_hint
            assert chunks == []
            assert call.status is EventStatus.FAILED
        assert self.launches() == []

    # -- D4: teardown -----------------------------------------------------------------------------

    @sync_case
    async def test_sigterm_ignored_escalates_to_sigkill(self) -> None:
        """A CLI that ignores SIGTERM is SIGKILLed after ``terminate_grace`` on consumer close.

        Troubleshooting: pass the grace you were given to ``json_events_from_process(...,
        terminate_grace=...)``. A close that takes about five seconds ignored it (the default);
        one that returns at once while the process lives skipped the escalation.
        """
        endpoint = self.cli_endpoint(
            {"events": list(self.cli_events(Scenario.TEXT)), "stall": True, "ignore_term": True}
        )
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        stream = model.stream(api_call=call)
        with self.guard():
            await stream.__anext__()
            started = time.monotonic()
            await stream.aclose()
            elapsed = time.monotonic() - started
        (launch,) = self.launches()
        assert any(r.get("signal") == "TERM" for r in self.log_records()), "no SIGTERM was sent"
        assert not alive(launch["launched"]), "the CLI survived teardown"
        assert elapsed >= self.terminate_grace * 0.8, f"escalated after {elapsed:.2f} s"
        assert elapsed < self.terminate_grace + 2.0, f"teardown took {elapsed:.2f} s"
        assert call.status is EventStatus.CANCELLED

    @pytest.mark.parametrize("ignore_term", [False, True], ids=["term", "ignore-term"])
    @sync_case
    async def test_grandchildren_die_with_the_group(self, ignore_term: bool) -> None:
        """Processes the CLI started in its group are killed with it on consumer close.

        Troubleshooting: the CLI must be started in its own process group
        (``start_new_session=True``, which core does) and teardown must signal the group, not
        just the child; SIGKILL after the grace reaches grandchildren that ignore SIGTERM.
        """
        endpoint = self.cli_endpoint(
            {
                "events": list(self.cli_events(Scenario.TEXT)),
                "children": 2,
                "stall": True,
                "ignore_term": ignore_term,
            }
        )
        stream = self.model(endpoint).stream(**self.valid_request())
        with self.guard():
            await stream.__anext__()
            pids = self.grandchildren()
            assert len(pids) == 2
            self._leaks.track(*pids)
            assert all(alive(pid) for pid in pids)
            await stream.aclose()
            with anyio.move_on_after(self.settle_timeout):
                while any(alive(pid) for pid in pids):  # noqa: ASYNC110 - polling /proc
                    await anyio.sleep(0.01)
        assert not [pid for pid in pids if alive(pid)], "grandchildren survived the group"

    @sync_case
    async def test_stall_until_deadline_aborts_and_reaps(self) -> None:
        """A CLI that hangs past the caller's deadline: ABORTED, group killed and reaped.

        Troubleshooting: do not shield your stdout reads from cancellation and do not retry the
        run; the supervisor's deadline cancels the read and core's teardown escalates within
        the grace. Leftover pids in the report name what survived.
        """
        endpoint = self.cli_endpoint(
            {
                "events": list(self.cli_events(Scenario.TEXT)),
                "children": 1,
                "stall": True,
                "ignore_term": True,
            }
        )
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        with self.guard():
            _, exc = await self.collect(model.stream(api_call=call, timeout=self.deadline))
        assert isinstance(exc, RequestDeadlineExceeded), repr(exc)
        assert call.status is EventStatus.ABORTED
        self._leaks.track(*self.grandchildren())
        (launch,) = self.launches()
        assert not alive(launch["launched"])

    # -- D4: the local cap, deployment settings, setsid descendants (issue 10 item 9) --------------

    @sync_case
    async def test_local_cap_is_honoured(self) -> None:
        """With no caller deadline, a stalled CLI is stopped at the endpoint's local cap.

        The endpoint is built with ``timeout=local_cap`` (its ``EndpointConfig.timeout``); the
        fake CLI stalls after its first events, with a grandchild in its group. Stream
        and invoke must end ABORTED with RequestDeadlineExceeded whose ``local_cap`` is that cap,
        within ``local_cap + cap_slack`` seconds, and every process must be gone.

        Troubleshooting: pass ``timeout`` to your endpoint's config untouched (do not replace
        it with a "long enough for agents" default in ``__init__``) and leave enforcement to the
        supervisor: ``local_timeout`` is informational. Do not end the run yourself when it
        expires (returning makes a hung run look COMPLETED; raising your own error makes it
        FAILED), and do not shield your reads from cancellation.
        """
        cap = self.local_cap
        plan = {
            "events": list(self.cli_events(Scenario.TEXT)),
            "children": 1,
            "stall": True,
        }
        for operation in ("stream", "invoke"):
            endpoint = self.configured_cli_endpoint(replay_argv(self.write_plan(plan)), timeout=cap)
            assert endpoint.config.timeout == cap, (
                f"make_cli_endpoint(timeout={cap}) built an endpoint whose config.timeout is "
                f"{endpoint.config.timeout}: the adapter overrides the local cap"
            )
            if operation == "invoke" and not type(endpoint).supports_invoke:
                break
            model = self.model(endpoint)
            call = model.create_api_calling(**self.valid_request())
            started = time.monotonic()
            with self.guard():
                if operation == "stream":
                    _, exc = await self.collect(model.stream(api_call=call))
                else:
                    try:
                        await model.invoke(api_call=call)
                        exc = call.exception if isinstance(call.exception, Exception) else None
                    except RequestDeadlineExceeded as raised:
                        exc = raised
            elapsed = time.monotonic() - started
            assert isinstance(exc, RequestDeadlineExceeded), (
                f"{operation} ended with {exc!r} ({call.status}) instead of "
                "RequestDeadlineExceeded at the local cap"
            )
            assert exc.local_cap == cap, f"the run ended at {exc.local_cap}, not the {cap} s cap"
            assert call.status is EventStatus.ABORTED
            assert elapsed < cap + self.cap_slack, f"{operation} took {elapsed:.2f} s"
            self._leaks.track(*self.grandchildren())
            assert not [r["launched"] for r in self.launches() if alive(r["launched"])], (
                "the CLI survived the local cap"
            )

    @sync_case
    async def test_copy_keeps_deployment_settings(self) -> None:
        """``copy()`` and ``iModel.copy()`` launch the CLI exactly as the original does.

        The endpoint gets :class:`AgenticSettings` (an extra environment variable, a working
        directory, an isolated config home and, as ``binary``, a link to the interpreter the
        argv prefix starts); the original, its ``copy()`` and an ``iModel.copy()`` each run the
        recording fake CLI once. Each record must show the variable, the directory, the binary
        and an isolated home that is neither the user's nor another launch's: a plain copy gets
        its own (only ``copy(share_session=True)`` shares the original's).

        Troubleshooting: a ``copy()`` override must pass ``settings=self.settings`` (with your
        own constructor arguments) and call ``self.copy_runtime_state_to(other)``. In the
        launch, use ``self.launch_settings()``: ``program`` replaces your default binary,
        ``env``/``inherit_env`` build the child's environment (HOME included) and ``cwd`` is the
        working directory when the request names none. "ran in the same isolated HOME": your
        ``copy()`` calls ``share_home_with``, or hands the copy the original's home; leave that
        to ``iModel.copy(share_session=True)``.
        """
        deploy = self._workdir / "deployment"
        deploy.mkdir(exist_ok=True)
        binary = self._workdir / "deployed-python"
        if not binary.is_symlink():
            binary.symlink_to(sys.executable)
        settings = AgenticSettings.model_validate(
            {
                "binary": str(binary),
                "env": {_SETTING_VAR: _SETTING_VALUE},
                "cwd": deploy,
                "config_home": "isolated",
            }
        )
        plan = self.write_plan({"events": list(self.cli_events(Scenario.TEXT))})
        argv = record_argv(plan, self._workdir / "record.jsonl")
        original = self.configured_cli_endpoint(argv, settings=settings)
        copied = self.instrument(original.copy())
        model_copy = self.track(self.model(original).copy())
        assert copied.settings == settings, "endpoint.copy() changed the deployment settings"
        runs = [("original", original), ("copy()", copied)]
        for _label, endpoint in runs:
            with self.guard():
                _, exc = await self.collect(endpoint.stream(self.valid_request()))
            assert exc is None, repr(exc)
        with self.guard():
            _, exc = await self.collect(model_copy.stream(**self.valid_request()))
        assert exc is None, repr(exc)
        records = self.recordings()
        assert len(records) == 3, f"expected three launches, got {len(records)}"
        user_home = os.environ.get("HOME")
        homes: dict[str, str] = {}
        for label, record in zip(("original", "copy()", "iModel.copy()"), records, strict=True):
            env = record["env"]
            assert env.get(_SETTING_VAR) == _SETTING_VALUE, f"{label}: settings.env was dropped"
            assert record["cwd"] == str(deploy.resolve()), f"{label}: ran in {record['cwd']}"
            assert record["executable"] == str(binary), (
                f"{label}: ran {record['executable']}, not settings.binary"
            )
            home = env.get("HOME")
            assert home, f"{label}: the CLI got no HOME"
            assert home != user_home, f"{label}: HOME is the user's, not an isolated home"
            shared = [other for other, path in homes.items() if path == home]
            assert not shared, (
                f"{label} ran in the same isolated HOME as the {shared[0]} ({home}): a plain "
                "copy gets a home of its own (only a session-sharing copy shares one)"
            )
            homes[label] = home

    @pytest.mark.parametrize("ending", ["cancel", "close", "deadline"])
    @sync_case
    async def test_setsid_descendants_do_not_survive(self, ending: str) -> None:
        """No descendant survives the run, including a ``setsid()`` one ignoring SIGTERM.

        The fake CLI starts a tool shell that calls ``setsid()`` (leaving the CLI's process
        group and session), ignores SIGTERM and has a sleeping child; every descendant carries
        a unique tag in its argv. After cancellation, ``aclose()`` or the caller's deadline no
        process with the tag may be alive anywhere (``/proc`` is scanned). Skipped, with the
        reason, where core cannot create per-call cgroups.

        Troubleshooting: launch through core (``json_events_from_process`` or
        ``SubprocessSpec``), which puts each run in its own cgroup and kills all of it; an own
        ``create_subprocess_exec(start_new_session=True)`` plus ``killpg`` reaches only the
        process group, and a tool shell that called ``setsid()`` outlives it, reparented to
        PID 1.
        """
        if not contains_setsid_descendants():
            pytest.skip(_NO_CONTAINMENT)
        tag = f"lionagi-conformance-{uuid.uuid4().hex}"
        endpoint = self.cli_endpoint(
            {
                "events": list(self.cli_events(Scenario.TEXT)),
                "children": 1,
                "setsid": True,
                "ignore_term": True,
                "tag": tag,
                "stall": True,
            }
        )
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        try:
            with self.guard():
                if ending == "cancel":
                    _, _, cancelled = await self.cancel_after_first_chunk(
                        model.stream(api_call=call)
                    )
                    assert cancelled
                elif ending == "close":
                    stream = model.stream(api_call=call)
                    await stream.__anext__()
                    await stream.aclose()
                else:
                    _, exc = await self.collect(
                        model.stream(api_call=call, timeout=self.setsid_deadline)
                    )
                    assert isinstance(exc, RequestDeadlineExceeded), repr(exc)
            pids = self.grandchildren()
            assert len(pids) == 2, f"the fake CLI reported descendants {pids}"
            self._leaks.track(*pids)
            deadline = time.monotonic() + self.settle_timeout
            while (left := tagged_pids(tag)) and time.monotonic() < deadline:  # noqa: ASYNC110
                await anyio.sleep(0.01)  # polling /proc: SIGKILL delivery is asynchronous
            assert not left, f"descendants survived the {ending}: {left}"
        finally:
            for pid in tagged_pids(tag):  # only when the adapter leaked them: keep the run clean
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    # -- D4: workspace containment ----------------------------------------------------------------

    def _repo(self) -> tuple[Path, Path]:
        repo = self._workdir / "repo"
        (repo / "inside").mkdir(parents=True, exist_ok=True)
        outside = self._workdir / "outside"
        outside.mkdir(exist_ok=True)
        link = repo / "link"
        if not link.is_symlink():
            link.symlink_to(outside, target_is_directory=True)
        return repo, outside

    @pytest.mark.parametrize("escape", ["traversal", "absolute", "symlink"])
    @sync_case
    async def test_workspace_escape_is_refused_before_launch(self, escape: str) -> None:
        """``..``, an absolute path or a symlink out of the repository is refused before launch.

        Troubleshooting: resolve the working directory with core's ``resolve_workspace(repo,
        workspace)`` (and ``contained_path`` for file arguments) before building argv; the
        error must be AgenticRequestValidationError naming your field.
        """
        repo, outside = self._repo()
        value = {"traversal": "../outside", "absolute": str(outside), "symlink": "link"}[escape]
        request = self.workspace_request(repo, value)
        if request is None:
            pytest.skip("the adapter has no workspace (workspace_request returns None)")
        endpoint = self.endpoint(Scenario.TEXT)
        with self.guard():
            chunks, exc = await self.collect(self.model(endpoint).stream(**request))
        assert isinstance(exc, AgenticRequestValidationError), repr(exc)
        assert chunks == []
        assert self.launches() == [], "the CLI was launched with an escaping workspace"

    @sync_case
    async def test_contained_workspace_runs_there(self) -> None:
        """A workspace inside the repository is accepted (and becomes the working directory).

        Troubleshooting: if the valid case fails, the containment check is too strict (it must
        accept a plain relative subdirectory). Set ``workspace_sets_cwd = False`` if your CLI
        receives the workspace as a flag instead of its working directory.
        """
        repo, _ = self._repo()
        request = self.workspace_request(repo, "inside")
        if request is None:
            pytest.skip("the adapter has no workspace (workspace_request returns None)")
        endpoint = self.endpoint(Scenario.TEXT)
        with self.guard():
            _, exc = await self.collect(self.model(endpoint).stream(**request))
        assert exc is None, repr(exc)
        (launch,) = self.launches()
        if self.workspace_sets_cwd:
            assert launch["cwd"] == str((repo / "inside").resolve())

    # -- what the adapter sent: the recording fake CLI (issue 10 item 9) --------------------------

    def prompt_request(self, prompt: str) -> dict[str, Any] | None:
        """Request fields sending ``prompt``; None skips the verbatim-prompt case."""
        request = self.valid_request()
        if "prompt" not in request:
            return None
        return {**request, "prompt": prompt}

    def resume_argv(self, session_id: str) -> Sequence[str] | None:
        """The argv elements that resume ``session_id``, in order; None: the id appears anywhere."""
        return None

    def recorded_endpoint(self, plan: Mapping[str, Any]) -> AgenticEndpoint:
        """An instrumented endpoint running the ``record`` fake CLI on ``plan``."""
        argv = record_argv(self.write_plan(plan), self._workdir / "record.jsonl")
        return self.instrument(self.make_cli_endpoint(argv, terminate_grace=self.terminate_grace))

    def recordings(self) -> list[dict[str, Any]]:
        """What each recording fake CLI of this case received (see ``fake_clis/record.py``)."""
        path = self._workdir / "record.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line]

    @sync_case
    async def test_prompt_arrives_verbatim(self) -> None:
        """A prompt starting with ``-`` and holding quotes, ``$(...)`` and newlines arrives intact.

        The recording fake CLI must see :data:`HOSTILE_PROMPT` byte for byte either on stdin
        (as written, or as a string inside a JSON value written there) or as one argv element
        after a ``--`` element; never as an argv element before ``--``, where the CLI's option
        parser reads its leading ``-`` as a flag (or, with ``--prompt`` before it, refuses
        "expected one argument").

        Troubleshooting: put the prompt last, after ``--`` (``[..., "--", prompt]``), or write it
        to stdin (``stdin=prompt.encode()``); pass it as its own argv element, never quoted,
        stripped or joined into a string. If your CLI cannot take ``--``, send the prompt on
        stdin.
        """
        request = self.prompt_request(HOSTILE_PROMPT)
        if request is None:
            pytest.skip("prompt_request() returned None")
        endpoint = self.recorded_endpoint({"events": list(self.cli_events(Scenario.TEXT))})
        with self.guard():
            _, exc = await self.collect(endpoint.stream(request))
        assert exc is None, repr(exc)
        (record,) = self.recordings()
        args: list[str] = record["args"]
        end = args.index("--") if "--" in args else len(args)
        before = [a for a in args[:end] if HOSTILE_PROMPT in a]
        assert not before, f"the prompt is an argv element before '--': {before!r}"
        after = HOSTILE_PROMPT in args[end + 1 :]
        assert after or _stdin_carries(record["stdin"], HOSTILE_PROMPT), (
            f"the prompt did not arrive verbatim: argv {args!r}, stdin {record['stdin']!r}"
        )

    @sync_case
    async def test_stdin_is_not_inherited(self) -> None:
        """The CLI never reads the test process's stdin: it gets /dev/null or a pipe you wrote.

        The kit replaces its own stdin with a pipe holding a marker line for the run. The
        recording fake CLI reads its stdin and reports it: the marker must be absent and the
        descriptor must not be the kit's pipe.

        Troubleshooting: launch with ``json_events_from_process(..., stdin="devnull")`` (the
        default) or ``stdin=<bytes you send>``; ``stdin=None``/``"inherit"`` shares the parent's
        stdin, so the CLI blocks on a terminal, or eats input meant for the application.
        """
        read_end, write_end = os.pipe()
        saved = os.dup(0)
        try:
            os.write(write_end, f"{_STDIN_MARKER}\n".encode())
            os.close(write_end)
            write_end = -1
            os.dup2(read_end, 0)
            info = os.fstat(0)
            endpoint = self.recorded_endpoint({"events": list(self.cli_events(Scenario.TEXT))})
            with self.guard():
                _, exc = await self.collect(endpoint.stream(self.valid_request()))
        finally:
            os.dup2(saved, 0)
            for fd in (saved, read_end, write_end):
                if fd >= 0:
                    os.close(fd)
        assert exc is None, repr(exc)
        (record,) = self.recordings()
        assert _STDIN_MARKER not in record["stdin"], "the CLI read the test process's stdin"
        assert record.get("stdin_id") != [info.st_dev, info.st_ino], (
            "the CLI's stdin is the test process's stdin"
        )

    @sync_case
    async def test_resumed_turn_carries_the_session(self) -> None:
        """A resumable adapter's second turn really resumes: the CLI receives the session id.

        Turn one replays the SESSION fixture through an iModel; turn two runs on the same model.
        The recording fake CLI must see turn one's confirmed id in turn two's argv (exactly
        :meth:`resume_argv` in order, when you define it) or stdin, and not in turn one's. A
        third turn names another session explicitly in ``resume_field``: the explicit id wins
        (ADR-0030 D3), so the CLI must receive it and not the stored one.

        Troubleshooting: the kit's session case proves the id reaches your request's
        ``resume_field``; this one proves your command uses it. Map the field to your CLI's
        resume flag in the command builder, e.g. ``argv += ["--resume", request.resume]``. If
        turn one already carries the id, your SESSION fixture's id is not distinctive. "turn
        three resumed the stored session": the command reads the endpoint's stored id
        (``self.session_id``) instead of the request's field; read only the request.
        """
        if not self.capabilities.resumable:
            pytest.skip("the adapter is not resumable")
        endpoint = self.recorded_endpoint({"events": list(self.cli_events(Scenario.SESSION))})
        model = self.model(endpoint)
        with self.guard():
            for _turn in range(2):
                _, exc = await self.collect(model.stream(**self.valid_request()))
                assert exc is None, repr(exc)
        sid = model.provider_session_id
        assert sid, "no session id was stored after the first turn"
        field = type(endpoint).resume_field
        assert field is not None
        explicit = {**self.valid_request(), field: _EXPLICIT_SESSION}
        with self.guard():
            _, exc = await self.collect(model.stream(**explicit))
        assert exc is None, repr(exc)
        first, second, third = self.recordings()
        assert not _carries(first, sid), f"turn one already sent the session id {sid!r}"
        assert not _carries(third, sid), (
            f"turn three resumed the stored session {sid!r}, not the one its request named "
            f"explicitly ({field}={_EXPLICIT_SESSION!r}): an explicit value wins"
        )
        for label, record, wanted in (("two", second, sid), ("three", third, _EXPLICIT_SESSION)):
            expected = self.resume_argv(wanted)
            if expected is None:
                assert _carries(record, wanted), (
                    f"turn {label} did not send the session id {wanted!r}"
                )
            else:
                assert _contains_run(record["args"], list(expected)), (
                    f"turn {label}'s argv {record['args']!r} lacks {list(expected)!r}"
                )


def _stdin_carries(stdin: str, text: str) -> bool:
    """``text`` is on stdin verbatim, or is a string inside a JSON value written there."""
    if text in stdin:
        return True
    return any(_json_holds(line, text) for line in stdin.splitlines() if line.strip())


def _json_holds(line: str, text: str) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    stack = [value]
    while stack:
        item = stack.pop()
        if item == text:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _carries(record: Mapping[str, Any], value: str) -> bool:
    return any(value in arg for arg in record["args"]) or value in record["stdin"]


def _contains_run(items: Sequence[str], run: Sequence[str]) -> bool:
    width = len(run)
    return any(list(items[i : i + width]) == list(run) for i in range(len(items) - width + 1))
