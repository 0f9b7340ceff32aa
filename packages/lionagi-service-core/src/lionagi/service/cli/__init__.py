"""The `lionagi-service` command line: demo, chat, providers, models, doctor, fake-server.

Exit codes (one per error family, so scripts can branch without parsing text):

====  =========================================================================
0     success
1     the provider failed (`ProviderError`: status, transport, stream error chunk)
2     bad usage or configuration (unknown model/provider/endpoint, invalid field)
3     the request deadline expired (`RequestDeadlineExceeded`)
4     admission refused the call (closed, conflict, token window)
5     the provider catalog does not validate
130   interrupted (Ctrl-C, SIGINT)
143   terminated (SIGTERM: `timeout`, systemd, Kubernetes)
====  =========================================================================

Both signals cancel the run, so its teardown runs (an agentic CLI's process group is killed and
its isolated home removed) before the partial line is ended and the code returned. SIGTERM is
handled from the console script's first line (``_signals``), not only once a run has started,
and once the outcome is written it is held until the process has exited with that code (a
second SIGTERM still ends it at once); so is Ctrl-C, which before the outcome cancels the run.

The prompt of `demo` and `chat` may come from stdin: `-` reads it, and so does a `chat` without
a prompt when stdin is not a terminal (`echo hi | lionagi-service chat MODEL`). It is read only
once the model and every flag are checked, so a bad argument is refused without consuming input
(`-` is never a model name).

Every error is one line on stderr (`--json` also writes it as the last NDJSON record), so a
script reads data from stdout and the reason from stderr. With stdout piped, thinking, tool
activity and the usage line go to stderr only when it is a terminal (or `--progress` asks), as
git's progress does: a script that captures stderr finds there only the outcome.
"""

from __future__ import annotations

import argparse
import math
import re
import signal
import sys
from collections.abc import Sequence
from functools import partial
from typing import Any, NoReturn, Protocol

from ._exits import ParserOutput, UsageExit
from ._signals import (
    MARK,
    give_back_sigterm,
    hold_until_exit,
    interrupt_exit_code,
    interrupt_word,
    raise_on_sigterm,
    written_as_is,
    written_held,
)
from ._version import VersionAction


class _Writable(Protocol):
    """What ``print_help`` writes to: typeshed's ``SupportsWrite[str]``, spelled out.

    Core imports nothing its distribution does not declare, ``_typeshed`` included.
    """

    def write(self, text: str, /) -> object: ...


__all__ = ["main"]

