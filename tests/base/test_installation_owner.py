"""A ``lionagi/__init__.py`` is blamed on the distribution whose RECORD lists it.

The installation check used to say "the 'lionagi' distribution is installed" for any
``lionagi/__init__.py``, with the fix ``pip uninstall -y lionagi lionagi-service-core``: for a
provider wheel that wrongly ships that file, the fix removed core and left the file. These tests
write real ``.dist-info`` directories (``METADATA`` + ``RECORD``) next to a ``lionagi`` folder,
so the owner is found through ``importlib.metadata`` exactly as for a pip-installed wheel.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import lionagi.service._base as core_base
from lionagi.service import InstallationConflictError
from lionagi.service._base.installation import check_installation

LEGACY_FIX = "pip uninstall -y lionagi lionagi-service-core"


def _site(root: Path, owner: str | None, version: str = "0.1.0") -> Path:
    """``root/lionagi/__init__.py``, claimed by ``owner``'s RECORD (or by nobody)."""
    (root / "lionagi").mkdir(parents=True)
    init = root / "lionagi" / "__init__.py"
    init.write_text("")
    if owner is not None:
        info = root / f"{owner.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {owner}\nVersion: {version}\n"
        )
        (info / "RECORD").write_text(f"lionagi/__init__.py,,\n{info.name}/METADATA,,\n")
    return init


def _check(monkeypatch: pytest.MonkeyPatch, root: Path, init: Path) -> InstallationConflictError:
    monkeypatch.syspath_prepend(str(root))
    fake = types.ModuleType("lionagi")
    fake.__file__ = str(init)
    monkeypatch.setitem(sys.modules, "lionagi", fake)
    with pytest.raises(InstallationConflictError) as info:
        check_installation()
    return info.value


def test_a_provider_wheel_shipping_the_file_is_named_with_its_own_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init = _site(tmp_path, "lionagi-provider-acme")
    error = _check(monkeypatch, tmp_path, init)
    text = str(error)
    assert error.distribution == "lionagi-provider-acme"
    assert text.startswith("'lionagi-provider-acme' (not the published 'lionagi') installed ")
    assert str(init) in text
    assert "PEP 420 namespace" in text
    assert "pip uninstall -y lionagi-provider-acme" in text
    assert LEGACY_FIX not in text  # that would remove core and leave the file


def test_the_published_lionagi_keeps_todays_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init = _site(tmp_path, "lionagi", "0.36.0")
    error = _check(monkeypatch, tmp_path, init)
    assert error.distribution == "lionagi"
    assert str(error).startswith(
        "the 'lionagi' 0.36.0 distribution is installed in the same environment as "
        "'lionagi-service-core'"
    )
    assert LEGACY_FIX in str(error)


def test_a_file_nobody_installed_is_named_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init = _site(tmp_path, None)
    error = _check(monkeypatch, tmp_path, init)
    text = str(error)
    assert text.startswith(f"no installed distribution claims {init}, ")
    assert "delete or move that file" in text
    assert LEGACY_FIX not in text
    assert error.distribution == ""


def test_another_copy_of_the_file_elsewhere_is_not_the_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A RECORD naming ``lionagi/__init__.py`` in another directory does not claim this one."""
    _site(tmp_path / "other", "lionagi-provider-elsewhere")
    monkeypatch.syspath_prepend(str(tmp_path / "other"))
    init = _site(tmp_path / "here", None)
    assert str(_check(monkeypatch, tmp_path / "here", init)).startswith(
        "no installed distribution claims "
    )


def test_importing_core_beside_a_providers_file_names_the_provider(tmp_path: Path) -> None:
    """End to end: a plain ``from lionagi.service import iModel`` in a fresh interpreter."""
    init = _site(tmp_path, "lionagi-provider-acme")
    # core's own lionagi/service beside the stray file, as pip leaves a shared site-packages
    (tmp_path / "lionagi" / "service").symlink_to(
        Path(core_base.__file__).parents[1], target_is_directory=True
    )
    done = subprocess.run(
        [sys.executable, "-c", "from lionagi.service import iModel"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("lionagi.service._base.errors.InstallationConflictError: "), last
    assert "'lionagi-provider-acme' (not the published 'lionagi')" in last
    assert str(init) in last
    assert LEGACY_FIX not in last
