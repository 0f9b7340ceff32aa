"""``demo`` and ``chat``: stream one answer through ``iModel`` and map errors to exit codes."""

from __future__ import annotations

import json
import os
import signal
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any

import anyio
from anyio.abc import TaskStatus

from .._base.errors import (
    AdmissionConfigError,
    AdmissionError,
    AgenticRequestValidationError,
    CatalogValidationError,
    EndpointConfigurationError,
    EndpointNotFound,
    ProviderCatalogError,
    ProviderError,
    ProviderStreamError,
    RequestDeadlineExceeded,
    UnsafeURLError,
)
from .._base.secrets import HIDDEN_ENV_NAME, is_credential_header, is_env_name, shown_env_name
from .._facade.imodel import iModel
from .._transport.http.payload import accepted_keys
from ._render import LiveRenderer, Renderer, renderer_for
from ._signals import SigintHold, SigtermHold, interrupt_exit_code

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "agentic_settings_from_flags",
    "endpoint_settings_from_flags",
    "exit_code_for",
    "http_options_from_flags",
    "run_chat",
]

EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT): 128 + 2, what a shell reports for a program SIGINT ended."""

EXIT_TERMINATED = 143
"""SIGTERM (``timeout``, systemd, Kubernetes): 128 + 15, what a shell reports for SIGTERM."""


def exit_code_for(exc: BaseException) -> int:
    """The documented exit code for an error family (see ``lionagi.service.cli``)."""
    if isinstance(exc, RequestDeadlineExceeded):
        return 3
    if isinstance(exc, AdmissionConfigError):
        # A bad admission setting (a NaN deadline, a negative limit) is bad usage, not a refusal.
        return 2
    if isinstance(exc, AdmissionError):
        return 4
    if isinstance(exc, CatalogValidationError):
        return 5
    if isinstance(exc, ProviderCatalogError | ValueError | UnsafeURLError):
        # A refused destination is a ProviderError in Python, but nothing was sent: the fix is
        # the command line's own (--base-url or --allow-local-network), so it is bad usage.
        return 2
    if isinstance(exc, ProviderError):
        return 1
    raise exc


def _unset(value: str | None) -> str:
    """Why a named variable gives no key: unset, or set to the empty string (a different fix)."""
    return "is not set" if value is None else "is set but empty"


def _unset_named(name: str, value: str | None) -> str:
    """`$NAME is not set`, or without the name when it may be the key itself (`shown_env_name`)."""
    shown = shown_env_name(name)
    if shown is not None:
        return f"{shown} {_unset(value)}"
    return f"the variable named {_unset(value)} ({HIDDEN_ENV_NAME})"


def _env_copy_unset(name: str) -> str:
    """A bare `--env NAME` whose variable is unset; the name repeated as `shown_env_name` allows."""
    if shown_env_name(name) is not None:
        return (
            f"{name} copies ${name} from this environment, where it is not set; set it or write "
            f"--env {name}=VALUE"
        )
    return (
        "a bare NAME copies that variable from this environment, where the one named is not set "
        f"({HIDDEN_ENV_NAME}); set it or write --env NAME=VALUE"
    )


def agentic_settings_from_flags(
    *,
    binary: str | None,
    gateway_url: str | None,
    gateway_key_env: str | None,
    env: Sequence[str],
    cwd: str | None,
    config_home: str | None,
    environ: Mapping[str, str] | None = None,
    root: str | None = None,
    terminate_grace: str | None = None,
) -> dict[str, Any] | None:
    """The ``AgenticSettings`` fields the ``chat`` flags give; None when no flag was used.

    Validation (URL scheme, variable names) is the settings model's, so a bad flag fails with
    the same ``EndpointConfigurationError`` (exit 2) as the Python API. The refusals made here
    name the flag as their field (``--gateway-key-env``, ``--env``): the user typed the flag,
    never the settings field it fills.
    """
    source = os.environ if environ is None else environ
    fields: dict[str, Any] = {}
    if binary is not None:
        fields["binary"] = binary
    if gateway_url is not None:
        fields["gateway_url"] = gateway_url
    if gateway_key_env is not None:
        key = source.get(gateway_key_env)
        if not key:
            raise EndpointConfigurationError(
                "--gateway-key-env", _unset_named(gateway_key_env, key)
            )
        fields["gateway_api_key"] = key
    if env:
        values: dict[str, str] = {}
        for item in env:
            name, sep, value = item.partition("=")
            if not sep and not is_env_name(name):
                # Not a variable name: likely a secret typed where NAME=VALUE belongs. The
                # settings model refuses bad names too, but its message would repeat this one.
                raise EndpointConfigurationError(
                    "--env",
                    "takes NAME=VALUE or a bare NAME to copy from this environment; the word "
                    "given is neither and is not shown, in case it is a secret",
                )
            if not sep:
                found = source.get(name)
                if found is None:
                    raise EndpointConfigurationError("--env", _env_copy_unset(name))
                value = found
            values[name] = value
        fields["env"] = values
    if root is not None:
        fields["root"] = root
    if cwd is not None:
        fields["cwd"] = cwd
    if config_home is not None:
        fields["config_home"] = config_home
    if terminate_grace is not None:
        fields["terminate_grace"] = terminate_grace  # parsed and bounded by the settings model
    return fields or None


def http_options_from_flags(
    *,
    openai_compatible: bool = False,
    api_key_env: str | None = None,
    allow_local_network: bool = False,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``iModel`` options the HTTP flags of ``chat`` give (only those that were used).

    ``--api-key-env NAME`` reads the key from the environment so it never appears in argv (and
    so in ``ps`` or shell history); an unset or empty variable is an
    ``EndpointConfigurationError`` for ``--api-key-env`` (exit 2) naming the variable, not its
    value: the flag the user typed, not the ``api_key`` setting it fills.
    """
    source = os.environ if environ is None else environ
    options: dict[str, Any] = {}
    if openai_compatible:
        options["openai_compatible"] = True
    if allow_local_network:
        options["allow_local_network"] = True
    if api_key_env is not None:
        key = source.get(api_key_env)
        if not key:
            raise EndpointConfigurationError("--api-key-env", _unset_named(api_key_env, key))
        options["api_key"] = key
    return options


