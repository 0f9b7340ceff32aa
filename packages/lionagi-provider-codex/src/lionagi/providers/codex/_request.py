"""The typed request ``codex exec`` accepts through this adapter.

Every field maps to one real flag of Codex CLI 0.171.0 (see ``_command.py``); nothing is passed
through as free-form ``-c`` text, so a request can never smuggle configuration into the child.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ._static import DEFAULT_MODEL as DEFAULT_MODEL
from ._static import REASONING_EFFORTS as REASONING_EFFORTS

__all__ = [
    "DEFAULT_MODEL",
    "REASONING_EFFORTS",
    "CodexRequest",
    "ReasoningEffort",
    "SandboxMode",
]


ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"]
"""Codex's ``model_reasoning_effort`` values. ``max`` and ``ultra`` are levels 0.171.0's catalog
offers for its current models (``codex debug models``); they are not in the policy's
`REASONING_EFFORTS`, and the policy declares ``max`` a model-name word, so
``codex/gpt-5.1-codex-max`` names that model rather than an effort suffix."""

SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]

# A model name is one argv element after "-m": no leading "-" (clap would read an option), no
# whitespace or control characters (no real model id has them).
_MODEL_NAME = re.compile(r"^[A-Za-z0-9_.:/@+][A-Za-z0-9_.:/@+\-]*$")


class CodexRequest(BaseModel):
    """One ``codex exec`` run.

    Attributes:
        prompt: The instructions; sent after ``--``, so a leading ``-`` is never an option.
        model: ``-m``; defaults to :data:`DEFAULT_MODEL` (see there why it is never omitted).
        reasoning_effort: ``-c model_reasoning_effort="<level>"`` (the policy's effort kwarg);
            ``max`` and ``ultra`` only here, as a field (see ``ReasoningEffort``).
        sandbox: ``-s/--sandbox``: ``read-only``, ``workspace-write`` or ``danger-full-access``.
        full_auto: Low-friction sandboxed automation (the policy's yolo mode). Codex 0.171.0
            has no ``--full-auto`` flag any more; in ``exec`` approvals are never asked, so the
            old flag's meaning is exactly ``--sandbox workspace-write``, which is what is sent.
        bypass_approvals: ``--dangerously-bypass-approvals-and-sandbox`` (the bypass mode):
            no sandbox at all. Only for an externally sandboxed environment.
        skip_git_repo_check: ``--skip-git-repo-check``: run outside a Git repository.
        fast_mode: ``-c service_tier="fast"`` (Codex's Fast mode; the fast mode kwarg): the
            ``priority`` service tier. Codex sends it only for a model whose catalog entry
            lists it; for any other model the run ends, before its turn starts, with
            ``CodexFastModeUnavailableError`` (a ``ProviderInvalidRequestError`` naming
            ``fast_mode`` and the model) instead of running at the standard tier.
        ephemeral: ``--ephemeral`` (default): no session files are written.
        repo: Working directory of the run (default: the settings' ``cwd``).
        workspace: A directory inside ``repo`` to run in instead (containment enforced).

    Every field is strict (``strict=True`` on the model: each field is a string, a literal or a
    flag, and none needs a conversion): a value of the wrong type is refused naming the field
    instead of being coerced. In pydantic's lax mode ``bypass_approvals="yes"`` (or ``"on"``,
    or ``1``) turned on ``--dangerously-bypass-approvals-and-sandbox``, ``ephemeral="no"``
    dropped ``--ephemeral`` and ``b"..."`` was decoded as text; a flag is ``True``/``False``.
    """

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    prompt: str = Field(min_length=1)
    model: str = DEFAULT_MODEL
    reasoning_effort: ReasoningEffort | None = None
    sandbox: SandboxMode | None = None
    full_auto: bool = False
    bypass_approvals: bool = False
    skip_git_repo_check: bool = False
    fast_mode: bool = False
    ephemeral: bool = True
    repo: str | None = None
    workspace: str | None = None

    @field_validator("model")
    @classmethod
    def _model_name(cls, value: str) -> str:
        if not _MODEL_NAME.match(value):
            raise ValueError(
                "must be a model id (letters, digits, '.', '-', '_', ':', '/', '@', '+'), "
                "not starting with '-'"
            )
        return value

    # The sandbox conflicts are checked on the later field of each pair (fields validate in
    # declaration order: sandbox, full_auto, bypass_approvals), so the error names a field the
    # caller set, like every other refusal of a request, instead of the whole "request" a model
    # validator would report; the message names the other field of the pair.

    @field_validator("full_auto")
    @classmethod
    def _full_auto_sandbox(cls, value: bool, info: ValidationInfo) -> bool:
        sandbox = info.data.get("sandbox")
        if value and sandbox not in (None, "workspace-write"):
            raise ValueError(
                f"conflicts with sandbox={sandbox!r}: full_auto runs in the workspace-write "
                "sandbox; set one of them"
            )
        return value

    @field_validator("bypass_approvals")
    @classmethod
    def _bypass_alone(cls, value: bool, info: ValidationInfo) -> bool:
        if not value:
            return value
        if info.data.get("full_auto"):
            other = "full_auto (the workspace-write sandbox)"
        elif info.data.get("sandbox") is not None:
            other = f"sandbox={info.data['sandbox']!r}"
        else:
            return value
        raise ValueError(
            f"conflicts with {other}: bypass_approvals runs without any sandbox; set one of them"
        )

    def sandbox_mode(self) -> SandboxMode | None:
        """The ``--sandbox`` value this request asks for (``full_auto`` included)."""
        if self.full_auto:
            return "workspace-write"
        return self.sandbox
