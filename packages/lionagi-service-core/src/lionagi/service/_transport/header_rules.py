"""What an HTTP/1.1 header can carry, checked when a header is configured rather than sent.

Why here and not at the socket: h11 refuses an illegal header only while writing the request,
and its error quotes the header's bytes, which for an API key is the secret itself (a key read
from a file or a variable with its trailing newline is the usual case); httpx encodes values as
ASCII, so a copy-pasted non-breaking space or zero-width space surfaces as a bare
``UnicodeEncodeError`` from the middle of a call. Checking where the header is configured gives
the typed error that names the field, before any call, and never shows the value.

The rules are RFC 9110's as h11 enforces them: a name is a token; a value is visible ASCII with
inner spaces or tabs, no leading or trailing whitespace and no control character. (h11 also takes
bytes 0x80-0xFF, but httpx sends ``str`` values as ASCII, so through httpx they never arrive.)
"""

from __future__ import annotations

import re

__all__ = ["header_name_problem", "header_value_problem"]

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_VALUE = re.compile(r"(?:[\x21-\x7e](?:[ \t\x21-\x7e]*[\x21-\x7e])?)?")


def header_name_problem(name: object) -> str | None:
    """Why ``name`` cannot be an HTTP header name, or ``None`` when it can."""
    if not isinstance(name, str):
        return f"header names must be str, got {type(name).__name__}"
    if _TOKEN.fullmatch(name):
        return None
    if not name:
        return "the name is empty"
    return "the name is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only)"


def header_value_problem(value: str) -> str | None:
    """Why ``value`` cannot be sent as an HTTP header value, or ``None`` when it can.

    The reason names a position and the kind of character, never the value: the value may be a
    credential.
    """
    if _VALUE.fullmatch(value):
        return None
    if value != value.strip(" \t\r\n"):
        return (
            "begins or ends with whitespace or a line break, which an HTTP header cannot carry "
            "(a value read from a file or an environment variable often keeps its trailing "
            "newline); strip it"
        )
    for position, char in enumerate(value, start=1):
        code = ord(char)
        if code == 0x09 or 0x20 <= code <= 0x7E:
            continue
        kind = "a control character" if code < 0x20 or code == 0x7F else "a non-ASCII character"
        return (
            f"has {kind} at position {position} (U+{code:04X}), which an HTTP header cannot "
            "carry (often a character pasted along with the value); remove it"
        )
    return "cannot be sent as an HTTP header value"  # pragma: no cover - the rules above cover it
