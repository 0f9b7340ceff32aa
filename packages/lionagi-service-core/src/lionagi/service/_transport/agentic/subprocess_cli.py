"""SubprocessCliEndpoint: the one run loop every JSON-events CLI adapter shares.

Each CLI adapter (codex, claude-code, gemini-cli, pi, the testing distribution's reference CLI)
had grown the same mechanics: a constructor taking ``argv`` and ``terminate_grace``, a
``copy()`` carrying them, the ``binary`` setting replacing ``argv[0]``, the launch through
``json_events_from_process`` with the deployment's env, home and secrets, the working
directory from ``repo``/``workspace`` or the settings' ``cwd``, and a loop feeding each event to
a parser that stops after the first error chunk. Written five times, a fix to any of them had
to be made five times. This base owns them once; a vendor keeps only its grammar:

* ``request_type`` (a strict model with ``prompt``, ``repo`` and ``workspace``, see
  :class:`CliRequest`) and :meth:`SubprocessCliEndpoint.cli_arguments` (its flags);
* :meth:`SubprocessCliEndpoint.event_parser` (its events to normalized chunks);
* the deployment hooks of :class:`AgenticEndpoint` (gateway, isolated home and its seed);
* optional knobs: ``prompt_mode``, ``process_label``, ``baseline_env``,
  :meth:`SubprocessCliEndpoint.stderr_classifier`, :meth:`SubprocessCliEndpoint.prepare_launch`
  and :meth:`SubprocessCliEndpoint.plain_line_reader`.
"""

from __future__ import annotations

import os
import sys
from abc import ABCMeta, abstractmethod
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel

from ..._base.chunk import StreamChunk
from ..._base.errors import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    ProviderError,
)
from ..classify import ProviderErrorPattern, classify_provider_error
from ..config import EndpointConfig
from ..subprocess import (
    PROCESS_TERMINATE_GRACE,
    ErrorClassifier,
    JsonEventStream,
    PlainLine,
    PromptMode,
    SubprocessSpec,
    json_events,
    projected_events,
    redact_error,
    resolve_repo,
    resolve_within,
    resolve_workspace,
)
from ..wire_errors import typed_wire_error
from .batches import ChunkBatches
from .endpoint import AgenticEndpoint
from .output import ContractCheck
from .records import AgenticPayload
from .settings import AgenticLaunch

__all__ = ["REDACTED", "CliEventParser", "CliRequest", "SubprocessCliEndpoint", "redact_chunk"]

REDACTED = "[REDACTED]"


@runtime_checkable
class CliRequest(Protocol):
    """The request fields the shared run loop reads; everything else is the vendor's."""

    @property
    def prompt(self) -> str:
        """The user turn, handed to core (after `--` or on stdin), never built into argv."""

    @property
    def repo(self) -> str | None:
        """Working directory of the run; None means the settings' `cwd` (or the caller's).

        With the settings' `root`, it must be inside `root` (relative: taken from `root`).
        """

    @property
    def workspace(self) -> str | None:
        """A directory inside `repo` to run in instead (containment is core's)."""


class CliEventParser(Protocol):
    """A vendor's event grammar: one parser per run, fed every stdout event in order."""

    def feed(self, event: dict[str, Any]) -> Iterable[StreamChunk]:
        """Chunks for one event (none for allowlisted telemetry); raise on protocol errors."""

    def finish(self) -> Iterable[StreamChunk]:
        """Chunks once stdout ended and the process exited cleanly (a buffered failure)."""


