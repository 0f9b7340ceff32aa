"""An echo of a secret cut short is redacted, not only the whole value.

Servers quote a credential they refused, often truncated ("the first 64 characters of the key
you sent"): exact matching let most of a key through into error chunks, exceptions and the
command line, for gateway keys and configured keys alike, whenever the key had no known vendor
shape.
"""

from __future__ import annotations

import uuid

from lionagi.service._base.secrets import FRAGMENT, REDACTED, redact, remember_secret


def _key(length: int = 104) -> str:
    """An opaque key no generic key shape matches."""
    head = f"zz{uuid.uuid4().hex}"
    return (head + "q" * length)[:length]


def test_a_cut_short_echo_of_a_passed_secret_is_redacted() -> None:
    key = _key()
    text = redact(f"401 Incorrect API key provided: {key[:64]}. Check it.", [key])
    assert text == f"401 Incorrect API key provided: {REDACTED}. Check it."


def test_a_cut_short_echo_of_a_remembered_secret_is_redacted() -> None:
    key = _key()
    remember_secret(key)
    assert key[:FRAGMENT] not in redact(f"got {key[:40]}")
    assert redact(f"got {key[:40]}") == f"got {REDACTED}"


def test_only_the_echoed_part_is_replaced() -> None:
    key = _key()
    assert redact(f"[{key[:30]}xyz]", [key]) == f"[{REDACTED}xyz]"
    assert redact(f"a {key} b {key[:20]} c", [key]) == f"a {REDACTED} b {REDACTED} c"


def test_fragments_shorter_than_the_threshold_and_short_secrets_stay() -> None:
    key = _key()
    short = key[: FRAGMENT - 1]
    assert redact(f"prefix {short}", [key]) == f"prefix {short}"
    small = _key(14)  # below the length whose fragment is redacted
    assert redact(f"x {small[:FRAGMENT]} y", [small]) == f"x {small[:FRAGMENT]} y"
