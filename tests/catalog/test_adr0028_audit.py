"""ADR-0028 audit: catalog defects found by installing throwaway distributions beside a vendor.

1. One provider-key collision, one diagnostic (decisions, "One collision, one diagnostic"): a
   distribution that takes another provider's name or alias got ``duplicate_provider_key`` *and*
   ``invalid_model_policy`` echoes against the innocent provider, whose fix text told users to
   uninstall that provider.
2. An agentic class's capability record must use the ADR-0030 D1 vocabulary: an unknown
   ``transport`` or a non-bool flag (``resumable="no"`` reads as True) published.
"""

from __future__ import annotations

import pytest

from lionagi.service import CatalogValidationError, ProviderDiagnostic

from .conftest import Dists

VICTIM = """
PROVIDER_SPECS = (
    agentic("victim", "query_cli", provider_aliases=("vic", "victim-code"),
            endpoint_aliases=("cli",)),
)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="victim",
        provider_aliases=("vic", "victim-code"),
        model_aliases={"vic": "victim/m", "victim-code": "victim/m"},
        effort_mode="kwarg",
        effort_kwarg="effort",
    ),
)
"""


def _diagnostics(dists: Dists) -> tuple[ProviderDiagnostic, ...]:
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    assert catalog.published is None
    return info.value.diagnostics


@pytest.mark.parametrize("taken", ["vic", "VICTIM", "victim-code"])
def test_a_taken_provider_name_is_one_collision_not_the_victims_policy_defect(
    dists: Dists, taken: str
) -> None:
    dists.provider("victim", VICTIM)
    dists.provider(
        "intruder", f"PROVIDER_SPECS = (api('intruder', 'chat', provider_aliases=({taken!r},)),)\n"
    )
    (diag,) = _diagnostics(dists)
    assert (diag.code, diag.key) == ("duplicate_provider_key", taken.casefold())
    assert diag.distributions == (f"{dists.prefix}-intruder", f"{dists.prefix}-victim")
    assert "intruder" in diag.message and "victim" in diag.message


def test_a_broken_provider_keyed_like_a_model_alias_is_reported_once(dists: Dists) -> None:
    dists.provider("victim", VICTIM)
    dists.provider("vic", "raise ImportError('vendor sdk missing')\n", name="broken")
    diags = _diagnostics(dists)
    assert sorted((d.code, d.provider, d.key) for d in diags) == [
        ("duplicate_provider_key", "vic", "vic"),
        ("import_error", "vic", None),
    ]


def test_a_policy_alias_its_specs_do_not_declare_is_still_refused(dists: Dists) -> None:
    """The fix must not let a policy add an identity of its own (ADR-0028 D5)."""
    dists.provider(
        "victim",
        VICTIM.replace(
            '("vic", "victim-code"),\n        model',
            '("vic", "victim-code", "extra"),\n        model',
        ),
    )
    (diag,) = _diagnostics(dists)
    assert (diag.code, diag.provider, diag.key) == ("invalid_model_policy", "victim", "extra")


AGENT = """
class Req(BaseModel):
    prompt: str = ""
    resume: str | None = None


def caps_class(**caps):
    base = dict(transport="subprocess", resumable=False, emits_tool_events=True,
                reports_usage=True)
    base.update(caps)
    return type("Agent", (AgenticEndpoint,), {
        "capabilities": AgenticCapabilities(**base), "request_type": Req,
        "resume_field": "resume", "__module__": __name__,
    })


PROVIDER_SPECS = (agentic("acme", "cli", caps_class({caps}), request_options=Req),)
"""


@pytest.mark.parametrize(
    ("caps", "named"),
    [
        ("transport='pigeon'", "capabilities.transport"),
        ("transport='Subprocess'", "capabilities.transport"),
        ("resumable='no'", "capabilities.resumable"),
        ("emits_tool_events=1", "capabilities.emits_tool_events"),
        ("reports_usage=None", "capabilities.reports_usage"),
    ],
)
def test_capabilities_outside_the_vocabulary_are_an_invalid_endpoint_class(
    dists: Dists, caps: str, named: str
) -> None:
    dists.provider("acme", AGENT.replace("{caps}", caps))
    (diag,) = _diagnostics(dists)
    assert (diag.code, diag.provider, diag.endpoint, diag.key) == (
        "invalid_endpoint_class",
        "acme",
        "cli",
        "endpoint_class",
    )
    assert named in diag.message


@pytest.mark.parametrize("caps", ["", "resumable=True", "transport='in_process'"])
def test_capabilities_in_the_vocabulary_publish(dists: Dists, caps: str) -> None:
    dists.provider("acme", AGENT.replace("{caps}", caps))
    snapshot = dists.catalog().snapshot()
    assert snapshot.provider("acme").endpoint_keys == ("cli",)
