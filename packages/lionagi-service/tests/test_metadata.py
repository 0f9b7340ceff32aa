"""The meta-distribution's installed metadata: core always, one provider per extra, ``all``.

Run alone (``scripts/test-packages``) only core comes with it; the extras are checked as the
metadata an installer reads, so a typo in an extra's requirement fails here, before a user's
``pip install "lionagi-service[...]"`` does.
"""

from __future__ import annotations

import importlib.metadata as metadata

from packaging.requirements import Requirement

DIST = "lionagi-service"
PROVIDER_PREFIX = "lionagi-provider-"


def _requirements() -> list[Requirement]:
    return [Requirement(text) for text in metadata.requires(DIST) or []]


def _by_extra() -> dict[str, set[str]]:
    extras: dict[str, set[str]] = {}
    for extra in metadata.metadata(DIST).get_all("Provides-Extra") or []:
        extras[extra] = {
            req.name
            for req in _requirements()
            if req.marker is not None and req.marker.evaluate({"extra": extra})
        }
    return extras


def test_core_is_the_only_unconditional_requirement() -> None:
    unconditional = [req for req in _requirements() if req.marker is None]
    assert [req.name for req in unconditional] == ["lionagi-service-core"]
    assert unconditional[0].specifier, "core's range must be bounded"
    import lionagi.service

    assert lionagi.service.iModel


def test_each_extra_pulls_its_provider_and_all_pulls_every_one() -> None:
    extras = _by_extra()
    assert {"all", "openai", "claude-code"} <= set(extras)
    providers = set()
    for extra, names in extras.items():
        if extra == "all":
            continue
        assert names == {PROVIDER_PREFIX + extra}, extra
        providers |= names
    assert extras["all"] == providers


def test_the_wheel_holds_no_module() -> None:
    files = metadata.files(DIST) or []
    assert not [path for path in files if path.suffix == ".py"]
