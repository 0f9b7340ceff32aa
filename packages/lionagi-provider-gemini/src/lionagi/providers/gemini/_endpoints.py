"""Gemini's two endpoint classes: chat through the compatibility layer, and native generation.

``GeminiChat`` speaks the OpenAI chat-completions dialect at ``.../v1beta/openai`` (core's
:class:`OpenAIChatEndpoint`); it adds Gemini's error objects and nests the typed ``google``
options under the literal ``extra_body`` key the layer reads. Its stream is core's chat grammar
(:class:`GeminiChatProjector`) reading a relayed Google error object's daily-quota detail.

``GeminiEmbeddings`` is the layer's ``.../v1beta/openai/embeddings`` (core's
:class:`OpenAIEmbeddingsEndpoint`, one-shot only), with the same error reading as chat.

``GeminiGenerateContent`` speaks the native API. Its URL names the model and differs for
streams (``models/{model}:generateContent`` one-shot, ``models/{model}:streamGenerateContent
?alt=sse`` streamed), so it routes each request itself (:meth:`request_target`): the model is
taken out of the body and put in the path. The key travels in the ``x-goog-api-key`` header
(``auth_type="x-api-key"`` with this class's ``api_key_header``), never in the query string,
so it cannot end up in a logged URL. A one-shot body is checked before it is returned
(:meth:`GeminiGenerateContent.checked_response`): a prompt refused outright (HTTP 200 with
``promptFeedback.blockReason`` and no candidate) or an error object answered with a 200 fails
the call with the error the stream raises for the same content, never an empty success. A
blocked prompt is a :class:`~lionagi.service.ProviderStreamContentFilterError` either way (the
endpoint's ``error_patterns``), and a used-up daily quota a
:class:`~lionagi.service.ProviderStreamQuotaExhaustedError` (never retried), as its HTTP status
form is a :class:`~lionagi.service.ProviderQuotaExhaustedError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lionagi.service import (
    Endpoint,
    EndpointConfigurationError,
    ProviderContentFilterError,
    ProviderError,
    ProviderProtocolError,
)
from lionagi.service.http import (
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    OpenAIEmbeddingsEndpoint,
    ProviderErrorPattern,
    StreamFraming,
    StreamProjector,
    TokenCounts,
    estimate_tokens,
    excerpt,
    first_count,
    json_kind,
    sum_counts,
)

from ._errors import BLOCKED_PROMPT_TYPE, DAILY_QUOTA_PATTERN, gemini_status_error
from ._projector import GeminiChatProjector, GeminiStreamProjector, blocked_prompt_error
from ._request_base import model_path_segment

if TYPE_CHECKING:
    import httpx

__all__ = [
    "GeminiBatchEmbedContents",
    "GeminiChat",
    "GeminiEmbedContent",
    "GeminiEmbeddings",
    "GeminiGenerateContent",
]

# The GenAI semantic conventions' value of ``gen_ai.provider.name`` for the Gemini Developer API
# (AI Studio); spans would otherwise carry the key ``gemini``, which no backend recognises.
_OTEL_PROVIDER_NAME = "gcp.gemini"


def model_route(payload: Mapping[str, Any], method: str) -> tuple[str, dict[str, Any]]:
    """``models/{model}:<method>`` for the payload's model, and the body without ``model``.

    The native API names the model in the path, never in the body; every native row routes
    its requests this way.

    Raises:
        EndpointConfigurationError: the payload has no model, or one that is not a single
            path segment (``field="model"``).
    """
    model = payload.get("model")
    if not isinstance(model, str) or not model.strip():
        raise EndpointConfigurationError(
            "model", "is required: it names the model in the request path"
        )
    try:
        name = model_path_segment(model)
    except ValueError as exc:
        raise EndpointConfigurationError("model", str(exc)) from None
    body = {key: value for key, value in payload.items() if key != "model"}
    return f"models/{name}:{method}", body


class GeminiChat(OpenAIChatEndpoint):
    """``POST .../v1beta/openai/chat/completions`` (bearer key)."""

    otel_provider_name: ClassVar[str | None] = _OTEL_PROVIDER_NAME
    projector: ClassVar[type[StreamProjector] | None] = GeminiChatProjector
    # A relayed daily quota (the projector's label): not retried, as over HTTP.
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (DAILY_QUOTA_PATTERN,)

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """Send the ``google`` options as ``extra_body.google``, where the layer reads them.

        A literal ``extra_body`` body key can also arrive through core's escape hatch
        (``extra_body={"extra_body": {...}}``, the double nesting Google's OpenAI-SDK examples
        show). Its other keys are kept beside ``google`` rather than overwritten; a ``google``
        inside it is refused, since it would bypass the validation of the ``google`` field.

        Raises:
            EndpointConfigurationError: the escape hatch's ``extra_body`` is not a mapping
                (``field="extra_body.extra_body"``) or holds ``google``
                (``field="extra_body.extra_body.google"``).
        """
        if "google" not in payload and "extra_body" not in payload:
            return None, payload
        nested: dict[str, Any] = {}
        if "extra_body" in payload:
            given = payload["extra_body"]
            if not isinstance(given, Mapping):
                raise EndpointConfigurationError(
                    "extra_body.extra_body",
                    "must be a mapping: it is sent as the body's literal 'extra_body' object",
                )
            if "google" in given:
                raise EndpointConfigurationError(
                    "extra_body.extra_body.google",
                    "is the request field 'google': pass google={...} so it is validated",
                )
            nested.update(given)
        body = {k: v for k, v in payload.items() if k != "google"}
        if "google" in payload:
            nested["google"] = payload["google"]
        body["extra_body"] = nested
        return None, body

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """OpenAI-dialect codes first, then Gemini's ``google.rpc.Status`` body."""
        return super().map_status_error(info) or gemini_status_error(info)


