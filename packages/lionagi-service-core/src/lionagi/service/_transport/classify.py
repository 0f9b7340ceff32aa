"""Turn provider error text (CLI stderr, error events) into a typed ProviderError (ADR-0030 D3).

Only generic text patterns live here: phrases several providers print. Vendor grammar such as
Gemini CLI exit codes belongs in the vendor package, which passes its own
:class:`ProviderErrorPattern` values through ``extra_patterns``; those are checked first, so
narrower vendor evidence wins over a generic phrase.

The text is redacted before it is searched or stored, and only a bounded tail is kept: stderr can
be 256 KiB and may echo a key back.

:func:`classify_stream_error` applies the same rules to a provider-declared error chunk (its text
plus the ``code``/``type`` metadata), falls back to the reported HTTP ``status``, then to a generic
server-fault code (:data:`SERVER_FAULT_CODES`), and returns the ``ProviderStream*`` twin of the
family, so a 401 is a ProviderAuthError whether the CLI reported it by exit code, on stderr or as
an error event.
"""

from __future__ import annotations

import math
import re
import signal
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._base.errors import (
    ProviderAuthError,
    ProviderBudgetLimitError,
    ProviderCapabilityError,
    ProviderCapacityError,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderContextError,
    ProviderDisconnectError,
    ProviderError,
    ProviderExecutableNotFound,
    ProviderInvalidRequestError,
    ProviderPermissionError,
    ProviderProcessError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderServerFaultError,
    ProviderStatusError,
    ProviderStreamAuthError,
    ProviderStreamBudgetLimitError,
    ProviderStreamCapabilityError,
    ProviderStreamCapacityError,
    ProviderStreamConfigError,
    ProviderStreamConnectionError,
    ProviderStreamContentFilterError,
    ProviderStreamContextError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamPermissionError,
    ProviderStreamProtocolError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    ProviderStreamServerError,
    ProviderStreamTurnLimitError,
    ProviderStreamUnsupportedModelError,
    ProviderTurnLimitError,
    ProviderUnsupportedModelError,
)
from .._base.secrets import bounded, redact

__all__ = [
    "AUTH_CODES",
    "CLASSIFY_WINDOW",
    "DEFAULT_ERROR_PATTERNS",
    "SERVER_FAULT_CODES",
    "STDERR_TAIL_LIMIT",
    "STREAM_ERROR_CLASSES",
    "STREAM_STATUS_FAMILIES",
    "ProviderErrorPattern",
    "capability_named",
    "classify_provider_error",
    "classify_stream_error",
]

# Characters of text searched and kept as ``raw``: errors are printed last, so keep the tail.
CLASSIFY_WINDOW = 8 * 1024
# Characters of stderr kept on the error for diagnostics.
STDERR_TAIL_LIMIT = 4 * 1024
# Characters redacted before the window is cut (well above the 256 KiB stderr capture).
_REDACT_SCAN_LIMIT = 1024 * 1024
# Characters of the matched line quoted in the exception message.
_EXCERPT_LIMIT = 300

# Error classes whose constructors take something other than (message, stderr_tail=, raw=).
_UNCONSTRUCTIBLE = (ProviderStatusError, ProviderProcessError, ProviderExecutableNotFound)


@dataclass(frozen=True, slots=True)
class ProviderErrorPattern:
    """One classification rule: a case-insensitive regex and/or exit codes mapped to an error type.

    Args:
        kind: Short label of the failure family (`"quota"`, `"auth"`, ...).
        error_type: ProviderError subclass raised on a match; it must accept
            `(message, stderr_tail=, raw=)`.
        pattern: Regular expression searched case-insensitively in the redacted text.
        returncodes: Exit codes that match regardless of text (vendor exit-code grammars).
        summary: Human phrase used in the message; defaults to `kind`.
    """

    kind: str
    error_type: type[ProviderError]
    pattern: str | None = None
    returncodes: frozenset[int] = frozenset()
    summary: str = ""
    regex: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if self.pattern is None and not self.returncodes:
            raise ValueError(f"{self.kind}: a pattern needs a regex, return codes, or both")
        if not (isinstance(self.error_type, type) and issubclass(self.error_type, ProviderError)):
            raise TypeError(f"{self.kind}: error_type must be a ProviderError subclass")
        if issubclass(self.error_type, _UNCONSTRUCTIBLE):
            raise TypeError(
                f"{self.kind}: {self.error_type.__name__} needs extra constructor arguments; "
                "pick a class constructed as (message, stderr_tail=, raw=)"
            )
        object.__setattr__(self, "returncodes", frozenset(self.returncodes))
        if self.pattern is not None:
            object.__setattr__(self, "regex", re.compile(self.pattern, re.IGNORECASE))

    def search(self, text: str, returncode: int | None) -> re.Match[str] | bool:
        """Return the regex match, True for an exit-code-only match, or False."""
        if self.regex is not None:
            match = self.regex.search(text)
            if match is not None:
                return match
        return returncode is not None and returncode in self.returncodes


