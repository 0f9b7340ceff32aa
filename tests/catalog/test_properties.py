"""Property tests: key canonicalization and collision detection over generated catalogs."""

from __future__ import annotations

import string
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from lionagi.service import (
    Endpoint,
    EndpointType,
    ProviderEndpointSpec,
    ProviderModuleSpec,
    canonical_endpoint_key,
    canonical_provider_key,
)
from lionagi.service._catalog.discovery import CollectedModule
from lionagi.service._catalog.validate import validate_specs

PUNCTUATION = "-_./:"
COLLISION_CODES = {"self_alias", "duplicate_provider_key", "duplicate_endpoint_key"}

keys = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
# A small alphabet with case and whitespace variants makes coincidences frequent.
small_key = st.builds(
    lambda pad_l, core, pad_r: pad_l + core + pad_r,
    st.sampled_from(["", " ", "\t"]),
    st.text(alphabet="aAbB-_", min_size=1, max_size=3),
    st.sampled_from(["", " ", "\n"]),
)


@given(keys)
def test_canonicalization_is_idempotent(value: str) -> None:
    once = canonical_provider_key(value)
    assert canonical_provider_key(once) == once
    assert canonical_endpoint_key(canonical_endpoint_key(value)) == canonical_endpoint_key(value)


@given(keys, st.sampled_from(["", " ", "  ", "\t", "\n "]), st.sampled_from(["", " ", "\r\n"]))
def test_canonicalization_ignores_surrounding_whitespace(value: str, left: str, right: str) -> None:
    assert canonical_provider_key(left + value + right) == canonical_provider_key(value)
    assert canonical_endpoint_key(left + value + right) == canonical_endpoint_key(value)


@given(st.text(alphabet=string.ascii_letters + string.digits + PUNCTUATION, max_size=20))
def test_canonicalization_ignores_case(value: str) -> None:
    variants = {value, value.upper(), value.lower(), value.swapcase()}
    assert len({canonical_provider_key(v) for v in variants}) == 1
    assert len({canonical_endpoint_key(v) for v in variants}) == 1


@given(st.text(alphabet="abcXYZ" + PUNCTUATION, min_size=1, max_size=12))
def test_canonicalization_preserves_punctuation(value: str) -> None:
    key = canonical_provider_key(value)
    assert [c for c in key if c in PUNCTUATION] == [c for c in value if c in PUNCTUATION]
    assert key == value.lower()


def _class(i: int) -> type[Endpoint]:
    return type(f"E{i}", (Endpoint,), {})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(small_key, st.lists(small_key, max_size=3)), min_size=1, max_size=4))
def test_provider_collision_flagged_iff_two_canonical_keys_coincide(
    providers: list[tuple[str, list[str]]],
) -> None:
    modules = []
    for i, (name, aliases) in enumerate(providers):
        spec = ProviderEndpointSpec(
            provider=name,
            endpoint="chat",
            endpoint_type=EndpointType.API,
            endpoint_class=_class(i),
            provider_aliases=tuple(aliases),
            base_url="https://x.test",
        )
        modules.append(
            CollectedModule(row=ProviderModuleSpec(provider=name, module=f"m{i}"), specs=(spec,))
        )
    diags, _ = validate_specs(modules)

    all_keys = Counter(
        canonical_provider_key(k) for name, aliases in providers for k in (name, *aliases)
    )
    coincide = any(n > 1 for n in all_keys.values())
    flagged = {d.code for d in diags} & COLLISION_CODES
    assert bool(flagged) == coincide
    if not coincide:
        assert diags == []  # nothing else is wrong with these specs


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(small_key, st.lists(small_key, max_size=3)), min_size=1, max_size=4))
def test_endpoint_collision_flagged_iff_two_canonical_keys_coincide(
    endpoints: list[tuple[str, list[str]]],
) -> None:
    specs = tuple(
        ProviderEndpointSpec(
            provider="acme",
            endpoint=name,
            endpoint_type=EndpointType.API,
            endpoint_class=_class(i),
            endpoint_aliases=tuple(aliases),
            base_url="https://x.test",
        )
        for i, (name, aliases) in enumerate(endpoints)
    )
    module = CollectedModule(row=ProviderModuleSpec(provider="acme", module="m"), specs=specs)
    diags, _ = validate_specs([module])

    all_keys = Counter(
        canonical_endpoint_key(k) for name, aliases in endpoints for k in (name, *aliases)
    )
    coincide = any(n > 1 for n in all_keys.values())
    flagged = {d.code for d in diags} & COLLISION_CODES
    assert bool(flagged) == coincide
    if not coincide:
        assert diags == []  # nothing else is wrong with these specs
