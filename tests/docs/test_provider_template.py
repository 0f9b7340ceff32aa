"""The copy-me template in templates/lionagi-provider-template passes both conformance kits.

The template is copied into a temporary directory, made importable path-wise with a
``.dist-info`` that carries the entry point its pyproject declares (so the catalog discovers
it exactly as it would an installed wheel), and its own tests run in a fresh pytest process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "templates" / "lionagi-provider-template"


def install_path_wise(copy: Path, site: Path) -> None:
    project = tomllib.loads((copy / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = project["name"], project["version"]
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    entries = project["entry-points"]["lionagi.providers"]
    lines = "".join(f"{key} = {value}\n" for key, value in entries.items())
    (info / "entry_points.txt").write_text(f"[lionagi.providers]\n{lines}", encoding="utf-8")


def test_the_template_passes_both_kits_from_a_copy(tmp_path):
    copy = tmp_path / "lionagi-provider-acme"
    shutil.copytree(TEMPLATE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    install_path_wise(copy, site)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(copy / "src"), str(site), env.get("PYTHONPATH")])
    )
    env["LIONAGI_SERVICE_CONFIG_HOME"] = "isolated"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:asyncio",
            "tests",
        ],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "TestAcmeChat" not in done.stdout  # -q: no failure names printed
    summary = done.stdout.strip().splitlines()[-1]
    assert "passed" in summary and "failed" not in summary, summary
