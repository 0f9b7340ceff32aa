"""An HTTP-only program never loads the agentic or subprocess transports (issue 15, cold start).

Nor does a call that succeeds compile the redaction pattern, which only error paths use.

The facade used to import the agentic endpoint class just to ask ``isinstance``; now it asks only
once that module is loaded (an agentic endpoint cannot exist before). Run in a fresh interpreter
against the fake provider server, with an endpoint built directly (no catalog, which loads the
``scripted`` provider and, through it, the agentic room).
"""

from __future__ import annotations

import json
import subprocess
import sys

from lionagi.service_testing import FakeProviderServer

_CODE = """\
import asyncio, json, sys
from lionagi.service import EndpointConfig, iModel
from lionagi.service.http import OpenAIChatEndpoint

async def main(base):
    config = EndpointConfig(
        name="cold", provider="cold", base_url=base + "/v1", endpoint="chat/completions",
        api_key="sk-cold", allow_local_network=True,
    )
    async with iModel(endpoint=OpenAIChatEndpoint(config=config)) as model:
        request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        call = await model.invoke(**request)
        streamed = [chunk async for chunk in model.stream(**request)]
        return call.status.value, len(streamed) > 0, model.to_dict()["provider"]

status, streamed, provider = asyncio.run(main(sys.argv[1]))
ours = sorted(m for m in sys.modules if m.startswith("lionagi.service._transport.")
              and m.split(".")[3] in ("agentic", "subprocess"))
from lionagi.service._base.secrets import shapes
redaction = shapes.cache_info().currsize  # the credential pattern is compiled on an error path only
print(json.dumps({"status": status, "streamed": streamed, "provider": provider, "loaded": ours,
                  "redaction_compiled": redaction}))
"""


def test_http_calls_load_no_agentic_or_subprocess_transport(
    fake_provider_server: FakeProviderServer,
) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _CODE, fake_provider_server.base_url],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)
    assert result == {
        "status": "completed",
        "streamed": True,
        "provider": "cold",
        "loaded": [],
        "redaction_compiled": 0,
    }