class GeminiEmbeddings(OpenAIEmbeddingsEndpoint):
    """``POST .../v1beta/openai/embeddings`` (bearer key); ``stream()`` is refused."""

    otel_provider_name: ClassVar[str | None] = _OTEL_PROVIDER_NAME

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """As chat: OpenAI-dialect codes first, then Gemini's ``google.rpc.Status`` body."""
        return super().map_status_error(info) or gemini_status_error(info)


class GeminiGenerateContent(Endpoint):
    """``POST .../v1beta/models/{model}:generateContent`` (and ``:streamGenerateContent``)."""

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """Gemini's ``usageMetadata`` (a stream's result usage, or inside a one-shot body).

        Output is ``candidatesTokenCount`` plus ``thoughtsTokenCount``: Gemini bills a thinking
        model's thoughts as output tokens, and counts them apart from the answer's (the
        thoughts are also the reasoning count). Input is ``promptTokenCount`` plus
        ``toolUsePromptTokenCount``: what a built-in tool (Google Search, URL context, code
        execution) fed back to the model is billed as input but left out of the prompt count
        (``totalTokenCount`` is the sum of all four); without it a grounded call's input read
        a fraction of what was billed. The prompt count already includes a cached context's
        tokens, which ``cachedContentTokenCount`` breaks out (the cache read).
        """
        nested = usage.get("usageMetadata")
        record = nested if isinstance(nested, Mapping) else usage
        thoughts = first_count(record, "thoughtsTokenCount")
        return TokenCounts(
            sum_counts(
                first_count(record, "promptTokenCount"),
                first_count(record, "toolUsePromptTokenCount"),
            ),
            sum_counts(first_count(record, "candidatesTokenCount"), thoughts),
            cache_read=first_count(record, "cachedContentTokenCount"),
            reasoning=thoughts,
        )

    def response_facts(self, body: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
        """A one-shot body's ``modelVersion`` and each candidate's ``finishReason``, in order.

        The body names neither the way the chat dialect does, so without this an ``invoke()``
        span carried no model and no finish reason while the same call's stream (whose result
        chunk carries both) did.
        """
        model = body.get("modelVersion")
        reasons: list[str] = []
        candidates = body.get("candidates")
        if isinstance(candidates, list):
            for candidate in candidates:
                if isinstance(candidate, Mapping) and isinstance(
                    candidate.get("finishReason"), str
                ):
                    reasons.append(candidate["finishReason"])
        return (model if isinstance(model, str) else None), tuple(reasons)

    projector: ClassVar[type[StreamProjector] | None] = GeminiStreamProjector
    stream_framing: ClassVar[StreamFraming | None] = "sse"
    stream_flag: ClassVar[str | None] = None  # a stream is a different method, not a flag
    api_key_header: ClassVar[str] = "x-goog-api-key"
    otel_provider_name: ClassVar[str | None] = _OTEL_PROVIDER_NAME
    # A blocked prompt: the projector's error object of type ``prompt_blocked`` (the block
    # reason is its code). Every reason (SAFETY, OTHER, BLOCKLIST, ...) is the caller's content
    # refused, so it is the content-filter family: never retried, neutral for the circuit. The
    # type, not the reason, is matched: the reasons are words too common to search for.
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (
        ProviderErrorPattern(
            "content_filter",
            ProviderContentFilterError,
            rf"(?:^|\n){BLOCKED_PROMPT_TYPE}(?:\n|$)",
            summary="the prompt was blocked",
        ),
        # A used-up daily quota (the projector's label, from the QuotaFailure detail): the
        # spent-quota family, never retried, as ``gemini_status_error`` makes the HTTP 429.
        DAILY_QUOTA_PATTERN,
    )

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """``models/{model}:<method>`` for this payload's model; the body without ``model``.

        Raises:
            EndpointConfigurationError: the payload has no model, or one that is not a single
                path segment (``field="model"``).
        """
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return model_route(payload, method)

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Gemini's ``google.rpc.Status`` body, then the base's mapping."""
        return gemini_status_error(info) or super().map_status_error(info)

    def estimate_tokens(self, payload: Mapping[str, Any]) -> int | None:
        """Core's estimate over ``contents`` and ``systemInstruction``, where this API keeps text.

        Core's default reads chat ``messages``; a native request has none, so a token-limited
        model refused every call with ``TokenEstimateUnavailable``.
        """
        return estimate_tokens(payload, ("contents", "systemInstruction"))

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """A 2xx one-shot body through :meth:`checked_response` (core's hook for it)."""
        return self.checked_response(body)

    def checked_response(self, body: Any) -> dict[str, Any]:
        """``body`` when it is a ``GenerateContentResponse`` holding an answer; else the error.

        What the same content raises when it arrives as a stream, so ``invoke()`` and
        ``stream()`` fail alike. Every candidate's ``finishReason`` (``SAFETY`` and
        ``RECITATION`` included) is an answer: the body is returned as sent, for the caller to
        read.

        Raises:
            ProviderStreamContentFilterError: the prompt was refused outright
                (``promptFeedback.blockReason`` and no candidate; ``code`` is the block
                reason, the message names the blocking categories). Not retried, and neutral
                for the circuit: the same content is refused the same way.
            ProviderStreamError: the body is a Google error object answered with a 200
                (classified like the stream's error event); not retried.
            ProviderProtocolError: the body is not a JSON object, its ``candidates`` is not
                a list, or it holds no candidate and no block reason.
        """
        where = f"{self.config.provider} {self.config.endpoint}"
        if type(body) is not dict:
            raise ProviderProtocolError(
                f"{where}: the answer is not a GenerateContentResponse object "
                f"(got JSON {json_kind(body)})"
            )
        if "error" in body:
            raise self.error_object_error(body["error"])
        candidates = body.get("candidates")
        if candidates is None or candidates == []:
            feedback = body.get("promptFeedback")
            if isinstance(feedback, dict) and feedback.get("blockReason"):
                raise self.error_object_error(blocked_prompt_error(feedback))
            raise ProviderProtocolError(
                f"{where}: the answer has no candidate and no promptFeedback.blockReason saying why"
            )
        if type(candidates) is not list:
            raise ProviderProtocolError(f"{where}: the answer's 'candidates' is not a list")
        return body


class _GeminiNativeEmbeddings(Endpoint):
    """What the native embeddings rows share: one-shot only, the model in the path.

    No stream dialect (``projector`` is None): the API has no streamed form, so ``stream()``
    is refused with ``EndpointConfigurationError(field="stream")`` before any request, as the
    other embeddings rows refuse it, and no stream flag is ever sent. The key travels in
    ``x-goog-api-key`` as for ``generateContent``; a subclass names its ``method`` and reads
    its answer in :meth:`checked_response`.
    """

    method: ClassVar[str]
    batch: ClassVar[bool] = False  # one ``embedding`` answered, or a list of ``embeddings``
    projector: ClassVar[type[StreamProjector] | None] = None
    stream_flag: ClassVar[str | None] = None
    api_key_header: ClassVar[str] = "x-goog-api-key"
    otel_provider_name: ClassVar[str | None] = _OTEL_PROVIDER_NAME

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """``models/{model}:<method>``; the body without ``model`` (see :func:`model_route`)."""
        return model_route(payload, self.method)

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Gemini's ``google.rpc.Status`` body, then the base's mapping."""
        return gemini_status_error(info) or super().map_status_error(info)

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """Input tokens from a ``usageMetadata.promptTokenCount``, when the answer has one.

        An embedding has no output tokens. The Gemini API's embeddings answer documents no
        usage today; a body that carries one is read as ``generateContent``'s is, and one
        without records no count rather than a guess.
        """
        nested = usage.get("usageMetadata")
        record = nested if isinstance(nested, Mapping) else usage
        return TokenCounts(first_count(record, "promptTokenCount"), None)

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """A 2xx body through :meth:`checked_response` (core's hook for it)."""
        return self.checked_response(body)

    def checked_response(self, body: Any) -> dict[str, Any]:
        """``body`` when it holds the vectors asked for; else a protocol error.

        Raises:
            ProviderProtocolError: the body is not a JSON object, or lacks its vectors (an
                error object answered with a 200 included: its message is shown, redacted).
        """
        where = f"{self.config.provider} {self.config.endpoint}"
        if type(body) is not dict:
            raise ProviderProtocolError(
                f"{where}: the answer is not a JSON object (got JSON {json_kind(body)})"
            )
        if "error" in body:
            shown = excerpt(str(body["error"]), self._secrets(), 300)
            raise ProviderProtocolError(f"{where}: a 2xx answer holds an error object: {shown}")
        problem = self.missing_vectors(body)
        if problem is not None:
            raise ProviderProtocolError(f"{where}: {problem}")
        return body

    def missing_vectors(self, body: dict[str, Any]) -> str | None:
        """What the answer lacks, or None when its vectors are there.

        ``embedContent`` answers one ``embedding``, ``batchEmbedContents`` a list of
        ``embeddings`` (``batch``), each a ``{"values": [...]}`` object.
        """
        if not self.batch:
            if "embedding" not in body:
                return "the answer has no 'embedding'"
            return _no_values(body["embedding"], "the answer's 'embedding'")
        embeddings = body.get("embeddings")
        if type(embeddings) is not list:
            return "the answer has no 'embeddings' list"
        for index, embedding in enumerate(embeddings):
            problem = _no_values(embedding, f"the answer's embeddings[{index}]")
            if problem is not None:
                return problem
        return None


def _no_values(embedding: Any, where: str) -> str | None:
    """Why ``embedding`` is not a ``ContentEmbedding`` (``{"values": [...]}``), else None."""
    if type(embedding) is not dict:
        return f"{where} is not an object (got JSON {json_kind(embedding)})"
    if type(embedding.get("values")) is not list:
        return f"{where} has no 'values' list"
    return None


class GeminiEmbedContent(_GeminiNativeEmbeddings):
    """``POST .../v1beta/models/{model}:embedContent``: one content, one ``embedding``."""

    method: ClassVar[str] = "embedContent"

    def estimate_tokens(self, payload: Mapping[str, Any]) -> int | None:
        """Core's estimate over ``content`` and ``title``, the text the request embeds."""
        return estimate_tokens(payload, ("content", "title"))


class GeminiBatchEmbedContents(_GeminiNativeEmbeddings):
    """``POST .../v1beta/models/{model}:batchEmbedContents``: ``embeddings``, one per request."""

    method: ClassVar[str] = "batchEmbedContents"
    batch: ClassVar[bool] = True

    def estimate_tokens(self, payload: Mapping[str, Any]) -> int | None:
        """Core's estimate over every entry's ``content`` and ``title``.

        Only the text each entry embeds: the entries' ``model`` and options are not input.
        """
        entries = payload.get("requests")
        if not isinstance(entries, list):
            return None
        texts = {
            "content": [entry.get("content") for entry in entries if isinstance(entry, Mapping)],
            "title": [
                entry["title"]
                for entry in entries
                if isinstance(entry, Mapping) and "title" in entry
            ],
        }
        return estimate_tokens(texts, ("content", "title"))
