"""Provider catalog benchmark (run by hand): snapshot build time and lookup latency.

    uv run python benchmarks/catalog_bench.py [--rounds 15] [--calls 20000]

Synthetic providers are in-memory modules (three API endpoints each, with aliases, a request
model and payload defaults), so the build figures measure validation, indexing and publication,
not disk imports. Entry-point discovery over the real environment is timed separately.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import types
from collections.abc import Callable

from pydantic import BaseModel

from lionagi.service import (
    Endpoint,
    EndpointType,
    ProviderCatalog,
    ProviderEndpointSpec,
    ProviderModelPolicy,
    ProviderModuleSpec,
    entry_point_inventory,
)
from lionagi.service._catalog.match import resolve


class ChatRequest(BaseModel):
    model: str = "m"
    messages: list[dict[str, object]] = []
    temperature: float | None = None
    max_tokens: int | None = None


def synthetic_inventory(n: int, tag: str) -> list[ProviderModuleSpec]:
    rows = []
    for i in range(n):
        name = f"bench_{tag}_{i}"
        module = types.ModuleType(name)
        specs = []
        for path, alias in (
            ("chat/completions", "chat"),
            ("embeddings", "embed"),
            ("rerank", "rr"),
        ):
            cls = type(f"{name}_{alias}", (Endpoint,), {})
            specs.append(
                ProviderEndpointSpec(
                    provider=f"p{i}",
                    endpoint=path,
                    endpoint_type=EndpointType.API,
                    endpoint_class=cls,
                    provider_aliases=(f"p{i}-ai", f"P{i}_AI"),
                    endpoint_aliases=(alias,),
                    request_options=ChatRequest,
                    request_defaults={"temperature": 0.2, "max_tokens": 256},
                    base_url=f"https://p{i}.example.test/v1",
                    api_key_env=f"P{i}_API_KEY",
                )
            )
        module.PROVIDER_SPECS = tuple(specs)  # type: ignore[attr-defined]
        module.MODEL_POLICIES = (  # type: ignore[attr-defined]
            ProviderModelPolicy(provider=f"p{i}", model_aliases={f"m{i}": f"p{i}/model"}),
        )
        sys.modules[name] = module
        rows.append(ProviderModuleSpec(provider=f"p{i}", module=name))
    return rows


def median_us(fn: Callable[[], object], calls: int) -> float:
    samples = []
    for _ in range(5):
        start = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter_ns() - start) / calls / 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()

    rows: list[tuple[str, str]] = []
    for n in (10, 100, 1000):
        inventory = synthetic_inventory(n, f"n{n}")
        catalog = ProviderCatalog(lambda inv=inventory: inv)  # type: ignore[misc]
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter_ns()
            catalog.refresh()
            times.append((time.perf_counter_ns() - start) / 1e6)
        rows.append(
            (
                f"snapshot build, {n} providers x 3 endpoints",
                f"{statistics.median(times):.2f} ms",
            )
        )

    start = time.perf_counter_ns()
    found = entry_point_inventory()
    rows.append(
        (
            f"entry_point_inventory() ({len(found)} rows installed)",
            f"{(time.perf_counter_ns() - start) / 1e6:.2f} ms",
        )
    )

    inventory = synthetic_inventory(100, "lookup")
    catalog = ProviderCatalog(lambda: inventory)
    snapshot = catalog.snapshot()
    calls = args.calls
    rows += [
        (
            "resolve() only, canonical keys (100 providers)",
            f"{median_us(lambda: resolve(snapshot, 'p50', 'chat/completions'), calls):.2f} µs",
        ),
        (
            "match_endpoint, canonical keys",
            f"{median_us(lambda: catalog.match('p50', 'chat/completions'), calls):.2f} µs",
        ),
        (
            "match_endpoint, aliases + case/space",
            f"{median_us(lambda: catalog.match(' P50-AI ', 'Chat'), calls):.2f} µs",
        ),
        (
            "match_endpoint, request_defaults override",
            f"{median_us(lambda: catalog.match('p50', 'chat', request_defaults={'temperature': 1.0}), calls):.2f} µs",  # noqa: E501
        ),
        (
            "match_endpoint, OpenAI-compatible fallback",
            f"{median_us(lambda: catalog.match('custom', '', openai_compatible=True, base_url='http://127.0.0.1:8000/v1'), calls):.2f} µs",  # noqa: E501
        ),
        (
            "EndpointConfig(...) alone (reference)",
            f"{median_us(lambda: snapshot.providers['p50'].endpoints['chat/completions'].meta.create_config(), calls):.2f} µs",  # noqa: E501
        ),
        (
            "parse_model_spec('m50')",
            f"{median_us(lambda: catalog.parse_model_spec('m50'), calls):.2f} µs",
        ),
    ]

    width = max(len(name) for name, _ in rows)
    print(f"{'measure':<{width}}  median")
    print(f"{'-' * width}  ---------")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
