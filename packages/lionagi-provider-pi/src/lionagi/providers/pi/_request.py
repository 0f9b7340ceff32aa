"""The typed pi request and its argv: every flag and value a separate element, no prompt.

Sessions: a run is saved (pi's default) so its id can be resumed with ``--session <id>``;
``ephemeral=True`` adds ``--no-session`` and the id is then only observed.

Thinking shorthand: pi's own ``--model <pattern>:<level>`` is split here, at validation, into
``model`` and ``thinking`` (so the argv says ``--model <pattern> --thinking <level>``), because
through a deployment gateway the adapter declares the model in ``models.json`` itself: declared
whole, ``sonnet:high`` was a model id pi matched exactly and sent to the gateway, and the
gateway's ``--thinking off`` default overrode the level.

System prompts: pi reads the value of ``--system-prompt`` / ``--append-system-prompt`` as a file
path whenever that path exists, so the caller's text never goes into argv; the endpoint writes it
to run-owned files (see ``_prompt_files``) and the argv names those.

pi's option parser has no ``--`` separator (``--`` is read as an unknown extension flag that
swallows the next word) and treats any word starting with ``-`` as an option, so the prompt
never goes into argv: the endpoint writes it to stdin, which pi reads to EOF in print mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from lionagi.service import EFFORT_LEVELS

from ._static import DEFAULT_MODEL as DEFAULT_MODEL
from ._static import THINKING_LEVELS as THINKING_LEVELS

if TYPE_CHECKING:
    from ._prompt_files import PromptFiles

__all__ = [
    "DEFAULT_MODEL",
    "THINKING_LEVELS",
    "PiRequest",
    "ThinkingLevel",
    "pi_arguments",
    "split_thinking_suffix",
]


ThinkingLevel = Literal["none", "off", "minimal", "low", "medium", "high", "xhigh"]

_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.:/@+-]*$"
_SESSION_ID = r"^[0-9A-Za-z][0-9A-Za-z-]*$"  # a (partial) UUID, never a path or an option
# Suffix words read as a thinking level (any case): pi's own and every effort spelling core
# knows. Only pi's, in lower case, are accepted; the others are refused rather than left in the
# model id, where pi would report "model not found" or (given a provider) run a made-up id.
_LEVEL_WORDS = frozenset((*THINKING_LEVELS, *EFFORT_LEVELS))


def split_thinking_suffix(model: str) -> tuple[str, str | None]:
    """``(model, level)`` for pi's ``<model>:<level>`` shorthand; ``(model, None)`` without one.

    The level is the text after the last ``:`` when it is one of :data:`THINKING_LEVELS`
    (``none`` is core's spelling of pi's ``off``). Any other suffix stays part of the id, as pi
    itself keeps one (OpenRouter's ``:free``, ``:exacto``).

    Raises:
        ValueError: the suffix is a level word pi does not accept (``max``, ``ultra``, or a
            level not in lower case), or nothing is left of the model before it.
    """
    base, colon, suffix = model.rpartition(":")
    if not colon or suffix.lower() not in _LEVEL_WORDS:
        return model, None
    if suffix not in THINKING_LEVELS:
        raise ValueError(
            f"':{suffix}' is not a pi thinking level; the suffix after ':' must be one of "
            f"{', '.join(THINKING_LEVELS)} (lower case)"
        )
    if not base or base.endswith(("/", ":")):
        raise ValueError(f"':{suffix}' names a thinking level but no model before it")
    return base, suffix


class PiRequest(BaseModel):
    """What one ``pi --mode json`` run accepts.

    Attributes:
        prompt: The user message (sent on stdin; pi strips leading/trailing whitespace).
        model: ``--model`` (an id, ``provider/id``, or a pattern pi resolves). pi's
            ``<model>:<level>`` shorthand is accepted and split at validation: ``model`` keeps
            the part before the ``:`` and the level becomes ``thinking`` (see
            :func:`split_thinking_suffix`); a ``thinking`` that names another level is refused.
        provider: ``--provider``; refused together with a deployment gateway, which names its
            own provider.
        thinking: ``--thinking`` level; ``none`` is sent as ``off``.
        tools: ``--tools`` allowlist (comma-joined), e.g. ``["read", "grep"]`` for read-only.
        no_tools: ``--no-tools``: offer the model no tools at all.
        system_prompt: ``--system-prompt`` (replaces pi's coding-assistant prompt). Always
            text: pi is given a run-owned file holding it, never the value itself, which pi
            would read as a path to upload whenever a file of that name exists.
        append_system_prompt: one ``--append-system-prompt`` per item, text like
            ``system_prompt``.
        no_context_files: ``--no-context-files``: skip AGENTS.md / CLAUDE.md discovery.
        no_extensions: ``--no-extensions --no-skills --no-prompt-templates``: load nothing the
            agent dir or the repository would add.
        resume: ``--session <id>``: continue the saved pi session with that id (injected by
            ``iModel`` from the last confirmed one).
        ephemeral: ``--no-session``: save nothing; the run's id is then not resumable.
        repo: Working directory (default: the deployment ``cwd``).
        workspace: A directory inside ``repo`` to run in (containment-checked).

    Every field is strict about its type, so a wrong-typed value is refused naming the field
    instead of being coerced: in pydantic's lax mode ``no_tools="yes"`` (or ``"on"``, or ``1``)
    sent ``--no-tools``, ``ephemeral="no"`` was ``False`` and ``b"..."`` was decoded as text.
    Flags take ``True``/``False`` only. The strictness is per field rather than ``strict=True``
    on the model, which would also refuse a tuple for the list fields (``tools=("read",)``);
    their items are strict strings.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    prompt: StrictStr = Field(min_length=1)
    model: StrictStr | None = Field(default=None, min_length=1, pattern=_NAME)
    provider: StrictStr | None = Field(default=None, min_length=1, pattern=_NAME)
    thinking: ThinkingLevel | None = None
    tools: list[StrictStr] | None = None
    no_tools: StrictBool = False
    system_prompt: StrictStr | None = None
    append_system_prompt: list[StrictStr] = Field(default_factory=list)
    no_context_files: StrictBool = False
    no_extensions: StrictBool = False
    resume: StrictStr | None = Field(
        default=None, min_length=1, max_length=128, pattern=_SESSION_ID
    )
    ephemeral: StrictBool = False
    repo: StrictStr | None = None
    workspace: StrictStr | None = None

    @field_validator("model")
    @classmethod
    def _model_thinking_suffix(cls, value: str | None) -> str | None:
        if value is not None:
            split_thinking_suffix(value)  # refuses a level pi cannot honour, naming "model"
        return value

    @field_validator("thinking")
    @classmethod
    def _thinking_agrees_with_the_model_suffix(
        cls, value: str | None, info: ValidationInfo
    ) -> str | None:
        model = info.data.get("model")
        if value is None or not isinstance(model, str):
            return value
        _, suffix = split_thinking_suffix(model)
        if suffix is not None and _pi_level(suffix) != _pi_level(value):
            raise ValueError(
                f"{value!r} conflicts with the model's ':{suffix}' thinking suffix; "
                "set the level once"
            )
        return value

    @field_validator("tools")
    @classmethod
    def _tool_names(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        for name in value:
            if not name or "," in name or name != name.strip() or name.startswith("-"):
                raise ValueError("each tool name is one non-empty word without ',' or a leading -")
        return value

    @model_validator(mode="after")
    def _resume_needs_a_saved_session(self) -> PiRequest:
        if self.ephemeral and self.resume is not None:
            raise ValueError("ephemeral=True saves no session, so it cannot resume one")
        return self

    @model_validator(mode="after")
    def _split_model_thinking(self) -> PiRequest:
        """Move a ``:<level>`` model suffix to ``thinking`` (the field validators checked it).

        Done once here so everything downstream (argv, the gateway's ``models.json``, its
        ``--thinking off`` default) sees the bare model id and the level; a second validation
        of the result finds no suffix and changes nothing.
        """
        if self.model is not None:
            base, suffix = split_thinking_suffix(self.model)
            if suffix is not None:
                self.model = base
                if self.thinking is None:
                    self.thinking = cast(ThinkingLevel, suffix)  # one of THINKING_LEVELS
        return self


def pi_arguments(
    request: PiRequest, *, provider: str | None, prompt_files: PromptFiles | None = None
) -> list[str]:
    """The flags after the program for ``request``; ``provider`` overrides ``request.provider``.

    Every valued flag used here consumes its next word unconditionally in pi's parser, so a
    value starting with ``-`` stays a value; model and provider names are pattern-checked anyway.
    The system-prompt flags name ``prompt_files`` (written from this request), never the text.

    Raises:
        ValueError: the request has system-prompt text but ``prompt_files`` does not hold it
            (the endpoint writes them for each run; argv alone cannot carry the text safely).
    """
    argv = ["--mode", "json"]
    if request.ephemeral:
        argv.append("--no-session")
    elif request.resume is not None:
        argv += ["--session", request.resume]
    chosen = provider if provider is not None else request.provider
    if chosen:
        argv += ["--provider", chosen]
    if request.model:
        argv += ["--model", request.model]
    if request.thinking is not None:
        argv += ["--thinking", _pi_level(request.thinking)]
    if request.no_tools:
        argv.append("--no-tools")
    elif request.tools is not None:
        argv += ["--tools", ",".join(request.tools)]
    argv += _system_prompt_arguments(request, prompt_files)
    if request.no_context_files:
        argv.append("--no-context-files")
    if request.no_extensions:
        argv += ["--no-extensions", "--no-skills", "--no-prompt-templates"]
    return argv


def _pi_level(level: str) -> str:
    """The spelling pi uses for a level: core's ``none`` is pi's ``off``."""
    return "off" if level == "none" else level


def _system_prompt_arguments(request: PiRequest, files: PromptFiles | None) -> list[str]:
    """``--system-prompt``/``--append-system-prompt`` naming the files that hold the text."""
    wanted = (request.system_prompt is not None, len(request.append_system_prompt))
    if not any(wanted):
        return []
    if files is None or ((files.system is not None), len(files.append)) != wanted:
        raise ValueError(
            "pi reads a system-prompt value as a file path when one exists, so its text is "
            "passed only through run-owned files; run the request through the endpoint"
        )
    argv: list[str] = []
    if files.system is not None:
        argv += ["--system-prompt", str(files.system)]
    for path in files.append:
        argv += ["--append-system-prompt", str(path)]
    return argv
