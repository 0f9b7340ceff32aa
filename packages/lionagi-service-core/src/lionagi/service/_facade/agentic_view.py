"""The facade's view of agentic endpoints, without importing the agentic room.

An HTTP-only program must never load the subprocess and agentic modules (issue 15, cold start),
yet the facade asks of every endpoint whether it is agentic (sessions, resume, admission
defaults, serialization). An agentic endpoint can only exist once its module was imported, so
the question is answered from ``sys.modules`` first, and the import is done only when it is there
(not even the ``_transport.agentic`` package is loaded by an HTTP-only program).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._transport.agentic.endpoint import AgenticEndpoint
    from .._transport.http.endpoint import Endpoint

__all__ = ["as_agentic", "inject_resume"]

_AGENTIC_MODULE = "lionagi.service._transport.agentic.endpoint"


def as_agentic(endpoint: Endpoint) -> AgenticEndpoint | None:
    """``endpoint`` as an :class:`AgenticEndpoint`, or None, without importing the agentic room.

    An agentic endpoint can only exist once its module was imported, so when the module is not
    in ``sys.modules`` the answer is None and an HTTP-only program never loads subprocess code.
    """
    if _AGENTIC_MODULE not in sys.modules:
        return None
    from .._transport.agentic.endpoint import AgenticEndpoint

    return endpoint if isinstance(endpoint, AgenticEndpoint) else None


def inject_resume(endpoint: AgenticEndpoint, request: dict[str, Any]) -> None:
    """Continue the confirmed session: its id set as the adapter's resume field, unless given.

    Only a resumable adapter with a confirmed session is touched; a caller's own resume field
    (or ``session_id``) wins, so a call can still start or pick another session. The adapter
    has the last word (:meth:`AgenticEndpoint.injects_resume`): a request that by its own
    fields continues no session (pi's ``ephemeral=True``) is left as the caller wrote it, so
    a value the caller never passed cannot make it invalid.
    """
    caps = type(endpoint).capabilities
    field = type(endpoint).resume_field
    sid = endpoint.provider_session_id
    if caps is None or not caps.resumable or not field or not sid:
        return
    if field in request or "session_id" in request:
        return  # an explicit caller value wins
    if not endpoint.injects_resume(request):
        return
    request[field] = sid
