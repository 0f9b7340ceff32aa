"""The typed request of one ``claude -p`` run and its argv (flags only; core places the prompt).

Every field maps to one documented flag of Claude Code 2.1.332 (``claude --help``, and
``--max-turns``, which the CLI reference documents but ``--help`` hides); nothing is passed
through as free-form argv, so a request can never smuggle an option the adapter does not know
about. The prompt is not in the argv: core appends ``--`` and the prompt, so a prompt such
as ``-v`` or ``--resume x`` is an operand, never an option.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
)

from lionagi.service.agentic import build_flag_args

from ._static import EFFORT_LEVELS as EFFORT_LEVELS

__all__ = [
    "EFFORT_LEVELS",
    "PERMISSION_MODES",
    "ClaudeCodeRequest",
    "EffortLevel",
    "PermissionMode",
    "command_flags",
    "flag_fields",
]

EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]
"""What ``claude --effort`` accepts (2.1.332); the catalog's other spellings are refused."""

PermissionMode = Literal[
    "acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "manual", "plan"
]
"""The choices of ``claude --permission-mode``: 2.1.332 lists ``manual`` where earlier versions
listed ``default``, and still takes ``default``; 2.1.197 and older refuse ``manual``."""
PERMISSION_MODES: tuple[str, ...] = (
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "default",
    "dontAsk",
    "manual",
    "plan",
)

# The fixed head of every run: print mode, the NDJSON event stream, and ``--verbose``, without
# which ``--print --output-format stream-json`` refuses to start.
BASE_FLAGS: tuple[str, ...] = ("-p", "--output-format", "stream-json", "--verbose")

# Field -> flag, in argv order. List fields repeat their flag once per item, so a variadic
# option (``--allowedTools <tools...>``) is always followed by another flag or by ``--``.
_FLAGS: dict[str, str] = {
    "model": "--model",
    "fallback_model": "--fallback-model",
    "effort": "--effort",
    "permission_mode": "--permission-mode",
    "resume": "--resume",
    "fork_session": "--fork-session",
    "session_id": "--session-id",
    "system_prompt": "--system-prompt",
    "append_system_prompt": "--append-system-prompt",
    "allowed_tools": "--allowedTools",
    "disallowed_tools": "--disallowedTools",
    "add_dirs": "--add-dir",
    "max_turns": "--max-turns",
    "max_budget_usd": "--max-budget-usd",
    "no_session_persistence": "--no-session-persistence",
}


