"""iModelManager's bad arguments raise the facade's typed error, naming the argument.

They raised bare ``TypeError`` / ``ValueError`` / ``KeyError`` (the last one echoing the value
whole), while every other facade entry point raises ``EndpointConfigurationError`` with
``field`` set. The builtin each raised before is kept as a second parent, so existing
``except TypeError`` / ``except KeyError`` callers still catch it.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel, iModelManager

SCRIPTED = "scripted/demo"
KEY = "sk-proj-ManagerTypedErrorsQQ42distinctSecretValue"


def model() -> iModel:
    return iModel(model=SCRIPTED)


def refused(error: BaseException, field: str, builtin: type[BaseException]) -> None:
    """The error is typed, names `field` first, keeps its old builtin and echoes no key."""
    assert isinstance(error, EndpointConfigurationError)
    assert isinstance(error, builtin)
    assert error.field == field
    assert str(error).startswith(f"{field}: ")
    assert KEY not in str(error) and KEY not in repr(error)
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is type(error) and restored.field == field


def test_constructor_names_the_argument_the_caller_wrote() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModelManager(api_key=KEY)  # type: ignore[arg-type]
    refused(info.value, "api_key", TypeError)
    with pytest.raises(EndpointConfigurationError) as info:
        iModelManager(model(), "openai/gpt-4o")  # type: ignore[arg-type]
    refused(info.value, "parse", TypeError)
    with pytest.raises(EndpointConfigurationError) as info:
        iModelManager(model(), model(), model())
    refused(info.value, "models", TypeError)
    with pytest.raises(EndpointConfigurationError) as info:
        iModelManager(**{" ": model()})
    refused(info.value, "name", ValueError)


@pytest.mark.parametrize(
    ("name", "value", "field", "builtin"),
    [("chat", KEY, "model", TypeError), ("", "model", "name", ValueError)],
)
async def test_register_and_replace_refuse_with_the_field(
    name: str, value: Any, field: str, builtin: type[BaseException]
) -> None:
    chat = model()
    manager = iModelManager(chat)
    candidate = model() if value == "model" else value
    with pytest.raises(EndpointConfigurationError) as info:
        manager.register(name, candidate)
    refused(info.value, field, builtin)
    with pytest.raises(EndpointConfigurationError) as info:
        await manager.replace(name, candidate)
    refused(info.value, field, builtin)
    assert manager.models == {"chat": chat}
    await manager.shutdown()
    if isinstance(candidate, iModel):
        await candidate.close()


@pytest.mark.parametrize("name", ["missing", KEY, 7])
async def test_remove_of_an_unregistered_name_is_typed_and_redacted(name: Any) -> None:
    chat = model()
    manager = iModelManager(chat)
    with pytest.raises(EndpointConfigurationError) as info:
        await manager.remove(name)
    refused(info.value, "name", KeyError)
    # Not KeyError's repr-of-the-argument str(): the sentence itself, listing what is there.
    assert str(info.value).endswith("registered: 'chat'")
    assert manager.models == {"chat": chat} and not chat.closed
    await manager.shutdown()
