"""Run a CLI and iterate its JSON events with deterministic teardown (ADR-0030 D4).

One entry point, :func:`json_events_from_process`, returns a :class:`JsonEventStream`: iterate
it directly or use it as an async context manager. (:func:`projected_events` runs the same
reader with a :class:`BlockProjector` called on each read's events inside it: the agentic run
loop.) When the stream ends (EOF, error, cancellation or deadline while waiting for an event,
``aclose()``, or leaving the ``async with`` for any reason) every descendant is terminated and
the child reaped before control returns:

1. SIGTERM to the process group (and to the child directly if it left the group) and, on
   Linux with per-call cgroups (:mod:`.tree`), to every member of the run's cgroup;
2. wait up to ``terminate_grace`` seconds for the child to exit, but never past
   ``DEADLINE_TERMINATE_GRACE`` after the caller's deadline (see the deadline rule);
3. SIGKILL the group (leftover grandchildren included), the child if still alive, and the
   whole cgroup (descendants that called ``setsid()`` included);
4. close the pipes, wait for the child to be reaped and the cgroup to empty (each bounded by
   ``REAP_TIMEOUT``), then remove the cgroup.

The deadline rule: the run records the effective anyio deadline in force when it starts (and
the supervisor's run limit, when a :class:`RunControl` bounds the reads); the grace a teardown
gets is cut so SIGKILL lands at most ``DEADLINE_TERMINATE_GRACE`` after that deadline (or after
the teardown's start, when it starts later). A deadline-ended run therefore escalates within
that short grace, and a cancellation or ``aclose()`` just before the deadline cannot add the
full grace on top of it: the call ends within the deadline plus about one second whatever ended
it. A teardown with the deadline further away than the grace keeps the full grace.

Teardown runs in a shielded anyio cancel scope, so the caller's deadline cannot cut it short
(a repeated native ``Task.cancel()`` can; the pipes are closed and the child killed anyway).
If it fails while an error or cancellation is already propagating, the failure is logged and
the original exception continues; otherwise the cleanup failure is raised.

The implementation drives ``asyncio``'s subprocess transport directly (see :mod:`.pipes` for
why): it needs the asyncio backend; under another one (anyio's trio backend) a run raises
:class:`~lionagi.service.EventLoopUnsupportedError` before anything starts.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import anyio

from ..._base.errors import (
    AgenticRequestValidationError,
    EventLoopUnsupportedError,
    ProviderError,
    ProviderExecutableNotFound,
    ProviderProtocolError,
    ProviderTransportError,
)
from ..._base.secrets import redact
from ..run_control import EXPIRED, current_run_control
from .discover import forget_executable, require_executable
from .framing import JsonFramer, PlainLine, TailRepair, repair_tail
from .spec import (
    DEADLINE_TERMINATE_GRACE,
    PROCESS_TERMINATE_GRACE,
    REAP_TIMEOUT,
    STDERR_CAPTURE_LIMIT,
    STDERR_DRAIN_TIMEOUT,
    STDOUT_BUFFER_LIMIT,
    ErrorClassifier,
    PromptMode,
    StdinMode,
    SubprocessSpec,
)
from .workspace import require_enterable

if TYPE_CHECKING:
    # asyncio is imported when a process is first started, not with lionagi.service: it is
    # not part of the cold-import baseline (httpx, pydantic, anyio).
    import asyncio

    from .capture import StderrCapture
    from .pipes import ChildProtocol
    from .tree import CallTree

__all__ = [
    "BlockProjector",
    "JsonEventStream",
    "json_events",
    "json_events_from_process",
    "projected_events",
    "redact_error",
    "terminate_process_group",
]

T = TypeVar("T")

logger = logging.getLogger("lionagi.service.subprocess")


class JsonEventStream:
    """The events of one CLI run: an async iterator that is also an async context manager.

    Prefer `async with json_events_from_process(...) as events: async for event in events:`:
    teardown then completes before the block exits, whatever ends it, including an exception
    or cancellation raised in the loop body while the stream is suspended. Plain `async for`
    tears down when the stream ends, fails, is cancelled inside `__anext__` or is closed with
    `aclose`; if the loop body abandons it instead, teardown is left to the event loop's
    async-generator finalizer (it still runs, but after control has moved on).
    """

    __slots__ = ("_agen", "_pending", "spec")

    def __init__(
        self, spec: SubprocessSpec, agen: AsyncGenerator[list[dict[str, Any]], None]
    ) -> None:
        """Wrap the generator running `spec` (use `json_events` to create one)."""
        self.spec = spec
        self._agen = agen
        self._pending: Iterator[dict[str, Any]] = _UNSTARTED

    def __aiter__(self) -> JsonEventStream:
        return self

    async def __anext__(self) -> dict[str, Any]:
        # The run hands over each pipe read's events as one list; an event taken from the
        # list costs no generator step, so the per-event path stays as cheap as the framer.
        for event in self._pending:
            return event
        agen = self._agen
        while True:
            self._pending = pending = iter(await agen.__anext__())
            for event in pending:
                return event

    def blocks(self) -> AsyncGenerator[list[dict[str, Any]], None]:
        """The same events one pipe read at a time: a non-empty list per read.

        For a reader that handles a read's events together (the agentic run loop turns them
        into one batch of chunks), so the layers above it are crossed once per read, not once
        per event. Events before a framing error arrive in their own list before the error.
        Use either this or per-event iteration, not both; closing the stream closes it too.

        Raises:
            RuntimeError: events were already taken one at a time.
        """
        if self._pending is not _UNSTARTED:
            raise RuntimeError("this event stream is already being iterated event by event")
        return self._agen

    async def aclose(self) -> None:
        """Stop early: tear the process group down and reap it; idempotent."""
        await self._agen.aclose()

    async def __aenter__(self) -> JsonEventStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            await self._agen.aclose()  # a cleanup failure is the only error: raise it
            return
        try:
            await self._agen.aclose()
        except Exception as cleanup:
            # The block's own exception (or cancellation) is the primary error: keep it.
            logger.warning(
                "teardown of %s failed while %s was propagating; keeping the original error",
                self.spec.display_name,
                exc_type.__name__ if exc_type else "an exception",
                exc_info=cleanup,
            )


_UNSTARTED: Iterator[dict[str, Any]] = iter(())  # shared and exhausted: no event pending


def json_events(spec: SubprocessSpec) -> JsonEventStream:
    """Start iterating `spec`'s JSON events (the process starts on the first iteration).

    Raises (immediately, before any process exists):
        ProviderExecutableNotFound: `argv[0]` is not found on the child's PATH.
        AgenticRequestValidationError: `cwd` is not an existing directory.
    """
    launch = _prepare(spec)
    return JsonEventStream(spec, _run(lambda: (spec, launch, None)))


class BlockProjector(Protocol[T]):
    """Work the process reader does on each read's events (see `projected_events`).

    A consumer that turns events into its own items (the agentic run loop: chunks) would
    otherwise read the events through a generator of its own: one more generator step on
    every wake-up, which on a paced CLI run (one event per read) cost more than the projection
    itself (issue 15). The reader calls the projector instead and hands its lists on.
    """

    @property
    def ended(self) -> bool:
        """True once an item ended the run: nothing more is read, the process is torn down."""

    def project(self, events: list[dict[str, Any]]) -> Iterable[list[T]]:
        """Non-empty lists for one read's events; raising after the last one fails the run."""

    def finish(self) -> Iterable[list[T]]:
        """Lists once stdout ended and the process exited cleanly; may raise the same way."""