_SEP = r"[\s_.\-]?"

# What a "the model cannot do this" refusal names, in core's words (ProviderCapabilityError's
# ``capability``), and the wording each provider uses for it. A closed list on purpose: "does
# not support" alone also refuses a parameter ("does not support parameter 'temperature'"), a
# value ("'messages[0].role' does not support 'system' with this model") or an option mix
# (Ollama's "raw mode does not support template, system, or context"), which are the request's
# to fix, not the model's; none of those words is here.
_DOES_NOT_SUPPORT: tuple[tuple[str, str], ...] = (
    # Ollama's capability words (server/images.go ``errCapability*``: "tools", "thinking",
    # "insert", "vision", "audio", "embedding", "completion", "image generation"; its routes'
    # "does not support generate|chat" for a model that cannot complete), DeepSeek's
    # "deepseek-reasoner does not support Function Calling" (and gateways' "the requested model
    # does not support function calling"), Ollama's cloud and MLX models' "this model does not
    # support image input" (or "audio input"), Anthropic's "'<model>' does not support thinking.".
    ("tools", r"tools|tool (?:use|calling|calls)|function (?:calling|calls)"),
    ("thinking", r"thinking"),
    ("image_generation", r"image generation"),
    ("vision", r"vision|image input"),
    ("audio", r"audio(?: input)?"),
    ("embedding", r"embeddings?"),
    ("insert", r"insert"),
    ("completion", r"completions?|generate|chat"),
)
# Gemini's 400 INVALID_ARGUMENT "<feature> is not enabled for models/<name>" (a Gemma model
# asked for function calling, a system instruction or JSON mode).
_NOT_ENABLED: tuple[tuple[str, str], ...] = (
    ("tools", r"function calling"),
    ("system_instruction", r"developer instruction"),
    ("json_mode", r"json mode"),
)
# OpenRouter's 404 when no provider serving the model can do it ("No endpoints found that
# support tool use"); "... support the provided 'tool_choice' value" is a parameter, not listed.
_NO_ENDPOINTS: tuple[tuple[str, str], ...] = (
    ("tools", r"tool use"),
    ("vision", r"image input"),
)


def _named(words: tuple[tuple[str, str], ...], phrase: int) -> str:
    """An alternation of ``words``, each in a group named for its capability (and ``phrase``).

    The group's name is how :func:`capability_named` tells which word matched (one regex, so
    the classification and the name cannot disagree); a space matches any run of whitespace,
    as a CLI may wrap the line there.
    """
    return "|".join(f"(?P<{name}__{phrase}>{regex.replace(' ', _SPACE)})" for name, regex in words)


_SPACE = r"\s+"
_CAPABILITY = (
    rf"\bdoes\s+not\s+support\s+(?:{_named(_DOES_NOT_SUPPORT, 0)})\b"
    rf"|\b(?:{_named(_NOT_ENABLED, 1)})\s+is\s+not\s+enabled\s+for\s+models/"
    rf"|\bno\s+endpoints\s+found\s+that\s+support\s+(?:{_named(_NO_ENDPOINTS, 2)})\b"
    # OpenAI's 400 for an image sent to a text-only model ("Invalid content type. image_url is
    # only supported by certain models.").
    r"|\b(?P<vision__3>image_url)\s+is\s+only\s+supported\s+by\s+certain\s+models"
)
_CAPABILITY_REGEX = re.compile(_CAPABILITY, re.IGNORECASE)


