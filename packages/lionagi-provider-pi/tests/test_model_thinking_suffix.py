"""pi's ``--model <pattern>:<level>`` shorthand: split into ``--thinking``, in both modes.

Through a gateway the adapter declares the model in ``models.json`` itself; declared whole,
``m1:high`` was an id pi matched exactly (so the gateway was asked for model ``m1:high``) and the
gateway's ``--thinking off`` default overrode the level. The real binary's side of this is
``test_real_pi.py::test_model_thinking_shorthand_through_the_gateway``.
"""

from __future__ import annotations

import json

import pytest

from lionagi.providers.pi import PiCliEndpoint, PiRequest
from lionagi.providers.pi._home import GATEWAY_PROVIDER
from lionagi.service import AgenticRequestValidationError, iModel


def request(**fields: object) -> PiRequest:
    payload, _ = PiCliEndpoint().create_payload({"prompt": "hi", **fields})
    value = payload["request"]
    assert isinstance(value, PiRequest)
    return value


def gateway_endpoint() -> PiCliEndpoint:
    return PiCliEndpoint(settings={"gateway_url": "http://127.0.0.1:9", "config_home": "isolated"})


@pytest.mark.parametrize(
    ("model", "fields", "argv"),
    [
        ("m1:high", {}, ["--model", "m1", "--thinking", "high"]),
        ("m1:xhigh", {"thinking": "xhigh"}, ["--model", "m1", "--thinking", "xhigh"]),
        ("m1:none", {}, ["--model", "m1", "--thinking", "off"]),
        ("m1:off", {"thinking": "none"}, ["--model", "m1", "--thinking", "off"]),
        ("anthropic/m1:low", {}, ["--model", "anthropic/m1", "--thinking", "low"]),
        ("m1:free:minimal", {}, ["--model", "m1:free", "--thinking", "minimal"]),
        ("or/m1:free", {}, ["--model", "or/m1:free"]),  # not a level: part of the id
    ],
)
def test_shorthand_becomes_model_and_thinking(
    model: str, fields: dict[str, str], argv: list[str]
) -> None:
    sent = request(model=model, **fields)
    assert PiCliEndpoint().command(sent)[3:] == argv
    # Validated again (an envelope, a retry), the split request is unchanged.
    assert request(**sent.model_dump(exclude_defaults=True)) == sent


def test_gateway_declares_the_bare_model_and_sends_the_suffix_level() -> None:
    ep = gateway_endpoint()
    launch = ep.launch_settings()
    sent = request(model="m1:high")
    ep.prepare_launch(sent, launch)
    assert ep.isolated_home is not None
    models = json.loads((ep.isolated_home / ".pi" / "agent" / "models.json").read_text())
    assert [m["id"] for m in models["providers"][GATEWAY_PROVIDER]["models"]] == ["m1"]
    argv = ep.command(sent, extra=launch.args)
    assert argv[argv.index("--model") + 1] == "m1"
    assert argv.count("--thinking") == 1  # the gateway's "off" default does not override it
    assert argv[argv.index("--thinking") + 1] == "high"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"model": "m1:max"}, "model"),  # core's effort word pi has no level for
        ({"model": "m1:ultra"}, "model"),
        ({"model": "m1:HIGH"}, "model"),  # pi's levels are lower case only
        ({"model": "m1/:high"}, "model"),  # a level and no model
        ({"model": "m1:high", "thinking": "low"}, "thinking"),  # two levels for one run
        ({"model": "m1:off", "thinking": "medium"}, "thinking"),
    ],
)
def test_level_pi_cannot_honour_is_a_typed_error_naming_the_field(
    fields: dict[str, str], field: str
) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        request(**fields)
    assert info.value.field == field


def test_catalog_model_strings_with_the_shorthand() -> None:
    sent = iModel(model="pi/m1:high").create_api_calling(prompt="hi").payload["request"]
    assert (sent.model, sent.thinking) == ("m1", "high")
    with pytest.raises(AgenticRequestValidationError) as info:
        iModel(model="pi/m1:high-low").create_api_calling(prompt="hi")  # ':high' and '-low'
    assert info.value.field == "thinking"