class ClaudeCodeRequest(BaseModel):
    """One ``claude -p`` run.

    Attributes:
        prompt: The user turn (after ``--``; a leading ``-`` is safe).
        model: ``--model``: an alias (``sonnet``, ``opus``) or a full model name.
        fallback_model: ``--fallback-model`` when the model is overloaded.
        effort: ``--effort`` level.
        permission_mode: ``--permission-mode``. ``bypassPermissions`` is what ``yolo``/``bypass``
            select; Claude Code refuses it when running as root unless ``IS_SANDBOX=1`` is in the
            deployment env (see the provider docs).
        resume: ``--resume <session_id>``: continue that conversation.
        fork_session: ``--fork-session``: resume into a new session id (needs ``resume``).
        session_id: ``--session-id``: the UUID a new session gets.
        system_prompt / append_system_prompt: replace / extend the default system prompt.
        allowed_tools / disallowed_tools: tool rules (``"Bash(git *)"``, ``"Edit"``).
        add_dirs: extra directories tools may access (``--add-dir``), relative to the
            repository and contained in it like ``workspace``; the endpoint checks and resolves
            them before building argv (``ClaudeCodeEndpoint.contained_add_dirs``).
        max_turns: ``--max-turns``: stop after this many agentic turns; a run that reaches it
            ends with the ``error_max_turns`` result (the turn-limit family). 2.1.332 hides the
            flag from ``--help`` but takes it (the CLI reference and the Agent SDK use it).
        max_budget_usd: ``--max-budget-usd`` spending cap.
        no_session_persistence: do not save the session (it cannot be resumed then).
        repo / workspace: working directory (``workspace`` is contained in ``repo``).

    Every field is strict about its type, so a wrong-typed value is refused naming the field
    instead of being coerced: in pydantic's lax mode ``no_session_persistence="1"`` sent
    ``--no-session-persistence``, ``max_budget_usd=True`` a budget of 1 and ``"3"`` a budget of
    3, and ``b"..."`` was decoded as text. Flags take ``True``/``False`` only; the budget takes
    a finite number (an ``int`` such as ``3`` is a valid amount), never a bool or a string.
    The strictness is per field rather than ``strict=True`` on the model, which would also
    refuse a list for the tuple fields (``allowed_tools=["Read"]``, as the docs write them);
    their items are strict strings.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    prompt: StrictStr = Field(min_length=1)
    model: StrictStr | None = Field(default=None, min_length=1)
    fallback_model: StrictStr | None = Field(default=None, min_length=1)
    effort: EffortLevel | None = None
    permission_mode: PermissionMode | None = None
    resume: StrictStr | None = Field(default=None, min_length=1)
    fork_session: StrictBool = False
    session_id: StrictStr | None = Field(
        default=None,
        pattern=r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
        r"[0-9a-fA-F]{12}$",
    )
    system_prompt: StrictStr | None = None
    append_system_prompt: StrictStr | None = None
    allowed_tools: tuple[StrictStr, ...] = ()
    disallowed_tools: tuple[StrictStr, ...] = ()
    add_dirs: tuple[StrictStr, ...] = ()
    max_turns: StrictInt | None = Field(default=None, gt=0)
    max_budget_usd: float | None = Field(default=None, gt=0, strict=True, allow_inf_nan=False)
    no_session_persistence: StrictBool = False
    repo: StrictStr | None = None
    workspace: StrictStr | None = None

    @field_validator("model", "fallback_model", "resume")
    @classmethod
    def _not_an_option(cls, value: str | None) -> str | None:
        # A value starting with "-" would be read by the CLI's parser as the next option.
        if value is not None and value.startswith("-"):
            raise ValueError("must not start with '-'")
        return value

    @field_validator("fork_session")
    @classmethod
    def _fork_needs_resume(cls, value: bool, info: ValidationInfo) -> bool:
        # Without --resume the CLI would ignore --fork-session and silently start afresh.
        if value and info.data.get("resume") is None:
            raise ValueError("needs resume (the session to fork)")
        return value

    @field_validator("session_id")
    @classmethod
    def _session_id_with_resume_needs_fork(
        cls, value: str | None, info: ValidationInfo
    ) -> str | None:
        # Claude exits 1 before any event (2.1.197: "--session-id can only be used with
        # --continue or --resume if --fork-session is also specified"; 2.1.332: "--session-id
        # with --continue or --resume also needs --fork-session"): refuse it here, typed.
        resumed = info.data.get("resume") is not None
        if value is not None and resumed and not info.data.get("fork_session"):
            raise ValueError(
                "conflicts with resume: the CLI takes a new session id for a resumed "
                "conversation only with fork_session=True; set fork_session or drop one"
            )
        return value

    @field_validator("allowed_tools", "disallowed_tools", "add_dirs")
    @classmethod
    def _items(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for item in value:
            if not item.strip():
                raise ValueError("items must be non-empty")
            if item.startswith("-"):
                raise ValueError("items must not start with '-'")
        return value


def command_flags(request: ClaudeCodeRequest) -> list[str]:
    """:data:`BASE_FLAGS` plus every flag of ``request``, each flag and value its own element."""
    return [*BASE_FLAGS, *build_flag_args(request, _FLAGS)]


def flag_fields() -> Sequence[str]:
    """The request fields that become flags (for documentation and tests)."""
    return tuple(_FLAGS)