def capability_named(text: str) -> str | None:
    """The capability a "the model cannot do this" text names, in core's words, else None.

    Read with the rule that classifies the text (``DEFAULT_ERROR_PATTERNS``' ``capability``),
    so a :class:`~lionagi.service.ProviderCapabilityError` names what the provider refused
    however it arrived: ``"tools"`` for Ollama's "does not support tools", DeepSeek's "does
    not support Function Calling" and Gemini's "Function calling is not enabled for models/...",
    ``"thinking"``, ``"vision"``, and so on. The first one when the text names several (Ollama
    puts each missing capability after the first on a line of its own).
    """
    match = _CAPABILITY_REGEX.search(text)
    if match is None or match.lastgroup is None:
        return None
    return match.lastgroup.rpartition("__")[0]


# Order matters: the first matching family wins (TABLES.md, "Provider error classification").
# Phrases beyond the inherited table are the texts the four reference CLIs (Codex, Claude Code,
# Gemini CLI, pi) print, or relay from their APIs, in captures and in their users' reports; the
# test fixtures name the source of each.
DEFAULT_ERROR_PATTERNS: tuple[ProviderErrorPattern, ...] = (
    # Before "quota": a spent quota's message often also holds the rate-limit words ("quota
    # exceeded", "resource exhausted"). Only wording that cannot mean "slow down" is here: a
    # phrase two vendors use for both (Google answers a per-minute limit with OpenAI's "You
    # exceeded your current quota, please check your plan and billing details") stays "quota".
    ProviderErrorPattern(
        "quota_exhausted",
        ProviderQuotaSpentError,
        # OpenAI's code for a spent balance or monthly budget (its docs: "run out of credits or
        # hit your maximum monthly spend"), relayed by codex, pi and compatible services, and
        # its hard billing limit; its message, told from Google's by OpenAI's own ending.
        rf"insufficient{_SEP}quota"
        rf"|billing{_SEP}hard{_SEP}limit{_SEP}reached"
        r"|exceeded your current quota, please check your plan and billing details\."
        r"\s*for more information on this error, read the docs"
        # Codex's own texts for the same code and for a workspace out of credits or at its
        # spend cap (codex-rs protocol/src/error.rs; codex itself never retries them).
        r"|quota exceeded\. check your plan and billing details"
        r"|\bis out of credits\b"
        r"|\bhit your spend cap\b"
        # Anthropic (through claude and pi) and prepaid services (DeepSeek's 402 "Insufficient
        # Balance").
        r"|\bbalance is too low"
        rf"|insufficient{_SEP}balance"
        # Gemini CLI's terminal daily quota (also relayed by pi), and Google's "limit: 0": a
        # model with no allowance at all on this tier, which no wait changes.
        r"|exhausted your daily quota"
        r"|quota exceeded for metric[^\n]{0,300}?\blimit:\s*0(?![.\d])",
        summary="quota or credit used up",
    ),
    ProviderErrorPattern(
        "quota",
        ProviderQuotaError,
        r"usage limit reached"
        rf"|rate{_SEP}limit{_SEP}(?:exceeded|reached|error)"
        r"|try again at \d"
        # Codex's ChatGPT-plan usage window ("You've hit your usage limit. ... purchase more
        # credits or try again at 3:05 PM."): it resets at the time it names, so it stays with
        # the rate limits, credits offered or not, as every variant of that message does.
        r"|hit your usage limit"
        r"|purchase more credits"
        # OpenAI's and Google's quota words: Google uses them for a per-minute limit too.
        r"|exceeded your current quota"
        rf"|quota{_SEP}exceeded"
        # Gemini's 429 wording and status.
        rf"|resource(?: has been)?{_SEP}exhausted"
        r"|exhausted your quota",
        summary="quota or rate limit exhausted",
    ),
    ProviderErrorPattern(
        "auth",
        ProviderAuthError,
        rf"invalid{_SEP}(?:x{_SEP})?api{_SEP}key"
        r"|not logged in"
        r"|\b401\b[^\n]{0,120}?unauthori[sz]ed"
        # Evidence beyond the inherited table: OpenAI's wording (seen through codex and pi) and
        # Google's (seen through gemini) for a refused key.
        r"|incorrect api key provided"
        r"|api key not valid"
        r"|api key expired"
        # Anthropic's error type and Claude Code's assistant-event error field.
        rf"|authentication{_SEP}(?:error|failed)"
        r"|oauth token has expired"
        # Gemini's status for a refused key, and both no-credential texts (gemini, pi).
        r"|\bunauthenticated\b"
        r"|please set an auth method"
        r"|no api key found",
        summary="authentication failed",
    ),
    ProviderErrorPattern(
        "context",
        ProviderContextError,
        rf"context{_SEP}(?:window|length){_SEP}(?:exceeded|(?:is{_SEP})?too{_SEP}long)"
        # Claude Code prints the bare phrase; the API adds the token counts.
        r"|prompt is too long"
        r"|ran out of room[^\n]{0,120}?context window"
        # OpenAI (codex, pi), Gemini and OpenAI-compatible servers.
        r"|exceeds the context window"
        r"|input token count[^\n]{0,80}?exceeds the maximum"
        r"|maximum context length is \d+"
        # Anthropic's 400 when the prompt plus ``max_tokens`` does not fit ("input length and
        # `max_tokens` exceed context limit: 193125 + 21333 > 200000"), relayed verbatim by
        # Claude Code, pi and gateways; vLLM-style servers' "is longer than the model's context
        # length".
        r"|exceeds? context limit"
        r"|longer than the model'?s context length"
        # Ollama's 400 (its OpenAI-compatible routes too): "the input length exceeds the context
        # length", older servers "input length exceeds maximum context length".
        r"|input length exceeds (?:the|maximum) context length",
        summary="context window exceeded",
    ),
    ProviderErrorPattern(
        "capacity",
        ProviderCapacityError,
        r"model is at capacity"
        # Anthropic's overloaded_error ("API Error: 529 Overloaded"), Gemini's "model is
        # overloaded".
        r"|\boverloaded",
        summary="model at capacity",
    ),
    ProviderErrorPattern(
        "unsupported_model",
        ProviderUnsupportedModelError,
        r"model is not supported"
        # OpenAI's 404 code for a model it does not serve, only as the whole code (a line of its
        # own, or the quoted value of a relayed body's ``code``: JSON or a Python dict's repr),
        # and its message; Claude Code's text for the same 404; Google's NOT_FOUND message
        # (relayed by gemini and pi); Ollama's and Anthropic's ``model "x" not found``.
        r"|(?:^|\n)model_not_found(?:\n|$)"
        r"""|["']code["']\s*:\s*["']model_not_found["']"""
        r"|\bthe model [^\n]{0,120}?does not exist or you do not have access to it"
        r"|issue with the selected model"
        r"|\bmodels/\S+ is not found for API version"
        r"""|\bmodel ["'][^"'\n]{1,200}["'] not found""",
        summary="model not supported",
    ),
    ProviderErrorPattern(
        "stream_disconnect",
        ProviderDisconnectError,
        r"stream disconnected before completion",
        summary="stream disconnected before completion",
    ),
    # The provider's API could not be reached at all: nothing answered the request. After the
    # disconnect family, whose texts may quote the same cause ("stream disconnected before
    # completion: ... Connection refused") and report a stream cut after it had started. Only
    # words that mean "could not connect" are here: Node's error codes for a refused
    # connection, a host name that did not resolve and a missing route, which Node-based CLIs
    # relay (Claude Code 2.1.332 quotes them, "Connection refused — a firewall or proxy may be
    # blocking it (ECONNREFUSED)", "Can't reach the API server — check your internet or DNS
    # (ENOTFOUND)"; Node's own messages read "connect ECONNREFUSED 127.0.0.1:9", "getaddrinfo
    # ENOTFOUND host"), and the phrase every runtime uses for a refused connection ("Connection
    # refused (os error 111)", "[Errno 111] Connection refused"). Never a reset (ECONNRESET), a
    # cut stream or a timeout: those may come after the provider started answering, and each
    # CLI's own words for them name the disconnect.
    ProviderErrorPattern(
        "connection",
        ProviderConnectionError,
        r"\bconnection refused\b"
        r"|\bE(?:CONNREFUSED|NOTFOUND|AI_AGAIN|NETUNREACH|NETDOWN|HOSTUNREACH|HOSTDOWN)\b",
        summary="could not connect to the provider",
    ),
    ProviderErrorPattern(
        "permission",
        ProviderPermissionError,
        r"auto[\s_\-]?denied"
        # Claude Code, when a tool needs a permission prompt it cannot show.
        r"|requested permissions? to [^\n]{0,200}?haven'?t granted it",
        summary="action auto-denied by the permission policy",
    ),
    ProviderErrorPattern(
        "content_filter",
        ProviderContentFilterError,
        # Codes, each only as the whole code/type label (a line of its own): Azure OpenAI's
        # ``content_filter`` (its 400 for a filtered prompt, also relayed in a stream's error
        # chunk) and OpenAI's ``content_policy_violation`` (also OpenRouter's 403 code).
        r"(?:^|\n)(?:content_filter|content_policy_violation)(?:\n|$)"
        # The same codes as the value of a relayed error object's ``code`` (JSON, or a Python
        # dict's repr as SDK-based gateways print it), where a CLI prints the response body.
        r"""|["']code["']\s*:\s*["'](?:content_filter|content_policy_violation)["']"""
        # Azure's inner error code, which gateways relay inside the message text, and its text.
        r"|\bResponsibleAIPolicyViolation\b"
        r"|triggering [^\n]{0,60}?content management policy"
        # OpenAI's safety-system refusal and Anthropic's filtered output (seen through claude).
        r"|rejected as a result of our safety system"
        r"|blocked by content filtering policy",
        summary="refused by the content filter",
    ),
    # Last: the weakest evidence, a phrase about the request rather than about the provider or
    # the account. Any narrower family the same text names wins (a spent quota, a refused key,
    # an over-long prompt, a model the provider does not serve at all, a content-filter
    # refusal): each of those is fixed another way, and "does not support tools" beside
    # "model 'x' not found" is moot. Only the closed capability list above matches, so a
    # refused parameter or value stays unclassified (a plain client error over HTTP).
    ProviderErrorPattern(
        "capability",
        ProviderCapabilityError,
        _CAPABILITY,
        summary="the model does not support what the request asks",
    ),
)