class SubprocessCliEndpoint(AgenticEndpoint, metaclass=ABCMeta):
    """Base for adapters that run a CLI printing one JSON event per line.

    Args:
        config: Endpoint config; defaults to the class's `default_config`.
        argv: Program (and leading arguments) to run; the vendor's flags are appended. The
            `binary` setting replaces `argv[0]`. Defaults to `(cli_binary,)`; tests point
            it at a fake CLI.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        **overrides: What `AgenticEndpoint` takes besides the config, such as
            `settings` (deployment settings, `AgenticSettings`).

    Raises:
        EndpointConfigurationError: `argv` is empty, or neither `argv` nor `cli_binary`
            names a program.
    """

    default_config: ClassVar[Mapping[str, Any] | None] = None
    prompt_mode: ClassVar[PromptMode] = "after_separator"
    # Name in diagnostics ("<label>: exited 1"); defaults to ``cli_binary``.
    process_label: ClassVar[str | None] = None
    # Environment every launch starts from; the deployment's env (home, gateway, settings) wins.
    baseline_env: ClassVar[Mapping[str, str]] = {}

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        argv: Sequence[str] | None = None,
        terminate_grace: float = PROCESS_TERMINATE_GRACE,
        **overrides: Any,
    ) -> None:
        super().__init__(type(self).default_config if config is None else config, **overrides)
        if argv is None:
            binary = type(self).cli_binary
            if binary is None:
                raise EndpointConfigurationError(
                    "argv", f"{type(self).__name__} declares no cli_binary; pass argv"
                )
            argv = (binary,)
        if isinstance(argv, str) or not argv:
            raise EndpointConfigurationError("argv", "needs at least the program, as a sequence")
        self.argv: tuple[str, ...] = tuple(argv)
        self.terminate_grace = terminate_grace

    def teardown_grace(self) -> float:
        """Seconds between SIGTERM and SIGKILL at teardown: the deployment's, else this one's.

        `AgenticSettings.terminate_grace` wins over the constructor's `terminate_grace`, so
        a deployment can shorten the wait a CLI that ignores SIGTERM imposes on every
        cancellation without knowing how each adapter is constructed.
        """
        configured = self.settings.terminate_grace
        return self.terminate_grace if configured is None else configured

    def copy(self) -> SubprocessCliEndpoint:
        """Same class, config, command, grace and settings; handlers copied; no session or home."""
        other = type(self)(
            self.config,
            argv=self.argv,
            terminate_grace=self.terminate_grace,
            settings=self.settings,
        )
        self.copy_runtime_state_to(other)
        return other

    # -- vendor grammar ---------------------------------------------------------------------------

    @abstractmethod
    def cli_arguments(self, request: Any, *, extra: Sequence[str] = ()) -> list[str]:
        """The vendor's argv after the program prefix, without the prompt.

        `extra` is what `gateway_args` returned for this deployment; the vendor places it
        where its CLI reads it. Every flag and every value is its own element.
        """

    @abstractmethod
    def event_parser(self, request: Any) -> CliEventParser:
        """A new parser of the vendor's events for one run of `request`."""

    def stderr_classifier(self) -> ErrorClassifier | None:
        """How a failed run's stderr and exit code become an error.

        By default this class's `error_patterns` (the rules its error events are read with)
        before core's phrases: a CLI reports the same failure as an event in one run and on
        stderr in another (before its first event, say), and both must give the same error.
        None, core's phrases alone, for an adapter without patterns. Override it for a reading
        of the CLI's own (exit codes, a fatal-error grammar).
        """
        cls = type(self)
        if not cls.error_patterns:
            return None
        return _PatternClassifier(
            cls.error_patterns,
            cls.process_label or cls.cli_binary or cls.__name__,
            self.settings.secret_values(),
        )

    def prepare_launch(self, request: Any, launch: AgenticLaunch) -> None:
        """Hook run right before the process starts (e.g. write a per-run models file)."""

    def plain_line_reader(self) -> PlainLine | None:
        """How a stdout line that is not a JSON object becomes an event (None: it never does).

        By default such a line breaks the CLI's grammar and the run fails with
        ProviderProtocolError. A CLI that prints plain text between its events (a command's
        output) returns a reader here: it gets the line (no line break) and returns the event
        that the parser is fed in its place, or None to refuse it (then the protocol error is
        raised as before). Only such lines reach it, so the JSON events cost nothing more; it
        must refuse a line that may be a damaged event, or that event is lost.
        """
        return None

    # -- shared mechanics -------------------------------------------------------------------------

    # The envelope is a TypedDict, as in AgenticEndpoint.create_payload (see the note there).
    def create_payload(  # type: ignore[override]
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[AgenticPayload, dict[str, str]]:
        """The base's validation, then no text in the request a CLI cannot be given.

        Request text ends up in the CLI's arguments, stdin, environment or files; no argument
        can carry a NUL (`execve` would refuse it at spawn, after admission, as a bare
        `ValueError`), and a lone surrogate has no UTF-8 form (the launch would fail with a bare
        `UnicodeEncodeError`), so either is refused here, with the field named, before anything
        runs. So is a prompt placed in argv (`prompt_mode="after_separator"`) that is longer
        than one argument may be on Linux (`MAX_ARG_STRLEN`, 128 KiB with 4 KiB pages):
        `execve` fails with E2BIG, reported as the gate shell failing to start.

        Raises:
            AgenticRequestValidationError: as the base's, and a NUL or a lone surrogate in a
                string of the request (`field` names it, with the list index or mapping key,
                e.g. `add_dirs.1`), or a prompt too long for one argument (`prompt`).
        """
        payload, headers = super().create_payload(request, extra_headers, **kwargs)
        _refuse_nul(payload["request"], "")
        if type(self).prompt_mode == "after_separator":
            _refuse_long_argument(getattr(payload["request"], "prompt", None))
        return payload, headers

    def command(
        self, request: Any, *, program: str | None = None, extra: Sequence[str] = ()
    ) -> list[str]:
        """The argv of one run before the prompt.

        `program` replaces `argv[0]` (default: the `binary` setting, else `argv[0]`).
        """
        head = program or self.settings.binary or self.argv[0]
        return [head, *self.argv[1:], *self.cli_arguments(request, extra=extra)]

    def repository(self, request: CliRequest) -> tuple[Path | str | None, str]:
        """The run's containment root and the field it came from: `repo`, else the `cwd` setting.

        A directory the settings gave is the deployment's `cwd`, not a request's `repo`, so an
        error about it names `cwd`. Every path field an adapter contains (`workspace` here, a
        vendor's own directory fields) is checked against this one root.

        With the `root` setting the repository is itself confined (`resolve_within`): it is
        returned resolved, inside `root` (a relative `repo` or `cwd` is taken relative to it,
        neither given means `root`, named `root`), so everything contained in it is inside
        `root` too. Without it, `repo` is returned as given (None: this process's directory).

        Raises:
            AgenticRequestValidationError: with `root` set, the repository escapes it or is not
                an existing directory inside it (`field` is `repo`, or `cwd`), or `root` itself
                is not an existing directory (`field` is `root`).
        """
        root = self.settings.root
        if root is None:
            if request.repo is not None:
                return request.repo, "repo"
            return self.settings.cwd, "cwd"
        if request.repo is not None:
            return resolve_within(root, request.repo, field="repo"), "repo"
        if self.settings.cwd is not None:
            return resolve_within(root, self.settings.cwd, field="cwd"), "cwd"
        return resolve_repo(root, field="root"), "root"

    def working_directory(self, request: CliRequest) -> Path | None:
        """`repo` (else the settings' `cwd`) with `workspace` contained in it, or None."""
        repo, origin = self.repository(request)
        if repo is not None or request.workspace:
            return resolve_workspace(repo, request.workspace, repo_field=origin)
        return self.settings.cwd

    def launch(self, request: Any, cwd: Path | None) -> JsonEventStream:
        """One run's events, started as `launch_spec` describes (core's teardown).

        An adapter may override this (to start the CLI its own way); the run loop then reads
        the stream it returns. Otherwise the loop runs `launch_spec` through core's reader
        directly.
        """
        return json_events(self.launch_spec(request, cwd))

    def launch_spec(self, request: Any, cwd: Path | None) -> SubprocessSpec:
        """The one place a run's process is described: argv, the prompt handed to core, env.

        The deployment's binary, env, config home and secrets come from `launch_settings`;
        stdin is /dev/null unless `prompt_mode` puts the prompt there. Runs
        `prepare_launch` (the run is about to start).
        """
        prompt = self._cli_request(request).prompt
        launch = self.launch_settings()
        argv = self.command(request, program=launch.program, extra=launch.args)
        self.prepare_launch(request, launch)
        cls = type(self)
        return SubprocessSpec(
            argv=argv,
            cwd=cwd,
            env={**cls.baseline_env, **launch.env},
            inherit_env=tuple(launch.inherit_env),
            install_hint=cls.install_hint or "",
            label=cls.process_label or cls.cli_binary or cls.__name__,
            classify=self.stderr_classifier(),
            plain_line=self.plain_line_reader(),
            secrets=tuple(launch.secrets),
            terminate_grace=self.teardown_grace(),
            prompt=prompt,
            prompt_mode=cls.prompt_mode,
        )

    def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> ChunkBatches:
        # The run's chunks in batches (see ChunkBatches): a pipe read's events, at most
        # _BATCH_EVENTS of them per list, cross the layers above in one step.
        return ChunkBatches(self._run_batches(partial(_unchecked, request), runtime_args))

    def _guarded_batches(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None,
        local_timeout: float | None,
        runtime_args: dict[str, Any],
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """The run loop with the D3 check done inline: one generator from the pipe to the caller.

        The generic guard (:func:`enforce_agentic_contract_batches`) wraps the adapter's stream
        in a generator of its own, which a paced CLI run crossed twice per event (its wake-up
        and its yield) for a check that costs less than the crossing (issue 15). When the run
        loop is this class's own, it validates at its first iteration and checks each batch as
        it makes it; an adapter that overrides :meth:`_stream_agentic` (or an instance whose hook
        was wrapped, as the conformance kit's probe does) keeps the generic guard.
        """
        hook = getattr(self._stream_agentic, "__func__", None)
        if hook is not SubprocessCliEndpoint._stream_agentic:  # overridden, or wrapped (a probe)
            return super()._guarded_batches(request, extra_headers, local_timeout, runtime_args)

        def open_run() -> tuple[BaseModel, ContractCheck]:
            # Runs at the first iteration: nothing is validated or started before it.
            validated, capabilities = self._validated_run(request, extra_headers, runtime_args)
            return validated, ContractCheck(capabilities.resumable, self.confirm_session)

        return self._run_batches(open_run, runtime_args)

    def _run_batches(
        self,
        open_run: Callable[[], tuple[BaseModel, ContractCheck | None]],
        runtime_args: dict[str, Any],
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """The run loop: each pipe read's events through the parser, as lists of chunks.

        The parsing is done inside core's process reader (:func:`projected_events`, see
        :class:`_RunProjection`), so a chunk leaves the pipe through one generator. At its first
        iteration ``open_run()`` gives the validated request and, from :meth:`_guarded_batches`,
        the contract check; the process starts after both. An adapter that overrides
        :meth:`launch` has its own stream read instead, through one generator more.
        """
        if type(self).launch is not SubprocessCliEndpoint.launch:
            return self._launched_batches(open_run, runtime_args)

        def start() -> tuple[SubprocessSpec, _RunProjection]:
            request, cwd, projection = self._open_projection(open_run, runtime_args)
            spec = self.launch_spec(request, cwd)
            return spec, projection(spec.secrets)

        return projected_events(start)

    async def _launched_batches(
        self,
        open_run: Callable[[], tuple[BaseModel, ContractCheck | None]],
        runtime_args: dict[str, Any],
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """:meth:`_run_batches` over the stream an overridden :meth:`launch` returns."""
        request, cwd, make_projection = self._open_projection(open_run, runtime_args)
        async with self.launch(request, cwd) as events:
            projection = make_projection(events.spec.secrets)
            async for block in events.blocks():
                for batch in projection.project(block):
                    yield batch
                if projection.ended:
                    return  # leaving the block tears the process down
            for batch in projection.finish():
                yield batch

    def _open_projection(
        self,
        open_run: Callable[[], tuple[BaseModel, ContractCheck | None]],
        runtime_args: dict[str, Any],
    ) -> tuple[BaseModel, Path | None, Callable[[Sequence[str]], _RunProjection]]:
        """What a run needs before its process starts: the request, its directory, the parser.

        The projection is completed with the launch's secrets once the process is described:
        in user mode they also hold the caller's own inherited keys, which an error event must
        not echo either.
        """
        request, check = open_run()
        cwd = self.working_directory(self._cli_request(request))
        on_text = self._runtime_handlers(runtime_args).get("on_text")
        return request, cwd, partial(_RunProjection, self.event_parser(request), on_text, check)

    def _cli_request(self, request: object) -> CliRequest:
        if not isinstance(request, CliRequest):
            raise EndpointConfigurationError(
                "request_type",
                f"{type(self).__name__}'s request model needs prompt, repo and workspace fields",
            )
        return request


# Events projected per batch. A pipe read can carry a thousand or more events; handing all their
# chunks up as one list keeps every chunk (and its metadata dict) alive until the consumer has
# taken the last one, so CPython's young-generation collector (threshold 700 allocations) ran
# ≈3 times per read and promoted whole batches to the old generations: 1.7-2.0 us per event of
# collection, 15 % of the agentic stream's cost (issue 15). At 128 events a batch's objects are
# freed before the allocation count reaches the threshold, and the collector runs about as often
# as for a bare event loop, while the per-batch cost (a few generator steps) stays negligible.
_BATCH_EVENTS = 128


class _RunProjection:
    """A run's events to chunk lists, called by the process reader for each pipe read.

    One list per :data:`_BATCH_EVENTS` events of a read (a short read: one list). At a contract
    violation the chunks before it are handed over, then ProviderProtocolError is raised (before
    any parser failure of the same list, as the generic guard does); an error chunk ends the
    run (:attr:`ended`).
    """

    __slots__ = ("_check", "_feed", "_on_text", "_parser", "_secrets", "ended")

    def __init__(
        self,
        parser: CliEventParser,
        on_text: Callable[[str], object] | None,
        check: ContractCheck | None,
        secrets: Sequence[str],
    ) -> None:
        self._parser = parser
        self._feed = parser.feed
        self._on_text = on_text
        self._check = check
        self._secrets = secrets
        self.ended = False

    def project(self, events: list[dict[str, Any]]) -> Iterable[list[StreamChunk]]:
        if len(events) > _BATCH_EVENTS:
            return self._parts(events)
        # A paced run's read (one event) takes this path: no generator of its own (issue 15).
        return self._lists(map(self._feed, events), self._on_text)

    def finish(self) -> Iterable[list[StreamChunk]]:
        # Called once stdout ended and the process exited cleanly: a buffered outcome.
        lists = self._lists(_finished(self._parser), None)
        check = self._check
        if check is not None and not self.ended and type(lists) is tuple:
            check.commit()  # completed: no error chunk, no failure (a failure is a generator)
        return lists

    def _parts(self, events: list[dict[str, Any]]) -> Iterator[list[StreamChunk]]:
        feed, size, on_text = self._feed, _BATCH_EVENTS, self._on_text
        for i in range(0, len(events), size):
            yield from self._lists(map(feed, events[i : i + size]), on_text)
            if self.ended:
                return

    def _lists(
        self, groups: Iterable[Iterable[StreamChunk]], on_text: Callable[[str], object] | None
    ) -> Iterable[list[StreamChunk]]:
        """The one checked list of the parser's chunks for ``groups`` (a read's events).

        Stops after an error chunk (:attr:`ended`). The chunks before a parser (or
        ``on_text``) failure or a contract violation are handed over before it is raised, as
        they were when each chunk was handed up on its own; a violation is raised first.
        """
        batch: list[StreamChunk] = []
        append = batch.append
        failure: Exception | None = None
        try:
            for chunk in chain.from_iterable(groups):
                if chunk.type == "error":
                    # A CLI quotes the API's error body, and a gateway may echo the key it
                    # was sent: neither the consumer nor the raised error sees it.
                    append(redact_chunk(chunk, self._secrets))
                    self.ended = True  # one error chunk, nothing after it
                    break
                if on_text is not None and chunk.type == "text" and chunk.content:
                    try:
                        on_text(chunk.content)
                    except Exception as exc:  # the caller's handler: raised as it is
                        failure = exc
                        break
                append(chunk)
        except Exception as exc:
            # The parser's own failure on an event it could not read (a KeyError on a missing
            # field, say) is the provider's output at fault: typed, never a bare Python error.
            failure = typed_wire_error(type(self._parser).__name__, exc, self._secrets)
            if isinstance(failure, ProviderError):
                # A vendor's own error quotes the event, which may echo a run's secret.
                redact_error(failure, self._secrets)
        check = self._check
        violation = check.check_batch(batch) if check is not None else None
        if violation is not None:
            return _then_raise(batch, violation)
        if failure is not None:
            return _then_raise(batch, failure)
        return (batch,) if batch else ()


def _then_raise(batch: list[StreamChunk], error: Exception) -> Iterator[list[StreamChunk]]:
    """``batch`` handed over (if not empty), then ``error`` raised: the run fails after it."""
    if batch:
        yield batch
    raise error


def _unchecked(request: BaseModel) -> tuple[BaseModel, None]:
    """``open_run`` for a run the generic guard checks: the request as given, no check."""
    return request, None


def _finished(parser: CliEventParser) -> Iterator[Iterable[StreamChunk]]:
    """The parser's end-of-run chunks as the one group a projection reads (called lazily)."""
    yield parser.finish()


def redact_chunk(chunk: StreamChunk, secrets: Sequence[str]) -> StreamChunk:
    """`chunk` with every non-empty secret in its text and string metadata replaced."""
    values = [s for s in secrets if s]
    if not values:
        return chunk

    def scrub(text: str) -> str:
        for secret in values:
            text = text.replace(secret, REDACTED)
        return text

    meta = {k: scrub(v) if isinstance(v, str) else v for k, v in chunk.metadata.items()}
    content = scrub(chunk.content) if chunk.content is not None else None
    return StreamChunk(chunk.type, content, is_error=chunk.is_error, metadata=meta)


# Linux refuses any single exec argument of MAX_ARG_STRLEN (32 pages) bytes or more, its NUL
# terminator included; other systems bound only the total (ARG_MAX), which exec reports itself.
_MAX_ARG_BYTES = 32 * os.sysconf("SC_PAGE_SIZE") - 1 if sys.platform.startswith("linux") else None


def _refuse_long_argument(prompt: object) -> None:
    """Raise when ``prompt``, as one argv element, is longer than exec accepts."""
    limit = _MAX_ARG_BYTES
    if limit is None or not isinstance(prompt, str) or len(prompt) * 4 <= limit:
        return  # a string of n characters is at most 4n bytes: the common case encodes nothing
    size = len(prompt.encode("utf-8"))
    if size > limit:
        raise AgenticRequestValidationError(
            "prompt",
            f"is {size} bytes; this CLI takes the prompt as one command-line argument, which "
            f"Linux limits to {limit} bytes",
        )


def _refuse_nul(model: BaseModel, prefix: str) -> None:
    """Raise for the first string of ``model`` (nested models, lists and mappings too) with NUL."""
    for name in type(model).model_fields:
        _refuse_nul_in(getattr(model, name), f"{prefix}{name}")


def _refuse_nul_in(value: object, where: str) -> None:
    if isinstance(value, str):
        if "\x00" in value:
            raise AgenticRequestValidationError(
                where, "contains a NUL character, which no command-line program can be given"
            )
        if not value.isascii():  # ASCII always encodes: the common case costs one flag test
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise AgenticRequestValidationError(
                    where,
                    "contains a lone surrogate, which UTF-8 (so no argument or pipe) can carry",
                ) from None
    elif isinstance(value, BaseModel):
        _refuse_nul(value, f"{where}.")
    elif isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            _refuse_nul_in(item, f"{where}.{index}")  # as pydantic names an item
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _refuse_nul_in(key, where)
            _refuse_nul_in(item, f"{where}.{key}")


class _PatternClassifier:
    """Core's stderr classification with an adapter's patterns first (see `stderr_classifier`)."""

    __slots__ = ("_patterns", "_provider", "_secrets")

    def __init__(
        self, patterns: tuple[ProviderErrorPattern, ...], provider: str, secrets: tuple[str, ...]
    ) -> None:
        self._patterns = patterns
        self._provider = provider
        self._secrets = secrets

    def __call__(
        self, text: str, *, returncode: int | None = None, stderr_tail: str = ""
    ) -> ProviderError:
        return classify_provider_error(
            text,
            returncode=returncode,
            stderr_tail=stderr_tail,
            provider=self._provider,
            extra_patterns=self._patterns,
            secrets=self._secrets,
        )
