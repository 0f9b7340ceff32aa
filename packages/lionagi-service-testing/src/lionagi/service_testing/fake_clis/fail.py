"""Fake CLI: print some events, then a provider error, then exit (non-zero by default).

Examples: ``--stderr "Error: invalid api key"`` (auth), ``--stderr "usage limit reached"``
(quota), ``--stderr "context window exceeded"`` (context), anything else (process error).

Real CLIs often report provider errors on stdout instead, in their own event grammar:
``--stdout '{"type": "error", "message": "401 invalid api key"}' --stderr "" --code 145``
(gemini: HTTP status mod 256), ``--code 1`` (claude, codex) or ``--code 0`` (pi in json mode).
``--stdout`` text is written verbatim as one line after the events.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1)
    parser.add_argument("--stderr", default="Error: something went wrong")
    parser.add_argument("--stdout", default="", help="error line written on stdout")
    parser.add_argument("--code", type=int, default=1)
    args = parser.parse_args()

    for seq in range(args.events):
        sys.stdout.write(json.dumps({"type": "event", "seq": seq}) + "\n")
    if args.stdout:
        sys.stdout.write(args.stdout + "\n")
    sys.stdout.flush()
    if args.stderr:
        sys.stderr.write(args.stderr + "\n")
        sys.stderr.flush()
    return int(args.code)


if __name__ == "__main__":
    sys.exit(main())
