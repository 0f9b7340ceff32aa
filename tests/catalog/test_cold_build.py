"""Building the catalog pays no provider's request-model validator (issue 15, cold start).

The build reads each request model's declared fields (to check payload defaults and resume
fields) but never validates through it, so a provider's validator is built the first time a
call to that provider validates a payload, not by every command that loads the catalog.
"""

from __future__ import annotations

import json
import subprocess
import sys


def test_catalog_build_leaves_every_request_model_unbuilt() -> None:
    code = (
        "import json\n"
        "from lionagi.service import ProviderCatalog\n"
        "snap = ProviderCatalog().snapshot()\n"
        "entries = [e for k in snap.provider_keys for e in snap.provider(k).endpoints.values()]\n"
        "rows = {f'{e.provider}/{e.key}': e.request_options.__pydantic_complete__\n"
        "        for e in entries if e.request_options is not None}\n"
        "print(json.dumps(rows))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rows = json.loads(out.stdout)
    assert "scripted/chat" in rows  # core's own provider is always installed
    assert "groq/chat/completions" in rows  # deferred rows count once resolved (provider())
    assert {key: built for key, built in rows.items() if built} == {}