def projected_events(
    start: Callable[[], tuple[SubprocessSpec, BlockProjector[T]]],
) -> AsyncGenerator[list[T], None]:
    """A run whose pipe reads go through a projector, in the reader's own generator.

    `start()` runs at the first iteration and gives the spec and the projector: whatever it
    validates or refuses happens before anything is launched, as does `json_events`'s
    check of the executable and the working directory. Teardown, errors and the deadline rule
    are `json_events`'s; an exception the projector raises ends the run like a framing
    error (after the lists it already handed over).
    """

    def begin() -> tuple[SubprocessSpec, _Launch, BlockProjector[T]]:
        spec, projector = start()
        return spec, _prepare(spec), projector

    return _run(begin)


def json_events_from_process(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    inherit_env: Sequence[str] = (),
    stdin: bytes | StdinMode | None = "devnull",
    install_hint: str = "",
    label: str | None = None,
    tail_repair: TailRepair | None = None,
    classify: ErrorClassifier | None = None,
    secrets: Sequence[str] = (),
    terminate_grace: float = PROCESS_TERMINATE_GRACE,
    drain_timeout: float = STDERR_DRAIN_TIMEOUT,
    stderr_limit: int = STDERR_CAPTURE_LIMIT,
    stdout_buffer_limit: int = STDOUT_BUFFER_LIMIT,
    prompt: str | None = None,
    prompt_mode: PromptMode = "after_separator",
) -> JsonEventStream:
    """Launch `argv` (no shell) and yield each JSON object it prints on stdout.

    Arguments are the fields of `SubprocessSpec`. Events already yielded stay observed
    when the run later fails.

    Raises:
        TypeError: `argv` is a string (shell command) or holds non-string items.
        ValueError: `argv`, `env` or a limit is malformed.
        ProviderExecutableNotFound: `argv[0]` is missing (before any process is created).
        ProviderProtocolError: stdout broke the JSON framing (a non-object value, malformed
            text, or an unrepaired incomplete tail).
        ProviderProcessError: non-zero exit; or the more specific `ProviderQuotaError` /
            `ProviderAuthError` / `ProviderContextError` the stderr classifies as. The
            bounded, redacted stderr is on `stderr_tail`.
    """
    spec = SubprocessSpec(
        argv=argv,
        cwd=None if cwd is None else Path(cwd),
        env={} if env is None else env,
        inherit_env=tuple(inherit_env),
        stdin="inherit" if stdin is None else stdin,
        install_hint=install_hint,
        label=label,
        tail_repair=tail_repair,
        classify=classify,
        secrets=tuple(secrets),
        terminate_grace=terminate_grace,
        drain_timeout=drain_timeout,
        stderr_limit=stderr_limit,
        stdout_buffer_limit=stdout_buffer_limit,
        prompt=prompt,
        prompt_mode=prompt_mode,
    )
    return json_events(spec)


