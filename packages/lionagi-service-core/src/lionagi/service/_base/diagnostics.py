"""Typed catalog diagnostics (ADR-0028 D2): stable codes a tool or a test can match on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CatalogDiagnosticCode", "DiagnosticDict", "ProviderDiagnostic"]

CatalogDiagnosticCode = Literal[
    "empty_key",
    "self_alias",
    "duplicate_provider_key",
    "duplicate_endpoint_key",
    "inconsistent_provider_aliases",
    "invalid_endpoint_class",
    "invalid_request_options",
    "invalid_request_default",
    "import_error",
    # Added by the catalog implementation (issue 3); see docs/decisions.md.
    "provider_mismatch",
    "invalid_endpoint_config",
    "invalid_model_policy",
    # Added by the catalog hardening (issue 9, item 14); see docs/decisions.md.
    "duplicate_provider_module",
    # Added for provider-author mistakes in the module contract; see docs/decisions.md.
    "invalid_provider_module",
]

DiagnosticDict = dict[str, str | list[str] | None]
"""The JSON shape of one diagnostic (``ProviderDiagnostic.to_dict``)."""


@dataclass(frozen=True, slots=True)
class ProviderDiagnostic:
    """One catalog problem, tied to the provider, endpoint, module and key it concerns.

    `distributions` names the installed distribution(s) the problem comes from (sorted; empty
    only for hand-built inventory rows) and `fix` says what to do about it, e.g. which
    distribution to `pip uninstall` or reinstall: a provider key alone does not tell a user
    which package put it there.
    """

    code: CatalogDiagnosticCode
    provider: str
    endpoint: str | None
    module: str | None
    key: str | None
    message: str
    cause_type: str | None = None
    distributions: tuple[str, ...] = ()
    fix: str | None = None

    def sort_key(self) -> tuple[str, str, str, str]:
        """Order used for every published diagnostics list (ADR-0028 D5)."""
        return (self.provider, self.endpoint or "", self.code, self.key or "")

    def to_dict(self) -> DiagnosticDict:
        """Return the JSON projection used by inspection and the command line."""
        return {
            "code": self.code,
            "provider": self.provider,
            "endpoint": self.endpoint,
            "module": self.module,
            "key": self.key,
            "message": self.message,
            "cause_type": self.cause_type,
            "distributions": list(self.distributions),
            "fix": self.fix,
        }