# The ProviderStream* twin of each family class; a vendor's own subclass maps through its family.
STREAM_ERROR_CLASSES: Mapping[type[ProviderError], type[ProviderStreamError]] = {
    ProviderQuotaError: ProviderStreamQuotaError,
    # Listed beside its parent: the lookup walks the family's MRO, so the spent-quota family
    # (and a vendor subclass of it) finds this twin before ProviderQuotaError's.
    ProviderQuotaSpentError: ProviderStreamQuotaExhaustedError,
    ProviderAuthError: ProviderStreamAuthError,
    ProviderContextError: ProviderStreamContextError,
    ProviderCapacityError: ProviderStreamCapacityError,
    ProviderServerFaultError: ProviderStreamServerError,
    ProviderUnsupportedModelError: ProviderStreamUnsupportedModelError,
    ProviderPermissionError: ProviderStreamPermissionError,
    ProviderContentFilterError: ProviderStreamContentFilterError,
    ProviderCapabilityError: ProviderStreamCapabilityError,
    # Listed beside its parent: the lookup walks the family's MRO, so a disconnect (itself a
    # connection error) finds its own twin first, and a refused connection finds this one.
    ProviderDisconnectError: ProviderStreamDisconnectError,
    ProviderConnectionError: ProviderStreamConnectionError,
    # Families no HTTP status names: an agentic CLI's refused input, its broken configuration
    # and the limits its caller set for the run (Gemini CLI's FatalInputError,
    # FatalConfigError, FatalTurnLimitedError; Claude Code's error_max_turns and
    # error_max_budget_usd results; a vendor's pattern names the family, usually through its
    # own subclass).
    ProviderInvalidRequestError: ProviderStreamInvalidRequestError,
    ProviderConfigError: ProviderStreamConfigError,
    ProviderTurnLimitError: ProviderStreamTurnLimitError,
    ProviderBudgetLimitError: ProviderStreamBudgetLimitError,
    # An agentic CLI's report that the API's stream it read broke its grammar (a vendor's
    # pattern names it): core's HTTP transport raises the family itself for its own streams.
    ProviderProtocolError: ProviderStreamProtocolError,
}