# -- launch ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Launch:
    executable: str
    env: dict[str, str]
    cwd: str | None


def _prepare(spec: SubprocessSpec) -> _Launch:
    env = spec.child_env()
    cwd: str | None = None
    if spec.cwd is not None:
        if not spec.cwd.is_dir():
            raise AgenticRequestValidationError(
                "cwd", f"{spec.cwd} is not an existing directory; create it or pick another"
            )
        require_enterable(spec.cwd, "cwd", os.fspath(spec.cwd))
        cwd = os.fspath(spec.cwd)
    executable = require_executable(
        spec.program, install_hint=spec.install_hint, path=env.get("PATH", ""), cwd=cwd
    )
    return _Launch(executable=executable, env=env, cwd=cwd)


async def _spawn(
    loop: asyncio.AbstractEventLoop,
    proto: ChildProtocol,
    spec: SubprocessSpec,
    launch: _Launch,
    tree: CallTree | None,
) -> asyncio.SubprocessTransport:
    """Start the child; with a ``tree`` it waits at the gate until it is in the cgroup."""
    import asyncio
    import subprocess

    import anyio.to_thread

    from .tree import GATE_SHELL, gate_argv, stop_using_cgroups

    if isinstance(spec.stdin, bytes):
        stdin: int | None = subprocess.PIPE
    else:
        stdin = subprocess.DEVNULL if spec.stdin == "devnull" else None
    argv: Sequence[str] = spec.argv
    executable = launch.executable
    if tree is not None:
        # $0 keeps the program's name for the shell's own messages; the CLI gets its absolute
        # path as argv[0] (the shell's exec has no portable way to set argv[0] separately).
        argv = gate_argv(spec.program, executable, spec.argv[1:], launch.env)
        executable = GATE_SHELL
    try:
        # Shielded: a cancellation landing while asyncio connects the child's pipes made it
        # close the transport and await the child, and that await was cancelled too, so the
        # call returned with the pipes open and the child unreaped. The spawn is bounded
        # (fork, exec, connecting two or three pipes); the caller's next checkpoint raises the
        # cancellation, and the run's shielded teardown reaps the child before it returns.
        with anyio.CancelScope(shield=True):
            transport, _ = await loop.subprocess_exec(
                lambda: proto,
                *argv,
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=launch.cwd,
                env=launch.env,
                start_new_session=True,
                executable=executable,
            )
    except (FileNotFoundError, PermissionError) as exc:
        if launch.cwd is not None and exc.filename == launch.cwd:
            # The child's chdir failed, not exec: the directory went away (or became
            # unenterable) after the checks. The program is fine; the directory is named.
            raise AgenticRequestValidationError(
                "cwd", f"{launch.cwd} could not be entered at launch ({exc.strerror})"
            ) from None
        forget_executable(spec.program)
        raise ProviderExecutableNotFound(
            spec.program, spec.install_hint or f"install {spec.program!r} ({exc.strerror})"
        ) from exc
    except OSError as exc:
        # Behind the gate exec's file name is the gate shell's: name the CLI instead.
        raise ProviderTransportError(
            f"{spec.display_name}: could not start {spec.program!r}: {exc.strerror or exc}"
        ) from exc
    if tree is not None:
        pid = transport.get_pid()
        try:
            # A write to cgroup.procs waits on the kernel's cgroup lock (an RCU grace period):
            # about 12 ms idle and up to ~90 ms on a loaded host per spawn, measured in the soak.
            # A worker thread waits instead of the event loop; shielded, so the gated child is
            # never left half-adopted by a cancellation.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(tree.adopt, pid)
        except OSError as exc:
            logger.warning(
                "%s: could not move process %d into %s (%s); this and later calls fall back "
                "to process-group teardown, which misses descendants that call setsid()",
                spec.display_name,
                pid,
                tree.path,
                exc,
            )
            stop_using_cgroups()
        finally:
            with anyio.CancelScope(shield=True):  # never leave the child stopped
                await tree.release(pid, REAP_TIMEOUT)
    if isinstance(spec.stdin, bytes):
        pipe = transport.get_pipe_transport(0)
        if isinstance(pipe, asyncio.WriteTransport):
            pipe.write(spec.stdin)
            pipe.close()  # flushes the buffer first, then the child sees EOF
    return transport


