"""HTTPEmbeddingsConformance and HTTPJSONConformance: one-shot data endpoints."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from lionagi.service import EventStatus

from .._fake_embeddings import embed
from ._http import HTTPCase, http_case
from ._http_cases_common import OneShotCases, numbers_in

__all__ = ["HTTPEmbeddingsConformance", "HTTPJSONConformance"]


def _inputs(request: dict[str, Any]) -> list[str]:
    raw = request.get("input", request.get("inputs", ""))
    return [str(item) for item in raw] if isinstance(raw, list) else [str(raw)]


class HTTPEmbeddingsConformance(OneShotCases):
    """Conformance cases for an embeddings endpoint (``dialect = "openai_embeddings"``).

    ``valid_request()`` must send ``input`` (a string or a list of strings) and should not set
    ``dimensions``; the kit compares the vectors with the fake server's deterministic ones.
    """

    dialect: ClassVar[str] = "openai_embeddings"
    usage: ClassVar[bool] = True

    @http_case
    async def test_embeddings_vectors(self, case: HTTPCase) -> None:
        """``invoke()`` returns one vector per input, in input order, with the server's values.

        Troubleshooting: keep the ``index`` order; a base64 ``encoding_format`` must be decoded
        by the reader (``response_vectors``), and floats must not be rounded.
        """
        model = case.model()
        request = self.valid_request()
        call = await case.invoke(model, "text", request)
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        vectors = self.response_vectors(call.execution.response)
        expected = [embed(text) for text in _inputs(request)]
        assert vectors == expected, f"vectors {vectors!r} != the server's {expected!r}"
        assert case.attempts == 1

    @http_case
    async def test_embeddings_usage(self, case: HTTPCase) -> None:
        """``invoke()``'s response carries the token usage.

        Troubleshooting: keep the provider's ``usage`` on the result; callers budget from it.
        """
        if not self.usage:
            pytest.skip("the adapter does not declare usage=True")
        model = case.model()
        call = await case.invoke(model, "text")
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        usage = self.response_usage(call.execution.response)
        assert isinstance(usage, dict), f"no token usage on the response (got {usage!r})"
        assert any(n > 0 for n in numbers_in(usage)), f"no token usage in {usage!r}"


class HTTPJSONConformance(OneShotCases):
    """Conformance cases for a plain JSON endpoint (``dialect = "json"``): search, contents, ...

    The kit checks transport behaviour only: a JSON object comes back, errors are typed, retries
    and deadlines hold. Its answer's content is the adapter's own business.
    """

    dialect: ClassVar[str] = "json"
    context_window: ClassVar[bool] = False

    @http_case
    async def test_json_object_returned(self, case: HTTPCase) -> None:
        """``invoke()`` returns the decoded JSON object after one request.

        Troubleshooting: the endpoint must POST a JSON object (``valid_request``) to a path the
        provider serves; a 404 "no fake route" means the fake server does not know the path.
        """
        model = case.model()
        call = await case.invoke(model, "text")
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        response = call.execution.response
        assert isinstance(response, dict), f"response {response!r} is not an object"
        assert response, "the response is an empty object"
        assert case.attempts == 1