# Reported HTTP statuses that name a family when no text pattern matched (ADR-0029's status
# mapping: 401/403 refused credentials, 429 rate limit; 503 and Anthropic's 529 overloaded;
# 402 Payment Required, which the OpenAI dialect's HTTP mapping reads as a spent quota too;
# 500, 502 and 504, the transient server faults the policy retries when sent as a status).
STREAM_STATUS_FAMILIES: Mapping[int, tuple[str, type[ProviderError]]] = {
    401: ("auth", ProviderAuthError),
    402: ("quota_exhausted", ProviderQuotaSpentError),
    403: ("auth", ProviderAuthError),
    429: ("quota", ProviderQuotaError),
    500: ("server", ProviderServerFaultError),
    502: ("server", ProviderServerFaultError),
    503: ("capacity", ProviderCapacityError),
    504: ("server", ProviderServerFaultError),
    529: ("capacity", ProviderCapacityError),
}

SERVER_FAULT_CODES: frozenset[str] = frozenset(
    {"server_error", "api_error", "internal_error", "timeout_error"}
)
"""Error codes/types naming a transient server fault, matched as whole labels (any case).

OpenAI's ``server_error`` (a Responses ``response.failed``, a chat stream's error object, and the
OpenAI-compatible servers relaying its shape), Anthropic's ``api_error`` and ``timeout_error``
(its in-stream forms of an HTTP 500 and 504) and the generic ``internal_error``. The weakest
evidence an error chunk carries, so it is read last: the text patterns and a reported status name
a narrower family first (an overloaded model whose code is ``server_error`` is capacity, as is a
503 with that code). Only the chunk's ``code``/``type`` labels are compared, never its message:
"server_error" inside a longer code or a sentence names nothing."""