# -- run ------------------------------------------------------------------------------------------


def _async_library() -> str:
    """The async library running this code when asyncio's is not (for the error's text).

    trio is asked directly (sniffio is not a dependency of anyio any more); anything else that
    drives coroutines is named generically.
    """
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            pass
        else:
            return "trio"
    return "an event loop other than asyncio"


async def _run(
    begin: Callable[[], tuple[SubprocessSpec, _Launch, BlockProjector[Any] | None]],
) -> AsyncGenerator[list[Any], None]:
    """The reader: events (or, with a projector, its lists) one pipe read at a time."""
    import asyncio

    from .pipes import ChildProtocol

    # The caller's checks first (a projected run validates its request here), then the loop's.
    spec, launch, projector = begin()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise EventLoopUnsupportedError("running a CLI subprocess", _async_library()) from None
    from .tree import open_call_tree

    proto = ChildProtocol(
        stderr_limit=spec.stderr_limit, stdout_buffer_limit=spec.stdout_buffer_limit
    )
    # The deadline in force for the caller now; teardown compares the clock against it.
    deadline = anyio.current_effective_deadline()
    tree = open_call_tree(spec.display_name)
    try:
        transport = await _spawn(loop, proto, spec, launch, tree)
    except BaseException:
        if tree is not None:
            with anyio.CancelScope(shield=True):
                await tree.remove(REAP_TIMEOUT)
        raise
    primary: BaseException | None = None
    control = current_run_control()  # a supervisor bounding this run, if any
    if control is not None:
        # Its limit and abort reach the reads through the protocol: no scope per read. The
        # limit also stops the CLI itself at once (``_LimitStop``), read in progress or not.
        what = spec.display_name
        stop = _LimitStop(loop, transport, proto, tree, what)

        def interrupt(reason: str) -> None:
            proto.interrupt(f"{what} was stopped: {reason}")
            if reason == EXPIRED:
                stop.start()

        control.attach(interrupt)
    try:
        framer = JsonFramer(max_value_chars=spec.max_value_chars, plain_line=_redacted_lines(spec))
        read = proto.read
        feed = framer.feed_into
        project = _as_is if projector is None else projector.project
        # One list per pipe read: the events a read completed are handed over together (or
        # the projector's lists for them). Events before a framing error come before it.
        while data := await read():
            block, failure = _framed(partial(feed, data))
            if block:
                for item in project(block):
                    yield item
                if projector is not None and projector.ended:
                    return  # leaving tears the process down
            if failure is not None:
                raise failure
        block, failure = _framed(framer.close_into)
        tail_error: ProviderProtocolError | None = None
        if failure is None:
            tail_error = _end_of_output(framer, spec.tail_repair, block)
        if block:
            for item in project(block):
                yield item
            if projector is not None and projector.ended:
                return
        if failure is not None:
            raise failure
        # A CLI that closed stdout but hangs on must not outlive the run's limit (interrupt).
        await proto.wait_exited()
        returncode = transport.get_returncode()
        if returncode in _EXEC_FAILED and tree is not None:
            _raise_if_vanished(spec, launch.executable)
        if returncode:
            with anyio.move_on_after(spec.drain_timeout):
                await proto.stderr_closed.wait()
            raise _classified(spec, returncode, proto.stderr) from tail_error
        if tail_error is not None:
            raise tail_error
        if projector is not None:
            for item in projector.finish():
                yield item
    except GeneratorExit:
        raise  # consumer close: the normal early-exit path, not a failure
    except BaseException as exc:
        primary = exc
        if isinstance(exc, ProviderError):
            # A framing or parser error quotes stdout, which may echo the deployment's env
            # values or gateway key: they are redacted from it as from stderr.
            redact_error(exc, spec.secret_values())
        raise
    finally:
        if control is not None:
            control.detach(interrupt)
            stop.cancel()  # the teardown below escalates from here, within the same bound
            if control.deadline is not None:
                deadline = min(deadline, control.deadline)
        grace = _bounded_grace(spec.terminate_grace, deadline, anyio.current_time())
        await _teardown(transport, proto, spec, primary, tree=tree, grace=grace)
        if control is not None and (primary is None or isinstance(primary, Exception)):
            control.linger()  # the adapter may go on in this read: the limit stays on it


