"""docs/reliability.md counts the HTTP catalog rows and secret-scan cases the suites really run.

The page said "all 18 rows" and "18 rows ...; 33 cases" after Gemini's embeddings row made the
catalog 19 HTTP rows, and the secret scan gained its URL-userinfo cases.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from lionagi.service import EndpointRegistry

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reliability.md"


def http_rows() -> set[str]:
    """The installed catalog's HTTP rows, as the fault matrix and the secret scan read them."""
    return {
        f"{item['provider']}/{endpoint['endpoint']}"
        for item in EndpointRegistry.inspect()["providers"]
        for endpoint in item["endpoints"]
        if endpoint["endpoint_type"] != "agentic"
    }


def page() -> str:
    return " ".join(PAGE.read_text(encoding="utf-8").split())


def test_the_fault_matrix_row_count_is_the_catalogs():
    rows = http_rows()
    (documented,) = re.findall(r"\| all (\d+) rows, 20 faults \|", page())
    assert int(documented) == len(rows), sorted(rows)
    assert "gemini chat, embeddings and generateContent" in page()


def test_the_secret_scan_row_and_case_counts_are_the_suites():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
         "tests/security/test_secret_scan.py"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    cases = [line for line in done.stdout.splitlines() if "test_http_row_never_shows" in line]
    match = re.search(
        r"every installed HTTP catalog row \((\d+) rows, parametrized from "
        r"`EndpointRegistry.inspect\(\)`; (\d+) cases",
        page(),
    )
    assert match, "docs/reliability.md lost the secret scan's row count"
    assert (int(match.group(1)), int(match.group(2))) == (len(http_rows()), len(cases))
