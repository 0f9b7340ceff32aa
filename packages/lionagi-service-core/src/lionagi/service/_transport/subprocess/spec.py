"""What to launch and how: a validated, immutable description of one CLI run (ADR-0030 D4).

Everything that can be checked without a process is checked here, when the spec is built, so a
bad argv or environment never reaches ``exec``.

Environment rule (exact): the child receives

1. ``PATH`` copied from this process (``os.defpath`` if unset), unless ``env`` sets ``PATH``;
2. each name in ``inherit_env`` that is set in this process, copied verbatim;
3. every entry of ``env`` (which wins over 1 and 2).

Nothing else is inherited: no ``HOME``, no API keys, no ``PYTHON*``. An adapter that needs the
usual user context opts in with ``inherit_env=PORTABLE_INHERIT_ENV``.

Stdin: ``"devnull"`` (default) gives the child an empty stdin, so CLIs that read stdin to EOF
(codex) cannot block on the parent's terminal; ``bytes`` are written to a pipe which is then
closed; ``"inherit"`` (or ``None``, the old ``asyncio`` spelling) shares the parent's stdin, the
explicit opt-in a Pi-like adapter uses for interactive input.

Prompt: pass it as ``prompt``, never inside ``argv``. A prompt in argv next to flags is read
as an option when it starts with ``-`` (``"-h"``, ``"--model x"``). ``prompt_mode`` picks one of
the two safe placements: ``"after_separator"`` (default) appends ``"--", prompt`` so the CLI's
parser treats it as an operand; ``"stdin"`` writes it to the child's stdin, then closes it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, Protocol

from ..._base.errors import EndpointConfigurationError, ProviderError
from .framing import DEFAULT_MAX_VALUE_CHARS, PlainLine, TailRepair

__all__ = [
    "DEADLINE_TERMINATE_GRACE",
    "PORTABLE_INHERIT_ENV",
    "PROCESS_TERMINATE_GRACE",
    "REAP_TIMEOUT",
    "STDERR_CAPTURE_LIMIT",
    "STDERR_DRAIN_TIMEOUT",
    "STDOUT_BUFFER_LIMIT",
    "ErrorClassifier",
    "PromptMode",
    "StdinMode",
    "SubprocessSpec",
]

# ADR-0030 D4 inherited values (TABLES.md); every one is a SubprocessSpec field.
STDERR_CAPTURE_LIMIT = 256 * 1024
STDERR_DRAIN_TIMEOUT = 2.0
PROCESS_TERMINATE_GRACE = 5.0
# The most a teardown's SIGTERM grace may reach past the caller's deadline: SIGKILL follows
# within this after the deadline (or after a teardown that starts later), whatever ended the
# run, so the call is over (everything reaped) within about a second of its deadline.
DEADLINE_TERMINATE_GRACE = 0.5
# Replaces the inherited READ_SIZE = 4096: the event loop reads up to 256 KiB per syscall and
# the iterator frames everything buffered at once; this bounds unconsumed stdout (backpressure).
STDOUT_BUFFER_LIMIT = 1024 * 1024
# Bound on waiting for the kernel to hand back a SIGKILLed child (uninterruptible sleep).
REAP_TIMEOUT = 5.0

# Opt-in names most CLIs need to find their config and pick a locale; never credentials.
PORTABLE_INHERIT_ENV: tuple[str, ...] = (
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
)

StdinMode = Literal["devnull", "inherit"]
PromptMode = Literal["after_separator", "stdin"]

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL", re.IGNORECASE)


class ErrorClassifier(Protocol):
    """Maps a failed process's stderr to the most specific ProviderError (not raised)."""

    def __call__(
        self, text: str, *, returncode: int | None = None, stderr_tail: str = ""
    ) -> ProviderError:
        """Classify `text` (the captured, redacted stderr) of a process that exited."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class SubprocessSpec:
    """One CLI invocation, checked when built so a bad argv or environment never reaches `exec`.

    The child's environment is exactly: `PATH` copied from this process (`os.defpath` if
    unset) unless `env` sets `PATH`; each name in `inherit_env` that is set in this process,
    copied verbatim; every entry of `env` (which wins over both). Nothing else is inherited (no
    `HOME`, no API keys, no `PYTHON*`); an adapter that needs the usual user context opts in
    with `inherit_env=PORTABLE_INHERIT_ENV`.

    Stdin: `"devnull"` (default) gives the child an empty stdin, so a CLI that reads stdin to
    EOF cannot block on the parent's terminal; bytes are written to a pipe which is then
    closed; `"inherit"` shares the parent's stdin, for interactive input.

    The prompt goes in `prompt`, never inside `argv`: a prompt in argv next to flags is read
    as an option when it starts with `-`. `prompt_mode="after_separator"` (default) appends
    `"--", prompt` so the CLI's parser treats it as an operand; `"stdin"` writes it to the
    child's stdin, then closes it.

    Attributes:
        argv: Program and arguments as separate elements; a shell string is rejected.
        cwd: Working directory (normally from `resolve_workspace`); None keeps ours.
        env: Variables the adapter passes explicitly.
        inherit_env: Names copied from this process's environment when set.
        stdin: `"devnull"`, `"inherit"` or bytes written then closed.
        install_hint: Shown by ProviderExecutableNotFound when `argv[0]` is missing.
        label: Provider name used in error messages; defaults to `argv[0]`'s basename.
        tail_repair: Turns an incomplete final JSON value into a mapping (Claude Code).
        plain_line: Reads a complete stdout line that is not a JSON object as an event (a
            CLI's plain-text output, Gemini CLI's slash commands); None makes it a
            ProviderProtocolError. Asked only for such lines (see `JsonFramer`).
        classify: Stderr classifier; None uses `classify_provider_error`.
        secrets: Extra values to redact from captured stderr (values of `env` whose names
            look like credentials are redacted automatically).
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        drain_timeout: Seconds to wait for stderr EOF before classifying a non-zero exit.
        stderr_limit: Leading stderr bytes retained; the rest is drained and discarded.
        stdout_buffer_limit: Unconsumed stdout bytes buffered before reading pauses.
        max_value_chars: Largest single JSON value accepted while incomplete.
        prompt: The user's prompt, placed by `prompt_mode`; after construction it is part of
            `argv` or `stdin`.
        prompt_mode: `"after_separator"` or `"stdin"`.
    """

    argv: Sequence[str]
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    inherit_env: Sequence[str] = ()
    stdin: bytes | StdinMode = "devnull"
    install_hint: str = ""
    label: str | None = None
    tail_repair: TailRepair | None = None
    plain_line: PlainLine | None = None
    classify: ErrorClassifier | None = None
    secrets: Sequence[str] = ()
    terminate_grace: float = PROCESS_TERMINATE_GRACE
    drain_timeout: float = STDERR_DRAIN_TIMEOUT
    stderr_limit: int = STDERR_CAPTURE_LIMIT
    stdout_buffer_limit: int = STDOUT_BUFFER_LIMIT
    max_value_chars: int = DEFAULT_MAX_VALUE_CHARS
    prompt: str | None = None
    prompt_mode: PromptMode = "after_separator"

    def __post_init__(self) -> None:
        _set = object.__setattr__
        _set(self, "argv", _validate_argv(self.argv))
        if self.prompt is not None:
            self._place_prompt(self.prompt)
        if self.cwd is not None:
            _set(self, "cwd", Path(self.cwd))
        _set(self, "env", MappingProxyType(_validate_env(self.env)))
        _set(self, "inherit_env", _validate_names(self.inherit_env))
        _set(self, "stdin", _validate_stdin(self.stdin))
        _set(self, "secrets", tuple(s for s in self.secrets if s))
        for name in ("terminate_grace", "drain_timeout"):
            value = getattr(self, name)
            # NaN passes ``value < 0`` and inf would make teardown wait forever: both refused.
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                raise EndpointConfigurationError(
                    name, f"must be a finite, non-negative number of seconds, got {value!r}"
                )
        for name in ("stderr_limit", "stdout_buffer_limit", "max_value_chars"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")

    def _place_prompt(self, prompt: str) -> None:
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be str, got {type(prompt).__name__}")
        if self.prompt_mode == "stdin":
            if self.stdin != "devnull":
                raise ValueError("prompt_mode='stdin' needs stdin left at 'devnull' (the default)")
            object.__setattr__(self, "stdin", prompt.encode("utf-8"))
        elif self.prompt_mode == "after_separator":
            if "--" in self.argv:
                raise ValueError(
                    "argv already contains '--'; with prompt_mode='after_separator' core adds the "
                    "separator itself, just before the prompt"
                )
            if "\x00" in prompt:
                raise ValueError("prompt contains a NUL byte; use prompt_mode='stdin'")
            object.__setattr__(self, "argv", (*self.argv, "--", prompt))
        else:
            raise ValueError(
                f"prompt_mode must be 'after_separator' or 'stdin', got {self.prompt_mode!r}"
            )

    @property
    def program(self) -> str:
        """`argv[0]`: the binary looked up on the child's PATH."""
        return self.argv[0]

    @property
    def display_name(self) -> str:
        """Label for messages: `label` or the program's basename."""
        return self.label or os.path.basename(self.program) or self.program

    def child_env(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The complete environment the child receives, by the rule on the class."""
        source = os.environ if environ is None else environ
        result: dict[str, str] = {}
        if "PATH" not in self.env:
            result["PATH"] = source.get("PATH", os.defpath)
        for name in self.inherit_env:
            value = source.get(name)
            if value is not None:
                result[name] = value
        result.update(self.env)
        return result

    def secret_values(self) -> tuple[str, ...]:
        """Values to redact: explicit `secrets` plus credential-looking `env` entries."""
        found = [v for k, v in self.env.items() if v and _SECRET_NAME.search(k)]
        return (*self.secrets, *found)


def _validate_argv(argv: Any) -> tuple[str, ...]:
    if isinstance(argv, str | bytes | bytearray):
        raise TypeError(
            "argv must be a sequence of arguments, not a string: commands never go through a "
            "shell, so put the program and each argument in its own element"
        )
    if not isinstance(argv, Sequence):
        raise TypeError(f"argv must be a sequence of str, got {type(argv).__name__}")
    items: list[str] = []
    for index, item in enumerate(argv):
        if isinstance(item, os.PathLike):
            item = os.fspath(item)
        if not isinstance(item, str):
            raise TypeError(f"argv[{index}] must be str, got {type(item).__name__}")
        if "\x00" in item:
            raise ValueError(f"argv[{index}] contains a NUL byte")
        items.append(item)
    if not items or not items[0]:
        raise ValueError("argv must start with a non-empty program name")
    return tuple(items)


def _validate_env(env: Mapping[str, str] | None) -> dict[str, str]:
    if env is None:
        return {}
    if not isinstance(env, Mapping):
        raise TypeError(f"env must be a mapping of str to str, got {type(env).__name__}")
    result: dict[str, str] = {}
    for key, value in env.items():
        if not isinstance(key, str) or not key or "=" in key or "\x00" in key:
            raise ValueError(f"env: invalid variable name {key!r}")
        if not isinstance(value, str):
            raise TypeError(f"env[{key!r}] must be str, got {type(value).__name__}")
        if "\x00" in value:
            raise ValueError(f"env[{key!r}] contains a NUL byte")
        result[key] = value
    return result


def _validate_names(names: Any) -> tuple[str, ...]:
    if isinstance(names, str):
        raise TypeError("inherit_env must be a sequence of names, not one string")
    result = tuple(names)
    for name in result:
        if not isinstance(name, str) or not name or "=" in name:
            raise ValueError(f"inherit_env: invalid variable name {name!r}")
    return result


def _validate_stdin(stdin: Any) -> bytes | StdinMode:
    if isinstance(stdin, bytes | bytearray | memoryview):
        return bytes(stdin)
    if stdin is None or stdin == "inherit":
        return "inherit"
    if stdin == "devnull":
        return "devnull"
    raise ValueError(f"stdin must be 'devnull', 'inherit' or bytes, got {stdin!r}")