def _as_is(block: list[dict[str, Any]]) -> tuple[list[dict[str, Any]]]:
    """A read's events as the one list the reader hands over (no projector)."""
    return (block,)


def _end_of_output(
    framer: JsonFramer, tail_repair: TailRepair | None, block: list[dict[str, Any]]
) -> ProviderProtocolError | None:
    """At EOF: append the repaired incomplete tail to ``block``, or return why it cannot be.

    The error is raised only after the exit status is known (a failed CLI's own error wins).
    """
    if framer.cut_character:  # invalid UTF-8 is refused, never repaired (utf8 policy)
        return ProviderProtocolError(
            "stdout ended inside a multi-byte UTF-8 character; provider output must be UTF-8"
        )
    if framer.tail:
        try:
            block.append(repair_tail(framer.tail, tail_repair))
        except ProviderProtocolError as exc:
            return exc
    return None


def _framed(
    step: Callable[[list[dict[str, Any]]], None],
) -> tuple[list[dict[str, Any]], ProviderProtocolError | None]:
    """One framer step's events, and the framing error that ended it early (if any).

    The events before a malformed value are delivered before the error is raised, as the
    events of earlier reads are: a run's output already seen stays seen.
    """
    block: list[dict[str, Any]] = []
    try:
        step(block)
    except ProviderProtocolError as exc:
        return block, exc
    return block, None


def _bounded_grace(configured: float, deadline: float, now: float) -> float:
    """The SIGTERM→SIGKILL wait a teardown starting at ``now`` may spend.

    The configured grace, cut so SIGKILL lands no later than ``DEADLINE_TERMINATE_GRACE``
    after the later of the deadline and ``now``: whatever starts the teardown (the deadline
    itself, a cancellation or ``aclose()`` just before it, an error, a finalizer running late),
    a CLI ignoring SIGTERM cannot hold the call past its deadline by more than that. A teardown
    with the deadline far away keeps the full grace for the CLI to flush.
    """
    return min(configured, max(deadline - now, 0.0) + DEADLINE_TERMINATE_GRACE)


# Exit statuses of the gate shell when its ``exec`` fails (126: not executable, 127: missing).
_EXEC_FAILED = (126, 127)


def _raise_if_vanished(spec: SubprocessSpec, executable: str) -> None:
    """Behind the gate a vanished binary is the shell's exit status, not an exec error.

    Without the gate exec itself fails and ``_spawn`` reports ProviderExecutableNotFound; this
    keeps that error (and dropping the stale cached path) when the shell's exec failed instead.
    A CLI exiting 126/127 on its own, with its binary still in place, is an ordinary failure.
    """
    if not os.access(executable, os.X_OK):
        forget_executable(spec.program)
        raise ProviderExecutableNotFound(
            spec.program, spec.install_hint or f"install {spec.program!r} ({executable} is gone)"
        )


