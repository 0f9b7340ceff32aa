"""HTTP transport helpers: the SSRF guard, the client, client state and stream grammars.

Applications normally need only :mod:`lionagi.service`; this module is for adapter authors and
for tests that inject a resolver.
"""

from ._transport.http.client import ClientState as ClientState
from ._transport.http.client import StatelessClient as StatelessClient
from ._transport.http.projection import StreamFormat as StreamFormat
from ._transport.http.ssrf import Approval as Approval
from ._transport.http.ssrf import Resolver as Resolver
from ._transport.http.ssrf import SSRFGuard as SSRFGuard
from ._transport.http.ssrf import check_url_safe as check_url_safe

__all__ = [
    "Approval",
    "ClientState",
    "Resolver",
    "SSRFGuard",
    "StatelessClient",
    "StreamFormat",
    "check_url_safe",
]