DEFAULT_MODEL = "scripted/demo"
DEMO_PROMPT = "Show me what lionagi-service streams."
STDIN = "-"
"""The prompt argument that means: read the prompt from stdin."""
STDIN_LIMIT = 64 * 1024 * 1024
"""The most bytes a prompt read from stdin may have (64 MiB, the core's response-body cap).

Far above any model's context window; without a bound, a producer that never ends
(``yes |``, ``cat /dev/urandom |``, a log followed with ``tail -f``) was read into memory until
the process was killed, with nothing said, and a large file was held several times over (bytes,
text, the JSON body) only for the provider to refuse it.
"""
_SHOW_THINKING = "terminal: keep thinking expanded (default: one line once the answer starts)"
_PROGRESS = (
    "stdout not a terminal: write thinking, tool activity and usage to stderr even when stderr "
    "is not a terminal either (by default they go there only when it is one)"
)


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's error contract: one line on stderr, exit 2.

    The stock parser prints the whole usage block before the message; a script reading stderr
    then gets several lines for one mistake. The usage stays one `--help` away.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # No abbreviated long options, on every sub-command (add_parser builds this class too):
        # with them `--api-key SECRET` was taken as `--api-key-env SECRET`, and the "is not set"
        # error then printed the secret back. A flag is spelled out or refused.
        kwargs.setdefault("allow_abbrev", False)
        # `chat` and `demo` parse flags and positionals intermixed: with the stock parse, a flag
        # after MODEL gave the optional PROMPT its default at once, so `chat MODEL --timeout 30
        # "question"` (or `--json -`) refused the prompt as an unrecognized argument.
        self._intermixed = bool(kwargs.pop("intermixed", False))
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """The stock parse, or for a parser built ``intermixed`` flags first, then positionals.

        As argparse's ``parse_known_intermixed_args``, whose first pass (Python 3.11) lets a
        disabled positional swallow ``--``, so the words after it were read as flags again
        (`chat MODEL --json -- "-v?"`). Only the words before ``--`` can be flags here.
        """
        if not self._intermixed:
            return super().parse_known_args(args, namespace)
        words = list(sys.argv[1:] if args is None else args)
        cut = words.index("--") if "--" in words else len(words)
        positionals = self._get_positional_actions()
        saved = [(action, action.nargs, action.default) for action in positionals]
        try:
            for action in positionals:  # disabled for the flags' pass, as argparse does
                action.nargs = action.default = argparse.SUPPRESS
            namespace, rest = super().parse_known_args(words[:cut], namespace)
        finally:
            for action, nargs, default in saved:
                action.nargs, action.default = nargs, default
        return super().parse_known_args(rest + words[cut:], namespace)

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """Parse as argparse does, but name an unrecognized argument by its flag only.

        The stock message repeats every leftover word, so `--api-key SECRET` (a flag that does
        not exist) printed the secret. Values, and anything after `=`, are counted, not shown.
        """
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(_unrecognized(extras))
        return parsed

    def print_help(self, file: _Writable | None = None) -> None:
        """``--help``: raise the text as the outcome, written by ``_run`` under the holds.

        argparse printed it here, then exited: before the signal holds, so a SIGTERM or
        Ctrl-C right after the text turned a finished ``--help`` into 143 / 130. Called with a
        ``file``, it writes there as argparse does.
        """
        if file is not None:
            super().print_help(file)
            return
        raise ParserOutput(self.format_help())

    def error(self, message: str) -> NoReturn:
        """Exit 2 with `prog: error: message (see --help)` as one redacted line.

        argparse quotes the offending value (`invalid choice: 'sk-...'`, `'...' is not a number
        of seconds`), so a key pasted into the wrong slot reached stderr whole. The quoted
        values are redacted as every other error line is; the rest is the parser's own wording
        (redacted whole, its `KEY=VALUE` would read as a credential pair). The line is not
        written here: `_run` writes it with the `--json` record, both as the outcome, under the
        signal holds when the process is the command line (see `_write_usage_error`).
        """
        message = _QUOTED.sub(_redacted, message)
        line = " ".join(f"{self.prog}: error: {message} (see {self.prog} --help)".split())
        raise UsageExit(" ".join(message.split()), line)


_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
"""A value argparse (or a `type=` function here) quotes in its message, as `repr` writes it."""


def _redacted(match: re.Match[str]) -> str:
    from .._base.secrets import redact  # error path only: a good parse never loads it

    return redact(match.group())


