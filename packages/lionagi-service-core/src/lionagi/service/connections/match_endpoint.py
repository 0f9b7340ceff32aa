"""Compatibility import path for `match_endpoint` (ADR-0028 D3: "public compatibility facade").

`from lionagi.service.connections.match_endpoint import match_endpoint` keeps working for
legacy lionagi code; it is the catalog's own `match_endpoint`, also exported by
`lionagi.service`.
"""

from __future__ import annotations

from .._catalog.registry import match_endpoint

__all__ = ["match_endpoint"]
