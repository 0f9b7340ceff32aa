"""Fake CLI: print one event describing exactly what this process received.

Environment names come from ``/proc/self/environ`` when available: it holds the environment
as passed to exec, before the interpreter adds anything of its own (e.g. ``LC_CTYPE`` coercion).
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _initial_env() -> dict[str, str]:
    try:
        with open("/proc/self/environ", "rb") as handle:
            raw = handle.read()
    except OSError:
        return dict(os.environ)
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {k.decode(errors="replace"): v.decode(errors="replace") for k, v in pairs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stdin", action="store_true", help="read stdin to EOF and report it")
    parser.add_argument("--show", action="append", default=[], help="report this variable")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="arguments to report verbatim")
    args = parser.parse_args()

    env = _initial_env()
    event: dict[str, object] = {
        "type": "echo",
        "argv": sys.argv[1:],
        "rest": args.rest,
        "cwd": os.getcwd(),
        "env_keys": sorted(env),
        "env": {name: env.get(name) for name in args.show},
        "pid": os.getpid(),
        "pgid": os.getpgid(0),
        "sid": os.getsid(0),
        "stdin_isatty": sys.stdin.isatty() if sys.stdin else None,
    }
    if args.stdin:
        event["stdin"] = sys.stdin.buffer.read().decode("utf-8", "replace")
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
