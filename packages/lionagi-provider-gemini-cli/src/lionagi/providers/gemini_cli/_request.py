"""What one Gemini CLI run accepts, and the argv it becomes.

Every field maps to one flag with its value as a separate argv element; the prompt never enters
argv. Gemini CLI's ``-p`` takes the prompt as its *value* (a prompt starting with ``-`` would be
read as an option) and it ignores operands after ``--``, but in headless mode it reads stdin
and uses it as the prompt, so the adapter writes the prompt there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ._static import DEFAULT_MODEL as DEFAULT_MODEL

__all__ = ["DEFAULT_MODEL", "ApprovalMode", "GeminiCodeRequest", "build_argv"]


ApprovalMode = Literal["default", "auto_edit", "yolo", "plan"]

# A session id is a UUID (what ``init`` reports), ``latest``, or a 1-based index; anything else
# (in particular a value starting with ``-``, which the option parser would read as a flag) is
# refused before launch.
_RESUME = re.compile(r"latest|[0-9]+|[0-9A-Za-z][0-9A-Za-z_-]{0,127}")
_MODEL = re.compile(r"[0-9A-Za-z][0-9A-Za-z._:/@-]{0,199}")


class GeminiCodeRequest(BaseModel):
    """One headless Gemini CLI run.

    Attributes:
        prompt: The user prompt (written to the CLI's stdin, verbatim).
        model: ``-m``; the effort suffix, if any, stays in the name (``gemini-2.5-flash-high``
            is sent as is: effort mode ``model_name``).
        resume: ``--resume``: a session id from an earlier run's ``init`` event, ``latest``, or
            an index. Needs the same config home (``config_home="isolated"`` keeps one per
            endpoint) and working directory as the first run.
        approval_mode: ``--approval-mode``. Headless runs offer only tools that need no
            approval unless this is ``yolo`` (or ``auto_edit`` for edits).
        yolo: Shorthand for ``approval_mode="yolo"`` (the catalog's yolo/bypass permission mode).
        repo: Working directory of the run (default: the deployment's ``cwd``).
        workspace: A directory inside ``repo`` to run in; escaping ``repo`` is refused.

    Every field is strict (``strict=True`` on the model: each field is a string, a literal or a
    flag, and none needs a conversion): a value of the wrong type is refused naming the field
    instead of being coerced. In pydantic's lax mode ``yolo="yes"`` (or ``"on"``, or ``1``)
    sent ``--approval-mode yolo`` and ``b"..."`` was decoded as text; a flag is
    ``True``/``False``.
    """

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    prompt: str = Field(min_length=1)
    model: str = DEFAULT_MODEL
    resume: str | None = None
    approval_mode: ApprovalMode | None = None
    yolo: bool = False
    repo: str | None = None
    workspace: str | None = None

    @field_validator("model")
    @classmethod
    def _model_is_a_name(cls, value: str) -> str:
        if not _MODEL.fullmatch(value):
            raise ValueError("must be a model name (letters, digits, '.', '-', '_', ':', '/', '@')")
        return value

    @field_validator("resume")
    @classmethod
    def _resume_is_an_id(cls, value: str | None) -> str | None:
        if value is not None and not _RESUME.fullmatch(value):
            raise ValueError("must be a session id from an init event, 'latest', or an index")
        return value

    @field_validator("prompt")
    @classmethod
    def _prompt_has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(
                "must contain non-whitespace text (gemini exits 42 on an empty prompt)"
            )
        return value

    @field_validator("yolo")
    @classmethod
    def _one_approval_mode(cls, value: bool, info: ValidationInfo) -> bool:
        # A field validator (yolo is declared after approval_mode), so the error names a field
        # the caller set rather than the whole request.
        mode = info.data.get("approval_mode")
        if value and mode not in (None, "yolo"):
            raise ValueError(f"conflicts with approval_mode={mode!r}; set one of them")
        return value

    @property
    def effective_approval_mode(self) -> ApprovalMode | None:
        """The mode sent to the CLI (``yolo=True`` is ``"yolo"``)."""
        return "yolo" if self.yolo else self.approval_mode


def build_argv(request: GeminiCodeRequest, extra: Sequence[str] = ()) -> list[str]:
    """The request's flags after the program; each flag and each value is its own element."""
    argv = [*extra, "--output-format", "stream-json", "--model", request.model]
    mode = request.effective_approval_mode
    if mode is not None:
        argv += ["--approval-mode", mode]
    if request.resume is not None:
        argv += ["--resume", request.resume]
    return argv
