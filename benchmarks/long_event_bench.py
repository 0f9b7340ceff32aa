"""HTTP stream framers on one long event (run by hand).

    uv run python benchmarks/long_event_bench.py [--mb 15] [--piece 4096 65536]

One JSON event of about ``--mb`` MiB (below the 16 MiB event bound) is fed to ``NDJSONFramer``
(as one line) and ``SSEFramer`` (as one ``data:`` line) in pieces of each ``--piece`` size, the
way network reads deliver it. Reported: total seconds and the slowest single ``feed()``, which is
how long the event loop is blocked. A linear framer's total grows with the size only; the slowest
feed is the one that completes the event (the join and the JSON decode of the whole value).
"""

from __future__ import annotations

import argparse
import time

from lionagi.service._transport.http.framing import NDJSONFramer, SSEFramer


def run(framer: NDJSONFramer | SSEFramer, text: str, piece: int) -> tuple[float, float, int]:
    pieces = [text[i : i + piece] for i in range(0, len(text), piece)]
    events = 0
    worst = 0.0
    start = time.perf_counter()
    for part in pieces:
        began = time.perf_counter()
        events += len(framer.feed(part))
        worst = max(worst, time.perf_counter() - began)
    return time.perf_counter() - start, worst, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=15)
    parser.add_argument("--piece", type=int, nargs="+", default=[4096, 65536])
    args = parser.parse_args()
    value = '{"text": "' + "x" * (args.mb * 1024 * 1024 - 32) + '"}'
    print("| framer | piece | total s | slowest feed ms | events |")
    print("|---|---|---|---|---|")
    for piece in args.piece:
        for name, framer, text in (
            ("NDJSONFramer", NDJSONFramer(), value + "\n"),
            ("SSEFramer", SSEFramer(), "data: " + value + "\n\n"),
        ):
            total, worst, events = run(framer, text, piece)
            print(f"| {name} | {piece} | {total:.3f} | {worst * 1e3:.1f} | {events} |")


if __name__ == "__main__":
    main()
