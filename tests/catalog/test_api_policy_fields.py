"""An HTTP provider's policy kwargs are checked against its request model at build (ADR-0028 D1).

The audit's case (audit 27, item 2): only agentic endpoints were checked, so an API provider
publishing ``effort_kwarg="reasoning"`` built fine and every user's ``model="acme/x-high"``
then failed with ``request_defaults.reasoning: is not a field of ChatRequest``. The rule: each
key is a field of the request model of the provider's default endpoint, or, without one, of at
least one API endpoint's request model; a schema-less endpoint takes any key (as at call time);
a deferred row is checked when it resolves.
"""

from __future__ import annotations

import pytest

from lionagi.service import CatalogValidationError, EndpointRegistry, ProviderCatalog

from .conftest import Dists

CHAT = "api('acme', 'chat', request_options=ChatRequest)"
EMBED_REQUEST = """
class EmbedRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = "m"
    input: list[str] = []
"""
EMBED = "api('acme', 'embed', request_options=EmbedRequest)"


def _build(dists: Dists, specs: str, policy: str, *, prelude: str = "") -> ProviderCatalog:
    dists.provider(
        "acme",
        prelude
        + f"PROVIDER_SPECS = ({specs},)\n"
        + f"MODEL_POLICIES = (ProviderModelPolicy(provider='acme', {policy}),)\n",
    )
    return dists.catalog()


def _failures(catalog: ProviderCatalog) -> list[tuple[str, str | None, str]]:
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    return [(d.code, d.key, d.message) for d in info.value.diagnostics]


@pytest.mark.parametrize(
    ("policy", "key", "table"),
    [
        ("effort_mode='kwarg', effort_kwarg='reasoning'", "reasoning", "effort_kwarg"),
        ("fast_kwargs={'turbo': True}", "turbo", "fast_kwargs"),
        (
            "yolo_kwargs={'permission': 1}, bypass_kwargs={'permission': 1}",
            "permission",
            "yolo_kwargs",
        ),
    ],
)
def test_an_api_policy_key_that_is_no_request_field_fails_the_build(
    dists: Dists, policy: str, key: str, table: str
) -> None:
    found = _failures(_build(dists, CHAT, policy))
    assert (
        "invalid_model_policy",
        key,
        f"model policy: {table} key {key!r} is not a field of ChatRequest",
    ) in found


def test_a_valid_api_effort_kwarg_publishes_and_applies(dists: Dists) -> None:
    catalog = _build(dists, CHAT, "effort_mode='kwarg', effort_kwarg='temperature'")
    assert dict(catalog.parse_model_spec("acme/x-high").kwargs) == {"temperature": "high"}


def test_the_default_endpoints_request_model_decides(dists: Dists) -> None:
    specs = f"{CHAT}, {EMBED}"
    bad = _build(
        dists,
        specs,
        "effort_mode='kwarg', effort_kwarg='temperature', default_endpoint='embed'",
        prelude=EMBED_REQUEST,
    )
    assert [(c, k) for c, k, _ in _failures(bad)] == [("invalid_model_policy", "temperature")]


def test_the_default_endpoint_with_the_field_publishes(dists: Dists) -> None:
    catalog = _build(
        dists,
        f"{CHAT}, {EMBED}",
        "effort_mode='kwarg', effort_kwarg='temperature', default_endpoint='chat'",
        prelude=EMBED_REQUEST,
    )
    assert catalog.snapshot().providers["acme"].policy is not None


def test_without_a_default_one_endpoint_with_the_field_is_enough(dists: Dists) -> None:
    catalog = _build(
        dists,
        f"{CHAT}, {EMBED}",
        "effort_mode='kwarg', effort_kwarg='temperature'",
        prelude=EMBED_REQUEST,
    )
    assert catalog.snapshot().providers["acme"].policy is not None


def test_without_a_default_a_key_no_endpoint_has_fails(dists: Dists) -> None:
    catalog = _build(
        dists,
        f"{CHAT}, {EMBED}",
        "effort_mode='kwarg', effort_kwarg='reasoning'",
        prelude=EMBED_REQUEST,
    )
    assert (
        "invalid_model_policy",
        "reasoning",
        "model policy: effort_kwarg key 'reasoning' is not a field of any of "
        "ChatRequest, EmbedRequest",
    ) in _failures(catalog)


def test_a_schema_less_api_endpoint_takes_any_key(dists: Dists) -> None:
    catalog = _build(dists, "api('acme', 'chat')", "effort_mode='kwarg', effort_kwarg='reasoning'")
    assert catalog.snapshot().providers["acme"].policy is not None


def test_a_deferred_row_is_checked_when_it_resolves(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build does not import the request model; the first match runs the same check."""
    impl = dists.module(
        "acme_impl",
        """
        class LazyChat(Endpoint):
            pass
        """,
    )
    specs = (
        f"api('acme', 'chat', cls='{impl}:LazyChat', request_options='{dists.prefix}._support:"
        "ChatRequest')"
    )
    catalog = _build(dists, specs, "effort_mode='kwarg', effort_kwarg='reasoning'")
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    assert catalog.snapshot().deferred.providers == ("acme",)  # published: nothing imported yet
    with pytest.raises(CatalogValidationError) as info:
        catalog.match("acme", "chat")
    assert [(d.code, d.key) for d in info.value.diagnostics] == [
        ("invalid_model_policy", "reasoning")
    ]


def test_every_installed_provider_still_validates_fully() -> None:
    """The bundled providers' policies pass the stricter check, deferred rows resolved."""
    from lionagi.service._catalog.full_check import failures

    snapshot = ProviderCatalog().snapshot()
    assert failures(snapshot, snapshot.deferred.providers) == {}
    assert not snapshot.unavailable
