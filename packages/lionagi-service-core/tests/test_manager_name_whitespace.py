"""iModelManager refuses a name with surrounding whitespace instead of keeping a second name.

`register(" chat ", model)` was accepted as a name beside `"chat"`: `manager.chat` never
returned it, so a name read from a config file with a stray space silently made a model nobody
could find by the name they meant. Stripping it would be a guess (and `get(" chat ")` would
still miss), so the name is refused, naming the `name` field, wherever a name is registered.
"""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import EndpointConfigurationError, iModel, iModelManager

PASTED = " sk-proj-ManagerNameQQ42distinctSecretValue "


def model() -> iModel:
    return iModel(model="scripted/demo")


def refused_for_whitespace(error: BaseException) -> None:
    assert isinstance(error, EndpointConfigurationError)
    assert isinstance(error, ValueError)  # the builtin a bad name raised before
    assert error.field == "name"
    assert "whitespace" in str(error)
    assert PASTED.strip() not in str(error)
    assert PASTED.strip() not in repr(error)


@pytest.mark.parametrize("name", [" chat ", "chat ", "\tparse", "chat\n", PASTED])
def test_register_and_replace_refuse_surrounding_whitespace(name: str) -> None:
    async def main() -> None:
        chat = model()
        manager = iModelManager(chat)
        other = model()
        with pytest.raises(EndpointConfigurationError) as registered:
            manager.register(name, other)
        refused_for_whitespace(registered.value)
        with pytest.raises(EndpointConfigurationError) as replaced:
            await manager.replace(name, other)
        refused_for_whitespace(replaced.value)
        # Nothing changed: the model under "chat" is the one it was, and no second name exists.
        assert manager.models == {"chat": chat}
        assert manager.chat is chat
        await manager.shutdown()
        await other.close()

    anyio.run(main)


def test_the_constructor_refuses_a_keyword_with_surrounding_whitespace() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModelManager(**{" chat ": model()})
    refused_for_whitespace(info.value)


def test_inner_whitespace_is_part_of_the_name() -> None:
    async def main() -> None:
        manager = iModelManager()
        mine = model()
        manager.register("my model", mine)
        assert manager.get("my model") is mine
        await manager.shutdown()

    anyio.run(main)