AUTH_CODES: frozenset[str] = frozenset({"permission_error"})
"""Error codes/types naming credentials the provider refused, matched like `SERVER_FAULT_CODES`.

Anthropic's ``permission_error``: the in-stream form of its HTTP 403 ("your API key does not have
permission to use the specified resource"), which a status names ``auth`` (401/403). An error
event inside a stream that began with a 200 carries no status, nor does an agentic CLI that
relays it, so without this label it was a plain stream error: never the ``ProviderAuthError``
family a caller handles by fixing the key. Read at the same point as the server-fault codes,
after the text patterns and a reported status."""


def _first_match(
    text: str,
    returncode: int | None,
    extra_patterns: Sequence[ProviderErrorPattern],
    *,
    reached: bool = False,
) -> tuple[ProviderErrorPattern, re.Match[str] | bool] | None:
    """The first rule matching ``text``, and its match; ``reached`` skips the unreached families.

    ``reached``: the text is the answer of the provider the request went to, so a rule whose
    family says the provider was never reached (:func:`_means_unreached`) cannot describe it.
    """
    for rule in (*extra_patterns, *DEFAULT_ERROR_PATTERNS):
        if reached and _means_unreached(rule.error_type):
            continue
        found = rule.search(text, returncode)
        if found:
            return rule, found
    return None


def _means_unreached(family: type[ProviderError]) -> bool:
    """Whether ``family`` means the caller never reached the provider at all.

    True for the connection family (``ProviderConnectionError``: the connection could not be
    made, so nothing answered), false for its disconnect branch (``ProviderDisconnectError``:
    a connection was made and cut, possibly after the provider began answering) and for every
    other family.

    Why it matters: text that the provider itself sent (an HTTP status, a response body, a
    remote agent's reply) proves the provider was reached, so a "could not connect" rule
    matching words in it describes a failure behind the provider, not the caller's own. An
    OpenAI-compatible gateway relaying "Connection refused" from its upstream inside a 502 is
    that gateway's server fault (retried only under ``retry_server_errors``), not a connection
    the caller failed to make (always retried before output); :func:`_first_match` skips such
    rules for that text.
    """
    return issubclass(family, ProviderConnectionError) and not issubclass(
        family, ProviderDisconnectError
    )


