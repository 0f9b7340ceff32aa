"""The copy-me template in templates/lionagi-provider-template passes both conformance kits.

The template is copied into a temporary directory, made importable path-wise with a
``.dist-info`` that carries the entry point its pyproject declares (so the catalog discovers
it exactly as it would an installed wheel), and its own tests run in a fresh pytest process.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from ._path_install import run_tests, write_dist_info

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "templates" / "lionagi-provider-template"


def install_path_wise(copy: Path, site: Path) -> None:
    project = tomllib.loads((copy / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entries = project["entry-points"]["lionagi.providers"]
    write_dist_info(site, project["name"], project["version"], entries)


def test_the_template_passes_both_kits_from_a_copy(tmp_path):
    copy = tmp_path / "lionagi-provider-acme"
    shutil.copytree(TEMPLATE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    install_path_wise(copy, site)
    done = run_tests(copy, [copy / "src", site])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "TestAcmeChat" not in done.stdout  # -q: no failure names printed
    summary = done.stdout.strip().splitlines()[-1]
    assert "passed" in summary and "failed" not in summary, summary
