"""``EndpointConfig.model_validate`` never shows the key it was given.

``EndpointConfig(...)`` raises the library's typed error. pydantic's own entry points
(``model_validate``) report through pydantic's ``ValidationError``, whose text repeated the
whole input mapping, shortened in the middle: the last characters of an API key placed late in
the mapping showed. (``errors()`` still hands the
caller back the input it passed, as pydantic documents; what a log shows is the text.)
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from lionagi.service import EndpointConfig

KEY = "sk-live-QQ7zXJ4wpR2vBq98765kqZ"


def _data(**extra: Any) -> dict[str, Any]:
    return {
        "name": "chat",
        "provider": "openai",
        "base_url": "https://api.openai.com/v1",
        "endpoint": "chat/completions",
        "api_key": KEY,
        **extra,
    }


def _assert_no_key_fragment(text: str) -> None:
    for size in (6, 8):
        for start in range(len(KEY) - size + 1):
            assert KEY[start : start + size] not in text, text


@pytest.mark.parametrize("bad", [{"timeout": -1}, {"max_retries": "many"}, {"method": 5}])
def test_model_validate_failure_names_the_field_without_the_key(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as info:
        EndpointConfig.model_validate(_data(**bad))
    text = str(info.value)
    _assert_no_key_fragment(text)
    assert next(iter(bad)) in text
