"""A pair whose name is itself a known secret still has its value redacted.

Known secrets are replaced first, then the credential shapes. When a secret is a word a
credential pair is named by (a throwaway Redis password ``password``), the first pass turned
``password=hunter2hunter2`` into ``[REDACTED]=hunter2hunter2``, a name the second pass no longer
knew: the value, a real secret, went out. Seen in CI, where a docs example configured that
password earlier in the same process and an AG2 tool's error then leaked the other one.
The secret is passed explicitly here, so the test leaves no remembered secret behind.
"""

from __future__ import annotations

import pytest

from lionagi.service._base.secrets import REDACTED, redact

VALUE = "hunter2hunter2"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"db password={VALUE}", f"db {REDACTED}={REDACTED}"),
        (f'{{"password": "{VALUE}"}}', f'{{"{REDACTED}": "{REDACTED}"}}'),
        (f"?password={VALUE}&x=1", f"?{REDACTED}={REDACTED}&x={REDACTED}"),
    ],
)
def test_the_value_of_a_pair_named_by_a_secret_is_redacted(text: str, expected: str) -> None:
    out = redact(text, ["password"])
    assert VALUE not in out
    assert out == expected


def test_prose_after_a_redacted_word_is_kept() -> None:
    # Only a pair (``=`` or a quoted JSON key) marks the next word as a value.
    assert redact("the password was wrong", ["password"]) == f"the {REDACTED} was wrong"
    assert redact("Bearer sk-abcdefgh1234 expired", []) == f"Bearer {REDACTED} expired"
