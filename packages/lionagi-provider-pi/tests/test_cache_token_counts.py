"""Telemetry's token counts of pi's usage include its cache reads and writes.

pi's ``input`` leaves out ``cacheRead`` and ``cacheWrite`` whatever the model's vendor reports
(its ``totalTokens`` is their sum with ``output``); the GenAI conventions' input count includes
the cached tokens, so the endpoint adds them back and reports each on its own.
"""

from __future__ import annotations

from lionagi.providers.pi import PiCliEndpoint


def test_input_includes_cache_reads_and_writes() -> None:
    usage = {
        "input": 120,
        "output": 30,
        "cacheRead": 8,
        "cacheWrite": 2,
        "totalTokens": 160,
        "cost": 0.01,
    }
    counts = PiCliEndpoint().token_counts(usage)
    assert counts == (130, 30)
    assert counts[0] + counts[1] == usage["totalTokens"]
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", None)) == (8, 2)


def test_a_record_without_cache_counts_reports_none() -> None:
    counts = PiCliEndpoint().token_counts({"input": 12, "output": 3})
    assert counts == (12, 3)
    assert (getattr(counts, "cache_read", 0), getattr(counts, "cache_creation", 0)) == (None, None)
