"""``lionagi-service models PROVIDER``: what a model string for this provider may say.

Everything comes from the provider's model policy in the validated catalog (the same data the
``model=`` parser applies), so the listing cannot drift from what ``chat`` accepts: the bare
aliases that expand to this provider, the effort suffixes and how each is sent, the modes it has
and its endpoints. Exit status: 0, 2 when ``PROVIDER`` is not installed or is installed but
unavailable (its module or classes fail to import, as ``chat`` reports it), 5 when the catalog
does not validate.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NamedTuple

from .._base.errors import CatalogValidationError, ProviderUnavailable
from .._base.suggest import did_you_mean
from .._catalog.keys import canonical_endpoint_key, canonical_provider_key
from .._catalog.model_parse import provider_takes_model
from .._catalog.registry import EndpointRegistry
from .._catalog.snapshot import CatalogProvider, CatalogSnapshot
from ._console import table_console
from ._render import argument_text, error_line, exception_line
from ._signals import OutcomeWriter, written_as_is

__all__ = ["models_command", "models_report"]

_CATALOG_INVALID = 5
_BAD_USAGE = 2


def models_report(snapshot: CatalogSnapshot, provider: str) -> dict[str, Any]:
    """The policy of an installed ``provider`` (canonical key) as plain data."""
    item = snapshot.providers[provider]
    policy = item.policy
    aliases = {
        name: alias.target
        for name, alias in sorted(snapshot.model_aliases.items())
        if alias.provider == provider
    }
    if policy is not None:
        for name, target in sorted(policy.model_aliases.items()):
            aliases.setdefault(name, target)
    # Without a policy a model string is sent as written: that is what "passthrough" says.
    effort_mode = policy.effort_mode if policy is not None else "passthrough"
    return {
        "provider": provider,
        "provider_aliases": list(item.aliases),
        "model_aliases": aliases,
        "effort_mode": effort_mode,
        "effort_levels": list(policy.effort_levels) if policy is not None else [],
        "effort_kwarg": policy.effort_kwarg if policy is not None else None,
        "modes": [
            name
            for name in ("yolo", "bypass", "fast")
            if policy is not None and getattr(policy, f"{name}_kwargs")
        ],
        "default_endpoint": _declared(item, policy.default_endpoint) if policy else None,
        # As declared: an endpoint name is a URL path (Exa's `findSimilar`), not a folded key.
        "endpoints": [item.endpoints[key].endpoint for key in item.endpoint_keys],
        "takes_model": provider_takes_model(snapshot, provider),
    }


def _declared(item: CatalogProvider, name: str | None) -> str | None:
    """``name`` (a key or alias of one of ``item``'s endpoints) as the endpoint declares it."""
    key = item.endpoint_index.get(canonical_endpoint_key(name)) if name else None
    return item.endpoints[key].endpoint if key is not None else name


def models_command(
    provider: str, *, as_json: bool, write_outcome: OutcomeWriter = written_as_is
) -> int:
    """Print ``provider``'s model policy and return the process exit status.

    The report or the refusal is known first; it is then written through ``write_outcome``,
    which for the command line holds Ctrl-C and SIGTERM from its first line on
    (``written_held``), so a signal once it is written no longer turns it into ``interrupted``.
    """
    found = _looked_up(provider)

    def write() -> int:
        if isinstance(found, _Refused):
            print(found.line, file=sys.stderr, flush=True)
            return found.code
        if as_json:
            print(json.dumps(found, indent=2))
        else:
            _print(found)
        return 0

    return write_outcome(write)


class _Refused(NamedTuple):
    """Why ``models`` prints no report: its exit code and its one stderr line."""

    code: int
    line: str


def _looked_up(provider: str) -> dict[str, Any] | _Refused:
    """``provider``'s report, or the refusal to write instead; nothing is written here."""
    try:
        snapshot = EndpointRegistry.snapshot()
    except CatalogValidationError as exc:
        return _Refused(_CATALOG_INVALID, exception_line("models: ", exc))
    key = snapshot.provider_index.get(canonical_provider_key(provider))
    broken = None
    if key is None:
        from .._catalog.unavailable_hint import unavailable_error  # error path only

        broken = unavailable_error(snapshot, canonical_provider_key(provider))
    if broken is not None:
        # Installed (`providers` lists it, `chat` says so): "no installed provider" would send
        # the user to install what is there. Exit 2 as `chat` gives the same error.
        return _Refused(_BAD_USAGE, exception_line("models: ", broken))
    if key is None or key not in snapshot.providers:
        installed = ", ".join(snapshot.provider_keys) or "none"
        # Compared with every key and alias, as `chat` suggests for an unknown provider.
        names = [*snapshot.provider_index, *snapshot.unavailable]
        near = did_you_mean(canonical_provider_key(provider), names)
        return _Refused(
            _BAD_USAGE,
            error_line(
                f"models: {argument_text(provider)} names no installed provider "
                f"(installed: {installed}){near}"
            ),
        )
    try:
        # A deferred provider's classes are imported here (whether its endpoints take a model),
        # and may fail as `chat` would: the same one line, not a traceback.
        return models_report(snapshot, key)
    except CatalogValidationError as exc:
        return _Refused(_CATALOG_INVALID, exception_line("models: ", exc))
    except ProviderUnavailable as exc:
        return _Refused(_BAD_USAGE, exception_line("models: ", exc))


def _effort_text(report: dict[str, Any]) -> str:
    mode = report["effort_mode"]
    if mode == "passthrough":
        return "none (the model name is sent as written, a -max or -high ending included)"
    if mode == "none" or not report["effort_levels"]:
        return "none (a -low/-high suffix is an error)"
    levels = ", ".join(report["effort_levels"])
    if mode == "model_name":
        return f"{levels} (kept in the model name)"
    return f"{levels} (sent as {report['effort_kwarg']})"


def _print(report: dict[str, Any]) -> None:
    from rich.table import Table

    console = table_console()
    table = Table(title=f"{report['provider']}: model strings", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    aliases = report["model_aliases"]
    alias_text = "\n".join(f"{name} → {target}" for name, target in aliases.items())
    takes_effort = report["effort_mode"] in ("kwarg", "model_name")
    suffix = "[-<effort>]" if takes_effort else ""
    if report["takes_model"]:
        table.add_row("write", f"{report['provider']}/<model>{suffix}")
    else:
        table.add_row(
            "write",
            f"provider={report['provider']!r}, endpoint=<one of the endpoints below> "
            "(its requests take no model name)",
        )
    table.add_row("provider aliases", ", ".join(report["provider_aliases"]) or "none")
    table.add_row("model aliases", alias_text or "none")
    table.add_row(
        "effort levels", _effort_text(report) if report["takes_model"] else "none (no model name)"
    )
    table.add_row("modes", ", ".join(report["modes"]) or "none")
    endpoints = ", ".join(report["endpoints"])
    if report["default_endpoint"]:
        endpoints += f" (default: {report['default_endpoint']})"
    table.add_row("endpoints", endpoints)
    console.print(table)