def classify_provider_error(
    text: str,
    *,
    returncode: int | None = None,
    stderr_tail: str = "",
    provider: str | None = None,
    extra_patterns: Sequence[ProviderErrorPattern] = (),
    secrets: Iterable[str] = (),
) -> ProviderError:
    """Return (not raise) the most specific ProviderError for a provider's error text.

    `extra_patterns` are tried first, then `DEFAULT_ERROR_PATTERNS`, each over the
    redacted tail of `text` followed by `stderr_tail`. With no match the result is
    `ProviderProcessError` when `returncode` is given, else the base
    `ProviderError`. A matched error still records `returncode`.

    Args:
        text: Provider error text (an error event's message, or stderr itself).
        returncode: Exit code of a finished CLI process, if any.
        stderr_tail: Captured stderr; kept (redacted, bounded) on the error.
        provider: Provider key used in the message.
        extra_patterns: Vendor rules, checked before the generic ones.
        secrets: Known secret values (e.g. the key handed to the CLI) to redact verbatim.
    """
    secret_values = tuple(secrets)
    raw = _redacted_tail(text, CLASSIFY_WINDOW, secret_values)
    tail = _redacted_tail(stderr_tail, STDERR_TAIL_LIMIT, secret_values)
    searched = raw
    if tail and tail not in raw:
        searched = f"{raw}\n{tail}" if raw else tail
    label = provider or "provider"

    matched = _first_match(searched, returncode, extra_patterns)
    if matched is not None:
        rule, found = matched
        excerpt = _excerpt(searched, found if isinstance(found, re.Match) else None)
        message = f"{label}: {rule.summary or rule.kind}"
        if returncode is not None:
            message += f" (exit code {returncode})"
        if excerpt:
            message += f": {excerpt}"
        error = rule.error_type(message, stderr_tail=tail, raw=raw)
        error.returncode = returncode
        _name_capability(error, searched)
        return error

    excerpt = _excerpt(searched, None)
    if returncode is not None:
        message = f"{label}: {_ended(returncode)}"
        message += f": {excerpt}" if excerpt else ""
        return ProviderProcessError(message, returncode=returncode, stderr_tail=tail, raw=raw)
    return ProviderError(f"{label}: {excerpt or 'failed without an error message'}", raw=raw)


def _ended(returncode: int) -> str:
    """How the process ended: a negative return code is the signal that killed it (asyncio)."""
    if returncode >= 0:
        return f"process exited with code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return f"process was killed by {name} (return code {returncode})"


def classify_stream_error(
    message: str | None,
    metadata: Mapping[str, Any] | None = None,
    *,
    provider: str | None = None,
    extra_patterns: Sequence[ProviderErrorPattern] = (),
    secrets: Iterable[str] = (),
    reached: bool = False,
) -> ProviderStreamError:
    """Return (not raise) the ProviderStreamError for a provider-declared error chunk.

    The chunk's text and its `code` and `type` metadata are searched with `extra_patterns` then
    `DEFAULT_ERROR_PATTERNS` (the rules stderr is classified with), except that a chunk from a
    provider that was reached (`reached`, or a reported HTTP `status`) is never the "could not
    connect" family: its text quotes a failure behind the provider. When no rule matches, a
    reported HTTP `status` decides (401/403 auth, 402 spent quota, 429 quota, 503/529 capacity,
    500/502/504 server fault); failing both, a whole `code` or `type` in `SERVER_FAULT_CODES`
    (`server_error`, `api_error`, `internal_error`, `timeout_error`) is a server fault
    (`ProviderStreamServerError`, retryable), and one in `AUTH_CODES` (`permission_error`) the
    auth family (`ProviderStreamAuthError`). A classified error is the family's stream twin
    (e.g. `ProviderStreamAuthError`, also a `ProviderAuthError`; a spent quota
    `ProviderStreamQuotaExhaustedError`); otherwise it is `ProviderStreamError` itself. The
    message is the redacted, bounded chunk text; `status`, `code`, `retry_after` (seconds),
    `provider` and `kind` are set from the chunk where it carries them.

    Args:
        message: The error chunk's content.
        metadata: The error chunk's metadata; `status`, `code`, `type` and
            `retry_after` are read, anything else is ignored.
        provider: Provider key recorded on the error.
        extra_patterns: Vendor rules, checked before the generic ones.
        secrets: Known secret values (e.g. the endpoint's key) to redact verbatim.
        reached: The chunk is the answer of the provider the request went to (an HTTP
            response's body or stream, a remote agent's reply), not a client's report of its
            own connection (an agentic CLI's, an in-process agent's). An OpenAI-compatible
            server or Ollama relaying "connection refused" from behind it is a fault of
            that provider, never a connection the caller failed to make.
    """
    meta = metadata or {}
    secret_values = tuple(secrets)
    text = bounded(redact(message or "the provider reported an error", secret_values))
    status = _status_of(meta.get("status"))
    labels = [_label_of(meta.get(key)) for key in ("code", "type")]
    code = next((label for label in labels if label), None)
    searched = _redacted_tail(
        "\n".join([message or "", *(label for label in labels if label)]),
        CLASSIFY_WINDOW,
        secret_values,
    )
    kind: str | None = None
    family: type[ProviderError] | None = None
    matched = _first_match(searched, None, extra_patterns, reached=reached or status is not None)
    if matched is not None:
        kind, family = matched[0].kind, matched[0].error_type
    elif status is not None and status in STREAM_STATUS_FAMILIES:
        kind, family = STREAM_STATUS_FAMILIES[status]
    elif any(label.casefold() in SERVER_FAULT_CODES for label in labels if label):
        kind, family = "server", ProviderServerFaultError
    elif any(label.casefold() in AUTH_CODES for label in labels if label):
        kind, family = "auth", ProviderAuthError
    error_type = _stream_class_of(family)
    error = error_type(
        text,
        raw=searched,
        status=status,
        code=redact(code, secret_values) if code else None,
        retry_after=_seconds_of(meta.get("retry_after")),
        provider=provider,
        kind=kind if error_type is not ProviderStreamError else None,
    )
    _name_capability(error, searched)
    return error


