r"""Fake CLI: print JSON events in the framings real CLIs produce, then optional raw text.

Modes: ``ndjson`` one object per line; ``split`` each line written in pieces cut at byte
offsets (inside multi-byte UTF-8 characters too) with a pause between pieces; ``concat`` all
objects on one line with no separator, written in pieces; ``pretty`` indented multi-line values.
``--raw`` bytes (Python byte escapes allowed: ``'42\n'``, ``'\xff'``) follow the events.
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
import time


def _event(seq: int) -> dict[str, object]:
    return {"type": "event", "seq": seq, "text": f"héllo → wörld ✓ {seq}"}


def _write(data: bytes, pause: float) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    if pause:
        time.sleep(pause)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=3)
    parser.add_argument("--mode", choices=("ndjson", "split", "concat", "pretty"), default="ndjson")
    parser.add_argument("--pause", type=float, default=0.02, help="seconds between pieces")
    parser.add_argument("--raw", default="", help="text written after the events")
    parser.add_argument("--exit", type=int, default=0, dest="code")
    args = parser.parse_args()

    lines = [json.dumps(_event(i), ensure_ascii=False).encode() for i in range(args.events)]
    if args.mode == "ndjson":
        for line in lines:
            _write(line + b"\n", 0)
    elif args.mode == "split":
        for line in lines:
            data = line + b"\n"
            # Cut inside the first multi-byte character and in the middle of the object.
            cuts = sorted({data.index("é".encode()) + 1, len(data) // 3, 2 * len(data) // 3})
            for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
                _write(data[start:end], args.pause)
    elif args.mode == "concat":
        data = b"".join(lines)
        third = max(1, len(data) // 3)
        for start in range(0, len(data), third):
            _write(data[start : start + third], args.pause)
        _write(b"\n", 0)
    else:
        for i in range(args.events):
            _write(json.dumps(_event(i), indent=2, ensure_ascii=False).encode() + b"\n", 0)
    if args.raw:
        raw = codecs.decode(args.raw.encode(), "unicode_escape").encode("latin-1")
        _write(raw, 0)
    return int(args.code)


if __name__ == "__main__":
    sys.exit(main())