def _redacted_lines(spec: SubprocessSpec) -> PlainLine | None:
    """The adapter's plain-line reader, given each line with the deployment's secrets redacted.

    A plain stdout line is the CLI's own text (a command's output, a notice), not the model's
    answer, and it becomes a chunk the caller keeps: a CLI that prints its environment (or a
    wrapper script that does) would hand over the gateway key or an ``env`` value as it stands.
    Only lines that are no JSON reach this, so a stream of events pays nothing for it.
    """
    reader = spec.plain_line
    if reader is None:
        return None
    secrets = spec.secret_values()
    return lambda line: reader(redact(line, secrets))


def redact_error(error: ProviderError, secrets: Sequence[str]) -> None:
    """Redact ``secrets`` (and every known secret or key shape) from ``error`` in place.

    Its message, ``raw`` and ``stderr_tail``: the text of a protocol error raised while reading
    a run (an excerpt of stdout, a vendor parser's message) is the CLI's output, which can hold
    a credential the run was given. Already redacted text is left as it is.
    """
    error.args = tuple(redact(a, secrets) if isinstance(a, str) else a for a in error.args)
    if error.raw:
        error.raw = redact(error.raw, secrets)
    if error.stderr_tail:
        error.stderr_tail = redact(error.stderr_tail, secrets)


def _classified(spec: SubprocessSpec, returncode: int, capture: StderrCapture) -> ProviderError:
    secrets = spec.secret_values()
    text = redact(capture.text(secrets), secrets)
    classify = spec.classify
    if classify is None:
        # Lazy: the pattern table is only compiled when a process actually fails.
        from ..classify import classify_provider_error

        error = classify_provider_error(
            text,
            returncode=returncode,
            stderr_tail=text,
            provider=spec.display_name,
            secrets=secrets,
        )
    else:
        error = classify(text, returncode=returncode, stderr_tail=text)
    if error.returncode is None:
        error.returncode = returncode
    return error


# -- teardown -------------------------------------------------------------------------------------


def _signal_group(pgid: int, sig: int) -> None:
    """Signal a whole process group (a module function so tests can make it fail)."""
    os.killpg(pgid, sig)


def _leads_own_group(pid: int) -> bool:
    try:
        return os.getpgid(pid) == pid
    except OSError:
        return False


def _send(
    transport: asyncio.SubprocessTransport,
    pid: int,
    sig: int,
    *,
    child_alive: bool,
    errors: list[BaseException],
    tree: CallTree | None = None,
) -> None:
    """Signal the group and the cgroup; signal the child directly if neither reaches it."""
    reached_child = False
    try:
        _signal_group(pid, sig)
        reached_child = child_alive and _leads_own_group(pid)
    except ProcessLookupError:
        pass  # the group is already empty
    except Exception as exc:
        errors.append(exc)
    if tree is not None:
        try:
            if sig == signal.SIGKILL:
                tree.kill()
            else:
                tree.signal(sig)
        except Exception as exc:
            errors.append(exc)
    if child_alive and not reached_child:
        # ``os.kill``, not ``transport.send_signal``: the latter polls ``Popen`` first, which
        # can reap the child behind the child watcher's back (see terminate_process_group).
        # ``child_alive`` comes from the watcher's report, so the pid is still this child's
        # (at worst reaped a moment ago, far too soon for the kernel to reuse it).
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
        except Exception as exc:
            errors.append(exc)


