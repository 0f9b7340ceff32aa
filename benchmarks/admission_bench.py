"""Admission overhead per acquire/release, against a bare anyio.Semaphore (run by hand).

    uv run python benchmarks/admission_bench.py [--iterations N]

Prints the median cost of one uncontended ``acquire()`` + ``release()`` for an unlimited and a
fully limited (requests, tokens, concurrency) controller, each as microseconds and as a ratio to
``anyio.Semaphore.acquire()`` + ``release()`` measured the same way. Target: <= 20 us per call.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio

from lionagi.service import AdmissionConfig, AdmissionController, RequestBudget


@dataclass
class Call:
    id: str
    required_tokens: int | None = 10
    is_terminal: bool = False


async def measure(op: Callable[[], Awaitable[None]], iterations: int, rounds: int) -> float:
    """Median per-call microseconds over ``rounds`` timed batches of ``iterations`` calls."""
    for _ in range(min(iterations, 2000)):  # warm-up
        await op()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(iterations):
            await op()
        samples.append((time.perf_counter_ns() - start) / iterations / 1000)
    return statistics.median(samples)


def admission_cases() -> dict[str, Callable[[], Awaitable[None]]]:
    """Each case's one acquire + release, by name (the peers benchmark reuses them)."""
    sem = anyio.Semaphore(1000)

    async def semaphore_op() -> None:
        await sem.acquire()
        sem.release()

    def controller_op(cfg: AdmissionConfig, budget: RequestBudget) -> Callable[[], Awaitable[None]]:
        ctl = AdmissionController(cfg)
        call = Call("bench-call")

        async def op() -> None:
            lease = await ctl.acquire(call, budget=budget)
            lease.release()

        return op

    limited = AdmissionConfig(
        queue_capacity=100,
        limit_requests=10**12,
        limit_tokens=10**15,
        concurrency_limit=1000,
    )
    far = RequestBudget(anyio.current_time() + 3600)
    return {
        "anyio.Semaphore baseline": semaphore_op,
        "admission, unlimited": controller_op(AdmissionConfig(), RequestBudget(None)),
        "admission, limited": controller_op(limited, RequestBudget(None)),
        "admission, limited + deadline": controller_op(limited, far),
    }


async def main(iterations: int, rounds: int) -> None:
    cases = admission_cases()
    results = {name: await measure(op, iterations, rounds) for name, op in cases.items()}
    base = results["anyio.Semaphore baseline"]
    print(f"iterations per round: {iterations}, rounds: {rounds} (median of rounds)")
    print(f"{'case':34} {'us/call':>9} {'x semaphore':>12}")
    for name, value in results.items():
        print(f"{name:34} {value:9.2f} {value / base:12.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    anyio.run(main, args.iterations, args.rounds)
