"""``sdk_samples`` uses every key and closed value of an SDK's request types, or names the type."""

from __future__ import annotations

import os
from typing import IO, Literal, NotRequired, Required, Union

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict  # the flavour the vendor SDKs define theirs with

from lionagi.service_testing.vendor_checks import SDK_PROBE_KEY, sdk_samples, sdk_typeddicts


class Voice(TypedDict, total=False):
    id: Required[str]


class Audio(TypedDict, total=False):
    format: Required[Literal["wav", "mp3", "pcm16"]]
    voice: Required[Union[str, Voice]]  # noqa: UP007 - the SDKs' spelling, walked as X | Y is


class Params(TypedDict, total=False):
    audio: Audio
    tags: list[Literal["a", "b"]]
    metadata: dict[str, str]
    stop: str | list[str] | None
    n: NotRequired[int]


def test_every_key_and_every_literal_value_is_used() -> None:
    values = sdk_samples(Params)
    assert all(set(v) == {"audio", "tags", "metadata", "stop", "n"} for v in values)
    formats = {v["audio"]["format"] for v in values}
    assert formats == {"wav", "mp3", "pcm16"}  # as many objects as the most varied key needs
    voices = [v["audio"]["voice"] for v in values]
    assert "x" in voices  # both members of the union
    assert {"id": "x"} in voices
    assert {repr(v["stop"]) for v in values} == {"'x'", "['x']", "None"}  # X | Y | None too
    assert values[0]["tags"] == ["a", "b"]  # a list holds every item sample


def test_only_the_probed_object_gets_the_probe_key() -> None:
    probed = sdk_samples(Params, probed=Voice)
    assert any(v["audio"]["voice"] == {"id": "x", SDK_PROBE_KEY: "x"} for v in probed)
    assert all(SDK_PROBE_KEY not in v and SDK_PROBE_KEY not in v["audio"] for v in probed)


def test_omitted_keys_are_left_out_and_not_followed() -> None:
    assert all("audio" not in v for v in sdk_samples(Params, omitted=frozenset({"audio"})))
    names = sdk_typeddicts(Params, omitted=frozenset({"audio"}))
    assert [name.rsplit(".", 1)[-1] for name in names] == ["Params"]
    every = {name.rsplit(".", 1)[-1] for name in sdk_typeddicts(Params)}
    assert every == {"Params", "Audio", "Voice"}


def test_a_type_without_a_sample_is_named_not_skipped() -> None:
    class Odd(TypedDict):
        when: bytes

    with pytest.raises(TypeError, match="bytes"):
        sdk_samples(Odd)


class ResponseBlock(BaseModel):
    """A response's pydantic block, which an SDK also takes where a request block goes."""

    type: str


class Source(TypedDict):
    data: Union[str, IO[bytes], os.PathLike[str]]  # noqa: UP007 - as the SDKs spell it
    blocks: list[Union[Voice, ResponseBlock]]  # noqa: UP007


def test_members_the_sdk_converts_before_sending_give_no_samples() -> None:
    """A file object or path (read and base64-encoded by the SDK) and a response's pydantic
    model (dumped to the TypedDict beside it) never reach the wire: only the wire shapes are
    sampled, instead of the walk failing on them."""
    (value,) = sdk_samples(Source)
    assert value == {"data": "x", "blocks": [{"id": "x"}]}
