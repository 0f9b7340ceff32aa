"""Direct construction of the AG2 models raises the library's typed errors, naming the field.

:class:`TypedModel` applies core's reading of a pydantic failure
(:func:`lionagi.service.agentic.validation_failure`: the first error's dotted location, pydantic's
message without its ``"Value error, "`` prefix, "unknown field of <Model>; did you mean ...?" for
an unknown key, never the input value) to direct construction (``AG2AgentConfig(name="a b")``),
where pydantic would otherwise raise its own ``ValidationError`` whose text repeats every input
value, an API key inside an AG2 model configuration included. Validation inside another model,
and core's ``create_payload``, do not call ``__init__``: they still see pydantic's error, and
core converts it the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from lionagi.service.agentic import validation_failure

__all__ = ["TypedModel"]


class TypedModel(BaseModel):
    """A model whose direct construction raises the library's typed error, not pydantic's.

    Subclasses name the error class in ``typed_error``: ``EndpointConfigurationError`` for
    configuration, ``AgenticRequestValidationError`` for a request (what core raises for the
    same model in ``create_payload``). The error's ``field`` is the dotted location
    (``config.name``, ``system_prompt.1``); the value given is never repeated.
    """

    typed_error: ClassVar[Callable[[str, str], Exception]]

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            failure = validation_failure(exc, type(self).__name__, type(self))
            raise type(self).typed_error(*failure) from None

    # pydantic calls an overridden ``__init__`` from every validation of the model (nested in
    # a request, ``model_validate``) unless it is marked as the base one, as pydantic marks
    # ``BaseModel.__init__`` and ``RootModel.__init__``. Unmarked, the typed error (a
    # ValueError) raised here would be wrapped into the outer model's ValidationError at the
    # wrong location; marked, only a direct call (``AG2AgentConfig(...)``) runs this.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]