def _timeout(text: str) -> float:
    """`--timeout`: a finite number of seconds; anything else is bad usage (exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if math.isnan(value) or math.isinf(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a finite number of seconds >= 0 (0 means no deadline)"
        )
    return value


def _unrecognized(extras: Sequence[str]) -> str:
    """The unrecognized-arguments message: flag names shown, every value only counted."""
    flags = [word.partition("=")[0] for word in extras if word.startswith("-")]
    hidden = sum(1 for word in extras if not word.startswith("-") or "=" in word)
    message = f"unrecognized arguments: {' '.join(flags)}" if flags else "unrecognized arguments"
    if hidden:
        message += f" ({hidden} value{'s' if hidden > 1 else ''} not shown)"
    if any("key" in flag.lower() or "token" in flag.lower() for flag in flags):
        message += (
            "; a key is never a flag: put it in an environment variable and pass "
            "--api-key-env NAME (a CLI's gateway key: --gateway-key-env NAME)"
        )
    return message


def _env_name(text: str) -> str:
    """`--api-key-env` / `--gateway-key-env`: a variable's name, refused without echoing it.

    A value that is not a name is most likely the key itself, typed where its variable's name
    belongs; repeating it in the error would put the secret on stderr and in CI logs.
    """
    from .._base.secrets import is_env_name  # the one rule for names handed over

    if not is_env_name(text):
        raise argparse.ArgumentTypeError(
            "takes the NAME of an environment variable (letters, digits and _, not starting "
            "with a digit); the value given is not one and is not shown, in case it is a key"
        )
    return text


def _prompt_argument(text: str) -> str:
    """PROMPT: text that is valid UTF-8 (or ``-``); refused naming ``prompt``, bytes not shown.

    Python decodes argv bytes that are not UTF-8 into lone surrogates (``surrogateescape``).
    They reached the request and failed there as ``request: cannot be encoded as JSON`` (naming
    a field the user never typed, and quoting the codec's message), or were sent as they were
    to a scripted or CLI provider. The offset lets the user find the byte without it being
    repeated: a prompt may hold anything, a pasted secret included.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        offset = len(text[: exc.start].encode("utf-8"))
        raise argparse.ArgumentTypeError(
            f"not valid UTF-8 (at byte {offset} of the argument; its bytes are not shown); "
            "give the prompt as UTF-8 text"
        ) from None
    return text


def _model_argument(text: str) -> str:
    """MODEL: anything but ``-``, which stands for stdin only in the prompt's place.

    ``chat - -`` (or ``chat -`` with a pipe on stdin) took ``-`` as the model name, read all of
    stdin for the prompt, and only then was the model refused, by the catalog, as a name with no
    provider (suggesting ``'<provider>/-'``). Refused here, by the parser, nothing is read.
    """
    if text == STDIN:
        raise argparse.ArgumentTypeError(
            "'-' is not a model: - reads stdin only in the prompt's place; give the model "
            "first (e.g. lionagi-service chat scripted/demo -)"
        )
    return text


def _setting(text: str) -> tuple[str, str]:
    """`--endpoint-setting K=V`: split once; the value is parsed later (JSON, else text)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: write KEY=VALUE (e.g. max_retries=5)")
    return key.strip(), value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lionagi-service",
        description="One model-facing iModel over HTTP APIs, agentic CLIs and agents.",
        epilog=(
            "exit codes: 0 success, 1 provider failure, 2 bad usage or configuration, "
            "3 deadline expired, 4 admission refused, 5 catalog invalid, 130 interrupted (Ctrl-C), "
            "143 terminated (SIGTERM)"
        ),
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser(
        "demo", help="stream a scripted answer (no key, no network)", intermixed=True
    )
    demo.add_argument(
        "prompt",
        nargs="?",
        default=DEMO_PROMPT,
        type=_prompt_argument,
        help="the prompt; - reads it from stdin (default: a demonstration prompt)",
    )
    demo.add_argument("--json", action="store_true", help="print NDJSON chunks")
    demo.add_argument("--pace", type=float, default=0.03, help="seconds between text deltas")
    demo.add_argument("--show-thinking", action="store_true", help=_SHOW_THINKING)
    demo.add_argument("--progress", action="store_true", help=_PROGRESS)

    chat = sub.add_parser(
        "chat", help="stream one answer from MODEL through iModel", intermixed=True
    )
    chat.add_argument(
        "model", type=_model_argument, help="provider/model[-effort], e.g. scripted/demo"
    )
    chat.add_argument(
        "prompt",
        nargs="?",
        default=None,
        type=_prompt_argument,
        help="the prompt; - reads it from stdin, as does omitting it when stdin is not a terminal",
    )
    chat.add_argument(
        "--timeout",
        type=_timeout,
        default=None,
        metavar="SECONDS",
        help="deadline for the whole call (admission, retries, stream); 0 or omitted: no deadline",
    )
    chat.add_argument("--json", action="store_true", help="print NDJSON chunks")
    chat.add_argument("--show-thinking", action="store_true", help=_SHOW_THINKING)
    chat.add_argument("--progress", action="store_true", help=_PROGRESS)
    chat.add_argument("--base-url", default=None, help="override the endpoint base URL")
    chat.add_argument(
        "--endpoint",
        default=None,
        help=(
            "endpoint key or alias (default: the provider's only or default endpoint, else the "
            "one keyed or aliased chat); an HTTP endpoint must take chat messages"
        ),
    )
    chat.add_argument(
        "--endpoint-setting",
        metavar="K=V",
        type=_setting,
        action="append",
        default=[],
        help=(
            "any other endpoint setting an error names, e.g. max_retries=5 or "
            'default_headers={"X-Org":"me"}; V is JSON when it parses, else text (repeatable); '
            "never a key or credential header: use --api-key-env"
        ),
    )
    http = chat.add_argument_group("HTTP providers")
    http.add_argument(
        "--openai-compatible",
        action="store_true",
        help="an unknown provider (or endpoint) is an OpenAI-compatible chat service at --base-url",
    )
    http.add_argument(
        "--api-key-env",
        metavar="NAME",
        type=_env_name,
        help="read the API key from this environment variable (never pass it as a flag)",
    )
    http.add_argument(
        "--allow-local-network",
        action="store_true",
        help="let --base-url point at loopback/private addresses (local servers, test doubles)",
    )
    agent = chat.add_argument_group("agentic CLI deployment (subprocess providers)")
    agent.add_argument("--binary", metavar="PATH", help="program to run instead of the default")
    agent.add_argument(
        "--gateway-url", metavar="URL", help="model gateway the CLI talks to (http/https)"
    )
    agent.add_argument(
        "--gateway-key-env",
        metavar="NAME",
        type=_env_name,
        help="read the gateway key from this environment variable (never pass it as a flag)",
    )
    agent.add_argument(
        "--env",
        metavar="K=V",
        action="append",
        default=[],
        help="extra variable for the CLI (repeatable); a bare K copies it from this environment",
    )
    agent.add_argument("--cwd", metavar="DIR", help="working directory of the CLI")
    agent.add_argument(
        "--root",
        metavar="DIR",
        help="absolute directory every run (its repo, --cwd, workspace) must stay inside",
    )
    agent.add_argument(
        "--config-home",
        choices=("user", "isolated"),
        help="the user's own CLI login/config (default) or a throwaway isolated home",
    )
    agent.add_argument(
        "--terminate-grace",
        metavar="SECONDS",
        help="seconds the CLI gets between SIGTERM and SIGKILL on Ctrl-C or error (default 5)",
    )

    providers = sub.add_parser("providers", help="list the installed provider catalog")
    providers.add_argument("--json", action="store_true", help="print JSON")
    providers.add_argument(
        "--strict", action="store_true", help="exit 1 when any installed provider is unavailable"
    )

    models = sub.add_parser("models", help="a provider's model aliases, effort levels, endpoints")
    models.add_argument("provider", metavar="PROVIDER")
    models.add_argument("--json", action="store_true", help="print JSON")

    doctor = sub.add_parser("doctor", help="check that each CLI provider's program can run here")
    doctor.add_argument("providers", nargs="*", metavar="PROVIDER", help="default: every one")
    doctor.add_argument("--json", action="store_true", help="print JSON")

    fake = sub.add_parser("fake-server", help="run the fake provider HTTP server on 127.0.0.1")
    fake.add_argument("--port", type=int, default=0, help="port (0 picks a free one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    SIGTERM raises ``Terminated`` from here on when it is at its default (``python -m``, a
    direct call); under the console script the wrapper has already made it do so. Called from
    Python, SIGTERM is given back as it was found and Ctrl-C is never touched; when the process
    is the command line both stay held, once the outcome is written, until the process has
    exited with the returned code.
    """
    return _main(argv, owns_process=_under_console_script())


def _program_main() -> int:
    """The process is the command line: the console script's wrapper and ``python -m``.

    :func:`main` as the process itself: SIGTERM and Ctrl-C stay held from the outcome until the
    exit. The wrapper calls this rather than :func:`main`, whose test (the wrapper's SIGTERM
    handler) misses a console script started with SIGTERM ignored, which has no such handler.
    """
    return _main(None, owns_process=True)


def _under_console_script() -> bool:
    """True when the console script's wrapper handles SIGTERM: this process is the command line.

    The wrapper installs its handler (marked ``MARK``) before it imports anything; a program that
    calls ``main(argv)`` has SIGTERM at its default, ignored, or under its own handler. (The
    wrapper itself enters through :func:`_program_main`; this covers one that calls ``main``.)
    """
    return getattr(signal.getsignal(signal.SIGTERM), MARK, False) is True


def _main(argv: Sequence[str] | None, *, owns_process: bool) -> int:
    words = list(argv) if argv is not None else sys.argv[1:]
    installed = None
    try:
        # Installed inside the handler: a SIGTERM the moment it is installed (before the name
        # is bound) escaped `main` as a bare `Terminated`, a traceback and Python's exit code
        # for SIGINT. The handler puts SIGTERM back to its default itself before raising.
        installed = raise_on_sigterm()
        if not _standard_streams_usable():
            return 1
        try:
            return _run(argv, hold_signals_to_exit=owns_process)
        except ImportError as exc:
            return _import_failed(exc, argv)
    except KeyboardInterrupt as exc:
        # A signal outside `_run`'s own handler (checking the streams, or on the way out).
        return _interrupted(words, exc)
    finally:
        if owns_process:
            # The outcome is written (returned, or raised as a usage exit): SIGTERM and Ctrl-C
            # are held until the process has exited with its code. One still pending as the
            # holds go in is taken there like any other after the outcome (it changes nothing).
            hold_until_exit()
        else:
            give_back_sigterm(installed)


def _standard_streams_usable() -> bool:
    """Give a closed stderr the null device; False (after its line) when stdout is closed.

    Python sets ``sys.stdout`` / ``sys.stderr`` to None when the process starts with that
    descriptor closed (``>&-``, ``2>&-``, some supervisors). Every write then failed with
    ``AttributeError``: a traceback instead of the error line, exit 1 whatever the family, and
    ``print(..., file=sys.stderr)`` silently wrote to stdout. With stderr closed the error
    lines are dropped, as any write to a closed descriptor is, and the exit code still says
    what happened. With stdout closed the command's output has nowhere to go: that is the
    documented "the operating system refused writing its output", one line and exit 1, found
    before anything is sent to a provider.
    """
    import os

    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as stderr
    if sys.stdout is None:
        print(
            "error: OSError: [Errno 9] Bad file descriptor: standard output is closed",
            file=sys.stderr,
        )
        return False
    return True


def _import_failed(exc: ImportError, argv: Sequence[str] | None) -> int:
    """Core's own modules did not import: one line on stderr and exit 2, not a traceback.

    Reached when the installation is damaged, e.g. core's ``lionagi/service/__init__.py``
    removed by uninstalling the published ``lionagi`` (core raises
    ``InstallationConflictError``, whose message says how to repair it). Every other import
    this command line makes is optional and handled where it is made, so whatever gets here is
    the environment's fault: a configuration error, exit 2, with ``--json``'s final record too.
    """
    import json

    name, message = type(exc).__name__, " ".join(str(exc).split())
    args = list(argv) if argv is not None else sys.argv[1:]
    if "--json" in args:
        record = {"type": "exception", "error": name, "message": message}
        print(json.dumps(record), flush=True)
    print(f"error: {name}: {message}", file=sys.stderr)
    return 2


def _run(argv: Sequence[str] | None, *, hold_signals_to_exit: bool = False) -> int:
    from ._render import tolerate_unencodable_output

    tolerate_unencodable_output()
    words = list(argv) if argv is not None else sys.argv[1:]
    try:
        # Parsed inside the handlers: `--help` / `--version` end the parse with text for
        # stdout, and a full disk or a reader gone away while writing it is handled below.
        try:
            args = _parser().parse_args(words)
            if args.command in ("demo", "chat"):
                return _stream(args, hold_signals_to_exit=hold_signals_to_exit)
        except UsageExit as exc:
            writer = written_held if hold_signals_to_exit else written_as_is
            writer(partial(_write_usage_error, words, exc))
            raise
        except ParserOutput as exc:
            writer = written_held if hold_signals_to_exit else written_as_is
            return writer(partial(_write_parser_output, exc))
        if args.command in ("providers", "models", "doctor"):
            return _listing(args, hold_signals_to_exit=hold_signals_to_exit)
        return _fake_server(args.port)
    except KeyboardInterrupt as exc:
        # Reached only before `run_chat` took over (a Ctrl-C or SIGTERM while the command
        # starts) or in another command, so no renderer wrote anything: `--json` still ends
        # with the record it promises.
        return _interrupted(words, exc)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly like other Unix tools.
        sys.stderr.close()
        return 0
    except OSError as exc:
        return _os_failed(exc)


def _refuse_display_flags_with_json(args: argparse.Namespace) -> None:
    """Refuse ``--progress`` / ``--show-thinking`` beside ``--json``: they would change nothing.

    Both choose where the plain and live views put thinking, tools and usage. ``--json``
    writes every chunk, those included, as NDJSON on stdout, so either flag was accepted and
    silently did nothing; a script author who added one expecting stderr lines got none. Not
    a mutually exclusive argparse group: the two display flags combine with each other.
    """
    if not args.json:
        return
    for flag, given in (("--progress", args.progress), ("--show-thinking", args.show_thinking)):
        if given:
            _usage_error(
                args.command,
                f"argument {flag}: not allowed with argument --json (its NDJSON on stdout "
                "carries every chunk, thinking, tools and usage included)",
            )


def _listing(args: argparse.Namespace, *, hold_signals_to_exit: bool) -> int:
    """``providers`` / ``models`` / ``doctor``: the signals held from the outcome on, as chat's.

    Each command writes its outcome through ``write_outcome``; for the process that is the
    command line that is :func:`written_held`, which holds Ctrl-C and SIGTERM while the outcome
    is written and keeps them held until the process exits. With the holds put in only after
    the command returned (in ``_main``'s ``finally``), a signal between its last write and there
    was raised into the handler below: a complete output, then ``interrupted`` / ``terminated``
    and 130 / 143. Called from Python (``main(argv)``) nothing is held, Ctrl-C never touched.
    """
    writer = written_held if hold_signals_to_exit else written_as_is
    if args.command == "providers":
        from ._providers import providers_command

        return providers_command(as_json=args.json, strict=args.strict, write_outcome=writer)
    if args.command == "models":
        from ._models import models_command

        return models_command(args.provider, as_json=args.json, write_outcome=writer)
    from ._doctor import doctor_command

    return doctor_command(args.providers, as_json=args.json, write_outcome=writer)


def _stream(args: argparse.Namespace, *, hold_signals_to_exit: bool) -> int:
    """``demo`` / ``chat``: the prompt is read (from stdin) once everything else is checked.

    ``run_chat`` calls the reader after it has built the model from the arguments, so a bad
    model or flag is refused before any input is consumed, even from a pipe nobody closes.
    """
    from ._chat import run_chat

    _refuse_display_flags_with_json(args)

    def prompt() -> str:
        return _prompt(args.command, args.prompt)

    if args.command == "demo":
        return run_chat(
            DEFAULT_MODEL,
            prompt,
            timeout=None,
            as_json=args.json,
            pace=args.pace,
            show_thinking=args.show_thinking,
            progress=args.progress,
            hold_signals_to_exit=hold_signals_to_exit,
        )
    return run_chat(
        args.model,
        prompt,
        timeout=args.timeout,
        as_json=args.json,
        show_thinking=args.show_thinking,
        progress=args.progress,
        base_url=args.base_url,
        endpoint=args.endpoint,
        endpoint_settings=args.endpoint_setting,
        http_flags=dict(
            openai_compatible=args.openai_compatible,
            api_key_env=args.api_key_env,
            allow_local_network=args.allow_local_network,
        ),
        agentic_flags=dict(
            binary=args.binary,
            gateway_url=args.gateway_url,
            gateway_key_env=args.gateway_key_env,
            env=args.env,
            cwd=args.cwd,
            config_home=args.config_home,
            root=args.root,
            terminate_grace=args.terminate_grace,
        ),
        hold_signals_to_exit=hold_signals_to_exit,
    )


def _interrupted(words: Sequence[str], exc: KeyboardInterrupt) -> int:
    """Report a Ctrl-C (130, ``interrupted``) or SIGTERM (143, ``terminated``) no renderer saw."""
    code = interrupt_exit_code(exc)
    if words[:1] in (["demo"], ["chat"]):
        _json_record(words, {"type": "interrupted", "exit_code": code})
    if sys.stderr is not None:  # print(file=None) would write the line to stdout
        print(interrupt_word(code), file=sys.stderr)
    return code


def _prompt(command: str, prompt: str | None) -> str:
    """The prompt text: the argument, or stdin for ``-`` (and for a ``chat`` without one).

    A ``chat`` without a prompt reads stdin only when stdin is not a terminal, so
    ``echo hi | lionagi-service chat MODEL`` works while a person who forgot the prompt gets
    the usage error instead of a silent wait for Ctrl-D.
    """
    if prompt is not None and prompt != STDIN:
        return prompt
    stdin = sys.stdin
    if prompt is None and (stdin is None or _is_terminal(stdin)):
        _usage_error(
            command, "the following arguments are required: prompt (or - to read it from stdin)"
        )
    if stdin is None:
        _usage_error(command, "argument prompt: - reads stdin, which is closed")
    text = _read_stdin(command, stdin)
    if not text.strip():
        # An upstream command that failed or printed nothing: sending an empty prompt would
        # still be a billed call, with an answer to a question nobody asked.
        if prompt == STDIN:
            _usage_error(command, "argument prompt: stdin (-) gave no text")
        _usage_error(
            command,
            "argument prompt: none given, and stdin (read instead, as it is not a terminal) "
            "gave no text",
        )
    return text


def _is_terminal(stream: Any) -> bool:
    """True for a terminal; a stream closed under us (``isatty`` raising) counts as one."""
    try:
        return bool(stream.isatty())
    except (OSError, ValueError):
        return True


def _read_stdin(command: str, stdin: Any) -> str:
    """All of stdin, at most ``STDIN_LIMIT`` bytes and strictly UTF-8; else refused naming prompt.

    The bytes are read rather than the text stream, whose decoding follows the locale and
    would turn bad bytes into replacement characters or lone surrogates.
    """
    try:
        buffer = getattr(stdin, "buffer", None)
        # One byte (character) past the bound tells "at the bound" from "over it".
        data = stdin.read(STDIN_LIMIT + 1) if buffer is None else buffer.read(STDIN_LIMIT + 1)
    except ValueError:  # closed by an embedding program (a closed descriptor is sys.stdin None)
        _usage_error(command, "argument prompt: stdin is closed")
    size = len(data) if buffer is not None else len(data.encode("utf-8", "surrogatepass"))
    if size > STDIN_LIMIT:
        _usage_error(
            command,
            f"argument prompt: stdin holds more than {STDIN_LIMIT // (1024 * 1024)} MiB, the most "
            "a prompt read from stdin may be; give a shorter prompt",
        )
    if buffer is None:  # a text stream put in its place by an embedding program
        text = data
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            offset = len(text[: exc.start].encode("utf-8"))
            _usage_error(command, _not_utf8_stdin(offset))
        return str(text)
    try:
        return str(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        _usage_error(command, _not_utf8_stdin(exc.start))


def _not_utf8_stdin(offset: int) -> str:
    return (
        f"argument prompt: stdin is not valid UTF-8 (at byte {offset}; its bytes are not "
        "shown); give the prompt as UTF-8 text"
    )


def _write_usage_error(words: Sequence[str], exc: UsageExit) -> int:
    """A usage error's outcome: its line on stderr and, for `--json`, the final record.

    Written as the other commands write theirs (`written_held` for the process that is the
    command line): the parser used to print the line itself, before any hold was in, so a
    SIGTERM or Ctrl-C between that line and the holds in `_main`'s `finally` added
    `terminated` / `interrupted` to a decided exit 2, and under `--json` a second final
    record. A stderr the operating system refuses loses the line, as argparse's own printing
    did; the exit code still says it.
    """
    import contextlib  # error path only

    with contextlib.suppress(OSError):
        print(exc.line, file=sys.stderr, flush=True)
    # `--json` promises a final record for a run that ends in an error; a value the parser
    # refuses (`--timeout -1`) is as much bad usage as one iModel refuses.
    _json_record(words, {"type": "exception", "error": "UsageError", "message": exc.message})
    return 2


def _write_parser_output(output: ParserOutput) -> int:
    """``--help`` / ``--version``: the text on stdout as the outcome (0).

    A stdout that fails raises ``OSError`` into ``_run``'s handlers, as any other outcome's
    write does (a reader gone away: quiet 0; a full disk: one line, exit 1).
    """
    sys.stdout.write(output.text)
    sys.stdout.flush()
    return 0


def _usage_error(command: str, message: str) -> NoReturn:
    """Refuse as the parser of ``command`` would: one line, exit 2, the ``--json`` record."""
    _Parser(prog=f"lionagi-service {command}").error(message)


def _json_record(words: Sequence[str], record: dict[str, Any]) -> None:
    """Write ``record`` as the last line of stdout when the command line asked for ``--json``."""
    if "--json" in words:
        import json

        print(json.dumps(record), flush=True)


def _os_failed(exc: OSError) -> int:
    """An operating-system failure (stdout on a full disk, a port in use): one line, exit 1.

    It escaped as a traceback before. When it was stdout that failed, the bytes still buffered
    there would fail again as the interpreter flushes it at exit and print a second report, so
    stdout is pointed at the null device first (the `signal` module's recipe for a broken pipe).
    """
    try:
        sys.stdout.flush()
    except OSError:
        _discard_stdout()
    from ._render import exception_line  # redacted as every other error line

    print(exception_line(f"error: {type(exc).__name__}: ", exc), file=sys.stderr)
    return 1


def _discard_stdout() -> None:
    """Point stdout's descriptor at the null device, so its last flush at exit succeeds.

    A stdout without a descriptor (an embedding program's stream object) is left as it is.
    """
    import os

    try:
        fileno = sys.stdout.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fileno)
    os.close(devnull)


def _fake_server(port: int) -> int:
    """Run the fake provider server, which ships in the optional testing distribution.

    Core does not depend on it (production installs carry no test support), so a missing
    distribution is bad usage with the install line, not a traceback.
    """
    try:
        from lionagi.service_testing.fake_server import main as fake_main
    except ImportError:
        print(
            "fake-server needs the testing distribution: pip install lionagi-service-testing",
            file=sys.stderr,
        )
        return 2
    return fake_main(["--port", str(port)])
