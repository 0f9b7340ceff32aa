"""Where iModel checks its selection flags (`yolo`, `bypass`, `fast`, `openai_compatible`).

The catalog checks them (`parse_model_spec` the modes, `match_endpoint` the fallback flag), so
iModel checks them itself only on the paths that skip it: an `Endpoint` instance, and no
`model=`. It checked them on every path, importing the catalog to do so, which loaded the whole
catalog package for an instance that never selects. Each path still refuses a flag that is no
bool with the same typed error, naming the flag.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

from lionagi.service import Endpoint, EndpointConfig, EndpointConfigurationError, iModel

FLAGS = ("yolo", "bypass", "fast", "openai_compatible")


def instance() -> Endpoint:
    config = EndpointConfig(
        name="plain", provider="plain", endpoint="chat", base_url="https://example.invalid/v1"
    )
    return Endpoint(config)


PATHS = ("instance", "provider without model", "nothing selected", "model")


def paths() -> dict[str, dict[str, Any]]:
    return {
        "instance": {"endpoint": instance()},
        "provider without model": {"provider": "scripted"},
        "nothing selected": {},
        "model": {"model": "scripted/demo"},
    }


@pytest.mark.parametrize(
    "path", ["instance", "provider without model", "nothing selected", "model"]
)
@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("value", ["false", 0, None])
def test_a_flag_that_is_no_bool_is_refused_alike_on_every_path(
    path: str, flag: str, value: object
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**paths()[path], **{flag: value})
    assert info.value.field == flag
    assert str(info.value) == f"{flag}: must be True or False, got {type(value).__name__}"


@pytest.mark.parametrize("flag", FLAGS)
def test_a_flag_set_beside_an_instance_is_still_refused(flag: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=instance(), **{flag: True})
    assert info.value.field == flag
    assert "cannot be combined with an Endpoint instance" in str(info.value)


def test_an_instance_is_wrapped_without_loading_the_catalog() -> None:
    probe = textwrap.dedent(
        """
        import sys
        from lionagi.service import Endpoint, EndpointConfig, EndpointConfigurationError, iModel

        config = EndpointConfig(
            name="plain", provider="plain", endpoint="chat", base_url="https://example.invalid/v1"
        )
        iModel(endpoint=Endpoint(config), yolo=False, openai_compatible=False)
        try:
            iModel(endpoint=Endpoint(config), yolo="false")
        except EndpointConfigurationError as exc:
            assert exc.field == "yolo", exc
        else:
            raise AssertionError("yolo='false' was accepted")
        loaded = sorted(name for name in sys.modules if ".service._catalog" in name)
        print(",".join(loaded))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
