"""pydantic's plugin lookup answered from the catalog's scan (cold start, issue 15).

The catalog's metadata walk also looks for pydantic's ``pydantic`` entry-point group; when none
is declared, the first catalog config fills pydantic's plugin cache with that (empty) answer
instead of letting pydantic parse every distribution's metadata again. Each case runs in a fresh
interpreter: pydantic's cache lives for the process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lionagi.service._catalog.discovery import _importlib_group
from lionagi.service._catalog.entry_scan import scan_groups

# Counts pydantic's own plugin scans, then builds one catalog provider's config. `extra` runs
# after the catalog snapshot and before the config.
_PROBE = """\
import json, sys
import pydantic.plugin._loader as loader
scans = []
original = loader.entry_points
def counted(**kwargs):
    scans.append(kwargs.get("group"))
    return original(**kwargs)
loader.entry_points = counted
from lionagi.service import EndpointRegistry, iModel
EndpointRegistry.snapshot()
{extra}
model = iModel({construct}, api_key="sk-test-key", allow_local_network=True)
print(json.dumps({{"scans": scans, "plugins": sorted(loader._plugins or {{}})}}))
"""

# A catalog provider, and an OpenAI-compatible endpoint (its config is built by the matcher).
_CATALOG = 'provider="openai", endpoint="chat", model="m", base_url="http://127.0.0.1:9/v1"'
_COMPATIBLE = (
    'provider="local", endpoint="chat/completions", openai_compatible=True, '
    'base_url="http://127.0.0.1:9/v1", request_defaults={"model": "m"}'
)

# A pydantic plugin that reports each schema it is asked to validate.
_PLUGIN = """\
class _Plugin:
    def new_schema_validator(self, schema, schema_type, *args, **kwargs):
        print("PLUGIN SAW", schema_type.__name__, flush=True)
        return None, None, None

plugin = _Plugin()
"""


def _run(code: str, pythonpath: Path | None = None) -> tuple[dict[str, list[str]], str]:
    env = dict(os.environ)
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stdout


def _plugin_dist(root: Path) -> None:
    """An installed distribution declaring a pydantic plugin (module ``lionagi_test_plugin``)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "lionagi_test_plugin.py").write_text(_PLUGIN)
    info = root / "lionagi_test_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lionagi-test-plugin\n")
    (info / "entry_points.txt").write_text("[pydantic]\nrecorder = lionagi_test_plugin:plugin\n")


@pytest.mark.parametrize("construct", [_CATALOG, _COMPATIBLE], ids=["catalog", "compatible"])
def test_no_installed_plugin_spares_pydantic_its_own_metadata_scan(construct: str) -> None:
    result, _ = _run(_PROBE.format(extra="", construct=construct))
    assert result == {"scans": [], "plugins": []}


def test_an_installed_pydantic_plugin_is_still_loaded_and_used(tmp_path: Path) -> None:
    _plugin_dist(tmp_path)
    result, stdout = _run(_PROBE.format(extra="", construct=_CATALOG), pythonpath=tmp_path)
    assert result["scans"] == ["pydantic"]  # pydantic looked itself, and found the plugin
    assert result["plugins"] == ["lionagi_test_plugin:plugin"]
    assert "PLUGIN SAW EndpointConfig" in stdout


def test_a_sys_path_changed_after_the_scan_is_left_to_pydantic(tmp_path: Path) -> None:
    # The catalog's answer was for the path it walked; a plugin reachable only on the new path
    # must still be found, so pydantic scans for itself.
    _plugin_dist(tmp_path)
    extra = f"sys.path.insert(0, {str(tmp_path)!r})"
    result, stdout = _run(_PROBE.format(extra=extra, construct=_CATALOG))
    assert result["scans"] == ["pydantic"]
    assert "PLUGIN SAW EndpointConfig" in stdout


def test_disabling_plugins_still_wins(tmp_path: Path) -> None:
    _plugin_dist(tmp_path)
    env_code = "import os\nos.environ['PYDANTIC_DISABLE_PLUGINS'] = '__all__'\n"
    result, stdout = _run(
        env_code + _PROBE.format(extra="", construct=_CATALOG), pythonpath=tmp_path
    )
    assert result["scans"] == []
    assert "PLUGIN SAW" not in stdout


def test_one_walk_reads_several_groups_as_importlib_reads_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plugin_dist(tmp_path / "plugins")
    both = tmp_path / "both" / "both_groups-0.1.dist-info"
    both.mkdir(parents=True)
    (both / "METADATA").write_text("Name: both-groups\n")
    (both / "entry_points.txt").write_text(
        "[lionagi.providers]\nboth = both.provider\n[pydantic]\nboth = both.plugin:p\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    monkeypatch.syspath_prepend(str(tmp_path / "both"))
    groups = ("lionagi.providers", "pydantic", "console_scripts")
    scanned = scan_groups(groups)
    assert scanned is not None
    for group in groups:
        assert sorted(scanned[group]) == sorted(_importlib_group(group)), group
    assert sorted(scanned["pydantic"]) == [
        ("both", "both.plugin:p", "both-groups"),
        ("recorder", "lionagi_test_plugin:plugin", "lionagi-test-plugin"),
    ]