class _LimitStop:
    """Signals a run's process when its time limit passes, not when its reader next reads.

    The limit's interrupt reaches a pipe read in progress at once. A reader parked at its
    ``yield`` (the consumer is holding a chunk) sees it only when the consumer asks for the next
    one, and until then the CLI would go on acting (editing files, running tools) past the
    call's deadline, against the teardown promise: SIGTERM at the deadline, SIGKILL at most
    ``DEADLINE_TERMINATE_GRACE`` after it. So expiry sends SIGTERM from the event loop's
    callback that reports it, and a loop timer sends SIGKILL that much later; both are plain
    signals (no task), and the reader's own teardown, when it runs, reaps what is left.
    """

    __slots__ = ("_kill", "_loop", "_proto", "_transport", "_tree", "_what")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        transport: asyncio.SubprocessTransport,
        proto: ChildProtocol,
        tree: CallTree | None,
        what: str,
    ) -> None:
        self._loop = loop
        self._transport = transport
        self._proto = proto
        self._tree = tree
        self._what = what
        self._kill: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """SIGTERM now, SIGKILL after the deadline's grace (once; nothing if already ended)."""
        if self._kill is not None or self._proto.finished.is_set():
            return
        self._signal(signal.SIGTERM)
        self._kill = self._loop.call_later(DEADLINE_TERMINATE_GRACE, self._signal, signal.SIGKILL)

    def cancel(self) -> None:
        """The reader's teardown took over: drop the pending SIGKILL."""
        if self._kill is not None:
            self._kill.cancel()

    def _signal(self, sig: int) -> None:
        errors: list[BaseException] = []
        proto = self._proto
        if proto.finished.is_set():
            return  # reaped and its pipes closed: the pid may not be this child's any more
        transport = self._transport
        _send(
            transport,
            transport.get_pid(),
            sig,
            child_alive=not proto.exited.is_set(),
            errors=errors,
            tree=self._tree,
        )
        for exc in errors:  # the reader's teardown signals again and reports what it finds
            logger.warning("%s: signalling at the time limit failed", self._what, exc_info=exc)


async def terminate_process_group(
    transport: asyncio.SubprocessTransport,
    proto: ChildProtocol,
    *,
    grace: float = PROCESS_TERMINATE_GRACE,
    reap_timeout: float = REAP_TIMEOUT,
    tree: CallTree | None = None,
) -> None:
    """SIGTERM the group, wait ``grace``, SIGKILL what is left, close pipes, await reaping.

    With a ``tree`` (the run's cgroup) both signals also reach every member of it, and the
    cgroup is removed once empty. Every step runs even if an earlier one failed; the first
    failure is raised at the end (after the child is reaped), the others are logged.
    """
    errors: list[BaseException] = []
    pid = transport.get_pid()
    try:
        _send(
            transport,
            pid,
            signal.SIGTERM,
            child_alive=not proto.exited.is_set(),
            errors=errors,
            tree=tree,
        )
        if not proto.exited.is_set() and grace > 0:
            with anyio.move_on_after(grace):
                await proto.exited.wait()
        _send(
            transport,
            pid,
            signal.SIGKILL,
            child_alive=not proto.exited.is_set(),
            errors=errors,
            tree=tree,
        )
    finally:
        # The event loop's child watcher reaps the child and reports its exit status. Closing
        # the transport (or signalling through it) while the child is dead but not yet reaped
        # polls ``Popen`` with ``waitpid(WNOHANG)``, which can reap it first: the watcher then
        # finds no child and reports 255. So the pipes are closed once the exit is reported
        # (bounded: a child stuck in the kernel gets the transport's close and kill anyway,
        # and so does a teardown cut short by a repeated native cancellation).
        try:
            with anyio.move_on_after(reap_timeout):
                await proto.exited.wait()
        finally:
            transport.close()  # closes our pipe ends; kills the child if somehow still running
        with anyio.move_on_after(reap_timeout):
            await proto.finished.wait()
        if not proto.finished.is_set():
            logger.error(
                "CLI process %d was not reaped within %.1f s of SIGKILL", pid, reap_timeout
            )
        if tree is not None:
            try:
                await tree.remove(reap_timeout)
            except Exception as exc:
                errors.append(exc)
    if errors:
        for extra in errors[1:]:
            logger.warning("another teardown step failed for process %d", pid, exc_info=extra)
        raise errors[0]


async def _teardown(
    transport: asyncio.SubprocessTransport,
    proto: ChildProtocol,
    spec: SubprocessSpec,
    primary: BaseException | None,
    *,
    tree: CallTree | None,
    grace: float,
) -> None:
    try:
        with anyio.CancelScope(shield=True):
            await terminate_process_group(transport, proto, grace=grace, tree=tree)
    except Exception as exc:
        if primary is None:
            raise
        logger.warning(
            "teardown of %s failed while %s was propagating; keeping the original error",
            spec.display_name,
            type(primary).__name__,
            exc_info=exc,
        )
