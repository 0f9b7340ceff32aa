"""Every error core raises survives pickle and deepcopy with its message and its fields.

An exception's default pickling rebuilds it as ``cls(*args)``. Most of core's errors take their
fields as constructor arguments and keep only the composed message in ``args``, so unpickling
raised a TypeError (``RequestDeadlineExceeded``, ``AdmissionConfigError``, ``ProviderProcessError``)
or, worse, passed the message in as a field (``ModelNameConflict`` came back naming its own
sentence). An error has to cross a process boundary (a worker pool, a task queue) intact.
"""

from __future__ import annotations

import copy
import inspect
import pickle

import pytest

import lionagi.service as service
import lionagi.service.agentic as agentic
import lionagi.service.http as http
import lionagi.service.lifecycle as lifecycle
from lionagi.service import (
    AdmissionBackendUnavailable,
    AdmissionConfigError,
    AgenticHandlerError,
    AgenticOperationUnsupported,
    AgenticRequestValidationError,
    CatalogValidationError,
    EndpointConfigurationError,
    EndpointNotFound,
    EventLoopMismatchError,
    EventLoopUnsupportedError,
    HookPhase,
    InstallationConflictError,
    ModelNameConflict,
    ProviderDiagnostic,
    ProviderExecutableNotFound,
    ProviderProcessError,
    ProviderStreamQuotaError,
    ProviderUnavailable,
    RequestDeadlineExceeded,
    StreamClosed,
)
from lionagi.service._lifecycle.supervisor import HookTimeout

DIAGNOSTIC = ProviderDiagnostic(
    code="import_failed",
    provider="acme",
    endpoint=None,
    module="acme.mod",
    key=None,
    message="boom",
)

ERRORS: list[BaseException] = [
    RequestDeadlineExceeded("call-1", "retry_delay", local_cap=2.5),
    StreamClosed("call-1"),
    AdmissionConfigError("rpm", "must be a positive integer"),
    EndpointConfigurationError("base_url", "must be absolute"),
    AgenticRequestValidationError("cwd", "is not a directory"),
    AdmissionBackendUnavailable("redis", "connection refused"),
    AgenticHandlerError("on_tool", "is not callable"),
    AgenticOperationUnsupported("invoke", "codex/exec"),
    CatalogValidationError((DIAGNOSTIC,)),
    ProviderUnavailable("acme", DIAGNOSTIC),
    EndpointNotFound(
        "openai", "chat/complete", ("chat/completions",), suggestion="chat/completions"
    ),
    EventLoopMismatchError("OpenAIChatEndpoint(...)", loop_closed=True),
    EventLoopUnsupportedError("agentic streams", "trio"),
    InstallationConflictError("another lionagi is installed", distribution="lionagi"),
    ModelNameConflict("chat"),
    ProviderExecutableNotFound("codex", "npm install -g @openai/codex"),
    ProviderProcessError("codex exited 2", returncode=2, stderr_tail="bad flag"),
    ProviderStreamQuotaError("slow down", status=429, code="rate_limit", retry_after=3.0),
    HookTimeout(HookPhase.PRE_INVOCATION, 1.5),
]


def _fields(error: BaseException) -> dict[str, object]:
    return {key: value for key, value in vars(error).items() if not key.startswith("__")}


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_error_round_trips_with_its_message_and_fields(error: BaseException, clone) -> None:
    back = clone(error)
    assert type(back) is type(error)
    assert str(back) == str(error)
    assert back.args == error.args
    assert _fields(back) == _fields(error)


def test_a_deadline_message_with_the_last_attempt_survives_pickling() -> None:
    # The retry loop appends "(last attempt: ...)" to the message after construction; a rebuild
    # through the constructor would drop it.
    error = RequestDeadlineExceeded("call-1", "retry_delay")
    error.args = (f"{error} (last attempt: ProviderServerError: HTTP 500)",)
    back = pickle.loads(pickle.dumps(error))
    assert str(back).endswith("(last attempt: ProviderServerError: HTTP 500)")
    assert back.phase == "retry_delay"


def _public_errors() -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for module in (service, http, agentic, lifecycle):
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if inspect.isclass(value) and issubclass(value, BaseException):
                found.add(value)
    return found


def test_every_public_error_with_its_own_constructor_is_covered() -> None:
    # A new error class whose __init__ takes fields must join ERRORS (and so be shown to
    # round-trip); one that keeps BaseException's constructor pickles by default.
    covered = {type(error) for error in ERRORS}
    missing = sorted(
        cls.__name__
        for cls in _public_errors()
        if cls not in covered
        and any(
            "__init__" in vars(base)
            for base in cls.__mro__
            if base.__module__.startswith("lionagi")
        )
        and not any(issubclass(cls, type(error)) for error in ERRORS)
        and not issubclass(cls, service.ProviderError)
    )
    assert missing == []