def _name_capability(error: ProviderError, text: str) -> None:
    """Set ``capability`` on a capability-family error that does not name one yet.

    Core's rule or a vendor's own pattern may have picked the family; either way the name is
    read from the (redacted) text the classification searched, in core's words.
    """
    if isinstance(error, ProviderCapabilityError) and error.capability is None:
        error.capability = capability_named(text)


def _stream_class_of(family: type[ProviderError] | None) -> type[ProviderStreamError]:
    """The twin of ``family`` (or of the nearest family it subclasses); the base class if none."""
    if family is None:
        return ProviderStreamError
    for cls in family.__mro__:
        twin = STREAM_ERROR_CLASSES.get(cls)
        if twin is not None:
            return twin
    return ProviderStreamError


def _status_of(value: object) -> int | None:
    """An HTTP status from an int or a digit string; anything else (bools included) is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and 100 <= value <= 599:
        return value
    return None


def _label_of(value: object) -> str | None:
    """A short code/type label; numbers are written out, other shapes are not labels."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | str):
        label = str(value).strip()
        return label[:_EXCERPT_LIMIT] or None
    return None


def _seconds_of(value: object) -> float | None:
    """A non-negative, finite delay in seconds from a number or numeric string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value) and value >= 0:
        return float(value)
    return None


def _redacted_tail(text: str, limit: int, secrets: tuple[str, ...]) -> str:
    """Redact, then keep the last ``limit`` characters.

    Redaction runs before the cut, over up to :data:`_REDACT_SCAN_LIMIT` characters (stderr is
    captured up to 256 KiB), so a key straddling the kept window is replaced whole instead of
    leaving an unrecognizable fragment.
    """
    if not text:
        return ""
    return redact(text[-_REDACT_SCAN_LIMIT:], secrets)[-limit:]


def _excerpt(text: str, match: re.Match[str] | None) -> str:
    """Quote the matched line (or the last non-empty line) bounded to a readable length."""
    if match is None:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        line = lines[-1] if lines else ""
        return line if len(line) <= _EXCERPT_LIMIT else "..." + line[-_EXCERPT_LIMIT:]
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    end = len(text) if end == -1 else end
    half = _EXCERPT_LIMIT // 2
    lo = max(start, match.start() - half)
    hi = min(end, match.end() + half)
    quoted = text[lo:hi].strip()
    return ("..." if lo > start else "") + quoted + ("..." if hi < end else "")
