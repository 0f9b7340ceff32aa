"""A URL password with ``@``, a space, ``#``, ``?`` or ``/`` is redacted whole.

Before, the userinfo shape stopped at the first such character: a Redis URL
``redis://:hunter2@secretpass@host`` printed ``[REDACTED]@secretpass@host`` in ``repr``,
``to_dict()`` and errors, a password with a space was printed whole, and a password holding
``/`` (which makes the URL unparsable) was quoted raw in the refusal. Generated and base64
passwords hold these characters often.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import AdmissionConfigError, SharedAdmission, iModel
from lionagi.service._base.secrets import REDACTED, redact, redact_url

SECRET = "secretpassQQ42"


@pytest.mark.parametrize("sep", ["@", " ", "#", "?"])
def test_a_shared_admission_url_shows_no_part_of_the_password(sep: str) -> None:
    url = f"redis://:hunter2{sep}{SECRET}@127.0.0.1:6379/0"
    try:
        shown = repr(SharedAdmission(url=url, key="k"))
    except AdmissionConfigError as exc:  # a URL urllib cannot parse is refused, redacted
        shown = str(exc)
    assert SECRET not in shown and "hunter2" not in shown
    assert "127.0.0.1" in shown


def test_a_password_with_a_slash_is_refused_with_the_fix_and_without_the_password() -> None:
    with pytest.raises(AdmissionConfigError) as info:
        SharedAdmission(url=f"redis://:hunter2/{SECRET}@127.0.0.1:6379/0", key="k")
    assert SECRET not in str(info.value) and "hunter2" not in str(info.value)
    assert "percent-encode" in str(info.value)


def test_an_endpoint_base_url_with_an_at_sign_in_the_password_is_not_dumped() -> None:
    model = iModel(
        model="openai/gpt-4.1-mini",
        base_url=f"http://u:hunter2@{SECRET}@127.0.0.1:9/v1",
        auth_type="none",
        allow_local_network=True,
    )
    dumped = json.dumps(model.to_dict()) + repr(model.endpoint.config)
    assert SECRET not in dumped and "hunter2" not in dumped
    assert "127.0.0.1:9/v1" in dumped


def test_only_the_userinfo_goes() -> None:
    assert redact_url("http://u:p@h/x/@me") == f"http://{REDACTED}@h/x/@me"
    assert redact_url("https://api.example.com/v1/users/@me") == (
        "https://api.example.com/v1/users/@me"
    )
    assert redact(f"failed: redis://:a@{SECRET}@host:1/0 ok") == (
        f"failed: redis://{REDACTED}@host:1/0 ok"
    )
