"""Compatibility package for legacy `lionagi.service.connections` imports (ADR-0028 D3).

Only `match_endpoint`, the public compatibility facade the ADR names, is kept here
(`lionagi.service.connections.match_endpoint`); the rest of the legacy package's modules were
internal and have public names in `lionagi.service`.
"""
