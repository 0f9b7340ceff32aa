"""Token counts read from a usage record, for telemetry.

Why a hook and not one table in telemetry: each vendor names its counts its own way (OpenAI's
``prompt_tokens``, Anthropic's ``input_tokens``, Gemini's ``promptTokenCount``, Ollama's
``prompt_eval_count``, pi's ``input``), and core names no vendor: ``Endpoint.token_counts``
reads the OpenAI and Anthropic spellings, and an endpoint whose vendor spells them otherwise
overrides it, reading with :func:`first_count`.

Cache and reasoning counts ride on the same hook: it may return a :class:`TokenCounts`, still
the ``(input, output)`` pair every caller unpacks, carrying the cache reads and writes and the
reasoning tokens beside it. The GenAI conventions count cached tokens inside
``gen_ai.usage.input_tokens`` and reasoning tokens inside ``gen_ai.usage.output_tokens``;
Anthropic's records (and pi's) report the cache apart from their input count, and Gemini its
thoughts apart from the answer's tokens, so those counts add them back with :func:`sum_counts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["TokenCounts", "default_token_counts", "first_count", "sum_counts"]


def first_count(record: Mapping[str, Any], *names: str) -> int | None:
    """The first of `names` in `record` holding a whole number (a bool is none)."""
    for name in names:
        value = record.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def sum_counts(*counts: int | None) -> int | None:
    """The sum of the counts present; None when none is (no count is not a count of 0)."""
    present = [count for count in counts if count is not None]
    return sum(present) if present else None


class TokenCounts(tuple[int | None, int | None]):
    """`(input, output)` token counts, with the cache and reasoning counts inside them.

    A tuple subclass, so it is what `Endpoint.token_counts` promises (`input, output =`
    and comparison with a pair still work) and an endpoint that knows no such counts keeps
    returning a plain pair. `cache_read` are input tokens served from a provider-managed
    cache, `cache_creation` input tokens written to one (telemetry's
    `gen_ai.usage.cache_read.input_tokens` / `gen_ai.usage.cache_creation.input_tokens`);
    `reasoning` are output tokens the model spent thinking before (or between) its answer
    (`gen_ai.usage.reasoning.output_tokens`). Each is None when the record does not report it.
    """

    cache_read: int | None
    cache_creation: int | None
    reasoning: int | None

    def __new__(
        cls,
        input_tokens: int | None,
        output_tokens: int | None,
        *,
        cache_read: int | None = None,
        cache_creation: int | None = None,
        reasoning: int | None = None,
    ) -> TokenCounts:
        counts = super().__new__(cls, (input_tokens, output_tokens))
        counts.cache_read = cache_read
        counts.cache_creation = cache_creation
        counts.reasoning = reasoning
        return counts

    def __getnewargs_ex__(self) -> tuple[tuple[int | None, int | None], dict[str, int | None]]:
        """What copy and pickle pass back to `__new__` (the extra counts are keywords)."""
        kwargs = {
            "cache_read": self.cache_read,
            "cache_creation": self.cache_creation,
            "reasoning": self.reasoning,
        }
        return (self[0], self[1]), kwargs

    def __repr__(self) -> str:
        return (
            f"TokenCounts({self[0]!r}, {self[1]!r}, cache_read={self.cache_read!r}, "
            f"cache_creation={self.cache_creation!r}, reasoning={self.reasoning!r})"
        )


def default_token_counts(usage: Mapping[str, Any]) -> TokenCounts:
    """The counts of a usage record in the OpenAI or Anthropic spelling, cache counts included.

    Both spellings are shared by several adapters (every OpenAI-compatible vendor; the Messages
    API and Claude Code), so they are read once here. Anthropic reports the cache reads and
    writes beside an `input_tokens` that leaves them out, and they are added back; OpenAI's
    `prompt_tokens` (chat) and `input_tokens` (Responses) already include the cached part,
    which their `*_tokens_details` break out. The reasoning count is OpenAI's
    `reasoning_tokens` in `completion_tokens_details` (chat) or `output_tokens_details`
    (Responses), already inside the output count; Anthropic's records have none.
    """
    output = first_count(usage, "output_tokens", "completion_tokens")
    done = usage.get("completion_tokens_details", usage.get("output_tokens_details"))
    reasoning = first_count(done, "reasoning_tokens") if isinstance(done, Mapping) else None
    read = first_count(usage, "cache_read_input_tokens")
    written = first_count(usage, "cache_creation_input_tokens")
    if read is not None or written is not None:
        counted = sum_counts(first_count(usage, "input_tokens"), read, written)
        return TokenCounts(
            counted, output, cache_read=read, cache_creation=written, reasoning=reasoning
        )
    details = usage.get("prompt_tokens_details", usage.get("input_tokens_details"))
    if isinstance(details, Mapping):
        read = first_count(details, "cached_tokens")
        written = first_count(details, "cache_write_tokens")
    return TokenCounts(
        first_count(usage, "input_tokens", "prompt_tokens"),
        output,
        cache_read=read,
        cache_creation=written,
        reasoning=reasoning,
    )
