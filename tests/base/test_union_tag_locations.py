"""A tagged union's tag is no part of the path the caller wrote, and the errors say so.

pydantic puts the tag of the member a tagged union chose into an error's location
(``pets.0.dog.brks`` for ``{"pets": [{"kind": "dog", "brks": ...}]}``). Core read those tags out
in two places: the Chat Completions shapes check did, and the reading every other request and
adapter error goes through (``validation_failure``) did not. It is one reading now, asked for
with ``drop_union_tags``, and the shapes check uses it, single-member unions included.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import pytest
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service.agentic import validation_failure

SECRET = "sk-proj-Zq8vT3xK9mW2nL5pR7sY4uB6"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)


class Cat(_Strict):
    kind: Literal["cat"]
    meows: bool = False


class Dog(_Strict):
    kind: Literal["dog"]
    barks_: bool = Field(default=False, alias="barks")


def _kind(value: Any) -> Any:
    return value.get("kind") if isinstance(value, dict) else None


Pet = Annotated[
    Union[Annotated[Cat, Tag("cat")], Annotated[Dog, Tag("dog")]],  # noqa: UP007
    Discriminator(_kind),
]


class Household(_Strict):
    pets: list[Pet]


def _failure(data: dict[str, Any]) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        Household.model_validate(data)
    return info.value


def test_dropping_union_tags_reports_the_path_as_written_and_the_members_fields() -> None:
    exc = _failure({"pets": [{"kind": "cat"}, {"kind": "dog", "brks": SECRET}]})
    assert exc.errors()[0]["loc"] == ("pets", 1, "dog", "brks")  # pydantic's own location

    field, message = validation_failure(exc, "request", Household, drop_union_tags=True)
    assert field == "pets.1.brks"
    # The member's model, and its field by the key a caller writes (the alias).
    assert message == "unknown field of Dog; did you mean 'barks'?"
    assert SECRET not in message


def test_a_wrong_value_inside_a_member_is_located_without_the_tag() -> None:
    exc = _failure({"pets": [{"kind": "cat", "meows": "loud"}]})
    field, message = validation_failure(exc, "request", Household, drop_union_tags=True)
    assert field == "pets.0.meows"
    assert message.startswith("Input should be a valid boolean")


def test_without_the_flag_the_location_stays_pydantics() -> None:
    # Vendors whose documented error fields name the member (Anthropic's
    # `content.blocks.0.image.source.base64.data`) keep them: dropping is asked for.
    exc = _failure({"pets": [{"kind": "dog", "brks": True}]})
    field, message = validation_failure(exc, "request", Household)
    assert field == "pets.0.dog.brks"
    # The kept tag still selects the member, so the misspelled key gets its suggestion.
    assert message == "unknown field of Dog; did you mean 'barks'?"


class Owner(_Strict):
    name: str
    pets: list[Pet] = []


def test_a_misspelled_required_field_is_reported_as_the_misspelling() -> None:
    # pydantic lists `name: Field required` first; the unknown `nmae` beside it is the typo.
    with pytest.raises(ValidationError) as info:
        Owner.model_validate({"nmae": "Ann"})
    assert [e["type"] for e in info.value.errors()] == ["missing", "extra_forbidden"]
    field, message = validation_failure(info.value, "request", Owner)
    assert field == "nmae"
    assert message == "unknown field of Owner; did you mean 'name'?"


def test_a_missing_field_alone_is_still_reported_as_missing() -> None:
    with pytest.raises(ValidationError) as info:
        Owner.model_validate({"pets": [{"kind": "cat", "mews": True}]})
    field, message = validation_failure(info.value, "request", Owner)
    assert (field, message) == ("name", "Field required")  # the typo is in another object


def test_a_text_only_content_part_is_located_as_written() -> None:
    # System, developer and tool messages take text parts only: a union of one tagged member,
    # whose tag pydantic still puts in the location (`content.0.text.txt`).
    model = iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://gateway.example/v1",
        api_key="sk-union-tags-0123456789",
    )
    message = {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "txt": SECRET}]}
    with pytest.raises(EndpointConfigurationError) as info:
        model.create_api_calling(model="m", messages=[message])
    assert info.value.field == "messages.0.content.0.txt"
    assert "unknown field of OpenAIChatTextPart; did you mean 'text'?" in str(info.value)
    assert SECRET not in str(info.value)