def endpoint_settings_from_flags(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """``--endpoint-setting K=V`` pairs as ``iModel`` keyword arguments.

    ``V`` is JSON when it parses (``5``, ``true``, ``{"X-Org": "me"}``), else the text itself, so
    every :class:`EndpointConfig` field an error message names can be set from the command line;
    an unknown key fails in ``iModel`` with the same typed error as in Python. A key given twice
    is an ``EndpointConfigurationError``: the last one silently winning would hide a typo.

    A setting that carries a credential (``api_key``, a credential-named header in
    ``default_headers`` or ``client_kwargs.headers``, ``client_kwargs.auth`` or ``.cookies``) is
    refused: argv is visible in ``ps`` and kept in shell history, which is why the key has
    ``--api-key-env`` (and the gateway key ``--gateway-key-env``). The value is never echoed.
    """
    out: dict[str, Any] = {}
    for key, text in pairs:
        if key in out:
            raise EndpointConfigurationError(key, "--endpoint-setting gives this key twice")
        try:
            out[key] = json.loads(text)
        except ValueError:
            out[key] = text
        _refuse_credential(key, out[key])
    return out


_KEY_ON_ARGV = (
    "a key given as a flag shows in ps and shell history; put it in an environment variable "
    "and pass --api-key-env NAME (an agentic CLI's gateway key: --gateway-key-env NAME)"
)


def _refuse_credential(key: str, value: object) -> None:
    """Refuse an ``--endpoint-setting`` that would put a credential on the command line.

    A header is a credential when redaction calls its name one (`is_credential_header`:
    Authorization, Cookie, x-api-key, Helicone-Auth, ...); X-Org, x-fake-behaviour pass.
    """
    if key in ("api_key", "gateway_api_key"):
        raise EndpointConfigurationError(key, f"--endpoint-setting {key}: {_KEY_ON_ARGV}")
    headers: object = None
    where = key
    if key == "default_headers":
        headers = value
    elif key == "client_kwargs" and isinstance(value, Mapping):
        for name in ("auth", "cookies"):
            if value.get(name) is not None:
                raise EndpointConfigurationError(
                    f"client_kwargs.{name}", f"--endpoint-setting client_kwargs: {_KEY_ON_ARGV}"
                )
        headers = value.get("headers")
        where = "client_kwargs.headers"
    if isinstance(headers, Mapping):
        for name in headers:
            if isinstance(name, str) and is_credential_header(name.strip()):
                raise EndpointConfigurationError(
                    f"{where}.{name}",
                    f"--endpoint-setting {key}: this header carries a credential; " + _KEY_ON_ARGV,
                )


def run_chat(
    model: str,
    prompt: str | Callable[[], str],
    *,
    timeout: float | None,
    as_json: bool,
    pace: float | None = None,
    base_url: str | None = None,
    endpoint: str | None = None,
    agentic_flags: Mapping[str, Any] | None = None,
    http_flags: Mapping[str, Any] | None = None,
    endpoint_settings: Sequence[tuple[str, str]] = (),
    show_thinking: bool = False,
    hold_signals_to_exit: bool = False,
    progress: bool = False,
) -> int:
    """Stream ``prompt`` to ``model`` and render each chunk; returns the exit code.

    ``agentic_flags`` are the keyword arguments of :func:`agentic_settings_from_flags`,
    ``http_flags`` those of :func:`http_options_from_flags`, ``endpoint_settings`` the
    ``--endpoint-setting`` pairs. Ctrl-C ends the partial line (``--json``: a final
    ``interrupted`` record) and returns 130; SIGTERM does the same and returns 143. Both cancel
    the run first, so an agentic CLI's process group is killed and its isolated home removed.

    ``prompt`` may be a function that reads it (from stdin): it is called once ``model`` and
    every flag have been checked and the model built, so a command that cannot run is refused
    before any input is consumed (stdin was read first, waiting for a pipe nobody closes, and
    only then was a bad model refused). A SIGTERM while it reads raises, as a recorded one
    cannot end a read that blocks.

    SIGTERM is held (recorded, never raised) from the first line here to the outcome;
    ``hold_signals_to_exit`` (the process is the command line) keeps it held after that, so a
    SIGTERM while the process exits leaves the outcome's exit code as it is. With it Ctrl-C is
    held too from the moment the outcome is being written (:class:`SigintHold`): before that it
    raises and cancels the run (130), after it it changes nothing. Called from Python (without
    it) Ctrl-C is never touched.

    ``progress`` (``--progress``) writes thinking, tools and usage to stderr when stdout is not
    a terminal even if stderr is not one either (see :func:`renderer_for`).
    """
    hold = SigtermHold.install()
    renderer = renderer_for(as_json=as_json, expand_thinking=show_thinking, progress=progress)
    outcome: BaseException | None = None
    terminated = False
    sigint: SigintHold | None = None
    try:
        try:
            # Everything the arguments alone decide is checked before the prompt is read:
            # nothing is started here (the model's client is made on its first request).
            imodel = _built_model(
                model,
                base_url=base_url,
                endpoint=endpoint,
                endpoint_settings=endpoint_settings,
                http_flags=http_flags,
                agentic_flags=agentic_flags,
            )
            text = _prompt_text(prompt, hold)
            if text is not None:
                anyio.run(
                    _cancelled_on_sigterm, _streamed(imodel, text, renderer, timeout, pace), hold
                )
        except KeyboardInterrupt as exc:
            outcome = exc
        except Exception as exc:
            outcome = _run_error_named_by_flag(exc, agentic_flags or {})
        terminated = hold is not None and hold.arrived
        if hold_signals_to_exit:
            # From here Ctrl-C is recorded, not raised: raised inside the renderer it cut the
            # outcome short, and raised once it was written it made a second one (`_run`'s
            # `interrupted`, 130). A Ctrl-C still pending raises here, before the outcome.
            sigint = SigintHold.install()
        code = _render_outcome(renderer, outcome, terminated)
    finally:
        if sigint is not None:
            sigint.release()
        if hold is not None:
            hold.release(keep=hold_signals_to_exit)
    if hold is not None and hold.arrived and not terminated and code == 0:
        # SIGTERM while the answer's end was written: a completed answer has no final record
        # yet, so the signal is reported as it would have been a moment earlier. After an
        # error or a Ctrl-C the record already written stands (one final record). One after
        # the release is not `arrived`: the outcome is written, and it stands.
        renderer.interrupted(EXIT_TERMINATED)
        return EXIT_TERMINATED
    if sigint is not None and sigint.arrived and code == 0:
        # The same for a Ctrl-C while a completed answer's end was written (one final record).
        renderer.interrupted(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    return code


def _prompt_text(prompt: str | Callable[[], str], hold: SigtermHold | None) -> str | None:
    """The prompt; a reader is called with SIGTERM raising (None: one arrived before it)."""
    if isinstance(prompt, str):
        return prompt
    if hold is None:
        return prompt()
    return hold.interruptible(prompt)


def _streamed(
    imodel: iModel,
    text: str,
    renderer: Renderer,
    timeout: float | None,
    pace: float | None,
) -> Callable[[], Awaitable[None]]:
    """The run: stream ``text`` through ``imodel`` into ``renderer``, then close the model."""

    async def go() -> None:
        async with imodel:
            request: dict[str, Any]
            if imodel.is_agentic:
                request = {"prompt": text}
                if pace:
                    request["pace"] = pace
            else:
                request = {"messages": [{"role": "user", "content": text}]}
            if isinstance(renderer, LiveRenderer):
                renderer.start()
            async for chunk in imodel.stream(timeout=timeout, **request):
                renderer.chunk(chunk)

    return go


def _built_model(
    model: str,
    *,
    base_url: str | None,
    endpoint: str | None,
    endpoint_settings: Sequence[tuple[str, str]],
    http_flags: Mapping[str, Any] | None,
    agentic_flags: Mapping[str, Any] | None,
) -> iModel:
    """The ``iModel`` the flags describe, every check that needs no request done.

    The flags, the model name, the endpoint and (for an HTTP endpoint) its taking chat messages
    are all known before the prompt is: checking them first is what lets ``chat`` refuse a bad
    argument before it reads stdin.
    """
    options: dict[str, Any] = {}
    if base_url is not None:
        options["base_url"] = base_url
    if endpoint is not None:
        options["endpoint"] = endpoint
    if endpoint_settings:
        options.update(endpoint_settings_from_flags(endpoint_settings))
    if http_flags:
        options.update(http_options_from_flags(**http_flags))
    settings = agentic_settings_from_flags(**agentic_flags) if agentic_flags else None
    if settings is not None:
        options["agentic_settings"] = settings
    given = {"base_url": base_url is not None, "api_key": "api_key" in options}
    try:
        imodel = _model_for_chat(model, options, explicit=endpoint is not None)
    except EndpointConfigurationError as exc:
        named = _named_by_flag(exc, settings or {}, given=given)
        if named is None:
            raise
        raise named from exc
    if not imodel.is_agentic:
        _refuse_non_chat_endpoint(imodel)
    return imodel


# The `chat` flag behind each `AgenticSettings` field `agentic_settings_from_flags` fills.
_AGENTIC_FLAGS = {
    "binary": "--binary",
    "gateway_url": "--gateway-url",
    "gateway_api_key": "--gateway-key-env",
    "env": "--env",
    "root": "--root",
    "cwd": "--cwd",
    "config_home": "--config-home",
    "terminate_grace": "--terminate-grace",
}


# The `chat` flag behind each plain `iModel` setting the command line fills: the key
# `--api-key-env` reads is handed over, and refused, as `api_key` (a control character in it,
# an endpoint that sends no key).
_PLAIN_FLAGS = {"base_url": "--base-url", "api_key": "--api-key-env"}


def _named_by_flag(
    exc: EndpointConfigurationError,
    settings: Mapping[str, Any],
    *,
    given: Mapping[str, bool] | None = None,
) -> EndpointConfigurationError | None:
    """``exc`` naming the flag typed instead of the setting it filled.

    The library names its settings as the Python API spells them (``api_key``,
    ``agentic_settings.terminate_grace``), which a command-line user never typed: ``api_key:
    ... sends no credentials`` after ``--api-key-env NAME`` read as a complaint about a flag
    nobody passed. ``given`` says which plain settings (``base_url``, ``api_key``) came from a
    flag. The reason is kept as it is. None for an error about anything the flags did not
    fill: it stands.
    """
    for setting, used in (given or {}).items():
        if used and exc.field == setting:
            reason = str(exc).removeprefix(f"{exc.field}: ")
            return EndpointConfigurationError(_PLAIN_FLAGS[setting], reason)
    head, _, rest = exc.field.partition(".")
    if head != "agentic_settings" or not settings:
        return None
    name = rest.partition(".")[0]
    if name and name not in settings:
        return None
    # Without a field (an HTTP endpoint refuses agentic settings whole), every flag used.
    names = [name] if name else list(settings)
    flags = ", ".join(_AGENTIC_FLAGS.get(key, f"agentic_settings.{key}") for key in names)
    return EndpointConfigurationError(flags, str(exc).removeprefix(f"{exc.field}: "))


# The settings a run's directory checks name when they refuse one (`cwd: ... does not exist`).
_RUN_CHECKED = ("cwd", "root")


def _run_error_named_by_flag(exc: Exception, agentic_flags: Mapping[str, Any]) -> Exception:
    """``exc`` naming ``--cwd`` or ``--root`` when the run refused the directory the flag gave.

    The directories are checked as the run starts (they must exist, one inside the other), not
    when the model is built, and the error names the setting (``cwd``); the reason is kept.
    Any other error, or one about a directory no flag gave (a request's ``repo``), stands.
    """
    field = exc.field if isinstance(exc, AgenticRequestValidationError) else None
    if field not in _RUN_CHECKED or agentic_flags.get(field) is None:
        return exc
    named = AgenticRequestValidationError(
        _AGENTIC_FLAGS[field], str(exc).removeprefix(f"{field}: ")
    )
    named.__cause__ = exc
    return named


def _render_outcome(renderer: Renderer, outcome: BaseException | None, terminated: bool) -> int:
    """Write how the run ended (exactly one of close / error / interrupted); its exit code."""
    if isinstance(outcome, KeyboardInterrupt):  # Ctrl-C (SIGTERM is held while the loop runs)
        code = interrupt_exit_code(outcome)
        renderer.interrupted(code)
        return code
    if terminated:  # an error raised while the cancelled run tore down is not the outcome
        renderer.interrupted(EXIT_TERMINATED)
        return EXIT_TERMINATED
    if outcome is not None:
        # A ProviderStreamError follows the error chunk the renderer already showed: the
        # renderer writes the final --json record but not a second stderr line.
        code = 1 if isinstance(outcome, ProviderStreamError) else exit_code_for(outcome)
        renderer.error(outcome)
        return code
    renderer.close()
    return 0


async def _cancelled_on_sigterm(
    body: Callable[[], Awaitable[None]], hold: SigtermHold | None
) -> None:
    """Run ``body``; a SIGTERM ``hold`` records cancels it instead of killing us.

    SIGTERM's default action ends the interpreter at once: no ``finally``, no ``aclose``, so an
    agentic CLI's process group outlives us (re-parented to pid 1) and its isolated home stays
    in the temp directory. Cancelling the scope runs the same structured teardown as Ctrl-C.
    ``hold`` is None when SIGTERM was not ours to take on entry: an ignored SIGTERM (inherited,
    as ``nohup`` does for SIGHUP) or an embedding program's own handler stays as is. A SIGTERM
    recorded before the loop started cancels the run before ``body`` begins.

    ``body``'s error is re-raised as itself after the task group, not wrapped in an
    ``ExceptionGroup``, so ``run_chat`` maps it to an exit code as before.
    """
    failure: list[Exception] = []
    async with anyio.create_task_group() as group:
        if hold is not None:
            await group.start(_watch_sigterm, group.cancel_scope, hold)
        try:
            if hold is None or not hold.arrived:
                await body()
        except Exception as exc:
            failure.append(exc)
        finally:
            group.cancel_scope.cancel()  # ends the watcher
    if failure:
        raise failure[0]


async def _watch_sigterm(
    scope: anyio.CancelScope,
    hold: SigtermHold,
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Cancel ``scope`` once ``hold`` has recorded SIGTERM (a second one kills at once).

    The interpreter writes the number of every caught signal to the wakeup descriptor, from
    whichever thread the kernel chose, so the loop wakes even while it sleeps in ``select``;
    the handler itself runs in the main thread before this task resumes. The descriptor found
    is put back when the watch ends (an ``anyio`` signal receiver is not used: opening and
    closing one leaves SIGTERM at its default action for a moment, see ``_signals``).
    """
    reader, writer = socket.socketpair()
    with reader, writer:
        reader.setblocking(False)
        writer.setblocking(False)
        previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        try:
            task_status.started()
            while not hold.arrived:
                await anyio.wait_readable(reader)
                try:
                    woken_by = reader.recv(256)
                except BlockingIOError:
                    continue
                if signal.SIGTERM in woken_by:
                    break  # the byte is written just after the handler is flagged to run
        finally:
            signal.set_wakeup_fd(previous_fd)
    scope.cancel()


def _refuse_non_chat_endpoint(imodel: iModel) -> None:
    """Refuse, before any request, an HTTP endpoint whose request model has no ``messages``.

    ``chat`` sends the prompt as chat messages. An endpoint that takes another shape (OpenAI
    Responses, Gemini ``generateContent``, Ollama ``generate``, embeddings) otherwise fails in
    payload validation with ``messages: unknown request field``, naming a field the user never
    typed. The request model is the endpoint's own declaration, so no vendor is named here; an
    endpoint without one, or one accepting extra keys, is sent the messages as before.
    """
    model = imodel.endpoint.request_options
    if model is None:
        return
    keys = accepted_keys(model)
    if keys is None or "messages" in keys:
        return
    config = imodel.endpoint.config
    raise EndpointConfigurationError(
        "--endpoint",
        f"chat sends the prompt as chat messages, and {config.provider} {config.endpoint} takes "
        f"{model.__name__}, which has no messages field; choose a chat endpoint with "
        "--endpoint, or call this one from the Python API (iModel.invoke / iModel.stream)",
    )


def _model_for_chat(model: str, options: dict[str, Any], *, explicit: bool) -> iModel:
    """The ``iModel`` for ``chat``: a provider with several endpoints answers on its ``chat`` one.

    The facade fails closed when a provider has several endpoints and none is named; the
    ``chat`` command means a chat, so without ``--endpoint`` it retries the endpoint keyed or
    aliased ``chat``. When there is none, the facade's own error (naming the endpoints) stands.
    A provider none of whose endpoints takes a model name (ag2's agents) is written alone,
    ``chat ag2 PROMPT --endpoint nlip``, what the facade calls ``iModel(provider='ag2',
    endpoint='nlip')``; given a model name it is refused with that spelling.
    """
    try:
        return _on_chat_endpoint(partial(iModel, model=model), options, explicit=explicit)
    except EndpointConfigurationError as exc:
        found = _provider_without_models(model) if exc.field == "model" else None
        if found is None:
            raise
        provider, endpoints = found
        if "/" in model:
            raise EndpointConfigurationError(
                "model",
                f"{provider!r} takes no model name; give the provider alone and choose its "
                f"endpoint: chat {provider} PROMPT --endpoint E (endpoints: {endpoints})",
            ) from None
    try:
        return _on_chat_endpoint(partial(iModel, provider=provider), options, explicit=explicit)
    except EndpointNotFound:
        if explicit:
            raise  # a misspelled --endpoint: the catalog's error names the close ones
        raise EndpointConfigurationError(
            "--endpoint",
            f"{provider!r} takes no model name and has several endpoints, none of them chat; "
            f"choose one with --endpoint ({endpoints})",
        ) from None


def _on_chat_endpoint(
    build: Callable[..., iModel], options: dict[str, Any], *, explicit: bool
) -> iModel:
    """``build(**options)``, retried on the endpoint keyed or aliased ``chat`` if need be.

    The retry is made only when the provider has several endpoints and ``--endpoint`` named
    none; when it finds no ``chat`` endpoint either, the first error stands.
    """
    try:
        return build(**options)
    except EndpointNotFound:
        if explicit:
            raise
        try:
            return build(endpoint="chat", **options)
        except EndpointNotFound:
            pass
        raise


def _provider_without_models(model: str) -> tuple[str, str] | None:
    """The provider ``model`` names, and its endpoints, when none of them takes a model name.

    ``model`` names it whole (``ag2``) or as its ``provider/`` prefix; such providers are
    ag2's agents or a search API.
    Read only after the facade refused ``model`` (the catalog is loaded by then): ``chat``
    takes such a provider as ``chat ag2 PROMPT --endpoint nlip``, where the facade's advice
    says ``iModel(provider='ag2', endpoint=...)``.
    """
    from .._catalog.keys import canonical_provider_key
    from .._catalog.model_parse import provider_takes_model
    from .._catalog.registry import EndpointRegistry

    snapshot = EndpointRegistry.snapshot()
    key = snapshot.provider_index.get(canonical_provider_key(model.partition("/")[0]))
    if key is None or key not in snapshot.providers or provider_takes_model(snapshot, key):
        return None
    item = snapshot.providers[key]
    return key, ", ".join(item.endpoints[name].endpoint for name in item.endpoint_keys)
